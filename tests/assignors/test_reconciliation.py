"""The scenario's ``reconciliation`` (a live KIP-848 or Streams group between two assignments):
format, schema, round trips, and the pure views on it (progress per member, two readings)."""

from __future__ import annotations

import copy
import dataclasses
import json
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assignors import (
    ClientAssignment,
    MemberReconciliation,
    Reconciliation,
    Scenario,
    ScenarioError,
    StreamsMemberReconciliation,
    StreamsReconciliation,
    TopicPartition,
    parse_scenario,
    parse_scenario_text,
    parse_streams_scenario,
    reading_changes,
    reconciliation_progress,
    scenario_to_json,
    streams_reading_changes,
    streams_reconciliation_progress,
    streams_scenario_to_json,
)
from assignors.io.scenario import schema
from assignors.streams.model import TaskId
from tests.assignors.test_scenario_io import scenarios

VALIDATOR = jsonschema.Draft202012Validator(schema())

#: Mid-reconciliation: c joined; a still owns o-2, which the target moved to c; b holds its target.
GROUP: dict[str, Any] = {
    "group_id": "orders-app",
    "assignor": "uniform",
    "topics": [{"name": "o", "partitions": 6}],
    "members": [
        {"member_id": "a", "topics": ["o"], "owned_partitions": [["o", 0], ["o", 1]]},
        {"member_id": "b", "topics": ["o"], "owned_partitions": [["o", 3], ["o", 4]]},
        {"member_id": "c", "topics": ["o"], "owned_partitions": [["o", 2], ["o", 5]]},
    ],
    "reconciliation": {
        "group_epoch": 9,
        "assignment_epoch": 9,
        "members": [
            {"member_id": "a", "member_epoch": 8, "current": [["o", 0], ["o", 1], ["o", 2]]},
            {"member_id": "b", "member_epoch": 9},
            {"member_id": "c", "member_epoch": 9, "current": [["o", 5]]},
        ],
    },
}


def tp(partition: int) -> TopicPartition:
    return TopicPartition("o", partition)


def test_the_field_loads_and_writes_back_unchanged() -> None:
    scenario, warnings = parse_scenario(GROUP, path="")
    assert warnings == ()
    assert scenario.reconciliation == Reconciliation(
        9,
        9,
        (
            MemberReconciliation("a", 8, (tp(0), tp(1), tp(2))),
            MemberReconciliation("b", 9, None),
            MemberReconciliation("c", 9, (tp(5),)),
        ),
    )
    written = scenario_to_json(scenario)
    assert written["reconciliation"] == GROUP["reconciliation"]
    VALIDATOR.validate(written)
    assert parse_scenario_text(json.dumps(written))[0] == scenario


def test_a_scenario_without_it_still_loads() -> None:
    old = {key: value for key, value in GROUP.items() if key != "reconciliation"}
    scenario, warnings = parse_scenario(old, path="")
    assert scenario.reconciliation is None and warnings == ()
    assert "reconciliation" not in scenario_to_json(scenario)


@settings(max_examples=100, deadline=None)
@given(scenarios(), st.data())
def test_round_trip_with_generated_reconciliations(scenario: Scenario, data: st.DataObject) -> None:
    choices = [TopicPartition(t.name, 0) for t in scenario.topics] or [tp(0)]
    entries = tuple(
        MemberReconciliation(
            member.member_id,
            data.draw(st.integers(-1, 2**31 - 1)),
            data.draw(
                st.none()
                | st.lists(
                    st.sampled_from(choices),
                    unique=True,
                ).map(lambda items: tuple(sorted(items)))
            ),
        )
        for member in scenario.members
        if data.draw(st.booleans())
    )
    epochs = data.draw(st.tuples(st.integers(0, 2**31 - 1), st.integers(0, 2**31 - 1)))
    with_it = dataclasses.replace(scenario, reconciliation=Reconciliation(*epochs, entries))
    written = scenario_to_json(with_it)
    assert parse_scenario_text(json.dumps(written))[0] == with_it
    VALIDATOR.validate(json.loads(json.dumps(written)))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.update(group_epoch=-1), "reconciliation.group_epoch: expected an integer"),
        (lambda r: r.pop("assignment_epoch"), "reconciliation.assignment_epoch: expected an"),
        (lambda r: r["members"][0].update(member_epoch="8"), "members[0].member_epoch: expected"),
        (lambda r: r["members"][1].update(member_id="a"), 'member "a" listed twice'),
        (lambda r: r["members"][0].update(current=[["o"]]), "members[0].current[0]: expected a"),
        (lambda r: r.update(members={}), "reconciliation.members: expected a list"),
    ],
)
def test_mistakes_are_named_with_their_path(change: Any, message: str) -> None:
    raw = copy.deepcopy(GROUP)
    change(raw["reconciliation"])
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(raw, path="")
    assert any(message in problem for problem in caught.value.problems), caught.value.problems
    # The schema cannot see a duplicate id; it rejects every other mistake here too.
    assert VALIDATOR.is_valid(raw) == ("listed twice" in message)


def test_an_entry_for_a_member_not_in_the_group_is_a_warning_and_dropped() -> None:
    raw = copy.deepcopy(GROUP)
    raw["reconciliation"]["members"].append({"member_id": "gone", "member_epoch": 3})
    scenario, warnings = parse_scenario(raw, path="")
    assert warnings == (
        'reconciliation.members[3].member_id: member "gone" is not in the group; entry ignored',
    )
    assert scenario.reconciliation is not None
    assert [e.member_id for e in scenario.reconciliation.members] == ["a", "b", "c"]


def test_progress_names_pending_revocation_and_assignment() -> None:
    scenario, _ = parse_scenario(GROUP, path="")
    a, b, c = reconciliation_progress(scenario)
    assert (a.current, a.target) == ((tp(0), tp(1), tp(2)), (tp(0), tp(1)))
    assert a.pending_revocation == (tp(2),) and a.pending_assignment == ()
    assert a.epoch_behind and a.reconciling
    assert b.current == b.target and not b.reconciling and b.member_epoch == 9
    assert c.pending_revocation == () and c.pending_assignment == (tp(2),)
    assert dict(c.released_by) == {tp(2): "a"}
    assert c.reconciling and not c.epoch_behind


def test_a_classic_group_has_progress_without_epochs() -> None:
    old = {key: value for key, value in GROUP.items() if key != "reconciliation"}
    progress = reconciliation_progress(parse_scenario(old, path="")[0])
    assert [p.member_epoch for p in progress] == [None, None, None]
    assert not any(p.reconciling for p in progress)


def test_two_readings_name_what_changed() -> None:
    before, _ = parse_scenario(GROUP, path="")
    after_raw = copy.deepcopy(GROUP)
    after_raw["members"].append({"member_id": "d", "topics": ["o"]})
    after_raw["reconciliation"] = {
        "group_epoch": 10,
        "assignment_epoch": 9,
        "members": [
            {"member_id": "a", "member_epoch": 9},
            {"member_id": "c", "member_epoch": 9},
        ],
    }
    after_raw["members"] = [m for m in after_raw["members"] if m["member_id"] != "b"]
    after, _ = parse_scenario(after_raw, path="")
    changes = reading_changes(before, after)
    assert changes.joined == ("d",) and changes.left == ("b",)
    assert dict(changes.lost) == {"a": (tp(2),)}
    assert dict(changes.gained) == {"c": (tp(2),)}
    assert changes.group_epoch == (9, 10) and changes.assignment_epoch == (9, 9)
    assert changes.target_changed == () and changes.any
    assert dict(changes.member_epochs) == {"a": (8, 9)}
    assert not reading_changes(after, after).any


STREAMS: dict[str, Any] = {
    "tasks": [{"id": "0_0", "stateful": False}, {"id": "0_1", "stateful": False}],
    "clients": [
        {"process_id": "00000000-0000-0000-0000-000000000001", "capacity": 1,
         "prev_active": ["0_0", "0_1"]},
        {"process_id": "00000000-0000-0000-0000-000000000002", "capacity": 1},
    ],
    "reconciliation": {
        "group_epoch": 4,
        "assignment_epoch": 4,
        "members": [
            {"member_id": "m1", "process_id": "00000000-0000-0000-0000-000000000001",
             "member_epoch": 3,
             "current": {"active": ["0_0", "0_1"], "standby": [], "warmup": []},
             "target": {"active": ["0_0"], "standby": [], "warmup": []}},
            {"member_id": "m2", "process_id": "00000000-0000-0000-0000-000000000002",
             "member_epoch": 4,
             "current": {"active": [], "standby": [], "warmup": []},
             "target": {"active": ["0_1"], "standby": [], "warmup": []}},
        ],
    },
}  # fmt: skip


def test_a_streams_reconciliation_round_trips_and_shows_progress() -> None:
    streams = parse_streams_scenario(STREAMS, path="")
    assert streams.reconciliation == StreamsReconciliation(
        4,
        4,
        (
            StreamsMemberReconciliation(
                "m1",
                "00000000-0000-0000-0000-000000000001",
                3,
                ClientAssignment.of([TaskId(0, 0), TaskId(0, 1)], []),
                ClientAssignment.of([TaskId(0, 0)], []),
            ),
            StreamsMemberReconciliation(
                "m2",
                "00000000-0000-0000-0000-000000000002",
                4,
                ClientAssignment(),
                ClientAssignment.of([TaskId(0, 1)], []),
            ),
        ),
    )
    assert parse_streams_scenario(streams_scenario_to_json(streams), path="") == streams
    m1, m2 = streams_reconciliation_progress(streams)
    assert m1.pending_revocation["active"] == (TaskId(0, 1),) and m1.epoch_behind
    assert m2.pending_assignment["active"] == (TaskId(0, 1),) and not m2.epoch_behind
    without = {key: value for key, value in STREAMS.items() if key != "reconciliation"}
    assert parse_streams_scenario(without, path="").reconciliation is None
    assert streams_reconciliation_progress(parse_streams_scenario(without, path="")) == ()


def test_a_streams_entry_names_a_known_task_and_client() -> None:
    raw = copy.deepcopy(STREAMS)
    raw["reconciliation"]["members"][0]["current"]["active"] = ["7_7"]
    with pytest.raises(ScenarioError) as caught:
        parse_streams_scenario(raw, path="")
    assert any("current.active[0]: unknown task" in p for p in caught.value.problems)
    raw = copy.deepcopy(STREAMS)
    raw["reconciliation"]["members"][1]["process_id"] = "00000000-0000-0000-0000-000000000009"
    streams = parse_streams_scenario(raw, path="")
    assert streams.reconciliation is not None and len(streams.reconciliation.members) == 1
    assert any("is not one of the clients" in w for w in streams.warnings)


def test_two_readings_of_a_streams_group_name_what_changed_per_member_and_kind() -> None:
    after = copy.deepcopy(STREAMS)
    after["reconciliation"].update(group_epoch=5, assignment_epoch=5)
    after["reconciliation"]["members"] = [
        {"member_id": "m1", "process_id": "00000000-0000-0000-0000-000000000001",
         "member_epoch": 5, "current": {"active": ["0_0"], "standby": [], "warmup": []}},
        {"member_id": "m2", "process_id": "00000000-0000-0000-0000-000000000002",
         "member_epoch": 4,
         "current": {"active": ["0_1"], "standby": ["0_0"], "warmup": ["0_0"]}},
        {"member_id": "m3", "process_id": "00000000-0000-0000-0000-000000000001",
         "member_epoch": 5, "current": {"active": [], "standby": [], "warmup": []}},
    ]  # fmt: skip
    before_reading = parse_streams_scenario(STREAMS, path="")
    changes = streams_reading_changes(before_reading, parse_streams_scenario(after, path=""))
    assert (changes.joined, changes.left) == (("m3",), ())
    assert (changes.group_epoch, changes.assignment_epoch) == ((4, 5), (4, 5))
    assert changes.lost == {"m1": {"active": (TaskId(0, 1),)}}
    # A warm-up is named as one, not also as a standby.
    assert changes.gained == {"m2": {"active": (TaskId(0, 1),), "warmup": (TaskId(0, 0),)}}
    assert changes.target_changed == ("m2",)  # m1 keeps target 0_0; m2 gets a warm-up too
    assert changes.member_epochs == {"m1": (3, 5)}
    assert changes.any
    same = streams_reading_changes(before_reading, before_reading)
    assert not same.any and same.gained == {} and same.joined == ()
    without = {key: value for key, value in STREAMS.items() if key != "reconciliation"}
    unread = streams_reading_changes(
        parse_streams_scenario(without, path=""), parse_streams_scenario(without, path="")
    )
    assert not unread.any and unread.group_epoch == (None, None)

"""The ``streams-group-sticky`` strategy: the Streams-group ``StickyTaskAssignor`` (KIP-1071).

Worked examples traced by hand from the steps in ``assignors/streams/group_sticky.py`` (chosen so
that no answer hangs on Java's hash order), the members part of the Streams scenario parser,
and invariants on generated groups. Parity with Kafka itself: ``streams-group.jsonl`` in the
conformance suite and the differential test.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assignors import (
    ScenarioError,
    StreamsMember,
    TaskStrategy,
    assign_streams_group_sticky,
    parse_streams_scenario,
    registry,
    streams_scenario_to_json,
)
from assignors.streams.group_sticky import group_members
from assignors.streams.model import TaskId
from tests.differential.generate import streams_group_scenario

STRATEGY = registry.get("streams-group-sticky")
P1 = "00000000-0000-0000-0000-000000000001"
P2 = "00000000-0000-0000-0000-000000000002"
P3 = "00000000-0000-0000-0000-000000000003"


def tasks(subtopology: int, partitions: int, stateful: bool) -> list[dict[str, Any]]:
    return [{"id": f"{subtopology}_{p}", "stateful": stateful} for p in range(partitions)]


def process(process_id: str, *members: dict[str, Any], lags: dict[str, int] | None = None) -> Any:
    return {
        "process_id": process_id,
        "capacity": len(members),
        "task_lags": lags or {},
        "members": list(members),
    }


def run(scenario: dict[str, Any]) -> dict[str, Any]:
    assert isinstance(STRATEGY, TaskStrategy)
    return STRATEGY.to_json(STRATEGY.compute(STRATEGY.parse(scenario)))["members"]


def test_registered_as_a_broker_side_task_strategy() -> None:
    assert isinstance(STRATEGY, TaskStrategy)
    assert STRATEGY.protocol == "consumer"
    assert "group.protocol=streams" in STRATEGY.consumer_config
    assert "streams.num.standby.replicas" in STRATEGY.consumer_config


def test_previous_actives_stay_up_to_the_active_quota() -> None:
    """Quota ceil(4/2) = 2: a keeps 0_0 and 0_1, its 0_2 goes to the less loaded process."""
    scenario = {
        "tasks": tasks(0, 4, False),
        "clients": [
            process(P1, {"member_id": "a", "prev_active": ["0_0", "0_1", "0_2"]}),
            process(P2, {"member_id": "b", "prev_active": ["0_3"]}),
        ],
    }
    answer = run(scenario)
    assert answer["a"] == {"process_id": P1, "active": ["0_0", "0_1"], "standby": []}
    assert answer["b"] == {"process_id": P2, "active": ["0_2", "0_3"], "standby": []}


def test_subtopology_ids_order_as_text() -> None:
    """The leftover tasks go out in (subtopology text, partition) order: 10_0 before 2_0.

    a keeps 2_1; b (load 0) takes 10_0 first; then both processes carry one task, and the heap
    hands out a, so 2_0 joins a. In numeric order b would have taken 2_0 instead.
    """
    scenario = {
        "tasks": tasks(2, 2, False) + tasks(10, 1, False),
        "clients": [
            process(P1, {"member_id": "a", "prev_active": ["2_1"]}),
            process(P2, {"member_id": "b"}),
        ],
    }
    answer = run(scenario)
    assert answer["a"]["active"] == ["2_0", "2_1"]
    assert answer["b"]["active"] == ["10_0"]


def test_offset_sums_rank_the_previous_owners() -> None:
    """Kafka 4.4: members that reported offsets count as candidates, the highest offset first.

    a runs both tasks but the quota is ceil(2/3) = 1: it keeps 0_0; 0_1 goes to c (offset 900)
    rather than b (50), although b comes first in member order. Standbys: 0_1 goes back to its
    previous active owner a; 0_0 (whose process A runs it) to b, whose offset 800 beats c's 100.
    """
    lags = {"0_0": 0, "0_1": 0}
    scenario = {
        "tasks": tasks(0, 2, True),
        "clients": [
            process(
                P1,
                {"member_id": "a", "prev_active": ["0_0", "0_1"], "task_offsets": {"0_0": -2}},
                lags=lags,
            ),
            process(P2, {"member_id": "b", "task_offsets": {"0_0": 800, "0_1": 50}}, lags=lags),
            process(P3, {"member_id": "c", "task_offsets": {"0_0": 100, "0_1": 900}}, lags=lags),
        ],
        "config": {"num_standby_replicas": 1},
    }
    answer = run(scenario)
    assert (answer["a"]["active"], answer["a"]["standby"]) == (["0_0"], ["0_1"])
    assert (answer["b"]["active"], answer["b"]["standby"]) == ([], ["0_0"])
    assert (answer["c"]["active"], answer["c"]["standby"]) == (["0_1"], [])


def versions(scenario: dict[str, Any], *lines: str) -> dict[str, dict[str, Any]]:
    """``run`` of ``scenario`` as each of ``lines``: line -> member -> (active, standby)."""
    answers = {}
    for line in lines:
        answer = run({**scenario, "kafka_version": line})
        answers[line] = {m: (t["active"], t["standby"]) for m, t in answer.items()}
    return answers


def test_before_44_reported_offsets_make_no_candidates() -> None:
    """Kafka 4.2 and 4.3 read no offset sums. Active quota ceil(3/4) = 1: a keeps 0_0, b2 keeps
    1_0; 0_1 (a's too) is left. As 4.4, b, which reported an offset for 0_1 and has nothing yet,
    is its candidate and takes it; as 4.2 and 4.3 0_1 has no candidate and goes to the least
    loaded process: P3 (load 0; P1 1, P2 1/2), so to c."""
    lags = {"0_0": 0, "0_1": 0}
    scenario = {
        "tasks": tasks(0, 2, True) + tasks(1, 1, False),
        "clients": [
            process(P1, {"member_id": "a", "prev_active": ["0_0", "0_1"]}, lags=lags),
            process(
                P2,
                {"member_id": "b", "task_offsets": {"0_1": 900}},
                {"member_id": "b2", "prev_active": ["1_0"]},
                lags=lags,
            ),
            process(P3, {"member_id": "c"}, lags=lags),
        ],
    }
    answers = versions(scenario, "4.4", "4.3", "4.2")
    assert answers["4.4"]["b"] == (["0_1"], [])
    assert answers["4.3"]["c"] == answers["4.2"]["c"] == (["0_1"], [])


def test_kafka_43_gives_up_when_the_first_candidate_holds_the_task() -> None:
    """One standby of 0_0; a keeps 0_0 active. Member order b2, a, a2, b, c (buckets of their
    ``String.hashCode``: 0, 1, 1, 2, 3), so 0_0's standby candidates are a2, then b. The total
    quota is ceil(3/5) = 1. 4.2 and 4.4 skip a2 (its process P1 holds 0_0) and give the standby
    to b. 4.3 starts from a2, does not switch to b (P2's load 1/2 is not below P1's), and, as
    a2's process holds 0_0, gives up: the least loaded process, P3, takes it, so c."""
    lags = {"0_0": 0}
    scenario = {
        "tasks": [{"id": "0_0", "stateful": True}, {"id": "1_0", "stateful": False}],
        "clients": [
            process(
                P1,
                {"member_id": "a", "prev_active": ["0_0"]},
                {"member_id": "a2", "prev_standby": ["0_0"]},
                lags=lags,
            ),
            process(
                P2,
                {"member_id": "b", "prev_standby": ["0_0"]},
                {"member_id": "b2", "prev_active": ["1_0"]},
                lags=lags,
            ),
            process(P3, {"member_id": "c"}, lags=lags),
        ],
        "config": {"num_standby_replicas": 1},
    }
    answers = versions(scenario, "4.4", "4.3", "4.2")
    assert answers["4.4"]["b"] == answers["4.2"]["b"] == ([], ["0_0"])
    assert answers["4.3"]["b"] == ([], [])
    assert answers["4.3"]["c"] == ([], ["0_0"])


def test_a_client_without_members_stands_for_its_threads() -> None:
    scenario = parse_streams_scenario(
        {
            "tasks": tasks(0, 3, False),
            "clients": [{"process_id": P1, "capacity": 2, "prev_active": ["0_2", "0_0", "0_1"]}],
        }
    )
    members = group_members(scenario.clients[0])
    assert [m.member_id for m in members] == [f"{P1}-StreamThread-1", f"{P1}-StreamThread-2"]
    assert [m.prev_active for m in members] == [
        (TaskId(0, 0), TaskId(0, 2)),
        (TaskId(0, 1),),
    ]


def test_members_parse_and_round_trip() -> None:
    raw = {
        "tasks": tasks(0, 2, True),
        "clients": [
            process(
                P1,
                {"member_id": "a", "prev_active": ["0_1"], "task_offsets": {"0_0": 7}},
                {"member_id": "b", "prev_standby": ["0_0", "0_1"]},
                lags={"0_0": 0, "0_1": -2},
            )
        ],
    }
    scenario = parse_streams_scenario(raw)
    client = scenario.clients[0]
    assert client.prev_active == (TaskId(0, 1),)
    assert client.prev_standby == (TaskId(0, 0),)  # 0_1 is active on the process already
    assert client.members[0] == StreamsMember("a", (TaskId(0, 1),), (), {TaskId(0, 0): 7})
    assert parse_streams_scenario(streams_scenario_to_json(scenario)) == scenario


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"capacity": 3}, "capacity must equal the number of members"),
        ({"prev_active": ["0_0"]}, "gives the previous tasks per member"),
        ({"members": [{"member_id": ""}]}, "members[0].member_id: expected a non-empty string"),
        ({"members": [{"member_id": "a", "task_offsets": {"0_9": 1}}]}, 'unknown task "0_9"'),
        (
            {"members": [{"member_id": "a", "prev_active": ["0_0"], "prev_standby": ["0_0"]}]},
            "also in prev_active",
        ),
    ],
)
def test_member_problems_are_reported_with_their_path(change: dict[str, Any], message: str) -> None:
    client = process(P1, {"member_id": "a"}, {"member_id": "b"}) | change
    if "members" in change:
        client["capacity"] = len(change["members"])
    with pytest.raises(ScenarioError) as error:
        parse_streams_scenario({"tasks": tasks(0, 2, False), "clients": [client]})
    assert message in str(error.value)
    assert "scenario.clients[0]" in str(error.value)


def test_a_member_id_is_unique_in_the_group() -> None:
    clients = [process(P1, {"member_id": "a"}), process(P2, {"member_id": "a"})]
    with pytest.raises(ScenarioError, match='member "a" listed twice'):
        parse_streams_scenario({"tasks": tasks(0, 1, False), "clients": clients})


@pytest.mark.parametrize(
    ("task_list", "message"),
    [
        ([*tasks(0, 1, True), {"id": "0_1", "stateful": False}], "mixes stateful and stateless"),
        ([{"id": "0_0"}, {"id": "0_2"}], "one task per partition 0..n-1"),
    ],
)
def test_tasks_must_describe_subtopologies(task_list: list[dict[str, Any]], message: str) -> None:
    lags = {t["id"]: 0 for t in task_list if t.get("stateful")}
    scenario = parse_streams_scenario(
        {"tasks": task_list, "clients": [{"process_id": P1, "capacity": 1, "task_lags": lags}]}
    )
    with pytest.raises(ScenarioError, match=message):
        assign_streams_group_sticky(scenario)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32), line=st.sampled_from(["4.2", "4.3", "4.4"]))
def test_invariants_on_generated_groups(seed: int, line: str) -> None:
    """Every task active once; no process holds two replicas of a task; standbys within bounds
    (as every line answered)."""
    raw = streams_group_scenario(random.Random(seed))
    scenario = parse_streams_scenario({**raw, "kafka_version": line})
    answer = assign_streams_group_sticky(scenario)
    members = [m.member_id for c in scenario.clients for m in group_members(c)]
    assert list(answer.members) == members
    active = [t for tasks in answer.members.values() for t in tasks.active]
    assert sorted(active) == [task.id for task in scenario.tasks]
    stateful = set(scenario.stateful_tasks)
    standbys = [t for tasks in answer.members.values() for t in tasks.standby]
    assert set(standbys) <= stateful
    for task in stateful:
        assert standbys.count(task) <= scenario.config.num_standby_replicas
    by_process: dict[str, list[TaskId]] = {}
    for tasks_of_member in answer.members.values():
        held = by_process.setdefault(tasks_of_member.process_id, [])
        held += [*tasks_of_member.active, *tasks_of_member.standby]
    for held in by_process.values():
        assert len(held) == len(set(held))

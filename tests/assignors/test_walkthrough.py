"""Walkthroughs as a specification: steps read as the core's changes, apply like any change.

* Reading: steps parse into :mod:`assignors.simulate.changes` types (members leave, topics grow,
  members join, in that order), plus the step's strategy switch and ``carry_assignment``; the JSON
  form round-trips, for the examples here and for every shipped sample.
* A bad-input corpus: each walkthrough has one mistake and the exact message (with its JSON path)
  the reader must give; unknown fields and claims on partitions that do not exist are warnings.
* Applying a step: with ``carry_assignment`` the members own what the step before showed, in a
  new generation (exactly :func:`assignors.simulate.changes.apply_changes`); without it they keep
  what they own; a step that changes nothing leaves the scenario alone.
* Properties: arbitrary JSON gives steps or a ScenarioError; a generated walkthrough of joins,
  leaves and growth round-trips and applies as the same changes through the core.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sample_data
from assignors.errors import ScenarioError
from assignors.io.changes import change_to_json
from assignors.io.scenario import parse_scenario, read_json_file
from assignors.io.walkthrough import (
    MAX_WALKTHROUGH_STEPS,
    WalkthroughStep,
    apply_step,
    parse_walkthrough,
    walkthrough_to_json,
)
from assignors.model import Assignment, TopicPartition
from assignors.simulate import changes
from assignors.simulate.changes import AddMember, RemoveMember, SetPartitions, Subscribe
from tests.assignors.test_scenario_io import BASE  # orders (3 partitions, offsets); a and b

SCENARIO, _ = parse_scenario(BASE, path="")

WALKTHROUGH: list[dict[str, Any]] = [
    {"title": "Start", "text": "Two members."},
    {
        "title": "c joins, orders grows",
        "text": "A third member and two more partitions.",
        "change": {
            "add_members": [{"member_id": "c", "topics": ["orders"], "host": "/10.0.0.3"}],
            "partitions": {"orders": 5},
        },
    },
    {"title": "a leaves", "text": "Only a's partitions move.", "change": {"remove_members": ["a"]}},
    {
        "title": "Compare",
        "text": "Same moment under another strategy.",
        "change": {"assignor": "roundrobin", "carry_assignment": False},
    },
]


def _parse(walkthrough: object) -> tuple[tuple[WalkthroughStep, ...], tuple[str, ...]]:
    return parse_walkthrough({**BASE, "walkthrough": walkthrough}, SCENARIO)


def test_steps_read_as_the_core_changes_and_round_trip() -> None:
    steps, warnings = _parse(WALKTHROUGH)
    assert warnings == ()
    assert steps == (
        WalkthroughStep("Start", "Two members."),
        WalkthroughStep(
            "c joins, orders grows",
            "A third member and two more partitions.",
            (SetPartitions("orders", 5), AddMember("c", ("orders",), host="/10.0.0.3")),
        ),
        WalkthroughStep("a leaves", "Only a's partitions move.", (RemoveMember("a"),)),
        WalkthroughStep(
            "Compare",
            "Same moment under another strategy.",
            assignor="roundrobin",
            carry_assignment=False,
        ),
    )
    assert [step.rebalances for step in steps] == [False, True, True, True]
    assert walkthrough_to_json(steps) == WALKTHROUGH
    assert parse_walkthrough(BASE, SCENARIO) == ((), ())
    assert parse_walkthrough({**BASE, "walkthrough": WALKTHROUGH}) == (steps, ())


@pytest.mark.parametrize(
    "info",
    [info for info in sample_data.list_samples() if info.kind == "consumer-group"],
    ids=lambda info: info.key,
)
def test_every_sample_walkthrough_round_trips(info: sample_data.SampleInfo) -> None:
    raw = read_json_file(info.path)
    assert isinstance(raw, dict)
    steps, warnings = parse_walkthrough(raw)
    assert warnings == ()
    assert walkthrough_to_json(steps) == raw.get("walkthrough", [])


@pytest.mark.parametrize(
    "info",
    [info for info in sample_data.list_samples() if info.kind == "consumer-group"],
    ids=lambda info: info.key,
)
def test_every_sample_walkthrough_reads_the_same_in_the_one_change_form(
    info: sample_data.SampleInfo,
) -> None:
    raw = read_json_file(info.path)
    assert isinstance(raw, dict)
    steps, _ = parse_walkthrough(raw)
    rewritten = []
    for step, parsed in zip(raw.get("walkthrough", []), steps, strict=True):
        change = step.get("change")
        if change is not None:
            kept = {k: v for k, v in change.items() if k in ("assignor", "carry_assignment")}
            listed = [change_to_json(c) for c in parsed.changes]
            step = {**step, "change": {**kept, **({"changes": listed} if listed else {})}}
        rewritten.append(step)
    assert parse_walkthrough({**raw, "walkthrough": rewritten})[0] == steps


def _step(change: object) -> list[dict[str, Any]]:
    return [{"title": "x", "text": "y", "change": change}]


ERRORS: list[tuple[str, object, str]] = [
    ("not a list", {"title": "x"}, "walkthrough: expected a list of steps, got an object"),
    (
        "too many steps",
        [{"title": "x", "text": "y"}] * (MAX_WALKTHROUGH_STEPS + 1),
        f"walkthrough: {MAX_WALKTHROUGH_STEPS + 1} steps; at most {MAX_WALKTHROUGH_STEPS}",
    ),
    ("step not an object", ["hello"], "walkthrough[0]: expected a step object with title and"),
    ("step without a title", [{"text": "y"}], "walkthrough[0].title: expected a string, got null"),
    ("empty text", [{"title": "x", "text": ""}], "walkthrough[0].text: expected a non-empty"),
    ("change not an object", _step([]), "walkthrough[0].change: expected a change object, got a"),
    (
        "remove_members not a list",
        _step({"remove_members": "a"}),
        "walkthrough[0].change.remove_members: expected a list of member ids, got a string",
    ),
    (
        "a member id that is not a string",
        _step({"remove_members": [3]}),
        "walkthrough[0].change.remove_members[0]: expected a string, got an integer",
    ),
    (
        "removes a member that is not there",
        _step({"remove_members": ["a", "zed"]}),
        "walkthrough[0].change.remove_members[1]: no member 'zed' in the group (members: b)",
    ),
    (
        "partitions not an object",
        _step({"partitions": ["orders", 5]}),
        "walkthrough[0].change.partitions: expected an object topic -> new partition count",
    ),
    (
        "partition count not an integer",
        _step({"partitions": {"orders": "5"}}),
        "walkthrough[0].change.partitions.orders: expected an integer, got a string",
    ),
    (
        "shrinks a topic",
        _step({"partitions": {"orders": 2}}),
        "walkthrough[0].change.partitions.orders: partitions: topic 'orders' has 3 partitions"
        " and Kafka cannot shrink a topic to 2",
    ),
    (
        "grows a topic that does not exist",
        _step({"partitions": {"ghost": 4}}),
        "walkthrough[0].change.partitions.ghost: partitions: no topic 'ghost' in the scenario",
    ),
    (
        "adds a member that is there",
        _step({"add_members": [{"member_id": "a", "topics": ["orders"]}]}),
        "walkthrough[0].change.add_members[0]: add member: 'a' is already in the group",
    ),
    (
        "adds a member without topics",
        _step({"add_members": [{"member_id": "c"}]}),
        "walkthrough[0].change.add_members[0].topics: expected a list of topic names"
        ' (or "*": every topic), got null',
    ),
    (
        "adds a member twice in one step",
        _step({"add_members": [{"member_id": "c", "topics": ["orders"]}] * 2}),
        'walkthrough[0].change.add_members[1].member_id: duplicate member "c"',
    ),
    (
        "adds a member to a topic that does not exist",
        _step({"add_members": [{"member_id": "c", "topics": ["ghost"]}]}),
        "walkthrough[0].change.add_members[0]: add member 'c': no topic 'ghost' in the scenario",
    ),
    (
        "a member leaves and joins in one step",
        _step({"remove_members": ["a"], "add_members": [{"member_id": "a", "topics": ["orders"]}]}),
        "walkthrough[0].change.add_members[0]: add member: 'a' is removed by this same change",
    ),
    (
        "carry_assignment not a boolean",
        _step({"carry_assignment": "no"}),
        "walkthrough[0].change.carry_assignment: expected true or false, got a string",
    ),
    (
        "a later step removes a member an earlier one removed",
        [*_step({"remove_members": ["a"]}), *_step({"remove_members": ["a"]})],
        "walkthrough[1].change.remove_members[0]: no member 'a' in the group (members: b)",
    ),
]


@pytest.mark.parametrize(("mistake", "walkthrough", "message"), ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_walkthroughs_get_their_specific_message(
    mistake: str, walkthrough: object, message: str
) -> None:
    with pytest.raises(ScenarioError) as error:
        _parse(walkthrough)
    assert any(problem.startswith(message) for problem in error.value.problems), (
        f"{mistake}: got {error.value.problems}"
    )


def test_every_problem_is_reported_at_once() -> None:
    walkthrough = [{"text": "y"}, *_step({"remove_members": ["zed"]}), *_step({"partitions": 1})]
    with pytest.raises(ScenarioError) as error:
        _parse(walkthrough)
    assert [problem.split(":", 1)[0] for problem in error.value.problems] == [
        "walkthrough[0].title",
        "walkthrough[1].change.remove_members[0]",
        "walkthrough[2].change.partitions",
    ]


def test_unknown_fields_and_impossible_claims_are_warnings() -> None:
    joining = {"member_id": "c", "topics": ["orders"], "owned_partitions": [["orders", 4]]}
    walkthrough = [
        {"title": "x", "text": "y", "note": "typo"},
        *_step({"add_members": [joining], "colour": "red"}),
        # The same claim is fine once the step itself grows the topic to 5 partitions.
        *_step({"partitions": {"orders": 5}, "add_members": [{**joining, "member_id": "d"}]}),
    ]
    steps, warnings = _parse(walkthrough)
    assert len(steps) == 3
    assert [warning.split(":", 1)[0] for warning in warnings] == [
        "walkthrough[0].note",
        "walkthrough[1].change.colour",
        "walkthrough[1].change.add_members[0].owned_partitions[0]",
    ]
    known = "title, text, change, view, question"
    assert f"unknown field, ignored (known fields: {known})" in warnings[0]


def test_a_joining_member_keeps_every_member_field() -> None:
    joining = {
        "member_id": "c",
        "topics": ["orders"],
        "rack": "r1",
        "group_instance_id": "host-c",
        "client_id": "app",
        "host": "/10.0.0.3",
        "priority": 3,
        "consume_rate": 12.5,
        "owned_partitions": [["orders", 2]],
        "generation": 4,
    }
    steps, _ = _parse(_step({"add_members": [joining]}))
    expected, _ = parse_scenario({**BASE, "members": [joining]}, path="")
    assert apply_step(SCENARIO, steps[0], None).members[-1] == expected.members[0]
    assert walkthrough_to_json(steps) == _step({"add_members": [joining]})


# --- applying a step ---------------------------------------------------------------------------

PREVIOUS = Assignment.of(
    ["a", "b"],
    {
        "a": [TopicPartition("orders", 0), TopicPartition("orders", 1)],
        "b": [TopicPartition("orders", 2)],
    },
)


def test_a_step_carries_the_previous_assignment_into_a_new_generation() -> None:
    steps, _ = _parse(WALKTHROUGH)
    grown = apply_step(SCENARIO, steps[1], PREVIOUS)
    assert grown == changes.apply_changes(SCENARIO, steps[1].changes, PREVIOUS)
    assert [m.member_id for m in grown.members] == ["a", "b", "c"]
    assert grown.members[0].owned_partitions == PREVIOUS.partitions["a"]
    assert grown.members[0].generation == 1 and grown.members[2].generation is None
    assert grown.members[2].owned_partitions == ()
    topic = grown.topics[0]
    assert topic.partitions == 5
    assert topic.log_end_offsets == (100, 200, 50, 0, 0)
    assert topic.committed_offsets == (40, None, 50, None, None)
    assert grown.assignor is None

    left = apply_step(grown, steps[2], Assignment.of(["b", "c"], {"b": PREVIOUS.partitions["b"]}))
    assert [m.member_id for m in left.members] == ["b", "c"]
    assert left.members[0].owned_partitions == PREVIOUS.partitions["b"]
    assert left.members[1].owned_partitions == () and left.members[1].generation == 2


def test_without_carry_the_members_keep_what_they_own_and_the_strategy_switches() -> None:
    steps, _ = _parse(WALKTHROUGH)
    compared = apply_step(SCENARIO, steps[3], PREVIOUS)
    assert compared.assignor == "roundrobin"
    assert compared.members == SCENARIO.members


@pytest.mark.parametrize("change", [None, {}, {"carry_assignment": False}])
def test_a_step_that_changes_nothing_leaves_the_scenario_alone(change: object) -> None:
    (step,), _ = _parse(_step(change))
    assert not step.rebalances and step.changes == () and step.assignor is None
    assert apply_step(SCENARIO, step, PREVIOUS) is SCENARIO


def test_a_change_that_does_not_fit_raises_the_core_error() -> None:
    with pytest.raises(changes.ChangeError, match="no member 'zed'"):
        apply_step(SCENARIO, WalkthroughStep("x", "y", (RemoveMember("zed"),)), PREVIOUS)


@pytest.mark.parametrize(
    "change",
    [Subscribe("a", ("orders",)), RemoveMember("a", static_restart=True), AddMember("c")],
    ids=changes.describe,
)
def test_changes_the_grouped_fields_cannot_hold_are_written_in_the_one_change_form(
    change: changes.Change,
) -> None:
    # Before the one change format, these were refused ("has no walkthrough form").
    written = walkthrough_to_json([WalkthroughStep("x", "y", (change,))])
    assert written == [{"title": "x", "text": "y", "change": {"changes": [change_to_json(change)]}}]


def test_a_change_with_no_form_at_all_is_refused_when_writing() -> None:
    owning = AddMember("c", ("orders",), owned_partitions=(TopicPartition("orders", 0),))
    step = WalkthroughStep("x", "y", (owning, Subscribe("a", ("orders",))))
    with pytest.raises(ScenarioError, match=r"walkthrough\[0\].change: .* no change form"):
        walkthrough_to_json([step])


def test_a_step_in_the_one_change_form_reads_like_the_grouped_form() -> None:
    grouped = {"remove_members": ["a"], "partitions": {"orders": 6}}
    listed = {
        "changes": [
            {"op": "remove_member", "member_id": "a"},
            {"op": "set_partitions", "topic": "orders", "partitions": 6},
        ]
    }
    assert _parse(_step(grouped))[0][0].changes == _parse(_step(listed))[0][0].changes


def test_a_malformed_change_in_the_list_is_an_error_at_its_path() -> None:
    listed = {"changes": [{"op": "set_partitions", "topic": "orders", "partitions": 50_000_000}]}
    with pytest.raises(ScenarioError, match=r"walkthrough\[0\].change.changes\[0\] .*1,000,000"):
        _parse(_step(listed))


# --- properties --------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10) | st.text(max_size=3),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner, max_size=3)
    ),
    max_leaves=12,
)
change_objects = st.fixed_dictionaries(
    {},
    optional={
        "add_members": json_values
        | st.lists(
            st.fixed_dictionaries(
                {"member_id": st.sampled_from(["a", "c", "d"]), "topics": st.just(["orders"])}
            ),
            max_size=2,
        ),
        "remove_members": json_values | st.lists(st.sampled_from(["a", "b", "c"]), max_size=2),
        "partitions": json_values | st.dictionaries(st.just("orders"), st.integers(0, 8)),
        "assignor": json_values,
        "carry_assignment": json_values,
    },
)


@settings(max_examples=300, deadline=None)
@given(
    json_values
    | st.lists(
        st.fixed_dictionaries(
            {"title": json_values, "text": json_values},
            optional={"change": json_values | change_objects},
        ),
        max_size=4,
    )
)
def test_arbitrary_json_gives_steps_or_a_scenario_error(walkthrough: object) -> None:
    try:
        steps, _ = _parse(walkthrough)
    except ScenarioError as error:
        assert error.problems and all(": " in problem for problem in error.problems)
    else:
        assert _parse(walkthrough_to_json(steps)) == (steps, ())


@st.composite
def walkthroughs(draw: st.DrawFn) -> list[WalkthroughStep]:
    """Steps that fit the group as the steps before them leave it."""
    members = ["a", "b"]
    partitions = 3
    steps = []
    for index in range(draw(st.integers(0, 5))):
        step_changes: list[changes.Change] = []
        leaving = draw(st.lists(st.sampled_from(members), unique=True)) if members else []
        step_changes += [RemoveMember(member) for member in leaving]
        if draw(st.booleans()):
            partitions += draw(st.integers(1, 3))
            step_changes.append(SetPartitions("orders", partitions))
        joining = [f"m{index}-{n}" for n in range(draw(st.integers(0, 2)))]
        step_changes += [AddMember(member, ("orders",)) for member in joining]
        members = [m for m in members if m not in leaving] + joining
        assignor = draw(st.sampled_from([None, "range", "roundrobin"]))
        carry = draw(st.booleans()) if step_changes or assignor else True
        steps.append(WalkthroughStep(f"step {index}", "text", tuple(step_changes), assignor, carry))
    return steps


@settings(max_examples=100, deadline=None)
@given(walkthroughs())
def test_a_generated_walkthrough_round_trips_and_applies_as_core_changes(
    steps: list[WalkthroughStep],
) -> None:
    parsed, warnings = _parse(walkthrough_to_json(steps))
    assert list(parsed) == steps and warnings == ()
    scenario = SCENARIO
    for step in steps:
        previous = changes.current_assignment(scenario)
        after = apply_step(scenario, step, previous)
        if not step.rebalances:
            expected = scenario
        elif step.carry_assignment:
            expected = changes.apply_changes(scenario, step.changes, previous)
        else:
            expected = changes.apply_in_order(scenario, step.changes)
        if step.assignor is not None:
            expected = replace(expected, assignor=step.assignor)
        assert after == expected
        scenario = after

"""The Teach panel's pure helpers: a walkthrough step as what-if edits, its strategy, its hint.

Specification: showing a step that carries the assignment (the step's changes as what-if edits on
the group as the steps before left it) gives the group the walkthrough replay gives: the same
members, subscriptions and owners, the same topics. The strategy in force is the last switch so
far, else the sample's own.
"""

from __future__ import annotations

import pytest

import sample_data
from assignors.errors import AssignmentExplorerError
from assignors.io.walkthrough import WalkthroughStep
from assignors.model import Scenario, TopicPartition
from assignors.simulate import changes
from assignors.simulate.changes import AddMember, RemoveMember, SetPartitions
from dashboard.model import whatif
from dashboard.panels import teach_panel
from dashboard.session import samples

CARRYING_STEPS = [
    (info.key, index)
    for info in sample_data.list_samples()
    if info.kind == "consumer-group"
    for index, step in enumerate(sample_data.load_sample(info.key).walkthrough)
    if step.changes and step.carry_assignment
]


def test_there_are_steps_to_show() -> None:
    assert len(CARRYING_STEPS) >= 4


def _group(scenario: Scenario) -> list[tuple[str, tuple[str, ...], tuple[TopicPartition, ...]]]:
    """Who is in the group, what each subscribes to and owns (generations aside: the what-if
    counts one rebalance more than the replay)."""
    return [(m.member_id, m.topics, m.owned_partitions) for m in scenario.members]


@pytest.mark.parametrize(("key", "index"), CARRYING_STEPS)
def test_showing_a_step_gives_the_group_the_replay_gives(key: str, index: int) -> None:
    sample = sample_data.load_sample(key)
    assert sample.scenario is not None
    replayed = sample_data.replay_walkthrough(sample.scenario, sample.walkthrough[: index + 1])
    before = samples.sample_source(key, index).scenario
    shown = whatif.plan(before, teach_panel.step_edits(sample.walkthrough[index])).after
    expected = replayed[-1].scenario
    assert shown.topics == expected.topics

    assert _group(shown) == _group(expected)


def test_step_edits_follow_the_changes_in_order() -> None:
    step = WalkthroughStep(
        "x",
        "y",
        (
            RemoveMember("a"),
            SetPartitions("orders", 6),
            AddMember("c", ("orders",), rack="r1", priority=2, host="/10.0.0.3"),
        ),
    )
    assert teach_panel.step_edits(step) == [
        {"op": "remove_member", "member_id": "a"},
        {"op": "set_partitions", "topic": "orders", "partitions": 6},
        {"op": "add_member", "member_id": "c", "topics": ["orders"], "rack": "r1", "priority": 2},
    ]
    assert teach_panel.step_edits(WalkthroughStep("x", "y")) == []


def test_the_strategy_in_force_is_the_last_switch_so_far() -> None:
    steps = [
        WalkthroughStep("1", "t"),
        WalkthroughStep("2", "t", assignor="roundrobin", carry_assignment=False),
        WalkthroughStep("3", "t", (RemoveMember("a"),)),
        WalkthroughStep("4", "t", assignor="sticky"),
    ]
    assert [teach_panel.step_strategy(steps, i, "range") for i in range(4)] == [
        "range",
        "roundrobin",
        "roundrobin",
        "sticky",
    ]
    assert teach_panel.step_strategy(steps, 0, None) is None


@pytest.mark.parametrize(
    ("step", "hint"),
    [
        (WalkthroughStep("x", "y"), "lag per consumer"),
        (WalkthroughStep("x", "y", (RemoveMember("a"),)), "Play the animation"),
        (WalkthroughStep("x", "y", assignor="sticky"), "Compare sticky"),
    ],
)
def test_where_to_look(step: WalkthroughStep, hint: str) -> None:
    assert hint in teach_panel.where_to_look(step)


def test_a_change_the_what_if_cannot_make_is_named() -> None:
    step = WalkthroughStep("x", "y", (changes.SkewLag(),))
    with pytest.raises(AssignmentExplorerError, match="cannot show: skew the lag"):
        teach_panel.step_edits(step)

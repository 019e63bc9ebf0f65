"""What-if edits (JSON, as the dashboard stores and shares them) become the core's changes.

Each edit must give exactly what the matching :mod:`assignors.simulate.changes` change gives: the
dashboard has no second way to change a scenario.
"""

from __future__ import annotations

import dataclasses

import pytest

import sample_data
from assignors.errors import AssignmentExplorerError
from assignors.model import Member, Scenario
from assignors.simulate import changes
from assignors.simulate.lag import partition_lags
from dashboard.model import whatif


def _sample(key: str) -> Scenario:
    scenario = sample_data.load_sample(key).scenario
    assert scenario is not None
    return scenario


LAGGY = _sample("lag-aware-worked-example")
FAILOVER = _sample("failover-priorities")


def _lags(scenario: Scenario) -> dict[str, list[int]]:
    return {t.name: partition_lags(t, scenario.auto_offset_reset) for t in scenario.topics}


@pytest.mark.parametrize(
    ("edit", "change"),
    [
        ({"op": "skew_lag"}, changes.SkewLag()),
        (
            {"op": "set_lags", "topic": LAGGY.topics[0].name, "lags": {"0": 7, "1": 0}},
            changes.SetLags(LAGGY.topics[0].name, ((0, 7), (1, 0))),
        ),
        (
            {"op": "set_produce_rates", "topic": LAGGY.topics[0].name, "rates": {"2": 12.5}},
            changes.SetProduceRates(LAGGY.topics[0].name, ((2, 12.5),)),
        ),
    ],
    ids=["skew", "lags", "rates"],
)
def test_partition_fact_edits_are_the_core_changes_on_before_and_after(
    edit: whatif.Edit, change: changes.Change
) -> None:
    expected = changes.apply_one(LAGGY, change)
    plan = whatif.plan(LAGGY, [edit, {"op": "add_member", "member_id": "extra"}])
    assert plan.before == expected
    assert _lags(plan.after) == _lags(expected)  # the "after" inherits the facts
    assert plan.changes == (changes.AddMember("extra"),)


def test_an_added_member_carries_its_priority_into_the_after() -> None:
    plan = whatif.plan(
        FAILOVER, [{"op": "add_member", "member_id": "standby", "priority": 99, "rack": "a"}]
    )
    assert plan.changes == (changes.AddMember("standby", rack="a", priority=99),)
    added = plan.after.members[-1]
    assert (added.member_id, added.priority, added.rack) == ("standby", 99, "a")
    assert plan.current == changes.current_assignment(plan.before)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ({"op": "set_lags", "topic": "ghost", "lags": {"0": 1}}, "no topic 'ghost'"),
        ({"op": "set_lags", "topic": LAGGY.topics[0].name, "lags": {"0": -5}}, ">= 0"),
        ({"op": "set_lags", "topic": LAGGY.topics[0].name, "lags": {"x": 1}}, "malformed"),
        ({"op": "set_produce_rates", "topic": LAGGY.topics[0].name}, "malformed"),
        ({"op": "what"}, "unknown operation"),
    ],
)
def test_an_edit_that_does_not_fit_says_why(edit: whatif.Edit, message: str) -> None:
    with pytest.raises(AssignmentExplorerError) as error:
        whatif.plan(LAGGY, [edit])
    assert message in str(error.value)


def test_growing_a_topic_past_the_limit_is_refused_not_attempted() -> None:
    topic = LAGGY.topics[0].name
    with pytest.raises(AssignmentExplorerError, match="from 1 to 1,000,000, got 50,000,000"):
        whatif.plan(LAGGY, [{"op": "set_partitions", "topic": topic, "partitions": 50_000_000}])


@pytest.mark.parametrize(
    "edits",
    [
        (),
        ({"op": "skew_lag"}, {"op": "add_member", "member_id": "zz-new", "rack": "r1"}),
        ({"op": "remove_member", "member_id": FAILOVER.members[0].member_id},),
    ],
    ids=["none", "shaping-and-add", "remove"],
)
def test_the_outline_lists_the_plans_members_and_topics(edits: tuple[whatif.Edit, ...]) -> None:
    source = FAILOVER
    before, after = whatif.outline(source, edits)
    planned = whatif.plan(source, edits)
    assert before == planned.before
    assert [(m.member_id, m.topics, m.rack) for m in after.members] == [
        (m.member_id, m.topics, m.rack) for m in planned.after.members
    ]
    assert after.topics == planned.after.topics


def test_the_outline_refuses_an_edit_the_plan_refuses() -> None:
    edits = ({"op": "remove_member", "member_id": "nobody"},)
    with pytest.raises(AssignmentExplorerError) as planned:
        whatif.plan(FAILOVER, edits)
    with pytest.raises(AssignmentExplorerError) as outlined:
        whatif.outline(FAILOVER, edits)
    assert str(outlined.value) == str(planned.value)


def whatif_scenario_with(member_ids: list[str]) -> Scenario:
    """The lag sample with exactly these members (each subscribed to its topics)."""
    topics = tuple(topic.name for topic in LAGGY.topics)
    members = tuple(Member(member_id, topics) for member_id in member_ids)
    return dataclasses.replace(LAGGY, members=members)


def test_the_next_member_id_skips_taken_ids() -> None:
    scenario = whatif_scenario_with(["consumer-1", "consumer-2", "consumer-4"])
    # Three members: "consumer-4" is taken, so the first free number from 4 on is 5.
    assert whatif.next_member_id(scenario) == "consumer-5"
    assert whatif.next_member_id(whatif_scenario_with([])) == "consumer-1"
    assert whatif.next_member_id(whatif_scenario_with(["a", "b"])) == "consumer-3"

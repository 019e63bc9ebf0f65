"""The failover (active/passive) strategy of design document 001."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assignors import registry
from assignors.model import LOWEST_PRIORITY, Member, Scenario, Topic
from assignors.seeds.failover import STRATEGY, effective_priority, failover_order
from tests.assignors.design_doc_scenarios import (
    as_sets,
    assert_valid_assignment,
    assignable,
    scenarios,
    shuffled_members,
)

ORDERS = Topic("orders", 4)
ALL_ORDERS = {"orders-0", "orders-1", "orders-2", "orders-3"}


def test_registered_as_eager_failover() -> None:
    assert registry.get("failover") is STRATEGY
    assert STRATEGY.protocol == "eager"


@pytest.mark.parametrize(
    ("members", "expected"),
    [
        pytest.param(
            (Member("C1", ("orders",), priority=10), Member("C2", ("orders",), priority=5)),
            {"C1": ALL_ORDERS, "C2": set()},
            id="highest-priority-takes-all",
        ),
        pytest.param(
            (Member("C2", ("orders",), priority=5), Member("C3", ("orders",), priority=1)),
            {"C2": ALL_ORDERS, "C3": set()},
            id="design-doc-leader-leaves-next-takes-over",
        ),
        pytest.param(
            (Member("b", ("orders",), priority=3), Member("a", ("orders",), priority=3)),
            {"a": ALL_ORDERS, "b": set()},
            id="equal-priorities-smallest-member-id",
        ),
        pytest.param(
            (Member("x", ("orders",)), Member("y", ("orders",), priority=LOWEST_PRIORITY + 1)),
            {"x": set(), "y": ALL_ORDERS},
            id="no-priority-is-the-lowest",
        ),
    ],
)
def test_worked_examples(members: tuple[Member, ...], expected: dict[str, set[str]]) -> None:
    assert as_sets(STRATEGY.assign(Scenario((ORDERS,), members)).partitions) == expected


def test_a_topic_goes_only_to_its_own_subscribers() -> None:
    # The prototype would give "audit" to the top member although it does not read it.
    scenario = Scenario(
        (ORDERS, Topic("audit", 2)),
        (Member("top", ("orders",), priority=9), Member("low", ("orders", "audit"), priority=1)),
    )
    assert as_sets(STRATEGY.assign(scenario).partitions) == {
        "top": ALL_ORDERS,
        "low": {"audit-0", "audit-1"},
    }


@given(scenarios())
def test_each_topic_has_exactly_one_owner_the_top_subscriber(scenario: Scenario) -> None:
    assignment = STRATEGY.assign(scenario)
    assert_valid_assignment(scenario, assignment)
    assert set(assignment.owner_of()) == assignable(scenario)
    owners_by_topic: dict[str, set[str]] = {}
    for tp, owner in assignment.owner_of().items():
        owners_by_topic.setdefault(tp.topic, set()).add(owner)
    for topic, owners in owners_by_topic.items():
        assert len(owners) == 1
        subscribers = [m for m in scenario.members if topic in m.topics]
        best = max(effective_priority(m) for m in subscribers)
        expected = min(m.member_id for m in subscribers if effective_priority(m) == best)
        assert owners == {expected}


@given(scenarios(), st.data())
def test_when_the_owner_leaves_only_its_topics_move_to_the_next(
    scenario: Scenario, data: st.DataObject
) -> None:
    leaver = data.draw(st.sampled_from(scenario.members))
    remaining = tuple(m for m in scenario.members if m is not leaver)
    before = STRATEGY.assign(scenario).owner_of()
    after = STRATEGY.assign(Scenario(scenario.topics, remaining)).owner_of()
    for tp, owner in before.items():
        if owner != leaver.member_id:
            assert after[tp] == owner
        else:
            successors = [m for m in failover_order(remaining) if tp.topic in m.topics]
            if successors:
                assert after[tp] == successors[0].member_id
            else:
                assert tp not in after


@given(scenarios(), st.integers(0, 2**32 - 1))
def test_member_order_does_not_matter(scenario: Scenario, seed: int) -> None:
    shuffled = STRATEGY.assign(shuffled_members(scenario, seed))
    assert dict(shuffled.partitions) == dict(STRATEGY.assign(scenario).partitions)

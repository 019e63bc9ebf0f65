"""Kafka's CooperativeStickyAssignor: the sticky target and what round 1 hands out.

Round 1 is the target minus each partition that moves from a previous owner to another member
(the owner revokes it first; the next rebalance hands it over).
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from assignors import registry
from assignors.cli.batch import answer_line
from assignors.client.cooperative_sticky import assign_cooperative_sticky, assign_with_target
from assignors.client.sticky import assign_sticky
from assignors.model import Scenario, Topic, TopicPartition
from tests.assignors.test_sticky import (
    TP,
    as_sets,
    assignable,
    bucket_preserving_shuffle,
    groups,
    member,
    tps,
)

T1 = (Topic("t1", 10),)

WORKED_EXAMPLES = [
    pytest.param(
        # design document 003: C2 joins. The target gives C2 t1-4, t1-8 and t1-9, which C0 and
        # C1 give up; in round 1 they revoke them, so C2 gets nothing yet.
        Scenario(
            T1,
            (
                member("C0", ("t1",), tps("t1", 0, 1, 2, 3, 4), generation=1),
                member("C1", ("t1",), tps("t1", 5, 6, 7, 8, 9), generation=1),
                member("C2", ("t1",)),
            ),
        ),
        {"C0": tps("t1", 0, 1, 2, 3), "C1": tps("t1", 5, 6, 7), "C2": set()},
        {"C0": tps("t1", 0, 1, 2, 3), "C1": tps("t1", 5, 6, 7), "C2": tps("t1", 4, 8, 9)},
        id="seed-003-third-member-joins",
    ),
    pytest.param(
        # a member left: nobody owns t1-7..9 any more, so nothing has to be revoked first and
        # round 1 is already the target.
        Scenario(
            T1,
            (
                member("C0", ("t1",), tps("t1", 0, 1, 2, 3), generation=2),
                member("C1", ("t1",), tps("t1", 4, 5, 6), generation=2),
            ),
        ),
        {"C0": tps("t1", 0, 1, 2, 3, 7), "C1": tps("t1", 4, 5, 6, 8, 9)},
        {"C0": tps("t1", 0, 1, 2, 3, 7), "C1": tps("t1", 4, 5, 6, 8, 9)},
        id="member-left-nothing-withheld",
    ),
    pytest.param(
        # generations travel in the subscription: the newer claim (C0, generation 5) keeps t-0
        # and the older one is ignored; t-1 was nobody's, so nothing is withheld.
        Scenario(
            (Topic("t", 2),),
            (
                member("C0", ("t",), tps("t", 0), generation=5),
                member("C1", ("t",), tps("t", 0), generation=3),
            ),
        ),
        {"C0": tps("t", 0), "C1": tps("t", 1)},
        {"C0": tps("t", 0), "C1": tps("t", 1)},
        id="newer-generation-wins",
    ),
    pytest.param(
        # equal generations void the claim for both: t-0 is handed out afresh (to C0, first by
        # id), and as a doubly claimed partition it is withheld for a round.
        Scenario(
            (Topic("t", 2),),
            (
                member("C0", ("t",), tps("t", 0), generation=4),
                member("C1", ("t",), tps("t", 0), generation=4),
            ),
        ),
        {"C0": set(), "C1": tps("t", 1)},
        {"C0": tps("t", 0), "C1": tps("t", 1)},
        id="same-generation-double-claim-withheld",
    ),
]


@pytest.mark.parametrize(("scenario", "round1", "target"), WORKED_EXAMPLES)
def test_worked_example(
    scenario: Scenario,
    round1: dict[str, set[TopicPartition]],
    target: dict[str, set[TopicPartition]],
) -> None:
    got_round1, got_target = assign_with_target(scenario)
    assert as_sets(got_round1) == round1
    assert as_sets(got_target) == target
    assert as_sets(assign_cooperative_sticky(scenario)) == round1


def test_registered_as_cooperative() -> None:
    strategy = registry.get("cooperative-sticky")
    assert strategy.protocol == "cooperative"
    assert "CooperativeStickyAssignor" in strategy.consumer_config


@settings(max_examples=150, deadline=None)
@given(groups())
def test_round1_is_the_target_minus_partitions_that_change_hands(scenario: Scenario) -> None:
    round1, target = assign_with_target(scenario)
    owners = Counter(tp for partitions in target.values() for tp in partitions)
    assert set(owners) == assignable(scenario)
    assert set(owners.values()) <= {1}
    subscriptions = {m.member_id: set(m.topics) for m in scenario.members}
    claimed_by = {m.member_id: set(m.owned_partitions) for m in scenario.members}
    for member_id, partitions in round1.items():
        assert set(partitions) <= set(target[member_id])
        assert {tp.topic for tp in partitions} <= subscriptions[member_id]
        for tp in set(target[member_id]) - set(partitions):
            # withheld only when it moves: another member claimed it before
            assert any(tp in claims for m, claims in claimed_by.items() if m != member_id)


@settings(max_examples=150, deadline=None)
@given(groups(equal_subscriptions=True))
def test_equal_subscriptions_target_is_balanced_within_one(scenario: Scenario) -> None:
    counts = [len(partitions) for partitions in assign_with_target(scenario)[1].values()]
    assert max(counts) - min(counts) <= 1


@settings(max_examples=100, deadline=None)
@given(groups(), st.integers(0, 2**32))
def test_deterministic_and_independent_of_member_order(scenario: Scenario, seed: int) -> None:
    round1, target = assign_with_target(scenario)
    again = assign_with_target(scenario)
    assert (as_sets(again[0]), as_sets(again[1])) == (as_sets(round1), as_sets(target))
    shuffled = assign_with_target(bucket_preserving_shuffle(scenario, seed))
    assert (as_sets(shuffled[0]), as_sets(shuffled[1])) == (as_sets(round1), as_sets(target))


@settings(max_examples=100, deadline=None)
@given(groups())
def test_without_conflicting_claims_the_target_is_the_sticky_answer(scenario: Scenario) -> None:
    claims = Counter(tp for m in scenario.members for tp in set(m.owned_partitions))
    assume(all(count == 1 for count in claims.values()))
    assert as_sets(assign_with_target(scenario)[1]) == as_sets(assign_sticky(scenario))


@settings(max_examples=100, deadline=None)
@given(
    groups(equal_subscriptions=True, racks=False),
    st.data(),
)
def test_an_older_generation_claim_never_beats_a_newer_one(
    scenario: Scenario, data: st.DataObject
) -> None:
    partitions = sorted(assignable(scenario))
    assume(len(scenario.members) >= 2 and len(partitions) >= len(scenario.members))
    newer, older = data.draw(
        st.lists(st.sampled_from(scenario.members), min_size=2, max_size=2, unique=True)
    )
    contested = data.draw(st.sampled_from(partitions))
    old_generation = data.draw(st.integers(0, 3))
    new_generation = data.draw(st.integers(old_generation + 1, 5))
    members = []
    for m in scenario.members:
        owned = {tp for tp in m.owned_partitions if tp != contested}
        generation: int | None
        if m is newer:
            owned, generation = {contested}, new_generation
        elif m is older:
            owned, generation = owned | {contested}, old_generation
        else:
            generation = m.generation
        members.append(member(m.member_id, m.topics, owned, generation))
    round1, target = assign_with_target(Scenario(scenario.topics, tuple(members)))
    assert contested in target[newer.member_id]
    assert contested in round1[newer.member_id]


def test_partition_of_a_topic_nobody_subscribes_is_not_assigned() -> None:
    scenario = Scenario(
        (Topic("t", 2), Topic("other", 3)),
        (member("a", ("t",), tps("other", 0), generation=1), member("b", ("t",))),
    )
    round1, target = assign_with_target(scenario)
    assert {tp.topic for ps in target.values() for tp in ps} == {"t"}
    assert as_sets(round1) == as_sets(target)
    assert TP("other", 0) not in {tp for ps in target.values() for tp in ps}


#: Generated case ``cooperative-sticky:30651`` of ``tests/differential``: Kafka 4.4.0's assignor
#: never returned on it. After the unclaimed partitions are handed out, the loop moves logs_raw-9
#: off the busiest member; the movement ledger swaps in logs_raw-3, held by the third member,
#: which the next pass moves back, and so on for ever.
LOOPS_IN_KAFKA = {
    "topics": [
        {"name": "logs_raw", "partitions": 12},
        {"name": "orders", "partitions": 1, "replica_racks": [["r2", "r1"]]},
        {
            "name": "B",
            "partitions": 16,
            "replica_racks": [
                ["r2", "r0"], ["r0"], ["r2"], ["r0"], ["r2"], ["r2", "r0"], ["r0"], ["r1"],
                ["r1", "r0", "r2"], ["r0", "r1", "r2"], ["r1"], ["r2"], ["r0"], ["r0"],
                ["r0", "r2"], ["r1"],
            ],
        },
    ],
    "members": [
        {
            "member_id": "consumer-0-adf6c9df-6a92-3968-aeb0-dc1ff13f5df7",
            "topics": ["B", "orders", "logs_raw"],
            "rack": "r2",
        },
        {
            "member_id": "consumer-0-edeadd33-d0ed-fde2-397e-9df5e2beb049",
            "topics": ["B", "orders", "logs_raw"],
            "owned_partitions": [
                ["B", 10], ["logs_raw", 0], ["logs_raw", 5], ["logs_raw", 7], ["B", 7], ["B", 11],
                ["B", 4], ["B", 3], ["B", 15], ["B", 0], ["B", 1], ["logs_raw", 3], ["orders", 0],
                ["logs_raw", 6], ["B", 8], ["B", 12], ["B", 9], ["B", 13], ["logs_raw", 1],
                ["B", 6], ["B", 5],
            ],
            "generation": 1,
        },
        {
            "member_id": "sPLkAV-rXZZwU03PvusAww",
            "topics": ["logs_raw"],
            "group_instance_id": "instance-894",
            "owned_partitions": [
                ["logs_raw", 11], ["logs_raw", 4], ["logs_raw", 10], ["logs_raw", 2],
            ],
            "generation": 1,
        },
    ],
}  # fmt: skip


@pytest.mark.parametrize("strategy", ["cooperative-sticky", "sticky"])
def test_a_group_kafkas_loop_never_finishes_is_refused(strategy: str) -> None:
    """Kafka's rebalancing loop repeats for ever on this group (``tests/differential`` asks
    Kafka itself); ours notices the repeated state and says so instead of hanging."""
    request = {"id": 1, "strategy": strategy, "scenario": LOOPS_IN_KAFKA}
    answer = answer_line(json.dumps(request).encode(), 1)
    assert "never finishes on this group" in answer["error"]
    assert "pick another assignor" in answer["error"]

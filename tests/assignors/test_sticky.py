"""Kafka's StickyAssignor: worked examples and properties on generated groups.

The worked examples follow the algorithm in ``assignors/client/sticky.py`` step by step (and design
document 003's constrained example); parity with Kafka itself is the conformance suite's job.
"""

from __future__ import annotations

import random
from collections import Counter, deque

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assignors import registry
from assignors.client.sticky import (
    _fill_round_robin,
    _fill_round_robin_one_by_one,
    assign_sticky,
    subscription_order,
)
from assignors.io.scenario import parse_scenario
from assignors.java_order import JavaHashMapOrder, spread, string_hash
from assignors.model import Member, Scenario, Topic, TopicPartition
from assignors.strategy import PartitionStrategy
from tests.assignors.sorted_answers import check_answer
from tests.differential.generate import case

TP = TopicPartition
RACKS = ("rack-a", "rack-b", "rack-c")


def tps(topic: str, *partitions: int) -> set[TopicPartition]:
    return {TP(topic, p) for p in partitions}


def member(
    member_id: str,
    topics: tuple[str, ...],
    owned: set[TopicPartition] | None = None,
    generation: int | None = None,
    rack: str | None = None,
) -> Member:
    return Member(
        member_id, topics, rack=rack, owned_partitions=tuple(sorted(owned or ())),
        generation=generation,
    )  # fmt: skip


def as_sets(answer: dict[str, list[TopicPartition]]) -> dict[str, set[TopicPartition]]:
    return {m: set(p) for m, p in answer.items()}


# --------------------------------------------------------------------------------------------
# Worked examples

T1 = (Topic("t1", 10),)

WORKED_EXAMPLES = [
    pytest.param(
        # design document 003: C0 owns t1-0..4, C1 owns t1-5..9, C2 joins. Floor 3, ceiling 4,
        # one member may keep 4: C0 comes first in Kafka's map (buckets 13, 14, 15), keeps its
        # lowest four; C1 keeps its lowest three; C2 fills up with the rest in order.
        Scenario(
            T1,
            (
                member("C0", ("t1",), tps("t1", 0, 1, 2, 3, 4), generation=1),
                member("C1", ("t1",), tps("t1", 5, 6, 7, 8, 9), generation=1),
                member("C2", ("t1",)),
            ),
        ),
        {"C0": tps("t1", 0, 1, 2, 3), "C1": tps("t1", 5, 6, 7), "C2": tps("t1", 4, 8, 9)},
        id="seed-003-third-member-joins",
    ),
    pytest.param(
        # a member leaves: floor = ceiling = 5; both remaining members are under it and the
        # free partitions 7, 8, 9 go round-robin by member id: C0 7; C1 8, then C1 9.
        Scenario(
            T1,
            (
                member("C0", ("t1",), tps("t1", 0, 1, 2, 3), generation=2),
                member("C1", ("t1",), tps("t1", 4, 5, 6), generation=2),
            ),
        ),
        {"C0": tps("t1", 0, 1, 2, 3, 7), "C1": tps("t1", 4, 5, 6, 8, 9)},
        id="member-leaves",
    ),
    pytest.param(
        # fresh group, 7 partitions over 3 members: two passes of round-robin (a, b, c) over
        # t0-0..3, t1-0..2 bring everyone to the floor of 2; the last partition goes to the
        # first member that reached the floor.
        Scenario(
            (Topic("t0", 4), Topic("t1", 3)),
            tuple(member(m, ("t0", "t1")) for m in ("a", "b", "c")),
        ),
        {
            "a": tps("t0", 0, 3) | tps("t1", 2),
            "b": tps("t0", 1) | tps("t1", 0),
            "c": tps("t0", 2) | tps("t1", 1),
        },
        id="fresh-round-robin",
    ),
    pytest.param(
        # general algorithm (Kafka's own test of mixed subscriptions): topic2 has one
        # subscriber, topic1 three; partitions go to the least-loaded subscriber, topic2 first
        # (fewest subscribers), then topic1.
        Scenario(
            (Topic("topic1", 3), Topic("topic2", 2)),
            (
                member("consumer1", ("topic1",)),
                member("consumer2", ("topic1", "topic2")),
                member("consumer3", ("topic1",)),
            ),
        ),
        {
            "consumer1": tps("topic1", 0, 2),
            "consumer2": tps("topic2", 0, 1),
            "consumer3": tps("topic1", 1),
        },
        id="general-mixed-subscriptions",
    ),
    pytest.param(
        # rack-aware (KIP-881): t-0, t-1 live only on rack-b and t-2, t-3 only on rack-a, so
        # each member gets the partitions of its own rack (round-robin would give a t-0, t-2).
        Scenario(
            (Topic("t", 4, replica_racks=(("rack-b",), ("rack-b",), ("rack-a",), ("rack-a",))),),
            (member("a", ("t",), rack="rack-a"), member("b", ("t",), rack="rack-b")),
        ),
        {"a": tps("t", 2, 3), "b": tps("t", 0, 1)},
        id="rack-aware-fresh",
    ),
    pytest.param(
        # Kafka's eager sticky assignor carries generations in user data only: when a claim
        # meets an earlier one, it compares against the earlier claimant's *subscription*
        # generation, which is unset (-1). So the claimant visited later (C1) wins t-0 even
        # though its generation is older; cooperative-sticky would give it to C0.
        Scenario(
            (Topic("t", 2),),
            (
                member("C0", ("t",), tps("t", 0), generation=5),
                member("C1", ("t",), tps("t", 0), generation=3),
            ),
        ),
        {"C0": tps("t", 1), "C1": tps("t", 0)},
        id="eager-conflict-later-claimant-wins",
    ),
    pytest.param(
        # claims on partitions that do not exist are ignored
        Scenario(
            (Topic("t", 2),),
            (
                member("a", ("t",), tps("t", 1, 7) | tps("gone", 0), generation=1),
                member("b", ("t",), generation=1),
            ),
        ),
        {"a": tps("t", 1), "b": tps("t", 0)},
        id="claims-on-missing-partitions-ignored",
    ),
]


@pytest.mark.parametrize(("scenario", "expected"), WORKED_EXAMPLES)
def test_worked_example(scenario: Scenario, expected: dict[str, set[TopicPartition]]) -> None:
    assert as_sets(assign_sticky(scenario)) == expected


def test_registered_as_eager_sticky() -> None:
    strategy = registry.get("sticky")
    assert strategy.protocol == "eager"
    assert strategy.consumer_config.endswith("org.apache.kafka.clients.consumer.StickyAssignor")


def test_subscription_order_is_bucket_order() -> None:
    # "C0", "C1", "C2" hash to 2125..2127: buckets 13, 14, 15 of a 16-bucket map
    assert subscription_order(["C2", "C0", "C1"]) == ["C0", "C1", "C2"]
    # "Aa" and "BB" share a bucket: there the listing order decides, as in Kafka's map
    assert subscription_order(["BB", "Aa"]) == ["BB", "Aa"]


# --------------------------------------------------------------------------------------------
# Generated groups


@st.composite
def groups(
    draw: st.DrawFn,
    equal_subscriptions: bool | None = None,
    racks: bool | None = None,
) -> Scenario:
    """Small consumer groups: topics, subscriptions, racks and (overlapping) prior claims."""
    topic_count = draw(st.integers(1, 4))
    with_racks = draw(st.booleans()) if racks is None else racks
    topics = []
    for index in range(topic_count):
        partitions = draw(st.integers(1, 12))
        replica_racks = None
        if with_racks:
            replica_racks = tuple(
                tuple(draw(st.sets(st.sampled_from(RACKS), min_size=1, max_size=2)))
                for _ in range(partitions)
            )
        topics.append(Topic(f"t{index}", partitions, replica_racks=replica_racks))
    names = [t.name for t in topics]
    member_ids = draw(
        st.lists(
            st.text(alphabet="abcABC019-_", min_size=1, max_size=5),
            min_size=1, max_size=7, unique=True,
        )
    )  # fmt: skip
    equal = draw(st.booleans()) if equal_subscriptions is None else equal_subscriptions
    common = tuple(draw(st.sets(st.sampled_from([*names, "ghost"]), min_size=1)))
    members = []
    for member_id in member_ids:
        subscription = common if equal else tuple(draw(st.sets(st.sampled_from(names), min_size=1)))
        claimable = sorted(
            TP(t.name, p) for t in topics if t.name in subscription for p in range(t.partitions)
        )
        owned = draw(st.sets(st.sampled_from(claimable), max_size=8)) if claimable else set()
        generation = draw(st.none() | st.integers(0, 4)) if owned else None
        rack = draw(st.none() | st.sampled_from(RACKS)) if with_racks else None
        members.append(member(member_id, subscription, owned, generation, rack))
    return Scenario(tuple(topics), tuple(members))


def assignable(scenario: Scenario) -> set[TopicPartition]:
    return {
        TP(t.name, p)
        for t in scenario.topics
        if any(t.name in m.topics for m in scenario.members)
        for p in range(t.partitions)
    }


def bucket_preserving_shuffle(scenario: Scenario, seed: int) -> Scenario:
    """The members reordered at random, except that ids sharing a Kafka map bucket keep
    their relative order (the one place where Kafka's answer reads the listing order)."""
    ids = [m.member_id for m in scenario.members]
    table: JavaHashMapOrder[str] = JavaHashMapOrder(string_hash)
    table.put_all(ids)
    bucket = {m: spread(string_hash(m)) & (table.capacity - 1) for m in ids}
    shuffled = list(scenario.members)
    random.Random(seed).shuffle(shuffled)
    queues: dict[int, deque[Member]] = {}
    for m in scenario.members:
        queues.setdefault(bucket[m.member_id], deque()).append(m)
    reordered = tuple(queues[bucket[m.member_id]].popleft() for m in shuffled)
    return Scenario(scenario.topics, reordered)


@settings(max_examples=150, deadline=None)
@given(groups())
def test_every_partition_exactly_once_and_only_to_subscribers(scenario: Scenario) -> None:
    answer = assign_sticky(scenario)
    assert set(answer) == {m.member_id for m in scenario.members}
    owners = Counter(tp for partitions in answer.values() for tp in partitions)
    assert set(owners) == assignable(scenario)
    assert set(owners.values()) <= {1}
    subscriptions = {m.member_id: set(m.topics) for m in scenario.members}
    for member_id, partitions in answer.items():
        assert {tp.topic for tp in partitions} <= subscriptions[member_id]


@settings(max_examples=150, deadline=None)
@given(groups(equal_subscriptions=True))
def test_equal_subscriptions_are_balanced_within_one(scenario: Scenario) -> None:
    counts = [len(partitions) for partitions in assign_sticky(scenario).values()]
    assert max(counts) - min(counts) <= 1


@settings(max_examples=100, deadline=None)
@given(groups(), st.integers(0, 2**32))
def test_deterministic_and_independent_of_member_order(scenario: Scenario, seed: int) -> None:
    first = as_sets(assign_sticky(scenario))
    assert as_sets(assign_sticky(scenario)) == first
    assert as_sets(assign_sticky(bucket_preserving_shuffle(scenario, seed))) == first


@settings(max_examples=100, deadline=None)
@given(groups(equal_subscriptions=True, racks=False))
def test_a_member_with_uncontested_claims_keeps_them_up_to_the_floor(scenario: Scenario) -> None:
    answer = as_sets(assign_sticky(scenario))
    total = len(assignable(scenario))
    floor = total // len(scenario.members)
    claimants = Counter(tp for m in scenario.members for tp in set(m.owned_partitions))
    for m in scenario.members:
        claims = set(m.owned_partitions)
        if all(claimants[tp] == 1 for tp in claims):
            # a contested claim won by this member would count against its quota too
            assert len(answer[m.member_id] & claims) >= min(len(claims), floor)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(1, 6), min_size=0, max_size=6),
    st.integers(0, 4),
    st.integers(0, 12),
)
def test_bulk_round_robin_matches_kafkas_partition_by_partition_loop(
    deficits: list[int], at_floor_count: int, spare: int
) -> None:
    floor = 6
    under = [f"u{index}" for index in range(len(deficits))]
    at_floor = [f"f{index}" for index in range(at_floor_count)]
    spare = min(spare, len(under) + at_floor_count)
    assignment = {
        m: [TP("owned", i) for i in range(floor - d)] for m, d in zip(under, deficits, strict=True)
    }
    assignment.update({m: [TP("owned", i) for i in range(floor)] for m in at_floor})
    unassigned = [TP("t", p) for p in range(sum(deficits) + spare)]

    def run(fill: object) -> dict[str, list[TopicPartition]]:
        given_: dict[str, list[TopicPartition]] = {m: [] for m in assignment}
        fill(unassigned, list(under), deque(at_floor), assignment, given_, floor)  # type: ignore[operator]
        return given_

    assert run(_fill_round_robin) == run(_fill_round_robin_one_by_one)


@pytest.mark.parametrize("name", ["sticky", "cooperative-sticky"])
def test_answers_it_calls_sorted_are_sorted(name: str) -> None:
    """Where the constrained algorithm skips the final sort (:class:`SortedAnswer`: nobody kept
    a claim, no racks, Java's topic order is Python's), every member's list is in order anyway;
    generated groups (the differential suite's) reach that path and the others."""
    strategy = registry.get(name)
    assert isinstance(strategy, PartitionStrategy)
    presorted = 0
    for seed in range(400):
        scenario, _ = parse_scenario(case(name, seed)["scenario"], path="")
        presorted += check_answer(strategy, scenario, strategy.compute(scenario), seed)
    assert presorted >= 20

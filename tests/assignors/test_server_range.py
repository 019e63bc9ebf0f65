"""``server-range``: Kafka 4's broker-side range assignor, as worked examples and properties.

Parity with Kafka itself is checked case by case in ``test_conformance.py`` (``server.jsonl``).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assignors import registry
from assignors.broker.range import STRATEGY, compute, member_order
from assignors.io.scenario import parse_scenario
from assignors.model import Member, PartitionRuns, Scenario, Topic, TopicPartition
from assignors.trace import DecisionTrace
from tests.assignors.test_partition_runs import valid
from tests.differential.generate import case

TP = TopicPartition


def answer(group: Scenario) -> dict[str, set[tuple[str, int]]]:
    result = STRATEGY.assign(group).partitions
    return {member: {(tp.topic, tp.partition) for tp in tps} for member, tps in result.items()}


def member(
    member_id: str,
    topics: list[str],
    instance: str | None = None,
    owned: list[tuple[str, int]] | None = None,
) -> Member:
    return Member(
        member_id,
        tuple(topics),
        group_instance_id=instance,
        owned_partitions=tuple(TP(*tp) for tp in owned or []),
    )


# --- worked examples ----------------------------------------------------------------------------

EXAMPLES = [
    pytest.param(
        # Kafka's own example: two members, two co-partitioned topics of three partitions.
        {"t1": 3, "t2": 3},
        [member("m0", ["t1", "t2"]), member("m1", ["t1", "t2"])],
        {"m0": {("t1", 0), ("t1", 1), ("t2", 0), ("t2", 1)}, "m1": {("t1", 2), ("t2", 2)}},
        id="co-partitioned",
    ),
    pytest.param(
        # Static members come first, by instance id, whatever their member ids.
        {"t": 5},
        [member("a", ["t"]), member("z", ["t"], instance="i-2"), member("y", ["t"], "i-1")],
        {"y": {("t", 0), ("t", 1)}, "z": {("t", 2), ("t", 3)}, "a": {("t", 4)}},
        id="static-members-first",
    ),
    pytest.param(
        # The current targets are not read: the ranges follow the member order only.
        {"t": 4},
        [member("a", ["t"], owned=[("t", 2), ("t", 3)]), member("b", ["t"], owned=[("t", 0)])],
        {"a": {("t", 0), ("t", 1)}, "b": {("t", 2), ("t", 3)}},
        id="current-targets-ignored",
    ),
    pytest.param(
        # Each topic over its own subscribers: u has only b and c.
        {"t": 3, "u": 4},
        [member("a", ["t"]), member("b", ["t", "u"]), member("c", ["u"])],
        {"a": {("t", 0), ("t", 1)}, "b": {("t", 2), ("u", 0), ("u", 1)}, "c": {("u", 2), ("u", 3)}},
        id="heterogeneous",
    ),
    pytest.param(
        # More subscribers than partitions: the last ones get nothing of the topic.
        {"t": 2},
        [member("a", ["t"]), member("b", ["t"]), member("c", ["t"])],
        {"a": {("t", 0)}, "b": {("t", 1)}, "c": set()},
        id="more-members-than-partitions",
    ),
    pytest.param(
        # Java compares UTF-16 code units: an emoji (a surrogate pair, 0xD83D...) sorts before
        # U+FF01, although its code point is larger.
        {"t": 2},
        [member("\uff01", ["t"]), member("\U0001f600", ["t"])],
        {"\U0001f600": {("t", 0)}, "\uff01": {("t", 1)}},
        id="utf-16-order",
    ),
    pytest.param(
        {"t": 2},
        [member("a", ["t", "ghost"]), member("b", ["ghost"])],
        {"a": {("t", 0), ("t", 1)}, "b": set()},
        id="missing-topic-ignored",
    ),
]


@pytest.mark.parametrize(("topics", "members", "expected"), EXAMPLES)
def test_worked_example(
    topics: dict[str, int], members: list[Member], expected: dict[str, set[tuple[str, int]]]
) -> None:
    group = Scenario(tuple(Topic(n, c) for n, c in topics.items()), tuple(members))
    assert answer(group) == expected


def test_registered_under_its_name() -> None:
    strategy = registry.get("server-range")
    assert strategy is STRATEGY
    assert strategy.protocol == "consumer"
    assert "group.remote.assignor=range" in strategy.consumer_config


def test_members_sharing_an_instance_id_keep_member_map_order() -> None:
    # Java's sort is stable over the member map: "q" (hash 113, bucket 1) before "b" (98, bucket 2).
    members = (member("b", ["t"], instance="same"), member("q", ["t"], instance="same"))
    assert member_order(members) == ["q", "b"]


# --- properties -----------------------------------------------------------------------------------

TOPIC_NAMES = ["orders", "payments", "clicks", "audit"]


@st.composite
def groups(draw: st.DrawFn, *, homogeneous: bool = False) -> Scenario:
    names = draw(st.lists(st.sampled_from(TOPIC_NAMES), min_size=1, max_size=4, unique=True))
    equal = draw(st.integers(1, 12))
    topics = tuple(
        Topic(name, equal if homogeneous else draw(st.integers(1, 12))) for name in names
    )
    ids = draw(
        st.lists(st.text("abcxyz-019", min_size=1, max_size=5), min_size=1, max_size=8, unique=True)
    )
    instances = draw(
        st.lists(
            st.text("ijk0-9", min_size=1, max_size=4),
            min_size=len(ids),
            max_size=len(ids),
            unique=True,
        )
    )
    members = []
    for member_id, instance in zip(ids, instances, strict=True):
        subscribed = (
            names
            if homogeneous
            else draw(st.lists(st.sampled_from(TOPIC_NAMES), min_size=1, max_size=4, unique=True))
        )
        owned = draw(
            st.lists(
                st.sampled_from([tp for t in topics for tp in t.topic_partitions()]), max_size=4
            )
        )
        members.append(
            Member(
                member_id,
                tuple(subscribed),
                group_instance_id=draw(st.none() | st.just(instance)),
                owned_partitions=tuple(owned),
            )
        )
    return Scenario(topics, tuple(members))


@settings(max_examples=300, deadline=None)
@given(groups())
def test_each_partition_once_to_a_subscriber_and_topics_balanced(group: Scenario) -> None:
    result = STRATEGY.assign(group).partitions
    counted = Counter(tp for tps in result.values() for tp in tps)
    by_name = {m.member_id: m for m in group.members}
    for topic in group.topics:
        fans = [m.member_id for m in group.members if topic.name in m.topics]
        if not fans:
            assert not any(tp.topic == topic.name for tp in counted)
            continue
        assert all(counted[tp] == 1 for tp in topic.topic_partitions())
        per_member = [sum(tp.topic == topic.name for tp in result[m]) for m in fans]
        assert max(per_member) - min(per_member) <= 1
    for member_id, tps in result.items():
        assert all(tp.topic in by_name[member_id].topics for tp in tps)


@settings(max_examples=300, deadline=None)
@given(groups())
def test_each_member_gets_a_contiguous_range_of_each_topic(group: Scenario) -> None:
    for tps in STRATEGY.assign(group).partitions.values():
        by_topic: dict[str, list[int]] = {}
        for tp in tps:
            by_topic.setdefault(tp.topic, []).append(tp.partition)
        for numbers in by_topic.values():
            assert sorted(numbers) == list(range(min(numbers), max(numbers) + 1))


@settings(max_examples=200, deadline=None)
@given(groups(homogeneous=True))
def test_co_partitioned_topics_give_each_member_the_same_numbers(group: Scenario) -> None:
    for tps in STRATEGY.assign(group).partitions.values():
        numbers: dict[str, set[int]] = {}
        for tp in tps:
            numbers.setdefault(tp.topic, set()).add(tp.partition)
        assert len({frozenset(n) for n in numbers.values()}) <= 1


@settings(max_examples=200, deadline=None)
@given(groups(), st.randoms())
def test_deterministic_whatever_the_member_listing_order(
    group: Scenario, rng: random.Random
) -> None:
    shuffled = list(group.members)
    rng.shuffle(shuffled)
    reordered = Scenario(group.topics, tuple(shuffled))
    assert STRATEGY.assign(reordered) == STRATEGY.assign(group)
    assert STRATEGY.assign(group) == STRATEGY.assign(group)


@settings(max_examples=100, deadline=None)
@given(groups())
def test_current_targets_do_not_change_the_answer(group: Scenario) -> None:
    forgotten = Scenario(
        group.topics,
        tuple(Member(m.member_id, m.topics, m.rack, m.group_instance_id) for m in group.members),
    )
    assert STRATEGY.assign(forgotten) == STRATEGY.assign(group)


def test_answers_are_partition_runs_in_order() -> None:
    """Every member's answer is a :class:`PartitionRuns` (its ranges, no partition objects)
    that keeps the type's invariants, whose partitions are in order without duplicates, and
    the traced computation gives the same answer. Generated groups (the differential suite's)
    reach members with one run and members with several (shapes whose topics interleave)."""
    one_run = several = 0
    for seed in range(400):
        scenario, _ = parse_scenario(case("server-range", seed)["scenario"], path="")
        answer = compute(scenario)
        assert answer == compute(scenario, DecisionTrace()), seed
        for runs in answer.values():
            assert isinstance(runs, PartitionRuns) and valid(runs), seed
            listed = list(runs)
            assert listed == sorted(set(listed)), seed
            one_run += len(runs.runs) == 1
            several += len(runs.runs) > 1
    assert one_run >= 20
    assert several >= 20

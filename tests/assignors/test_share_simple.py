"""``share-simple``: Kafka's share-group ``SimpleAssignor``, as worked examples and properties.

Parity with Kafka itself: ``tests/differential/`` (2,000 generated groups per run against Kafka
4.4.0's own class). Here: the algorithm's steps traced by hand on small groups, and properties.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from assignors import registry
from assignors.broker.share_simple import STRATEGY, desired_counts, presized_capacity
from assignors.broker.uniform import topic_uuid
from assignors.java_order import JavaHashMapOrder, to_int32, uuid_hash
from assignors.model import Member, Scenario, Topic, TopicPartition

TP = TopicPartition


def member(member_id: str, topics: list[str], owned: list[tuple[str, int]] = ()) -> Member:  # type: ignore[assignment]
    return Member(member_id, tuple(topics), owned_partitions=tuple(TP(*tp) for tp in owned))


def answer(group: Scenario) -> dict[str, set[tuple[str, int]]]:
    result = STRATEGY.assign(group).partitions
    return {m: {(tp.topic, tp.partition) for tp in tps} for m, tps in result.items()}


def test_registered_for_share_groups() -> None:
    strategy = registry.get("share-simple")
    assert strategy is STRATEGY
    assert "share" in strategy.summary and "SimpleAssignor" in strategy.consumer_config


def test_desired_counts_spread_the_shared_slots() -> None:
    """Step 1: 5 members, 2 partitions: sharing 3, x = 6 / 5 = 1.2 -> 2, 1, 1, 1, 1."""
    assert desired_counts(3, 2, 5) == [2, 1, 1, 1, 1]
    assert desired_counts(1, 14, 2) == [7, 7]
    assert desired_counts(1, 7, 3) == [3, 2, 2]  # x = 7/3: ceil(2.33)=3, ceil(4.67)=5, 7


def test_presized_capacity_is_kafkas_float_arithmetic() -> None:
    assert [presized_capacity(n) for n in (0, 1, 2, 14, 47)] == [2, 3, 5, 21, 65]


def test_more_members_than_partitions_share_them() -> None:
    """5 members (map order a..e), t with 2 partitions, nothing held.

    Counts 2, 1, 1, 1, 1 and sharing 3. The coordinator's partition map meets t-0 before t-1
    (checked below); t-0 wants 3 holders: a, b, c; t-1: d, e, then the takers start over and a
    (one of its two) takes it and is full.
    """
    t_hash = uuid_hash(*topic_uuid(Topic("t", 2)))
    order: JavaHashMapOrder[int] = JavaHashMapOrder(
        lambda p: to_int32(31 * t_hash + p), presized_capacity(2)
    )
    order.put_all([0, 1])
    assert list(order) == [0, 1]
    group = Scenario((Topic("t", 2),), tuple(member(m, ["t"]) for m in "abcde"))
    assert answer(group) == {
        "a": {("t", 0), ("t", 1)},
        "b": {("t", 0)},
        "c": {("t", 0)},
        "d": {("t", 1)},
        "e": {("t", 1)},
    }


def test_a_partition_held_by_too_many_is_given_back() -> None:
    """a and b both hold t-0; t has 2 partitions: sharing 1, counts 1, 1.

    Nobody is over its count; t-0 has two holders for one slot: walking its holders in index
    order, a gives it back and becomes a taker; t-1 (nobody's) goes to a.
    """
    group = Scenario(
        (Topic("t", 2),), (member("a", ["t"], [("t", 0)]), member("b", ["t"], [("t", 0)]))
    )
    assert answer(group) == {"a": {("t", 1)}, "b": {("t", 0)}}


def test_an_overfilled_member_gives_back_down_to_its_count() -> None:
    """a holds t-0..t-2, b holds t-3: counts 2, 2; a gives back one of its three, b takes it."""
    group = Scenario(
        (Topic("t", 4),),
        (member("a", ["t"], [("t", 0), ("t", 1), ("t", 2)]), member("b", ["t"], [("t", 3)])),
    )
    result = answer(group)
    assert len(result["a"]) == 2 and result["a"] < {("t", 0), ("t", 1), ("t", 2)}
    assert result["b"] == {("t", 3)} | ({("t", 0), ("t", 1), ("t", 2)} - result["a"])


def test_heterogeneous_topics_are_shared_among_their_own_subscribers() -> None:
    """x has subscribers a, b; y has b, c; one partition each: sharing 2 per topic."""
    group = Scenario(
        (Topic("x", 1), Topic("y", 1)),
        (member("a", ["x"]), member("b", ["x", "y"]), member("c", ["y"])),
    )
    assert answer(group) == {"a": {("x", 0)}, "b": {("x", 0), ("y", 0)}, "c": {("y", 0)}}


def test_homogeneous_claims_on_unsubscribed_topics_are_dropped() -> None:
    group = Scenario(
        (Topic("t", 1), Topic("u", 1)), (member("a", ["t"], [("u", 0)]), member("b", ["t"]))
    )
    assert answer(group) == {"a": {("t", 0)}, "b": {("t", 0)}}


def test_heterogeneous_claims_on_a_topic_nobody_subscribes_to_stay() -> None:
    """Kafka's heterogeneous builder only walks subscribed topics, so u-0 stays with a."""
    group = Scenario(
        (Topic("t", 1), Topic("v", 1), Topic("u", 1)),
        (member("a", ["t"], [("u", 0)]), member("b", ["v"])),
    )
    assert answer(group) == {"a": {("t", 0), ("u", 0)}, "b": {("v", 0)}}


# --- properties -------------------------------------------------------------------------------


@st.composite
def homogeneous_groups(draw: st.DrawFn) -> Scenario:
    counts = draw(st.lists(st.integers(0, 9), min_size=1, max_size=3))
    topics = tuple(Topic(f"t{i}", n) for i, n in enumerate(counts))
    names = [t.name for t in topics]
    member_ids = draw(
        st.lists(
            st.from_regex(r"m[a-z0-9]{1,4}", fullmatch=True), min_size=1, max_size=10, unique=True
        )
    )
    all_tps = [(t.name, p) for t in topics for p in range(t.partitions)]
    members = []
    for member_id in member_ids:
        owned = draw(st.lists(st.sampled_from(all_tps), unique=True)) if all_tps else []
        members.append(member(member_id, names, owned))
    return Scenario(topics, tuple(members))


@settings(max_examples=150, deadline=None)
@given(homogeneous_groups())
def test_homogeneous_every_partition_has_a_holder_and_loads_are_even(group: Scenario) -> None:
    result = answer(group)
    targets = {(t.name, p) for t in group.topics for p in range(t.partitions)}
    holders = Counter(tp for tps in result.values() for tp in tps)
    assert set(holders) == targets  # every partition held; nothing else
    members = len(group.members)
    if not targets:
        assert all(not tps for tps in result.values())
        return
    sharing = -(-members // len(targets))
    assert max(holders.values()) <= sharing
    if len(targets) >= members:  # sharing 1: each partition exactly once, loads within one
        assert set(holders.values()) == {1}
        loads = [len(tps) for tps in result.values()]
        assert max(loads) - min(loads) <= 1
    else:  # more members than partitions: everyone gets work
        assert all(result.values())


@settings(max_examples=100, deadline=None)
@given(homogeneous_groups())
def test_deterministic_and_stable_when_nothing_changes(group: Scenario) -> None:
    first = STRATEGY.assign(group)
    assert STRATEGY.assign(group) == first
    again = Scenario(
        group.topics,
        tuple(
            Member(m.member_id, m.topics, owned_partitions=first.partitions[m.member_id])
            for m in group.members
        ),
    )
    if len({tp for tps in first.partitions.values() for tp in tps}) >= len(group.members):
        assert STRATEGY.assign(again) == first  # a balanced answer is kept as it is

"""``share-simple`` as Kafka 4.0 and 4.1 (``assignors/broker/share_simple_kafka40.py``).

Parity with those lines' own classes: ``tests/differential/test_release_lines.py`` (200 generated
groups per line in CI) and ``scripts/differential.py``. Here: the steps traced by hand on small
groups (member ids of one letter, so ``String.hashCode`` is the letter's code), and properties.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assignors.broker.share_simple import STRATEGY
from assignors.broker.share_simple_kafka40 import EarlyShareAssignmentError, hash_pick
from assignors.model import Member, Scenario, Topic, TopicPartition

TP = TopicPartition


def member(member_id: str, topics: list[str], owned: list[tuple[str, int]] = ()) -> Member:  # type: ignore[assignment]
    return Member(member_id, tuple(topics), owned_partitions=tuple(TP(*tp) for tp in owned))


def answer(group: Scenario, version: str) -> dict[str, set[tuple[str, int]]]:
    result = STRATEGY.assign(replace(group, kafka_version=version)).partitions
    return {m: {(tp.topic, tp.partition) for tp in tps} for m, tps in result.items()}


def test_hash_pick_is_javas_signed_remainder_made_positive() -> None:
    assert [hash_pick(m, 4) for m in "abce"] == [1, 2, 3, 1]  # 97, 98, 99, 101 mod 4
    # "polygenelubricants".hashCode() is Integer.MIN_VALUE: |MIN_VALUE % 6| = 2.
    assert hash_pick("polygenelubricants", 6) == 2


def test_kafka_40_gives_every_member_all_of_its_topics() -> None:
    group = Scenario(
        (Topic("t", 2), Topic("u", 1)),
        (member("a", ["t", "gone"], [("u", 0)]), member("b", ["t", "u"]), member("c", [])),
    )
    assert answer(group, "4.0") == {
        "a": {("t", 0), ("t", 1)},
        "b": {("t", 0), ("t", 1), ("u", 0)},
        "c": set(),
    }


def test_kafka_41_hash_picks_then_round_robin() -> None:
    """a, b, c (map order) on t with 4 partitions: desired 2. Step 1: a picks t-1 (97 mod 4),
    b t-2, c t-3. Step 3: t-0, still with nobody, goes to the first in the rotation, a."""
    group = Scenario((Topic("t", 4),), (member("a", ["t"]), member("b", ["t"]), member("c", ["t"])))
    assert answer(group, "4.1") == {"a": {("t", 0), ("t", 1)}, "b": {("t", 2)}, "c": {("t", 3)}}


def test_kafka_41_shares_a_hash_collision_and_may_give_one_over_desired() -> None:
    """a and e both pick t-1 (97 and 101 mod 4); desired 2. The rotation gives t-0 to a, t-2 to
    e, and t-3 to a again: a member may take one partition beyond ``desired``."""
    group = Scenario((Topic("t", 4),), (member("a", ["t"]), member("e", ["t"])))
    assert answer(group, "4.1") == {"a": {("t", 0), ("t", 1), ("t", 3)}, "e": {("t", 1), ("t", 2)}}


def test_kafka_41_overlapping_claims_exhaust_the_rotation() -> None:
    """a and g both pick t-1 of 6 (97 and 103 mod 6); desired 3. Both keep their shared claims
    t-0 and t-2 (3 each); t-3 and t-4 take them to 4; t-5 finds nobody: Kafka throws."""
    shared = [("t", 0), ("t", 2)]
    group = Scenario((Topic("t", 6),), (member("a", ["t"], shared), member("g", ["t"], shared)))
    with pytest.raises(EarlyShareAssignmentError, match="Inconsistent number of member IDs"):
        answer(group, "4.1")


def test_kafka_41_heterogeneous_picks_per_member_and_rotates_per_topic() -> None:
    """a subscribes to t (2 partitions), e to t and u (1): a picks t-1 (97 mod 2), e picks u-0
    (101 mod 3 of t-0, t-1, u-0). t-0, unheld and unclaimed, rotates over t's subscribers from
    a. e gets nothing of t: Kafka 4.1 does not balance different subscriptions."""
    group = Scenario((Topic("t", 2), Topic("u", 1)), (member("a", ["t"]), member("e", ["t", "u"])))
    assert answer(group, "4.1") == {"a": {("t", 0), ("t", 1)}, "e": {("u", 0)}}


def test_kafka_41_heterogeneous_claims_stay_with_subscribers_whatever_their_count() -> None:
    """e keeps every claim on t and u (no count limit); a's claim on u, which it does not
    subscribe to, is dropped, and t-0 claimed is not handed out again."""
    group = Scenario(
        (Topic("t", 2), Topic("u", 3)),
        (member("a", ["t"], [("u", 2)]), member("e", ["t", "u"], [("t", 0), ("u", 1), ("u", 2)])),
    )
    result = answer(group, "4.1")
    assert result["a"] == {("t", 1)}  # its hash pick (97 mod 2)
    assert result["e"] >= {("t", 0), ("u", 1), ("u", 2)}


# --- properties -------------------------------------------------------------------------------


@st.composite
def groups(draw: st.DrawFn, claims: bool = True) -> Scenario:
    counts = draw(st.lists(st.integers(0, 6), min_size=1, max_size=3))
    topics = tuple(Topic(f"t{i}", n) for i, n in enumerate(counts))
    names = [t.name for t in topics] + ["missing"]
    ids = draw(st.lists(st.from_regex(r"m[a-z0-9]{1,4}", fullmatch=True), max_size=8, unique=True))
    every = [(t.name, p) for t in topics for p in range(t.partitions)]
    members = []
    for member_id in ids:
        subscribed = draw(st.lists(st.sampled_from(names), unique=True))
        owned = draw(st.lists(st.sampled_from(every), unique=True)) if claims and every else []
        members.append(member(member_id, subscribed, owned))
    return Scenario(topics, tuple(members))


def targets(group: Scenario, m: Member) -> set[tuple[str, int]]:
    counts = group.partition_counts()
    return {(t, p) for t in m.topics if t in counts for p in range(counts[t])}


@settings(max_examples=100, deadline=None)
@given(groups())
def test_kafka_40_answer_is_each_members_targets(group: Scenario) -> None:
    result = answer(group, "4.0")
    assert result == {m.member_id: targets(group, m) for m in group.members}


@settings(max_examples=150, deadline=None)
@given(groups(claims=False))
def test_kafka_41_without_claims_every_target_has_a_subscriber(group: Scenario) -> None:
    """With no current claims nothing is lost: each partition some member subscribes to is held,
    only by subscribers; the same answer twice."""
    result = answer(group, "4.1")
    assert answer(group, "4.1") == result
    wanted = set().union(*(targets(group, m) for m in group.members))
    held = set().union(*result.values())
    assert held == wanted
    for m in group.members:
        assert result[m.member_id] <= targets(group, m)


@settings(max_examples=150, deadline=None)
@given(groups())
def test_kafka_41_answers_only_subscribed_partitions(group: Scenario) -> None:
    try:
        result = answer(group, "4.1")
    except EarlyShareAssignmentError:
        return  # overlapping claims exhausted the rotation, as Kafka's does
    for m in group.members:
        assert result[m.member_id] <= targets(group, m)

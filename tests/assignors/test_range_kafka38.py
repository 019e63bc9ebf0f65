"""``server-range`` as Kafka 3.8 (``assignors/broker/range_kafka38.py``): a sticky range split.

Parity with Kafka 3.8.1's own class: ``tests/differential/test_release_lines.py`` and
``scripts/differential.py``. Here: the steps traced by hand, and properties.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from assignors import registry
from assignors.model import Member, Scenario, Topic, TopicPartition

STRATEGY = registry.get("server-range")
TP = TopicPartition


def member(member_id: str, topics: list[str], owned: list[tuple[str, int]] = ()) -> Member:  # type: ignore[assignment]
    return Member(member_id, tuple(topics), owned_partitions=tuple(TP(*tp) for tp in owned))


def answer(group: Scenario, version: str | None = "3.8") -> dict[str, list[tuple[str, int]]]:
    result = STRATEGY.assign(replace(group, kafka_version=version)).partitions
    return {m: [(tp.topic, tp.partition) for tp in tps] for m, tps in result.items()}


def test_members_keep_what_they_hold_up_to_their_share() -> None:
    """t has 5 partitions, members a, b (map order): quota 2, one extra. a holds 3 and 4, b
    holds 0, 1 and 2. a keeps 3 and 4 (quota 2); b keeps 0 and 1 and, as it holds more, also 2
    with the extra. Kafka 3.9 and later split by member order instead: a 0-2, b 3-4."""
    group = Scenario(
        (Topic("t", 5),),
        (
            member("a", ["t"], [("t", 3), ("t", 4)]),
            member("b", ["t"], [("t", p) for p in range(3)]),
        ),
    )
    assert answer(group) == {"a": [("t", 3), ("t", 4)], "b": [("t", 0), ("t", 1), ("t", 2)]}
    assert answer(group, None) == {"a": [("t", 0), ("t", 1), ("t", 2)], "b": [("t", 3), ("t", 4)]}


def test_unheld_partitions_go_out_in_ranges_extra_first_come() -> None:
    """t has 7 partitions, members a, b, c (map order): quota 2, one extra. Only c holds: 6.
    Kept: c's 6. The rest, 0-5, in ranges: a wants 2 and takes the extra (0, 1, 2), b 2 (3, 4),
    c 1 more (5)."""
    group = Scenario(
        (Topic("t", 7),),
        (member("a", ["t"]), member("b", ["t"]), member("c", ["t"], [("t", 6)])),
    )
    assert answer(group) == {
        "a": [("t", 0), ("t", 1), ("t", 2)],
        "b": [("t", 3), ("t", 4)],
        "c": [("t", 5), ("t", 6)],
    }


@st.composite
def groups(draw: st.DrawFn) -> Scenario:
    counts = draw(st.lists(st.integers(0, 8), min_size=1, max_size=3))
    topics = tuple(Topic(f"t{i}", n) for i, n in enumerate(counts))
    every = [(t.name, p) for t in topics for p in range(t.partitions)]
    ids = draw(st.lists(st.from_regex(r"m[a-z0-9]{1,3}", fullmatch=True), max_size=6, unique=True))
    members = []
    for member_id in ids:
        topics_of = draw(st.lists(st.sampled_from([t.name for t in topics]), unique=True))
        owned = draw(st.lists(st.sampled_from(every), unique=True)) if every else []
        members.append(member(member_id, topics_of, owned))
    return Scenario(topics, tuple(members))


@settings(max_examples=150, deadline=None)
@given(groups())
def test_every_subscribed_partition_once_and_shares_within_one(group: Scenario) -> None:
    result = answer(group)
    held = Counter(tp for tps in result.values() for tp in tps)
    subscribed = {t for m in group.members for t in m.topics}
    wanted = {
        (t.name, p) for t in group.topics if t.name in subscribed for p in range(t.partitions)
    }
    assert set(held) == wanted and set(held.values()) <= {1}
    for m in group.members:
        assert {t for t, _ in result[m.member_id]} <= set(m.topics)
    for topic in group.topics:
        shares = [
            sum(t == topic.name for t, _ in result[m.member_id])
            for m in group.members
            if topic.name in m.topics
        ]
        if shares:
            assert max(shares) <= topic.partitions // len(shares) + 1
    assert answer(group) == result

"""Hypothesis generators and checks shared by the design documents' strategy tests."""

from __future__ import annotations

import random
from collections.abc import Mapping

from hypothesis import strategies as st

from assignors.model import Assignment, AutoOffsetReset, Member, Scenario, Topic, TopicPartition

TOPIC_NAMES = ("orders", "clicks", "impressions", "payments")
MEMBER_IDS = ("A", "B", "C", "D", "E", "consumer-1-9f", "consumer-10-0a", "z", "Ä-member")


@st.composite
def topics(draw: st.DrawFn, max_partitions: int = 12) -> Topic:
    """A topic with optional lags or offsets (never both; both kinds are valid on their own)."""
    name = draw(st.sampled_from(TOPIC_NAMES))
    count = draw(st.integers(1, max_partitions))
    kind = draw(st.sampled_from(["none", "lags", "offsets"]))
    if kind == "lags":
        lags = tuple(draw(st.lists(st.integers(0, 50), min_size=count, max_size=count)))
        return Topic(name, count, lags=lags)
    if kind == "offsets":
        starts = draw(st.lists(st.integers(0, 100), min_size=count, max_size=count))
        sizes = draw(st.lists(st.integers(0, 100), min_size=count, max_size=count))
        ends = [start + size for start, size in zip(starts, sizes, strict=True)]
        committed = [
            draw(st.one_of(st.none(), st.integers(0, end + 20))) for end in ends
        ]  # beyond the end and below the start both happen on live clusters
        return Topic(
            name,
            count,
            log_start_offsets=tuple(starts),
            log_end_offsets=tuple(ends),
            committed_offsets=tuple(committed),
        )
    return Topic(name, count)


@st.composite
def scenarios(draw: st.DrawFn, max_members: int = 6, with_claims: bool = False) -> Scenario:
    """A group: 1-4 topics, 1-``max_members`` members subscribing to subsets (plus a ghost)."""
    topic_list = draw(st.lists(topics(), min_size=1, max_size=4, unique_by=lambda t: t.name))
    names = [t.name for t in topic_list]
    member_ids = draw(
        st.lists(st.sampled_from(MEMBER_IDS), min_size=1, max_size=max_members, unique=True)
    )
    members = []
    for member_id in member_ids:
        subscription = draw(
            st.lists(st.sampled_from([*names, "ghost-topic"]), min_size=1, unique=True)
        )
        priority = draw(st.one_of(st.none(), st.integers(-3, 3)))
        owned: tuple[TopicPartition, ...] = ()
        generation = None
        if with_claims:
            owned = tuple(
                draw(
                    st.lists(
                        st.builds(TopicPartition, st.sampled_from(names), st.integers(0, 14)),
                        max_size=8,
                        unique=True,
                    )
                )
            )
            generation = draw(st.one_of(st.none(), st.integers(0, 5)))
        members.append(
            Member(
                member_id,
                tuple(subscription),
                priority=priority,
                owned_partitions=owned,
                generation=generation,
            )
        )
    resets: list[AutoOffsetReset] = ["latest", "earliest", "none"]
    reset = draw(st.sampled_from(resets))
    return Scenario(tuple(topic_list), tuple(members), auto_offset_reset=reset)


def shuffled_members(scenario: Scenario, seed: int) -> Scenario:
    """The same group with its members listed in another order."""
    members = list(scenario.members)
    random.Random(seed).shuffle(members)
    return Scenario(scenario.topics, tuple(members), scenario.auto_offset_reset)


def assert_valid_assignment(scenario: Scenario, assignment: Assignment) -> None:
    """Every member listed; each partition exists, is assigned at most once, to a subscriber."""
    assert set(assignment.partitions) == {m.member_id for m in scenario.members}
    counts = scenario.partition_counts()
    subscription = {m.member_id: set(m.topics) for m in scenario.members}
    seen: set[TopicPartition] = set()
    for member_id, partitions in assignment.partitions.items():
        for tp in partitions:
            assert tp.topic in counts and 0 <= tp.partition < counts[tp.topic], tp
            assert tp.topic in subscription[member_id], (member_id, tp)
            assert tp not in seen, f"{tp} assigned twice"
            seen.add(tp)


def assignable(scenario: Scenario) -> set[TopicPartition]:
    """Every partition of every existing topic someone subscribes to."""
    counts = scenario.partition_counts()
    return {
        TopicPartition(topic, p)
        for topic in scenario.subscribed_existing_topics()
        for p in range(counts[topic])
    }


def as_sets(partitions: Mapping[str, tuple[TopicPartition, ...]]) -> dict[str, set[str]]:
    """Member id -> {"topic-partition", ...}: compact for comparing with worked examples."""
    return {member: {str(tp) for tp in tps} for member, tps in partitions.items()}

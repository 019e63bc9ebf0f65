"""Kafka 3.8's broker-side ``RangeAssignor`` (``server-range`` with ``kafka_version`` 3.8).

KIP-848 ran early access in Kafka 3.8; its ``RangeAssignor`` was sticky, unlike the plain range
split of 3.9 and later (:mod:`assignors.broker.range`). This module reproduces it, checked
against Kafka 3.8.1's own class by the differential tests. The group is read as
:class:`~assignors.broker.uniform.GroupSpec` reads it (member-map order, a doubly claimed
partition left with its last claimant in member-map order).

Per subscribed existing topic, independently, with its subscribers in member-map order (every
member when all subscribe to the same topics), ``P`` partitions and ``M`` subscribers,
``quota = P // M`` and ``extra = P % M`` (the number of members that may take one more):

1. Each subscriber keeps its lowest ``min(held, quota)`` held partitions of the topic. One that
   holds more than ``quota`` also keeps its next lowest while ``extra`` lasts (using one up);
   the others are *unfilled*, wanting ``quota - held`` (possibly zero or less).
2. The partitions nobody kept, ascending, go to the unfilled members in their order: each takes
   the next ``wanted`` of them, one more while ``extra`` lasts (using one up).

Invariants: each partition of a subscribed topic goes to at most one subscriber; a member holds
at most ``quota + 1`` partitions of a topic; answers are deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence

from assignors.broker.uniform import GroupSpec
from assignors.model import Scenario, TopicPartition
from assignors.trace import DecisionTrace


def compute_kafka38(
    scenario: Scenario, trace: DecisionTrace | None = None
) -> dict[str, list[TopicPartition]]:
    """Member id -> partitions, as Kafka 3.8's ``RangeAssignor`` computes them."""
    if not scenario.members:
        return {}
    spec = GroupSpec.of(scenario)
    members = spec.member_ids
    answer: dict[str, list[TopicPartition]] = {member_id: [] for member_id in members}
    for topic, subscribers in _subscribers(spec).items():
        for member_id, partitions in _split_topic(spec, topic, subscribers).items():
            answer[member_id] += [TopicPartition(topic, p) for p in partitions]
            if trace is not None:
                trace.place_all(
                    (TopicPartition(topic, p) for p in partitions),
                    member_id,
                    "3.8 range",
                    "Kafka 3.8's sticky range split of the topic over its subscribers",
                )
    return {member_id: sorted(answer[member_id]) for member_id in members}


def _subscribers(spec: GroupSpec) -> dict[str, list[str]]:
    """Existing subscribed topic -> its subscribers in member-map order."""
    members = spec.member_ids
    if spec.homogeneous:
        return {topic: list(members) for topic in spec.subscriptions[members[0]]}
    found: dict[str, list[str]] = {}
    for member_id in members:
        for topic in spec.subscriptions[member_id]:
            found.setdefault(topic, []).append(member_id)
    return found


def _split_topic(spec: GroupSpec, topic: str, subscribers: Sequence[str]) -> dict[str, list[int]]:
    """Steps 1 and 2 for one topic: subscriber -> its partition numbers."""
    count = spec.partition_counts[topic]
    quota, extra = divmod(count, len(subscribers))
    given: dict[str, list[int]] = {}
    kept: set[int] = set()
    unfilled: list[tuple[str, int]] = []
    for member_id in subscribers:
        held = sorted({tp.partition for tp in spec.current[member_id].get(topic, ())})
        mine = held[: min(len(held), quota)]
        wanted = quota - len(held)
        if wanted < 0 and extra > 0:
            extra -= 1
            mine.append(held[quota])
        else:
            unfilled.append((member_id, wanted))
        kept.update(mine)
        if mine:
            given[member_id] = mine
    free = [p for p in range(count) if p not in kept]
    start = 0
    for member_id, wanted in unfilled:
        if extra > 0:
            wanted += 1
            extra -= 1
        if wanted > 0:
            given.setdefault(member_id, []).extend(free[start : start + wanted])
            start += wanted
    return given

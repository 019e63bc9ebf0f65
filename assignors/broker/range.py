"""``server-range``: the broker-side range assignor (KIP-848, ``group.remote.assignor=range``).

Kafka's group-coordinator ``RangeAssignor`` (trunk of October 2024), reproduced to the partition.
It hands out contiguous ranges of partition numbers, like the client-side ``range``; it reads
neither the current target assignment (``owned_partitions``) nor ``generation``: its stickiness
comes from a stable member order, which static members (``group_instance_id``) keep across
restarts. Topic ids play no part. Subscribed topics missing from the scenario are ignored.

1. Order the members: static members first, by instance id, then dynamic members by member id
   (both compared as Java's ``String.compareTo``, UTF-16 code units). The sort is stable over the
   coordinator's member map (a ``java.util.HashMap`` keyed by member id, filled in the listed
   order), which only shows when two members share an instance id.
2. Each subscribed existing topic on its own, with ``N`` partitions and ``k`` subscribers:
   ``floor = N // k``, ``extra = N % k``. Walking the subscribers in that order, each takes the next
   ``floor`` partition numbers, plus one more while ``extra`` lasts (the first ``extra``
   subscribers); a subscriber that comes after the last partition gets none of the topic.

Invariants: every partition of a subscribed existing topic goes to exactly one of its subscribers;
a topic's subscribers differ by at most one of its partitions; each member's partitions of a topic
are contiguous. With equal subscriptions and equal partition counts, every member gets the same
partition numbers of every topic (co-partitioning for joins). Homogeneous and heterogeneous groups
take the same steps (Kafka has two code paths that agree).

Kafka 3.8 (``kafka_version``) ran a sticky range assignor instead:
:mod:`assignors.broker.range_kafka38`.

The answer holds ranges, as Kafka's coordinator does (per member, per topic, a set of partition
numbers): each member's partitions are a :class:`~assignors.model.PartitionRuns`, equal to the
sorted tuple of them, whose ``TopicPartition`` objects are made when it is read.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from itertools import chain, groupby, repeat

from assignors.broker.range_kafka38 import compute_kafka38
from assignors.java_order import hash_order, java_string_key, string_hash
from assignors.kafka_versions import BROKER_LINES, at_least
from assignors.model import (
    Member,
    PartitionRun,
    PartitionRuns,
    Scenario,
    TopicPartition,
    topic_partitions,
)
from assignors.strategy import PartitionStrategy
from assignors.trace import DecisionTrace


def member_order(members: tuple[Member, ...]) -> list[str]:
    """Member ids in Kafka's range order: static by instance id, then dynamic by member id."""
    by_id = {member.member_id: member for member in members}
    map_order = hash_order((member.member_id for member in members), string_hash)
    static = [m for m in map_order if by_id[m].group_instance_id is not None]
    dynamic = [m for m in map_order if by_id[m].group_instance_id is None]
    static.sort(key=lambda m: java_string_key(by_id[m].group_instance_id or ""))
    dynamic.sort(key=java_string_key)
    return static + dynamic


def compute(
    scenario: Scenario, trace: DecisionTrace | None = None
) -> Mapping[str, Sequence[TopicPartition]]:
    """Member id -> partitions, as Kafka's broker-side ``RangeAssignor`` computes them: each
    member's as :class:`PartitionRuns` (its ranges, no :class:`TopicPartition` made until the
    answer is read). With a recorder, the same answer and every placement traced."""
    if not at_least(scenario.kafka_version, "3.9"):
        return compute_kafka38(scenario, trace)
    counts = scenario.partition_counts()
    ordered = member_order(scenario.members)
    subscribers = _subscribers(scenario, ordered, counts)
    if trace is not None:
        _trace_split(trace, ordered, subscribers, counts)
    return _split_by_shape(subscribers, counts, ordered)


def _split_by_shape(
    subscribers: Mapping[str, list[str]], counts: Mapping[str, int], ordered: list[str]
) -> dict[str, PartitionRuns]:
    """Step 2 in bulk. Topics with the same partition count and the same subscribers split
    alike (a *shape*): each subscriber takes the same range of all of them. The subscribed
    topics in name order fall into *segments*, the longest stretches of one shape's topics (a
    shape whose topics interleave with another's has several); each segment gives each of its
    shape's subscribers with a non-empty range one run (the segment's topics x the range),
    appended in C, segment after segment. So every member's runs come in order, as
    :class:`PartitionRuns` requires; where every topic has the same count and subscribers, one
    run per member."""
    shapes: dict[tuple[int, int], tuple[list[str], list[str]]] = {}
    for topic, members in subscribers.items():
        shape = shapes.get((counts[topic], id(members)))
        if shape is None:
            shapes[(counts[topic], id(members))] = (members, [topic])
        else:
            shape[1].append(topic)
    runs: dict[str, list[PartitionRun]] = {member_id: [] for member_id in ordered}
    range_cache: dict[tuple[int, int], list[range]] = {}
    shape_of: dict[str, int] = {}
    split: list[tuple[list[list[PartitionRun]], list[range]]] = []  # per shape
    for (count, _), (members, topics) in shapes.items():
        shape_of.update(dict.fromkeys(topics, len(split)))
        given = _ranges(count, len(members), range_cache)[:count]  # the non-empty ranges
        split.append(([runs[member_id] for member_id in members[: len(given)]], given))
    for index, segment in groupby(sorted(shape_of), key=shape_of.__getitem__):
        targets, given = split[index]
        consume(map(list.append, targets, zip(repeat(tuple(segment)), given)))
    return {member_id: PartitionRuns(held) for member_id, held in runs.items()}


def consume(iterator: Iterator[object]) -> None:
    """Run ``iterator`` to its end in C, keeping nothing."""
    deque(iterator, maxlen=0)


def _trace_split(
    trace: DecisionTrace,
    ordered: list[str],
    subscribers: Mapping[str, list[str]],
    counts: Mapping[str, int],
) -> None:
    """Record step 2 topic by topic: the member order, each topic's split, each range."""
    trace.note(
        "member order (static members by instance id, then the rest by member id): "
        + ", ".join(ordered)
    )
    for topic, members in subscribers.items():
        floor, extra = divmod(counts[topic], len(members))
        _note_split(trace, topic, members, counts[topic], floor, extra)
        for position, numbers in enumerate(_ranges(counts[topic], len(members), {})):
            if not numbers:
                break
            share = f"{floor} + 1 extra = {len(numbers)}" if position < extra else f"{floor}"
            trace.place_all(
                topic_partitions(topic, numbers),
                members[position],
                "2 range split",
                f"subscriber #{position + 1} of {len(members)} in member order takes "
                f"partitions {numbers.start}..{numbers.stop - 1} ({share})",
            )


def _ranges(
    partitions: int, subscribers: int, cache: dict[tuple[int, int], list[range]]
) -> list[range]:
    """Subscriber position -> its partition numbers (step 2), cached per shape."""
    key = (partitions, subscribers)
    ranges = cache.get(key)
    if ranges is None:
        floor, extra = divmod(partitions, subscribers)
        ranges = [
            range(position * floor + min(position, extra),
                  (position + 1) * floor + min(position + 1, extra))
            for position in range(subscribers)
        ]  # fmt: skip
        cache[key] = ranges
    return ranges


def _subscribers(
    scenario: Scenario, ordered: list[str], counts: Mapping[str, int]
) -> dict[str, list[str]]:
    """Existing topic -> its subscribers in member order; topics in order of first mention.

    Members with the same subscription are handled as one group (a group of 2,000 members and
    500 topics has one subscription, not a million member-topic pairs); a topic's subscribers
    are the union of its groups' members, in member order. Topics with the same subscribers
    share one list (callers must not change it).
    """
    topics_of = {member.member_id: member.topics for member in scenario.members}
    groups: dict[tuple[str, ...], list[str]] = {}
    last: tuple[str, ...] | None = None
    group: list[str] = []
    for member_id in ordered:
        topics = topics_of[member_id]
        if topics is not last:  # the parser shares equal subscriptions: mostly the same tuple
            group = groups.setdefault(topics, [])
            last = topics
        group.append(member_id)
    position = {member_id: index for index, member_id in enumerate(ordered)}
    by_topic: dict[str, list[list[str]]] = {}
    for topics, members in groups.items():
        for topic in dict.fromkeys(topics):
            if topic in counts:
                by_topic.setdefault(topic, []).append(members)
    return {
        topic: lists[0] if len(lists) == 1 else sorted(chain(*lists), key=position.__getitem__)
        for topic, lists in by_topic.items()
    }


def _note_split(
    trace: DecisionTrace, topic: str, members: list[str], partitions: int, floor: int, extra: int
) -> None:
    count = len(members)
    trace.note(f"subscribers of {topic} in member order: {', '.join(members)}", topic)
    trace.note(
        f"{partitions} partitions over {count} subscribers: {partitions} // {count} = {floor} "
        f"each, {partitions} % {count} = {extra} extra, one each for the first {extra}",
        topic,
    )


STRATEGY = PartitionStrategy(
    name="server-range",
    summary=(
        "Kafka 4's broker-side range assignor (KIP-848): contiguous partition ranges per topic "
        "over members sorted by instance id, then member id."
    ),
    when_to_use=(
        "Groups on the consumer rebalance protocol that join co-partitioned topics and need the "
        "same partition numbers on one member; use static members to keep ranges across restarts."
    ),
    consumer_config="group.protocol=consumer\ngroup.remote.assignor=range",
    protocol="consumer",
    compute=compute,
    older_kafka=(
        (
            "3.8",
            "sticky: each subscriber keeps its lowest held partitions of a topic up to its "
            "share (one more while the extra partitions last); the rest go out in ranges",
        ),
    ),
    kafka_lines=BROKER_LINES,
)

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
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from itertools import chain, product, repeat

from assignors.java_order import hash_order, java_string_key, string_hash
from assignors.model import Member, Scenario, SortedAnswer, TopicPartition
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
    """Member id -> partitions, as Kafka's broker-side ``RangeAssignor`` computes them."""
    counts = scenario.partition_counts()
    ordered = member_order(scenario.members)
    subscribers = _subscribers(scenario, ordered, counts)
    result: dict[str, list[TopicPartition]] = {member_id: [] for member_id in ordered}
    if trace is None:
        return _split_by_shape(subscribers, counts, result)
    trace.note(
        "member order (static members by instance id, then the rest by member id): "
        + ", ".join(ordered)
    )
    for topic, members in subscribers.items():
        partitions = [TopicPartition(topic, p) for p in range(counts[topic])]
        floor, extra = divmod(len(partitions), len(members))
        _note_split(trace, topic, members, len(partitions), floor, extra)
        start = 0
        for position, member_id in enumerate(members):
            if start >= len(partitions):
                break
            end = start + floor + (1 if position < extra else 0)
            result[member_id] += partitions[start:end]
            share = f"{floor} + 1 extra = {end - start}" if position < extra else f"{floor}"
            trace.place_all(
                partitions[start:end],
                member_id,
                "2 range split",
                f"subscriber #{position + 1} of {len(members)} in member order takes "
                f"partitions {start}..{end - 1} ({share})",
            )
            start = end
    return result


def _split_by_shape(
    subscribers: Mapping[str, list[str]],
    counts: Mapping[str, int],
    result: dict[str, list[TopicPartition]],
) -> Mapping[str, Sequence[TopicPartition]]:
    """Step 2 without a trace, in bulk; ``result`` holds an empty list per member. Topics with
    the same partition count and the same subscribers split alike (a *shape*), so each
    subscriber takes its range of all of them at once: one ``list.extend`` per subscriber and
    shape, fed in C (``itertools.product`` of the topics and its partition numbers; an empty
    range for a subscriber past the last partition). A member's list is grouped by shape;
    :meth:`PartitionStrategy.assign` sorts it. With one shape (every topic has the same count
    and subscribers), each subscriber's product over the topics in name order is already in
    :class:`TopicPartition` order: it is built straight into the answer's tuple, unsorted."""
    shapes: dict[tuple[int, int], tuple[list[str], list[str]]] = {}
    for topic, members in subscribers.items():
        shape = shapes.get((counts[topic], id(members)))
        if shape is None:
            shapes[(counts[topic], id(members))] = (members, [topic])
        else:
            shape[1].append(topic)
    range_cache: dict[tuple[int, int], list[range]] = {}
    # tuple.__new__(TopicPartition, (topic, number)) per partition: a C call, no Python-level
    # ``_make``. One endless ``repeat(TopicPartition)`` serves every member's map.
    classes = repeat(TopicPartition)
    if len(shapes) == 1:
        [((count, _), (members, topics))] = shapes.items()
        per_member = map(product, repeat(sorted(topics)), _ranges(count, len(members), {}))
        made = map(map, repeat(tuple.__new__), repeat(classes), per_member)
        answer: SortedAnswer[Sequence[TopicPartition]] = SortedAnswer(result)
        answer.update(zip(members, map(tuple, made), strict=True))
        return answer
    lists_of: dict[int, list[list[TopicPartition]]] = {}  # id(subscribers) -> their answer lists
    for (count, _), (members, topics) in shapes.items():
        targets = lists_of.get(id(members))
        if targets is None:
            targets = lists_of[id(members)] = [result[member_id] for member_id in members]
        per_member = map(product, repeat(topics), _ranges(count, len(members), range_cache))
        made = map(map, repeat(tuple.__new__), repeat(classes), per_member)
        consume(map(list.extend, targets, made))
    return result


def consume(iterator: Iterator[object]) -> None:
    """Run ``iterator`` to its end in C, keeping nothing."""
    deque(iterator, maxlen=0)


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
)

"""Kafka's client-side ``RangeAssignor`` (classic protocol, eager), rack-aware as in KIP-881.

Inputs: the scenario's topics (partition counts, optional replica racks) and members
(subscription, optional ``client.rack`` and ``group.instance.id``). Owned partitions and
generations are not read: range assignment does not depend on the previous one.

Member order (Kafka's ``MemberInfo``, shared with the round-robin assignor): static members
(those with a group instance id) first, by instance id; then dynamic members, by member id.
Strings compare as Java does (UTF-16 code units). Two static members with the same instance id
keep the iteration order of the Java ``HashMap`` of subscriptions keyed by member id.

The algorithm, topic by topic over the topics that exist, have partitions and have
subscribers:

1. The topic's consumers are its subscribers in member order. With ``P`` partitions and ``C``
   consumers, every consumer's quota is ``P // C``, and the first ``P % C`` consumers to reach
   their quota may take one more (the *extra* slots).
2. Rack awareness applies to the group when some topic *needs* it: some of the topic's
   consumers have a rack, one of those racks holds a replica of the topic, and the partitions
   do not all have the same set of replica racks. A consumer without a rack matches every
   partition; a consumer with one matches the partitions that have a replica on it.
3. If rack awareness applies, a rack-matching pass runs first. Topics are grouped by their
   consumer list and, inside that, by partition count (topics whose consumers have no rack form
   a group that does nothing).

   a. A group of two or more topics is co-partitioned: for partition number ``p`` = 0, 1, ...
      the first remaining consumer that matches ``p`` of every topic in the group and still
      has room in every topic takes ``p`` of every topic; a consumer with no room left in any
      topic stops being considered.
   b. A topic alone in its group, if it needs rack awareness, gives each consumer in order up
      to its remaining room of the matching unassigned partitions, lowest numbers first.
4. A final pass gives each consumer in order up to its remaining room of the topic's still
   unassigned partitions, lowest numbers first. Without rack awareness this is the classic
   range split: consumer ``i`` gets the ``i``-th contiguous block.

Invariants: every partition of a subscribed, existing topic goes to exactly one of its
subscribers; per topic, the counts of any two consumers differ by at most one; topics with the
same subscribers and the same partition count are co-partitioned (partition ``p`` of each goes to
the same member) unless rack matching had to split them; the answer depends only on the
members' ids, instance ids, racks and subscriptions, not on the order they are listed in.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import product

from assignors.java_order import hash_order, java_string_key, string_hash
from assignors.kafka_versions import at_least
from assignors.model import Member, Scenario, Topic, TopicPartition
from assignors.strategy import PartitionStrategy
from assignors.trace import DecisionTrace

#: The first Kafka release line whose range assignor looks at racks (KIP-881).
RACK_AWARE_SINCE = "3.5"
#: Builds a ``TopicPartition`` from a ``(topic, partition)`` tuple without a Python-level call.
new_topic_partition = partial(tuple.__new__, TopicPartition)


def kafka_member_order(members: Sequence[Member]) -> list[Member]:
    """Members in the order of Kafka's ``AbstractPartitionAssignor.MemberInfo``.

    Static members by group instance id, then dynamic members by member id, comparing as Java's
    ``String.compareTo``. Java sorts stably, so static members sharing an instance id stay in the
    iteration order of the ``HashMap`` of subscriptions keyed by member id.
    """
    static = [member for member in members if member.group_instance_id is not None]
    dynamic = [member for member in members if member.group_instance_id is None]
    if len({member.group_instance_id for member in static}) < len(static):
        by_id = {member.member_id: member for member in static}
        static = [by_id[member_id] for member_id in hash_order(by_id, string_hash)]
    static.sort(key=lambda member: java_string_key(member.group_instance_id or ""))
    dynamic.sort(key=lambda member: java_string_key(member.member_id))
    return static + dynamic


@dataclass(frozen=True, slots=True)
class SubscriptionIndex:
    """Who subscribes to what, in Kafka member order, grouped for speed.

    ``topics`` are the existing topics with at least one partition and one subscriber, by name.
    ``consumers_of[topic]`` is the topic's subscriber list in member order; topics with the same
    subscribers share one list object, so grouping topics by ``id()`` of it is cheap.
    """

    ordered: list[Member]
    topics: list[Topic]
    consumers_of: dict[str, list[str]]


def index_subscriptions(scenario: Scenario) -> SubscriptionIndex:
    """Build the :class:`SubscriptionIndex` of ``scenario``.

    Members with identical subscriptions form one class; a topic's subscribers are the union of
    the classes that list it, so topics with the same subscribers are found by comparing short
    tuples of class numbers rather than member lists.
    """
    existing = {topic.name: topic for topic in scenario.topics if topic.partitions > 0}
    ordered = kafka_member_order(scenario.members)
    class_of_subscription: dict[frozenset[str], int] = {}
    member_class: list[int] = []
    for member in ordered:
        subscription = frozenset(name for name in member.topics if name in existing)
        member_class.append(
            class_of_subscription.setdefault(subscription, len(class_of_subscription))
        )
    classes_of_topic: dict[str, list[int]] = defaultdict(list)
    for subscription, class_id in class_of_subscription.items():
        for name in subscription:
            classes_of_topic[name].append(class_id)
    shared_lists: dict[tuple[int, ...], list[str]] = {}
    consumers_of: dict[str, list[str]] = {}
    for name, class_ids in classes_of_topic.items():
        signature = tuple(sorted(class_ids))
        consumers = shared_lists.get(signature)
        if consumers is None:
            wanted = set(signature)
            consumers = [
                member.member_id
                for member, class_id in zip(ordered, member_class, strict=True)
                if class_id in wanted
            ]
            shared_lists[signature] = consumers
        consumers_of[name] = consumers
    topics = [existing[name] for name in sorted(consumers_of)]
    return SubscriptionIndex(ordered, topics, consumers_of)


def _rack_of(member: Member) -> str | None:
    # Kafka ignores an empty client.rack.
    return member.rack or None


@dataclass(slots=True)
class _TopicState:
    """One topic's progress through the rack-aware passes (Kafka's ``TopicAssignmentState``)."""

    topic: Topic
    consumers: list[str]
    consumer_rack: dict[str, str | None]
    #: Replica racks per partition; ``None`` when none of the consumers has a rack.
    partition_racks: list[frozenset[str]] | None
    needs_rack_aware: bool
    quota: int
    remaining_extra: int
    assigned_count: dict[str, int]
    unassigned: list[bool]
    unassigned_left: int
    partitions_by_rack: dict[str, list[int]] = field(default_factory=dict)
    trace: DecisionTrace | None = None

    def room(self, consumer: str) -> int:
        """How many more partitions of this topic ``consumer`` may take now."""
        limit = self.quota + (1 if self.remaining_extra > 0 else 0)
        return max(0, limit - self.assigned_count[consumer])

    def racks_match(self, consumer: str, partition: int) -> bool:
        rack = self.consumer_rack[consumer]
        if rack is None:
            return True
        return self.partition_racks is not None and rack in self.partition_racks[partition]

    def record(self, consumer: str, partitions: list[int], step: str, why: str) -> None:
        """Trace a :meth:`give` about to happen (call only when ``trace`` is set)."""
        assert self.trace is not None
        name = self.topic.name
        self.trace.place_all(
            [TopicPartition(name, p) for p in partitions],
            consumer,
            step,
            f"{why}; {consumer} had room for {self.room(consumer)} more of {name} "
            f"(quota {self.quota}, {self.remaining_extra} extra slot(s) left)",
        )

    def give(
        self, consumer: str, partitions: list[int], out: dict[str, list[TopicPartition]]
    ) -> None:
        name = self.topic.name
        out[consumer].extend(TopicPartition(name, p) for p in partitions)
        self.assigned_count[consumer] += len(partitions)
        if self.assigned_count[consumer] > self.quota:
            self.remaining_extra -= 1
        for p in partitions:
            self.unassigned[p] = False
        self.unassigned_left -= len(partitions)


def _topic_state(
    topic: Topic,
    consumers: list[str],
    racks: dict[str, str | None],
    trace: DecisionTrace | None = None,
) -> _TopicState:
    consumer_rack = {consumer: racks[consumer] for consumer in consumers}
    consumer_racks = {rack for rack in consumer_rack.values() if rack is not None}
    partition_racks: list[frozenset[str]] | None = None
    needs_rack_aware = False
    partitions_by_rack: dict[str, list[int]] = defaultdict(list)
    if consumer_racks:
        replica_racks = topic.replica_racks or ((),) * topic.partitions
        partition_racks = [frozenset(racks_of_p) for racks_of_p in replica_racks]
        all_partition_racks = frozenset().union(*partition_racks)
        needs_rack_aware = not consumer_racks.isdisjoint(all_partition_racks) and any(
            racks_of_p != all_partition_racks for racks_of_p in partition_racks
        )
        for p, racks_of_p in enumerate(partition_racks):
            for rack in racks_of_p:
                partitions_by_rack[rack].append(p)
    return _TopicState(
        topic=topic,
        consumers=consumers,
        consumer_rack=consumer_rack,
        partition_racks=partition_racks,
        needs_rack_aware=needs_rack_aware,
        quota=topic.partitions // len(consumers),
        remaining_extra=topic.partitions % len(consumers),
        assigned_count=dict.fromkeys(consumers, 0),
        unassigned=[True] * topic.partitions,
        unassigned_left=topic.partitions,
        partitions_by_rack=partitions_by_rack,
        trace=trace,
    )


def _assign_matching_ranges(state: _TopicState, out: dict[str, list[TopicPartition]]) -> None:
    """Step 3b: each consumer in order takes matching unassigned partitions up to its room."""
    every_partition = list(range(state.topic.partitions))
    # Partitions only ever leave the unassigned set, so each candidate list keeps a cursor past
    # its assigned prefix and later consumers do not rescan it.
    cursors: dict[str | None, int] = {}
    for consumer in state.consumers:
        if state.unassigned_left == 0:
            break
        room = state.room(consumer)
        if room == 0:
            continue
        rack = state.consumer_rack[consumer]
        candidates = every_partition if rack is None else state.partitions_by_rack.get(rack, [])
        start = cursors.get(rack, 0)
        while start < len(candidates) and not state.unassigned[candidates[start]]:
            start += 1
        cursors[rack] = start
        picked: list[int] = []
        for k in range(start, len(candidates)):
            p = candidates[k]
            if state.unassigned[p]:
                picked.append(p)
                if len(picked) == room:
                    break
        if picked:
            if state.trace is not None:
                state.record(
                    consumer,
                    picked,
                    "3b rack match",
                    f"the lowest unassigned partitions with a replica on rack {rack}"
                    if rack is not None
                    else "a consumer without a rack matches every partition",
                )
            state.give(consumer, picked, out)


def _assign_co_partitioned(states: list[_TopicState], out: dict[str, list[TopicPartition]]) -> None:
    """Step 3a: partition ``p`` of every topic to the first consumer matching all of them."""
    remaining = list(states[0].consumers)
    for p in range(states[0].topic.partitions):
        chosen = next(
            (
                consumer
                for consumer in remaining
                if all(s.racks_match(consumer, p) and s.room(consumer) > 0 for s in states)
            ),
            None,
        )
        if chosen is None:
            continue
        for state in states:
            if state.trace is not None:
                state.record(
                    chosen,
                    [p],
                    "3a co-partitioned",
                    f"first consumer in order matching partition {p} of all of "
                    f"{', '.join(s.topic.name for s in states)} by rack, with room in each",
                )
            state.give(chosen, [p], out)
        if all(state.room(chosen) == 0 for state in states):
            remaining.remove(chosen)
            if not remaining:
                break


def _assign_rest(state: _TopicState, out: dict[str, list[TopicPartition]]) -> None:
    """Step 4: each consumer in order takes the lowest unassigned partitions up to its room."""
    left = [p for p in range(state.topic.partitions) if state.unassigned[p]]
    position = 0
    for consumer in state.consumers:
        if position >= len(left):
            break
        room = state.room(consumer)
        if room:
            if state.trace is not None:
                state.record(
                    consumer,
                    left[position : position + room],
                    "4 range split",
                    "consumers in order take the lowest partitions still unassigned",
                )
            state.give(consumer, left[position : position + room], out)
            position += room


def _assign_rack_aware(states: list[_TopicState], out: dict[str, list[TopicPartition]]) -> None:
    """Steps 3 and 4 over every topic, with per-topic state."""
    groups: dict[tuple[int, int], list[_TopicState]] = defaultdict(list)
    for state in states:
        size = 0 if state.partition_racks is None else state.topic.partitions
        groups[(id(state.consumers), size)].append(state)
    for (_, size), group in groups.items():
        if len(group) > 1:
            if size > 0:
                _assign_co_partitioned(group, out)
        elif group[0].needs_rack_aware:
            _assign_matching_ranges(group[0], out)
    for state in states:
        _assign_rest(state, out)


def _assign_plain(
    index: SubscriptionIndex,
    out: dict[str, list[TopicPartition]],
    trace: DecisionTrace | None = None,
) -> None:
    """The classic split: consumer ``i`` gets block ``i`` of every topic it shares.

    Topics with the same consumers and partition count get identical blocks, so each consumer's
    partitions of all of them are produced in one go, already in sorted order.
    """
    groups: dict[tuple[int, int], list[str]] = defaultdict(list)
    consumers_by_id: dict[int, list[str]] = {}
    for topic in index.topics:
        consumers = index.consumers_of[topic.name]
        consumers_by_id[id(consumers)] = consumers
        groups[(id(consumers), topic.partitions)].append(topic.name)
    for (consumers_id, partitions), names in groups.items():
        consumers = consumers_by_id[consumers_id]
        quota, extra = divmod(partitions, len(consumers))
        if trace is not None:
            _note_split(trace, names, consumers, partitions, quota, extra)
        start = 0
        for i, consumer in enumerate(consumers):
            end = start + quota + (1 if i < extra else 0)
            if end == start:
                break
            out[consumer].extend(map(new_topic_partition, product(names, range(start, end))))
            if trace is not None:
                share = f"{quota} + 1 extra = {end - start}" if i < extra else f"{quota}"
                trace.place_all(
                    map(new_topic_partition, product(names, range(start, end))),
                    consumer,
                    "1 range split",
                    f"consumer #{i + 1} of {len(consumers)} in member order takes partitions "
                    f"{start}..{end - 1} ({share})",
                )
            start = end


def _note_split(
    trace: DecisionTrace,
    names: list[str],
    consumers: list[str],
    partitions: int,
    quota: int,
    extra: int,
) -> None:
    """The arithmetic of one split, noted once per topic it applies to."""
    count = len(consumers)
    for name in names:
        trace.note(f"consumers of {name} in member order: {', '.join(consumers)}", name)
        trace.note(
            f"{partitions} partitions over {count} consumers: {partitions} // {count} = "
            f"{quota} each, {partitions} % {count} = {extra} extra, one each for the first "
            f"{extra} consumer(s)",
            name,
        )


def assign_range(
    scenario: Scenario, trace: DecisionTrace | None = None
) -> dict[str, list[TopicPartition]]:
    """Member id -> partitions, as Kafka's ``RangeAssignor`` answers for ``scenario``."""
    index = index_subscriptions(scenario)
    out: dict[str, list[TopicPartition]] = {member.member_id: [] for member in index.ordered}
    racks = {member.member_id: _rack_of(member) for member in index.ordered}
    if trace is not None:
        trace.note(
            "member order (static members by group.instance.id, then the rest by member id): "
            + ", ".join(member.member_id for member in index.ordered)
        )
    if any(racks.values()) and not at_least(scenario.kafka_version, RACK_AWARE_SINCE):
        if trace is not None:
            trace.note(
                f"Kafka {scenario.kafka_version} has no rack-aware range (KIP-881 came with "
                f"{RACK_AWARE_SINCE}): client.rack and replica racks are not looked at"
            )
    elif any(racks.values()):
        states = [
            _topic_state(topic, index.consumers_of[topic.name], racks, trace)
            for topic in index.topics
        ]
        if any(state.needs_rack_aware for state in states):
            if trace is not None:
                _note_rack_aware(trace, states)
            _assign_rack_aware(states, out)
            return out
    _assign_plain(index, out, trace)
    return out


def _note_rack_aware(trace: DecisionTrace, states: list[_TopicState]) -> None:
    trace.note("rack-aware (KIP-881): replicas are spread unevenly over the consumers' racks")
    for state in states:
        name, count = state.topic.name, len(state.consumers)
        trace.note(f"consumers of {name} in member order: {', '.join(state.consumers)}", name)
        trace.note(
            f"{state.topic.partitions} partitions over {count} consumers: quota "
            f"{state.topic.partitions} // {count} = {state.quota}, "
            f"{state.topic.partitions} % {count} = {state.remaining_extra} extra slot(s)",
            name,
        )


STRATEGY = PartitionStrategy(
    name="range",
    summary=(
        "Kafka's classic default: topic by topic, the partitions are cut into contiguous blocks, "
        "one per subscribed member in member order (static members by group.instance.id first, "
        "then the rest by member id), the first members getting one extra when the count does "
        "not divide. Topics with the same subscribers and partition count are co-partitioned: "
        "partition p of each lands on the same member. With client.rack set and replicas spread "
        "unevenly over racks (KIP-881) it first places partitions on members in a replica's rack, "
        "keeping the same per-topic balance. Eager: every rebalance revokes everything."
    ),
    when_to_use=(
        "Joins or other co-partitioned processing across topics with equal partition counts; "
        "few topics or partition counts that divide evenly. Avoid with many topics of few "
        "partitions: the first members get the extra partition of every topic and the load skews."
    ),
    consumer_config=(
        "partition.assignment.strategy=org.apache.kafka.clients.consumer.RangeAssignor"
    ),
    protocol="eager",
    compute=assign_range,
    older_kafka=(
        (
            "3.0-3.4",
            "no rack awareness (KIP-881 came with 3.5): client.rack and replica racks are not "
            "looked at, every topic is cut in member order",
        ),
    ),
)

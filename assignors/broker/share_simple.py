"""``share-simple``: the share-group assignor (KIP-932, Kafka's ``SimpleAssignor``).

Share groups (``group.protocol`` of a share consumer, Kafka 4.x) let several members read one
partition at once: records are handed out one by one and acknowledged individually, so the
coordinator may give a partition to more than one member when there are more members than
partitions. This module reproduces the group coordinator's ``SimpleAssignor`` (Kafka 4.4.0,
checked against Kafka's own classes by ``tests/differential/``) to the partition.
``owned_partitions`` is the member's current target assignment; unlike every consumer-group
strategy, two members may hold the same partition there and in the answer. Not modelled: a share
group only assigns partitions whose share state is initialised; here every existing partition is
assignable. Kafka 3.9's early-access ``SimpleAssignor`` was a different, hash-based algorithm (it
answers differently in 1,578 of 2,000 generated groups); this module follows Kafka 4.

The group as the coordinator sees it (member order, topic ids, homogeneous or not) is
:class:`assignors.broker.uniform.GroupSpec`; current claims keep every claimant of a partition.
Java hash-set orders that decide who keeps or gets what go through :mod:`assignors.java_order`.

Per unit of work (homogeneous: all subscribed partitions at once; heterogeneous: each subscribed
topic on its own, with its subscribers), with ``P`` target partitions and ``M`` members:

1. ``sharing = ceil(M / P)`` members per partition (0 when ``P = 0``); member ``i`` (in member-map
   order) wants ``ceil(x * (i + 1)) - ceil(x * i)`` partitions, ``x = sharing * P / M``.
2. Current claims on subscribed topics are kept (homogeneous: claims on other topics are dropped;
   heterogeneous: a claim on a topic nobody subscribes to is left untouched).
3. Members over their count give back partitions, in the order of their hash set, until at it.
4. Partitions held by more than ``sharing`` members lose holders (in hash-set order) until at
   ``sharing``; homogeneous: a member losing one this way becomes a taker.
5. Partitions, in the order of the coordinator's hash map, that want more holders are offered to
   the members still under their count, round-robin in member-index order; a member is offered
   again while the last pass placed something.

Invariants: every answer lists only existing partitions of topics the member holds or
subscribes to; a member never holds a partition twice; answers are deterministic.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from assignors.broker.uniform import GroupSpec, _valid_claims
from assignors.errors import AssignmentExplorerError
from assignors.gc_pause import paused_gc
from assignors.java_order import (
    JavaHashMapOrder,
    hash_order,
    hash_set_copy_capacity,
    integer_hash,
    string_hash,
    to_int32,
    uuid_hash,
)
from assignors.model import Scenario, TopicPartition
from assignors.strategy import PartitionStrategy
from assignors.trace import DecisionTrace

K = TypeVar("K")


class ShareAssignmentError(AssignmentExplorerError):
    """Where Kafka's ``SimpleAssignor`` throws (it runs out of members mid-partition)."""


#: A member's working assignment: topic -> partition numbers.
Claims = dict[str, set[int]]


def presized_capacity(expected: int) -> int:
    """Capacity of Kafka's ``AssignorHelpers.newHashMap``: ``(int) ((n + 1) / .75f + 1)``.

    Computed in single precision, as Java does.
    """
    quotient = struct.unpack("f", struct.pack("f", (expected + 1) / 0.75))[0]
    return int(struct.unpack("f", struct.pack("f", quotient + 1.0))[0])


def desired_counts(sharing: int, partitions: int, members: int) -> list[int]:
    """How many partitions each of ``members`` (by index) wants (step 1)."""
    precise = sharing * partitions / members
    return [math.ceil(precise * (i + 1)) - math.ceil(precise * i) for i in range(members)]


def int_set(hash_capacity: int | None = None) -> JavaHashMapOrder[int]:
    return JavaHashMapOrder(integer_hash, hash_capacity)


class _Group:
    """What both builders share: member order, old claims in Java's order, new claims."""

    def __init__(self, scenario: Scenario, trace: DecisionTrace | None = None) -> None:
        self.trace = trace
        spec = GroupSpec.of(scenario)
        self.spec = spec
        self.members = spec.member_ids
        self.uuid_hash = {name: uuid_hash(*ids) for name, ids in spec.topic_uuids.items()}
        by_id = {m.member_id: m for m in scenario.members}
        # Old assignment: topics in HashMap order, each topic's partitions in HashSet-copy order.
        self.old: list[list[tuple[str, list[int]]]] = []
        for member_id in self.members:
            claims = _valid_claims(by_id[member_id].owned_partitions, spec.partition_counts)
            topics = hash_order(claims, self.uuid_hash.__getitem__)
            self.old.append(
                [
                    (
                        topic,
                        hash_order(
                            [tp.partition for tp in claims[topic]],
                            integer_hash,
                            hash_set_copy_capacity(len(claims[topic])),
                        ),
                    )
                    for topic in topics
                ]
            )
        self.new: dict[int, Claims] = {}
        if trace is not None:
            for member_id, old in zip(self.members, self.old, strict=True):
                for topic, numbers in old:
                    trace.place_all(
                        (TopicPartition(topic, p) for p in numbers),
                        member_id,
                        "2 current",
                        f"held in {member_id}'s current target",
                    )

    def record(self, topic: str, partition: int, member: int, step: str, why: str) -> None:
        """Trace a hand-out (step 5) or, for the other steps, a give-back."""
        if self.trace is None:
            return
        tp, member_id = TopicPartition(topic, partition), self.members[member]
        if step.startswith("5"):
            self.trace.place(tp, member_id, step, why)
        else:
            self.trace.release(tp, member_id, step, why)

    def names_order(self, member: int) -> list[str]:
        """The member's existing subscribed topics, as Kafka's ``TopicIds`` view iterates them."""
        names = self.spec.subscribed_names[self.members[member]]
        order = hash_order(names, string_hash, hash_set_copy_capacity(len(names)))
        return [name for name in order if name in self.uuid_hash]

    def editable(self, member: int) -> Claims:
        """The member's new claims, copied from its old ones on first change."""
        claims = self.new.get(member)
        if claims is None:
            claims = {topic: set(partitions) for topic, partitions in self.old[member]}
            self.new[member] = claims
        return claims

    def result(self) -> dict[str, list[TopicPartition]]:
        answer: dict[str, list[TopicPartition]] = {}
        for index, member_id in enumerate(self.members):
            claims = self.new.get(index)
            pairs: Iterable[tuple[str, Iterable[int]]] = (
                claims.items() if claims is not None else self.old[index]
            )
            answer[member_id] = [TopicPartition(t, p) for t, ps in pairs for p in sorted(set(ps))]
        return answer


def _fill(
    by_partition: Iterable[tuple[K, JavaHashMapOrder[int]]],
    sharing: int,
    unfilled: list[int],
    give: Callable[[K, int], bool],
) -> None:
    """Step 5 (Kafka's ``assignRemainingPartitions``) over ``by_partition`` in its order.

    ``unfilled`` is the taker set in iteration order; ``give(key, member)`` hands the partition
    to the member and answers whether the member has reached its count.
    """
    if not unfilled:
        return
    takers = list(unfilled)
    position = 0
    placed_this_pass = False
    for key, holders in by_partition:
        if len(holders) < sharing:
            to_make = sharing - len(holders)
            while to_make > 0:
                if position >= len(takers):
                    if not placed_this_pass:
                        break
                    if not unfilled:
                        # Kafka asks a fresh iterator over the empty set for its next member.
                        raise ShareAssignmentError("no unfilled member left for a partition")
                    takers = list(unfilled)
                    position = 0
                    placed_this_pass = False
                member = takers[position]
                position += 1
                if member not in holders:
                    to_make -= 1
                    placed_this_pass = True
                    if give(key, member):
                        unfilled.remove(member)
        if not unfilled:
            break


def assign_homogeneous(group: _Group) -> dict[str, list[TopicPartition]]:
    """Kafka's ``SimpleHomogeneousAssignmentBuilder`` (all partitions as one unit)."""
    tracing = group.trace is not None
    names = group.spec.subscribed_names[group.members[0]]
    if not names:
        return {}
    topics = group.names_order(0)
    subscribed = set(topics)
    counts = group.spec.partition_counts
    targets = [(t, p) for t in topics for p in range(counts[t])]
    member_count = len(group.members)
    sharing = (member_count + len(targets) - 1) // len(targets) if targets else 0
    wants = desired_counts(sharing, len(targets), member_count)

    def tp_hash(key: tuple[str, int]) -> int:
        return to_int32(31 * group.uuid_hash[key[0]] + key[1])

    by_partition: JavaHashMapOrder[tuple[str, int]] = JavaHashMapOrder(
        tp_hash, presized_capacity(len(targets))
    )
    holders: dict[tuple[str, int], JavaHashMapOrder[int]] = {}
    by_member: dict[int, JavaHashMapOrder[tuple[str, int]]] = {}
    unfilled: set[int] = set()
    overfilled: list[int] = []
    for member, old in enumerate(group.old):
        held = 0
        for topic, partitions in old:
            if topic in subscribed:
                for partition in partitions:
                    key = (topic, partition)
                    held += 1
                    by_partition.put_first(key)
                    holders.setdefault(key, int_set()).put(member)
                    by_member.setdefault(member, JavaHashMapOrder(tp_hash)).put(key)
            else:
                del group.editable(member)[topic]
                for partition in partitions:
                    if tracing:
                        group.record(topic, partition, member, "2 dropped", "topic not subscribed")
        if held < wants[member]:
            unfilled.add(member)
        elif held > wants[member]:
            overfilled.append(member)
    for member in overfilled:
        mine = by_member[member]
        for key in list(mine):
            if len(mine) <= wants[member]:
                break
            group.editable(member)[key[0]].discard(key[1])
            if tracing:
                group.record(*key, member, "3 over count", f"holds more than its {wants[member]}")
            holders[key].remove(member)
            mine.remove(key)
    for key in list(by_partition):

        def forget(member: int, key: tuple[str, int] = key) -> None:
            by_member[member].remove(key)
            unfilled.add(member)

        _revoke_overshared(group, key, holders[key], sharing, forget)
    for key in targets:
        if key not in holders:
            by_partition.put_first(key)
            holders[key] = int_set()

    def give(key: tuple[str, int], member: int) -> bool:
        group.editable(member).setdefault(key[0], set()).add(key[1])
        mine = by_member.setdefault(member, JavaHashMapOrder(tp_hash))
        mine.put(key)
        if tracing:
            group.record(*key, member, "5 fill", _fill_reason(sharing, len(mine), wants[member]))
        return len(mine) >= wants[member]

    _fill(((k, holders[k]) for k in by_partition), sharing, sorted(unfilled), give)
    return group.result()


def _revoke_overshared(
    group: _Group,
    key: tuple[str, int],
    members: JavaHashMapOrder[int],
    sharing: int,
    forget: Callable[[int], None],
) -> None:
    """Step 4 for one partition: holders beyond ``sharing`` give it back, in set order."""
    count = len(members)
    if count <= sharing:
        return
    topic, partition = key
    for member in list(members):
        partitions = group.editable(member).get(topic)
        if partitions is not None and partition in partitions:
            partitions.discard(partition)
            if group.trace is not None:
                group.record(
                    topic,
                    partition,
                    member,
                    "4 overshared",
                    f"held by more than {sharing} member(s)",
                )
            count -= 1
            members.remove(member)
            forget(member)
        if count <= sharing:
            break


def assign_heterogeneous(group: _Group) -> dict[str, list[TopicPartition]]:
    """Kafka's ``SimpleHeterogeneousAssignmentBuilder`` (each subscribed topic on its own)."""
    topic_order: JavaHashMapOrder[str] = JavaHashMapOrder(group.uuid_hash.__getitem__)
    subscribers: dict[str, list[int]] = {}
    for member in range(len(group.members)):
        for topic in group.names_order(member):
            topic_order.put(topic)
            subscribers.setdefault(topic, []).append(member)
    topics = list(topic_order)
    if not topics:
        return {}
    for topic in topics:
        _assign_topic(group, topic, group.spec.partition_counts[topic], subscribers[topic])
    return group.result()


def _assign_topic(group: _Group, topic: str, partitions: int, subscribers: Sequence[int]) -> None:
    """Steps 2-5 for one topic and its subscribers (member indices, ascending)."""
    tracing = group.trace is not None
    member_count = len(group.members)
    sharing = (len(subscribers) + partitions - 1) // partitions if partitions else 0
    wants = [0] * member_count
    for position, want in enumerate(desired_counts(sharing, partitions, len(subscribers))):
        wants[subscribers[position]] = want
    holders: dict[int, JavaHashMapOrder[int]] = {}
    member_order: JavaHashMapOrder[int] = int_set(presized_capacity(len(subscribers)))
    by_member: dict[int, JavaHashMapOrder[int]] = {}
    for member, old in enumerate(group.old):
        for name, claimed in old:
            if name == topic:
                for partition in claimed:
                    holders.setdefault(partition, int_set()).put(member)
                    member_order.put_first(member)
                    by_member.setdefault(member, int_set()).put(partition)
    for member in member_order:
        mine = by_member[member]
        for partition in list(mine):
            if len(mine) <= wants[member]:
                break
            holders[partition].remove(member)
            mine.remove(partition)
            group.editable(member)[topic].discard(partition)
            if tracing:
                group.record(
                    topic, partition, member, "3 over count", f"holds more than its {wants[member]}"
                )
    for partition in sorted(holders):

        def forget(member: int, partition: int = partition) -> None:
            by_member[member].remove(partition)

        _revoke_overshared(group, (topic, partition), holders[partition], sharing, forget)
    for partition in range(partitions):
        holders.setdefault(partition, int_set())
    unfilled = [m for m in subscribers if len(by_member.get(m, ())) < wants[m]]

    def give(partition: int, member: int) -> bool:
        group.editable(member).setdefault(topic, set()).add(partition)
        mine = by_member.setdefault(member, int_set())
        mine.put(partition)
        if tracing:
            group.record(
                topic, partition, member, "5 fill", _fill_reason(sharing, len(mine), wants[member])
            )
        return len(mine) >= wants[member]

    _fill(((p, holders[p]) for p in sorted(holders)), sharing, unfilled, give)


def _fill_reason(sharing: int, held: int, wants: int) -> str:
    return (
        f"wanted more holders (sharing {sharing}): offered round-robin to the members under "
        f"their count; this one now holds {held} of the {wants} it wants"
    )


def compute(
    scenario: Scenario, trace: DecisionTrace | None = None
) -> dict[str, list[TopicPartition]]:
    """Member id -> target partitions (a partition may go to several members)."""
    if not scenario.members:
        return {}
    with paused_gc():
        group = _Group(scenario, trace)
        if group.spec.homogeneous:
            return assign_homogeneous(group)
        return assign_heterogeneous(group)


STRATEGY = PartitionStrategy(
    name="share-simple",
    summary=(
        "Kafka's share-group assignor (KIP-932, SimpleAssignor): spreads partitions evenly and, "
        "with more members than partitions, lets several members share one partition."
    ),
    when_to_use=(
        "Share groups (queue-style consumption, Kafka 4.x): members acknowledge records one by "
        "one, so more consumers than partitions still all get work. Not rack-aware."
    ),
    consumer_config=(
        "KafkaShareConsumer with group.id=<share group> (Kafka 4.1+, feature share.version=1)\n"
        "broker: group.share.assignors=org.apache.kafka.coordinator.group.assignor.SimpleAssignor"
        " (the default)"
    ),
    protocol="consumer",
    compute=compute,
)

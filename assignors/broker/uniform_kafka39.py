"""Kafka 3.9's heterogeneous ``UniformAssignor`` builder (``uniform`` with ``kafka_version`` 3.9).

Kafka 3.9 built the target assignment of a group whose members subscribe to
different topics with a first ``UniformHeterogeneousAssignmentBuilder``, replaced in Kafka 4.0 by
the load-tier builder of :mod:`assignors.broker.uniform`. This module reproduces the old one,
checked against Kafka 3.9.2's own class by the differential tests; the group is read as
:class:`~assignors.broker.uniform.GroupSpec` reads it (member-map order, topic ids, a doubly
claimed partition left with its last claimant).

Definitions. A member's *topics*: its existing subscribed topics; its *maximum*: their partition
count summed; its *size*: the partitions it holds so far. *Open* members: those below their
maximum, ordered by size, then member id (Java's ``String.compareTo``). *Partition order* (Java's
``HashSet`` of ``TopicIdPartition``, hash ``31 * (31 + Uuid.hashCode()) + partition``, filled
topic by topic in the order of the ``HashSet`` of subscribed topic ids, partitions ascending),
then stably sorted by partitions per subscriber of the topic descending, subscriber count
ascending, partition number ascending: the *sorted order* of a set of partitions.

Steps:

1. Every member keeps each partition it holds of a topic it still subscribes to.
2. The other partitions, in sorted order, each to the first open subscriber of its topic.
   A partition no open subscriber can take fails the assignment (Kafka's
   ``PartitionAssignorException``; it does not happen with distinct claims).
3. Balancing, over the *movable* partitions (topics with two or more subscribers), pass after
   pass while a pass moves something: each pass walks the movable partitions not moved yet, in
   sorted order; before each, when the previous one moved, it stops for good if the group is
   *balanced* (the open members' sizes are within one, or no open member lacks a partition
   whose owner holds at least two more than it). A partition moves when its owner holds at
   least two more than some subscriber of its topic: to the first open member that subscribes
   to the topic; but when that member has already given a partition of the topic to the owner,
   that earlier partition goes back instead (Kafka's ``PartitionMovements``). A partition
   moved a second time, or an owner that does not match the movement record, fails the
   assignment as Kafka 3.9 fails it (``PartitionAssignorException``; 1,557 of the 100,000
   generated groups of the differential run, all with different subscriptions).

Invariants: the answer is Kafka 3.9.2's, or an :class:`UniformAssignorError` where Kafka throws;
every partition of every subscribed existing topic is assigned exactly once, only to a
subscriber. Balance is not guaranteed (Kafka 3.9's builder stops early).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from assignors.errors import AssignmentExplorerError
from assignors.java_order import (
    JavaHashMapOrder,
    hash_order,
    hash_set_copy_capacity,
    java_string_key,
    string_hash,
    to_int32,
    uuid_hash,
)
from assignors.model import TopicPartition
from assignors.trace import DecisionTrace

if TYPE_CHECKING:  # uniform.py imports this module
    from assignors.broker.uniform import GroupSpec


class UniformAssignorError(AssignmentExplorerError, RuntimeError):
    """Kafka 3.9's ``UniformAssignor`` throws a ``PartitionAssignorException`` on this group."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"Kafka 3.9's UniformAssignor fails on this group: {reason}")


Pair = tuple[str, str]


class _Movements:
    """Kafka 3.9's ``PartitionMovements``: who each moved partition came from and went to."""

    def __init__(self, hash_of: Callable[[TopicPartition], int]) -> None:
        self.hash_of = hash_of
        self.by_topic: dict[str, dict[Pair, JavaHashMapOrder[TopicPartition]]] = {}
        self.by_partition: dict[TopicPartition, Pair] = {}

    def _remove_record(self, partition: TopicPartition) -> Pair:
        pair = self.by_partition.pop(partition)
        pairs = self.by_topic[partition.topic]
        pairs[pair].remove(partition)
        if not len(pairs[pair]):
            del pairs[pair]
        if not pairs:
            del self.by_topic[partition.topic]
        return pair

    def _add_record(self, partition: TopicPartition, pair: Pair) -> None:
        self.by_partition[partition] = pair
        pairs = self.by_topic.setdefault(partition.topic, {})
        if pair not in pairs:
            pairs[pair] = JavaHashMapOrder(self.hash_of)
        pairs[pair].put(partition)

    def move(self, partition: TopicPartition, old_owner: str, new_owner: str) -> None:
        if partition not in self.by_partition:
            self._add_record(partition, (old_owner, new_owner))
            return
        source, destination = self._remove_record(partition)
        if destination == old_owner:  # Kafka 3.9's check, inverted: any second move throws
            raise UniformAssignorError(
                "Mismatch in partition movement record with respect to partition ownership "
                f"during a rebalance ({partition.topic}-{partition.partition})"
            )
        if source != new_owner:
            self._add_record(partition, (source, new_owner))

    def actual(self, partition: TopicPartition, old_owner: str, new_owner: str) -> TopicPartition:
        """Kafka's ``computeActualPartitionToBeMoved``."""
        pairs = self.by_topic.get(partition.topic)
        if pairs is None:
            return partition
        record = self.by_partition.get(partition)
        if record is not None:
            if old_owner != record[1]:
                raise UniformAssignorError(
                    "Old owner does not match expected value for partition: "
                    f"{partition.topic}-{partition.partition}"
                )
            old_owner = record[0]
        reverse = pairs.get((new_owner, old_owner))
        return partition if reverse is None else next(iter(reverse))


class _Builder:
    """The builder's state: sizes, maxima, owners, open members, partitions not yet placed."""

    def __init__(self, group: GroupSpec, trace: DecisionTrace | None) -> None:
        self.group = group
        self.trace = trace
        self.counts = group.partition_counts
        hashes = {name: uuid_hash(*ids) for name, ids in group.topic_uuids.items()}
        self.partition_hash: Callable[[TopicPartition], int] = lambda tp: to_int32(
            31 * (31 + hashes[tp.topic]) + tp.partition
        )
        self.id_key = {m: java_string_key(m) for m in group.member_ids}
        subscribed: JavaHashMapOrder[str] = JavaHashMapOrder(hashes.__getitem__)
        self.topics_of: dict[str, frozenset[str]] = {}
        self.subscribers: dict[str, list[str]] = {}
        for member_id in group.member_ids:
            names = group.subscribed_names[member_id]
            capacity = hash_set_copy_capacity(len(names))
            mine = [n for n in hash_order(names, string_hash, capacity) if n in self.counts]
            self.topics_of[member_id] = frozenset(mine)
            for topic in mine:
                subscribed.put(topic)
                self.subscribers.setdefault(topic, []).append(member_id)
        self.topic_order = list(subscribed)
        self.maximum = {m: sum(self.counts[t] for t in self.topics_of[m]) for m in group.member_ids}
        self.size = dict.fromkeys(group.member_ids, 0)
        self.target: dict[str, dict[str, set[int]]] = {m: {} for m in group.member_ids}
        self.owner: dict[TopicPartition, str] = {}
        self.open = {m for m in group.member_ids if self.maximum[m] > 0}
        self.unassigned = self.all_partitions()
        self.movements = _Movements(self.partition_hash)

    def all_partitions(self) -> JavaHashMapOrder[TopicPartition]:
        table: JavaHashMapOrder[TopicPartition] = JavaHashMapOrder(self.partition_hash)
        for topic in self.topic_order:
            table.put_all(TopicPartition(topic, p) for p in range(self.counts[topic]))
        return table

    def sorted_partitions(self, partitions: Iterable[TopicPartition]) -> list[TopicPartition]:
        counts, subscribers = self.counts, self.subscribers

        def key(tp: TopicPartition) -> tuple[float, int, int]:
            members = len(subscribers[tp.topic])
            return (-(counts[tp.topic] / members), members, tp.partition)

        return sorted(partitions, key=key)

    def add(self, partition: TopicPartition, member_id: str) -> None:
        """Kafka's ``addPartitionToTargetAssignment``."""
        self.target[member_id].setdefault(partition.topic, set()).add(partition.partition)
        self.owner[partition] = member_id
        self.size[member_id] += 1
        if self.size[member_id] < self.maximum[member_id]:
            self.open.add(member_id)
        else:
            self.open.discard(member_id)
        self.unassigned.remove(partition)

    def remove(self, partition: TopicPartition, member_id: str) -> None:
        """Kafka's ``removePartitionFromTargetAssignment``."""
        held = self.target[member_id].get(partition.topic)
        if held is not None:
            held.discard(partition.partition)
            if not held:
                del self.target[member_id][partition.topic]
        if self.owner.get(partition) == member_id:
            del self.owner[partition]
        self.size[member_id] = max(0, self.size[member_id] - 1)
        if self.size[member_id] < self.maximum[member_id]:
            self.open.add(member_id)
        else:
            self.open.discard(member_id)

    def keep_current(self) -> None:
        """Step 1."""
        for member_id in self.group.member_ids:
            for topic, partitions in self.group.current[member_id].items():
                if topic in self.topics_of[member_id]:
                    for partition in partitions:
                        self.add(partition, member_id)
                    if self.trace is not None:
                        self.trace.place_all(
                            partitions, member_id, "1 keep", f"{member_id} still subscribes"
                        )

    def place_the_rest(self) -> None:
        """Step 2. Per topic a heap of its open subscribers by (size, member id); an entry whose
        member has grown or filled up since is dropped when it comes to the top."""
        heaps: dict[str, list[tuple[int, str, str]]] = {}
        for topic, members in self.subscribers.items():
            heaps[topic] = [(self.size[m], self.id_key[m], m) for m in members if m in self.open]
            heapq.heapify(heaps[topic])
        for partition in self.sorted_partitions(list(self.unassigned)):
            heap = heaps[partition.topic]
            while heap and (heap[0][2] not in self.open or heap[0][0] != self.size[heap[0][2]]):
                heapq.heappop(heap)
            if not heap:
                continue
            member_id = heap[0][2]
            self.add(partition, member_id)
            if member_id in self.open:
                entry = (self.size[member_id], self.id_key[member_id], member_id)
                for topic in self.topics_of[member_id]:
                    heapq.heappush(heaps[topic], entry)
            if self.trace is not None:
                self.trace.place(
                    partition,
                    member_id,
                    "2 fewest",
                    "unheld: to the subscriber holding the fewest partitions (then member id)",
                )


def _is_balanced(state: _Builder) -> bool:
    """Kafka 3.9's ``isBalanced``: the lightest open members first (the answer does not depend
    on the order, but the lightest find a reason to go on soonest)."""
    sizes = [state.size[m] for m in state.open]
    if not sizes:
        raise UniformAssignorError("NoSuchElementException: no member left to balance")
    if min(sizes) >= max(sizes) - 1:
        return True
    for _, member_id in sorted((state.size[m], m) for m in state.open):
        count = state.size[member_id]
        if count == state.maximum[member_id]:
            continue
        for topic in state.topics_of[member_id]:
            held = state.target[member_id].get(topic, ())
            for number in range(state.counts[topic]):
                if number not in held:
                    other = state.owner.get(TopicPartition(topic, number))
                    if count + 1 < (0 if other is None else state.size[other]):
                        return False
    return True


def _reassign(state: _Builder, partition: TopicPartition) -> None:
    """Kafka 3.9's ``reassignPartition``: to the first open subscriber, or a partition back."""
    topic, size, id_key, topics_of = partition.topic, state.size, state.id_key, state.topics_of
    candidates = [(size[m], id_key[m], m) for m in state.open if topic in topics_of[m]]
    receiver = min(candidates)[2] if candidates else None
    if receiver is None:
        raise UniformAssignorError(f"No suitable new owner was found for the partition {partition}")
    moved = state.movements.actual(partition, state.owner[partition], receiver)
    old_owner = state.owner.get(moved)
    if old_owner is None:
        raise UniformAssignorError(f"NullPointerException: {moved} has no owner")
    state.movements.move(moved, old_owner, receiver)
    state.remove(moved, old_owner)
    state.add(moved, receiver)
    if state.trace is not None:
        state.trace.move(
            moved,
            old_owner,
            receiver,
            "3 balance",
            f"{old_owner} held two or more partitions than a subscriber of {moved.topic}",
        )


def _balance(state: _Builder) -> None:
    """Step 3."""
    if len(state.unassigned):
        raise UniformAssignorError("Some partitions were left unassigned")
    state.unassigned = state.all_partitions()
    for topic in state.topic_order:
        if len(state.subscribers[topic]) < 2:
            for number in range(state.counts[topic]):
                state.unassigned.remove(TopicPartition(topic, number))
    while len(state.unassigned):
        modified = moved = False
        for partition in state.sorted_partitions(list(state.unassigned)):
            if moved and _is_balanced(state):
                return
            moved = False
            owner = state.owner.get(partition)
            if owner is None:
                raise UniformAssignorError(f"Expected {partition} to be assigned to a member")
            owner_size = state.size[owner]
            if any(owner_size > state.size[o] + 1 for o in state.subscribers[partition.topic]):
                _reassign(state, partition)
                modified = moved = True
        if not modified:
            return


def assign_heterogeneous_kafka39(
    group: GroupSpec, trace: DecisionTrace | None = None
) -> dict[str, list[TopicPartition]]:
    """Kafka 3.9.2's ``UniformHeterogeneousAssignmentBuilder``: steps 1-3 of the docstring.

    Raises :class:`UniformAssignorError` where Kafka 3.9 throws.
    """
    state = _Builder(group, trace)
    if not state.topic_order:
        return {}
    state.keep_current()
    state.place_the_rest()
    _balance(state)
    return {
        member_id: [
            TopicPartition(topic, number)
            for topic, numbers in state.target[member_id].items()
            for number in numbers
        ]
        for member_id in group.member_ids
    }

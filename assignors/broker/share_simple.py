"""``share-simple``: the share-group assignor (KIP-932, Kafka's ``SimpleAssignor``).

Share groups (``group.protocol`` of a share consumer, Kafka 4.x) let several members read one
partition at once: records are handed out one by one and acknowledged individually, so the
coordinator may give a partition to more than one member when there are more members than
partitions. This module reproduces the group coordinator's ``SimpleAssignor`` (Kafka 4.4.0,
checked against Kafka's own classes by ``tests/differential/``) to the partition.
``owned_partitions`` is the member's current target assignment; unlike every consumer-group
strategy, two members may hold the same partition there and in the answer. Not modelled: a share
group only assigns partitions whose share state is initialised; here every existing partition is
assignable. This is the algorithm of Kafka 4.2 and later; share groups' early-access (4.0) and
preview (4.1) lines had their own, :mod:`assignors.broker.share_simple_kafka40` (the scenario's
``kafka_version`` picks).

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
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import compress, groupby, repeat
from operator import itemgetter
from typing import TypeVar

from assignors.broker.share_simple_kafka40 import assign_kafka40, assign_kafka41
from assignors.broker.uniform import GroupSpec
from assignors.errors import AssignmentExplorerError
from assignors.gc_pause import paused_gc
from assignors.java_order import (
    MIN_TREEIFY_CAPACITY,
    JavaHashMapOrder,
    consecutive_buckets,
    hash_order,
    hash_set_copy_capacity,
    head_first_capacity,
    head_first_order,
    integer_hash,
    integer_set_copy_order,
    string_hash,
    uuid_hash,
)
from assignors.kafka_versions import KafkaLines, at_least
from assignors.model import Scenario, TopicPartition, topic_partitions
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


def _claims_by_topic(
    owned: Iterable[TopicPartition], counts: Mapping[str, int]
) -> dict[str, list[int]]:
    """A member's claims on existing partitions: topic (first-claim order) -> numbers."""
    claims: dict[str, list[int]] = {}
    for topic, run in groupby(owned, key=itemgetter(0)):
        count = counts.get(topic)
        if count is not None:
            numbers = [partition for _, partition in run if partition < count]
            if numbers:
                claims.setdefault(topic, []).extend(numbers)
    return claims


def _set_copy_order(numbers: list[int]) -> list[int]:
    """:func:`integer_set_copy_order`, without the call for the many one-partition claims."""
    return numbers if len(numbers) == 1 else integer_set_copy_order(numbers)


class _Group:
    """What both builders share: member order, old claims in Java's order, new claims."""

    def __init__(self, scenario: Scenario, trace: DecisionTrace | None = None) -> None:
        self.trace = trace
        spec = GroupSpec.of(scenario, with_current=False)
        self.spec = spec
        self.members = spec.member_ids
        self.uuid_hash = {name: uuid_hash(*ids) for name, ids in spec.topic_uuids.items()}
        by_id = {m.member_id: m for m in scenario.members}
        # Old assignment: topics in HashMap order, each topic's partitions in HashSet-copy order.
        self.old: list[list[tuple[str, list[int]]]] = []
        for member_id in self.members:
            claims = _claims_by_topic(by_id[member_id].owned_partitions, spec.partition_counts)
            topics = hash_order(claims, self.uuid_hash.__getitem__)
            self.old.append([(topic, _set_copy_order(claims[topic])) for topic in topics])
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
    if not group.spec.subscribed_names[group.members[0]]:
        return {}
    builder = _HomogeneousBuilder(group)
    builder.take_current()
    order = builder.partition_map_order()
    builder.revoke_overfilled()
    builder.revoke_overshared(order)
    builder.fill(order)
    return builder.result()


#: ``_HomogeneousBuilder.holder`` of a partition no member holds, and of one several hold.
_NOBODY = -1
_SEVERAL = -2


class _HomogeneousBuilder:
    """Steps 2-5 over flat state, one number per partition, no object per partition.

    Partition ``t`` is a number in ``0 .. T - 1`` (topics by name, then partition number, so
    sorted numbers are sorted partitions). Kafka's hash maps and sets are never built: their
    iteration orders come from the partitions' hash codes in one sort
    (:func:`assignors.java_order.head_first_order`). ``holder[t]`` is the one member holding
    ``t``, :data:`_NOBODY`, or :data:`_SEVERAL` (then ``shared[t]`` lists them, in the order
    they took it); ``held[m]`` is the size of member ``m``'s set of partitions in Kafka.
    """

    def __init__(self, group: _Group) -> None:
        self.group = group
        self.tracing = group.trace is not None
        self.topics = group.names_order(0)
        counts = group.spec.partition_counts
        self.offset: dict[str, int] = {}
        #: Each partition's ``TopicIdPartition.hashCode()`` (modulo 2^32) and its partition.
        self.codes: list[int] = []
        self.partitions: list[TopicPartition] = []
        for topic in sorted(self.topics):
            self.offset[topic] = len(self.codes)
            base = 31 * group.uuid_hash[topic]
            self.codes.extend(range(base, base + counts[topic]))
            self.partitions.extend(topic_partitions(topic, range(counts[topic])))
        total, member_count = len(self.codes), len(group.members)
        self.sharing = (member_count + total - 1) // total if total else 0
        self.wants = desired_counts(self.sharing, total, member_count)
        self.holder = [_NOBODY] * total
        self.shared: dict[int, list[int]] = {}
        #: ``shared`` as step 2 left it (a hash set's order depends on every key it took).
        self.puts: dict[int, list[int]] = {}
        self.first_taken: list[int] = []
        self.claimed: list[list[int]] = [[] for _ in range(member_count)]
        self.held = [0] * member_count
        self.removed: dict[int, set[int]] = {}
        self.added: dict[int, list[int]] = {}
        self.unfilled: set[int] = set()
        self.overfilled: list[int] = []

    def take_current(self) -> None:
        """Step 2: current claims on subscribed topics stay; claims on other topics go."""
        offset = self.offset
        for member, old in enumerate(self.group.old):
            mine = [offset[t] + p for t, partitions in old if t in offset for p in partitions]
            self.claimed[member] = mine
            for topic, partitions in old:
                if topic in offset:
                    continue
                self.removed.setdefault(member, set())
                for partition in partitions if self.tracing else ():
                    self.group.record(topic, partition, member, "2 dropped", "topic not subscribed")
            self.hold(member, mine)
            self.held[member] = len(mine)
            if len(mine) < self.wants[member]:
                self.unfilled.add(member)
            elif len(mine) > self.wants[member]:
                self.overfilled.append(member)

    def hold(self, member: int, numbers: list[int]) -> None:
        """``member`` joins the holders of each of ``numbers`` (distinct), in that order.

        Partitions no one held before become keys of the partition map in that order; when
        none of them was held, that is done for all at once (C-level maps).
        """
        holder, shared = self.holder, self.shared
        if set(map(holder.__getitem__, numbers)) <= {_NOBODY}:
            deque(map(holder.__setitem__, numbers, repeat(member)), maxlen=0)
            self.first_taken.extend(numbers)
            return
        for t in numbers:
            h = holder[t]
            if h == _NOBODY:
                holder[t] = member
                self.first_taken.append(t)
            elif h == _SEVERAL:
                shared[t].append(member)
            else:
                holder[t] = _SEVERAL
                shared[t] = [h, member]

    def partition_map_order(self) -> list[int]:
        """Iteration order of Kafka's partition -> members map (step 5 walks it).

        Current claims create their partitions' entries (``computeIfAbsent``) first, then the
        partitions nobody holds, topic by topic in subscription order: every partition is a key.
        """
        holder, counts = self.holder, self.group.spec.partition_counts
        keys = list(self.first_taken)
        for topic in self.topics:
            start = self.offset[topic]
            numbers = range(start, start + counts[topic])
            keys.extend(compress(numbers, [holder[t] == _NOBODY for t in numbers]))
        requested = presized_capacity(len(keys))
        capacity = head_first_capacity(len(keys), requested)
        if capacity < MIN_TREEIFY_CAPACITY:
            return head_first_order(keys, [self.codes[t] for t in keys], requested)
        buckets: list[int] = []
        for topic in sorted(self.topics):
            first = 31 * self.group.uuid_hash[topic]
            buckets.extend(consecutive_buckets(first, counts[topic], capacity))
        keys.reverse()  # a new key goes to the head of its bucket
        return sorted(keys, key=buckets.__getitem__)

    def revoke(self, member: int, t: int, step: str, why: str) -> None:
        """``member`` gives back partition ``t``."""
        if self.holder[t] == _SEVERAL:
            self.shared[t].remove(member)
        else:
            self.holder[t] = _NOBODY
        self.held[member] -= 1
        self.removed.setdefault(member, set()).add(t)
        if self.tracing:
            self.group.record(*self.partitions[t], member, step, why)

    def revoke_overfilled(self) -> None:
        """Step 3: members over their count give back partitions in their set's order."""
        self.puts = {t: list(members) for t, members in self.shared.items()}
        for member in self.overfilled:
            excess = self.held[member] - self.wants[member]
            mine = hash_order(self.claimed[member], self.codes.__getitem__)
            for t in mine[:excess]:
                self.revoke(member, t, "3 over count", f"holds more than its {self.wants[member]}")

    def revoke_overshared(self, order: Sequence[int]) -> None:
        """Step 4: partitions held by more than ``sharing`` members lose holders, in set order."""
        if not self.shared:
            return
        sharing, why = self.sharing, f"held by more than {self.sharing} member(s)"
        for t in order:
            members = self.shared.get(t)
            if members is None or len(members) <= sharing:
                continue
            count = len(members)
            for member in hash_order(self.puts[t], integer_hash):
                if member in members:
                    self.revoke(member, t, "4 overshared", why)
                    self.unfilled.add(member)
                    count -= 1
                if count <= sharing:
                    break

    def fill(self, order: Sequence[int]) -> None:
        """Step 5 (``assignRemainingPartitions``): partitions in map order to unfilled members.

        Kafka does not add a taker to the partition's holder set, so a later pass may offer the
        same partition to the same member again: it is then already in the member's set (its
        last addition) and nothing changes.
        """
        unfilled = sorted(self.unfilled)
        if not unfilled:
            return
        holder, shared, sharing, held, wants = (
            self.holder, self.shared, self.sharing, self.held, self.wants
        )  # fmt: skip
        added = {member: self.added.setdefault(member, []) for member in unfilled}
        takers, position, placed_this_pass = list(unfilled), 0, False
        for t in order:
            h = holder[t]
            have = len(shared[t]) if h == _SEVERAL else h != _NOBODY
            to_make = sharing - have
            while to_make > 0:
                if position >= len(takers):
                    if not placed_this_pass:
                        break
                    if not unfilled:
                        # Kafka asks a fresh iterator over the empty set for its next member.
                        raise ShareAssignmentError("no unfilled member left for a partition")
                    takers, position, placed_this_pass = list(unfilled), 0, False
                member = takers[position]
                position += 1
                if member == h or (h == _SEVERAL and member in shared[t]):
                    continue
                to_make -= 1
                placed_this_pass = True
                mine = added[member]
                if not mine or mine[-1] != t:
                    mine.append(t)
                    held[member] += 1
                if self.tracing:
                    self.trace_fill(t, member)
                if held[member] >= wants[member]:
                    unfilled.remove(member)
            if not unfilled:
                break

    def trace_fill(self, t: int, member: int) -> None:
        why = _fill_reason(self.sharing, self.held[member], self.wants[member])
        self.group.record(*self.partitions[t], member, "5 fill", why)

    def result(self) -> dict[str, list[TopicPartition]]:
        """Each member's partitions, sorted: what it kept, then what it was given."""
        partitions, answer = self.partitions, {}
        for member, member_id in enumerate(self.group.members):
            numbers = self.claimed[member]
            removed, added = self.removed.get(member), self.added.get(member)
            if removed or added:
                numbers = list(set(numbers).difference(removed or ()).union(added or ()))
            numbers.sort()
            answer[member_id] = [partitions[t] for t in numbers]
        return answer


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
    version = scenario.kafka_version
    with paused_gc():
        if not at_least(version, "4.2"):
            early = _Group(scenario)
            if at_least(version, "4.1"):
                return assign_kafka41(early, trace)
            return assign_kafka40(early, trace)
        group = _Group(scenario, trace)
        if group.spec.homogeneous:
            return assign_homogeneous(group)
        return assign_heterogeneous(group)


#: Share groups came with 4.0 (KIP-932, early access; preview in 4.1). 4.0 and 4.1 each had
#: their own ``SimpleAssignor`` (:mod:`assignors.broker.share_simple_kafka40`); 4.2 on, this one.
SHARE_LINES = KafkaLines(first="4.0", arrived="share groups (KIP-932)")

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
    older_kafka=(
        ("4.0", "every member gets every partition of its subscribed topics (no sharing out)"),
        (
            "4.1",
            "each member takes one partition picked by the hash of its id, keeps current "
            "claims up to an even count, and the partitions nobody holds go round-robin; "
            "different subscriptions are not balanced, and overlapping claims can make it fail",
        ),
    ),
    kafka_lines=SHARE_LINES,
)

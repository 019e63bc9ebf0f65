"""Kafka 4.0 and 4.1's ``SimpleAssignor`` (``share-simple`` with ``kafka_version`` 4.0 or 4.1).

Share groups arrived early access in Kafka 4.0 and as a preview in 4.1; each line shipped its own
``SimpleAssignor``, both replaced in 4.2 by the sharing algorithm of
:mod:`assignors.broker.share_simple`. This module reproduces the two older ones, checked against
Kafka 4.0.2's and 4.1.2's own classes by the differential tests. The group is read as
:mod:`assignors.broker.share_simple` reads it: member-map order, topic ids, every claimant of a
partition keeps its claim. A member's *targets*: the partitions of its existing subscribed
topics, topics in the order of Kafka's set of subscribed topic ids, partitions ascending. A
member's *hash pick* among ``n`` partitions: number ``|String.hashCode(member id) mod n|``.

Kafka 4.0: every member gets all of its targets (no sharing out at all).

Kafka 4.1, homogeneous group (``T`` targets, ``M`` members, ``desired = ceil(T / M)``):

1. Each member takes its hash pick among the targets (several may pick the same partition).
2. Current claims, in the order of Kafka's partition -> claimants map (keys added claimant by
   claimant in member-map order, each new key at the head of its bucket), on subscribed topics
   and not picked in step 1: each claimant keeps the partition while it holds fewer than
   ``desired``.
3. The targets nobody holds yet, in order, round-robin over the members in member-map order; a
   member holding more than ``desired`` leaves the rotation and the partition goes to the next.
   When every member has left with partitions still to give, the assignment fails as Kafka's
   does (:class:`EarlyShareAssignmentError`): members whose claims overlap fill up on the same
   partitions and leave too many for one more each.

Kafka 4.1, heterogeneous group (members with an empty subscription take no part):

1. Each member takes its hash pick among its own targets.
2. Each topic's partitions neither picked nor currently claimed by anyone go round-robin over the
   topic's subscribers (in the order of Kafka's member -> targets map).
3. Every current claim not picked in step 1 is kept by a claimant that subscribes to the topic,
   whatever its count.

Invariants: answers list only existing partitions of topics the member subscribes to; a member
never holds a partition twice; answers are deterministic. Kafka 4.1 gives up balance (step 2 of
the heterogeneous algorithm has no limit) and may leave a partition with nobody when only
non-subscribers claim it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from assignors.errors import AssignmentExplorerError
from assignors.java_order import (
    MIN_TREEIFY_CAPACITY,
    TREEIFY_THRESHOLD,
    JavaHashMapOrder,
    bucket_order,
    hash_order,
    string_hash,
    to_int32,
)
from assignors.model import TopicPartition
from assignors.trace import DecisionTrace

if TYPE_CHECKING:
    from assignors.broker.share_simple import _Group

#: A partition as the algorithm keys it: (topic, partition number).
Key = tuple[str, int]


class EarlyShareAssignmentError(AssignmentExplorerError):
    """Where Kafka 4.1's round-robin runs out of members (its "Inconsistent number of member
    IDs"): members whose current claims overlap fill up on the same partitions, and too many
    are left for one more each (24 of 300 generated groups with shared claims)."""


def hash_pick(member_id: str, count: int) -> int:
    """``Math.abs(memberId.hashCode() % count)``: Java's remainder keeps the dividend's sign."""
    return abs(to_int32(string_hash(member_id))) % count


def targets(group: _Group, member: int) -> list[Key]:
    """The member's target partitions, in Kafka's order (see the module docstring)."""
    counts = group.spec.partition_counts
    return [(t, p) for t in group.names_order(member) for p in range(counts[t])]


def assign_kafka40(group: _Group, trace: DecisionTrace | None) -> dict[str, list[TopicPartition]]:
    """Kafka 4.0: every member gets every partition of its existing subscribed topics."""
    answer: dict[str, list[TopicPartition]] = {}
    for member, member_id in enumerate(group.members):
        answer[member_id] = [TopicPartition(t, p) for t, p in sorted(targets(group, member))]
        if trace is not None:
            trace.place_all(
                answer[member_id], member_id, "4.0 all", "Kafka 4.0 gives every member all"
            )
    return answer


def current_claims(group: _Group) -> dict[Key, list[int]]:
    """Kafka 4.1's partition -> claimants map, in its iteration order (claimants by member).

    Java fills it with ``computeIfAbsent`` once per claim: a new key goes to the head of its
    bucket, and every call, also for a key already there, first grows a table over its
    threshold. The order is the keys by bucket in the final table, newest first within one
    (one sort); a table small enough for ``treeifyBin`` to double it is replayed call by call.
    """
    claimants: dict[Key, list[int]] = {}
    capacity = 16
    for member, old in enumerate(group.old):
        for topic, numbers in old:
            for partition in numbers:
                if len(claimants) > capacity * 3 // 4:
                    capacity <<= 1
                claimants.setdefault((topic, partition), []).append(member)
    keys = list(claimants)
    codes = [31 * group.uuid_hash[topic] + partition for topic, partition in keys]
    if capacity < MIN_TREEIFY_CAPACITY and len(keys) >= TREEIFY_THRESHOLD:
        replayed = _replayed(group, dict(zip(keys, codes, strict=True)))
        return {key: claimants[key] for key in replayed}
    return {key: claimants[key] for key in bucket_order(keys[::-1], codes[::-1], capacity)}


def _replayed(group: _Group, codes: dict[Key, int]) -> list[Key]:
    """:func:`current_claims`' keys by replaying each ``computeIfAbsent`` call."""
    table: JavaHashMapOrder[Key] = JavaHashMapOrder(codes.__getitem__)
    for old in group.old:
        for topic, numbers in old:
            for partition in numbers:
                key = (topic, partition)
                if key in table:
                    table.touch()
                else:
                    table.put_first(key)
    return list(table)


def assign_kafka41(group: _Group, trace: DecisionTrace | None) -> dict[str, list[TopicPartition]]:
    """Kafka 4.1's hash-then-round-robin ``SimpleAssignor``."""
    held: list[dict[Key, str]] = [{} for _ in group.members]
    if group.spec.homogeneous:
        if group.spec.subscribed_names[group.members[0]]:
            _homogeneous_kafka41(group, held)
    else:
        _heterogeneous_kafka41(group, held)
    answer: dict[str, list[TopicPartition]] = {}
    for member, member_id in enumerate(group.members):
        answer[member_id] = [TopicPartition(*key) for key in sorted(held[member])]
        if trace is not None:
            for key, step in sorted(held[member].items()):
                trace.place(TopicPartition(*key), member_id, step, _REASONS[step])
    return answer


_REASONS = {
    "hash": "picked by the hash of the member id",
    "current": "kept from the member's current target",
    "round-robin": "nobody held it: handed out round-robin",
}


def _homogeneous_kafka41(group: _Group, held: list[dict[Key, str]]) -> None:
    """Steps 1-3 of the homogeneous algorithm into ``held`` (member -> partition -> step)."""
    target = targets(group, 0)
    members = len(group.members)
    desired = (len(target) + members - 1) // members
    picked: set[Key] = set()
    if target:
        for member, member_id in enumerate(group.members):
            key = target[hash_pick(member_id, len(target))]
            picked.add(key)
            held[member][key] = "hash"
    taken = set(picked)
    subscribed = set(group.names_order(0))
    for key, claimants in current_claims(group).items():
        if key[0] in subscribed and key not in picked:
            for member in claimants:
                if len(held[member]) < desired:
                    held[member][key] = "current"
                    taken.add(key)
    _round_robin_with_count([k for k in target if k not in taken], held, desired)


def _round_robin_with_count(keys: list[Key], held: list[dict[Key, str]], desired: int) -> None:
    """Kafka's ``roundRobinAssignmentWithCount`` over members in member-map order."""
    rotation = list(range(len(held)))
    position = 0
    index = 0
    while index < len(keys):
        if position >= len(rotation):
            position = 0
            if not rotation:
                raise EarlyShareAssignmentError("Inconsistent number of member IDs")
        member = rotation[position]
        if len(held[member]) <= desired:
            held[member][keys[index]] = "round-robin"
            position += 1
            index += 1
        else:
            del rotation[position]


def _heterogeneous_kafka41(group: _Group, held: list[dict[Key, str]]) -> None:
    """Steps 1-3 of the heterogeneous algorithm into ``held``."""
    names = group.spec.subscribed_names
    ids = [m for m in group.members if names[m]]
    index = {member_id: i for i, member_id in enumerate(group.members)}
    order = [index[m] for m in hash_order(ids, string_hash)]
    own = {member: targets(group, member) for member in order}
    subscribers: dict[str, list[int]] = {}
    for member in order:
        for topic, _ in own[member]:
            topic_members = subscribers.setdefault(topic, [])
            if not topic_members or topic_members[-1] != member:
                topic_members.append(member)
    hashed: dict[Key, list[int]] = {}
    for member in order:
        if own[member]:
            key = own[member][hash_pick(group.members[member], len(own[member]))]
            hashed.setdefault(key, []).append(member)
    claims = current_claims(group)
    unassigned: dict[str, list[Key]] = {}
    for key in dict.fromkeys(k for member in order for k in own[member]):
        if key not in hashed and key not in claims:
            unassigned.setdefault(key[0], []).append(key)
    _place(held, ((member, key, "hash") for key, ms in hashed.items() for member in ms))
    for topic, keys in unassigned.items():
        rotation = subscribers[topic]
        _place(
            held,
            ((rotation[i % len(rotation)], key, "round-robin") for i, key in enumerate(keys)),
        )
    for key, claimants in claims.items():
        if key not in hashed:
            takers = set(subscribers.get(key[0], ()))
            _place(held, ((m, key, "current") for m in claimants if m in takers))


def _place(held: list[dict[Key, str]], placements: Iterable[tuple[int, Key, str]]) -> None:
    for member, key, step in placements:
        held[member].setdefault(key, step)

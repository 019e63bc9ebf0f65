"""``uniform``: Kafka 4's broker-side uniform assignor (KIP-848, ``group.remote.assignor=uniform``).

With the consumer rebalance protocol the group coordinator, not a consumer, computes each member's
*target assignment*. This module reproduces Kafka's ``UniformAssignor`` (Kafka 4.4.0, checked
against Kafka's own classes by the differential tests in ``tests/differential/``) to the partition:
for every member, the same set of partitions. ``owned_partitions`` is the member's current target
assignment (the source of stickiness); ``generation`` plays no part.

The group as the assignor sees it (:class:`GroupSpec`):

* Members are walked in the iteration order of the coordinator's member map, a
  ``java.util.HashMap`` keyed by member id and filled in the order the scenario lists members
  (reproduced by :mod:`assignors.java_order`). That order decides who gets the extra partitions.
* Topics are known by their Kafka topic id (``Topic.topic_id``, base64). A scenario without ids
  gets one per topic from :func:`topic_uuid`: the name-based UUID (version 5, SHA-1) of the topic
  name in the namespace :data:`TOPIC_ID_NAMESPACE`, so the same name always gets the same id. Ids
  matter for the order of a ``HashSet`` of topic ids (``Uuid.hashCode``) and as the last tie-break
  between topics (``Uuid.compareTo``).
* A subscribed topic missing from the scenario is ignored; so is a claim on a topic or partition
  that does not exist. Kafka never hands one partition to two members; should the scenario do so,
  the partition stays with the last claimant in member-map order (the owner Kafka records).
* The group is *homogeneous* when every member subscribes to the same topic names (names missing
  from the cluster included, as the coordinator counts them), else *heterogeneous*.

Homogeneous groups (Kafka's ``UniformHomogeneousAssignmentBuilder``):

1. The topics are the first member's existing subscribed topics, in the order of a ``HashSet``
   of topic ids copied from the coordinator's view of its subscription (``TopicIds``: the
   ``HashSet`` of its topic names, in that set's order, missing topics skipped but counted in the
   size the copy is made with). ``P`` = their partition count, ``M`` = the member count,
   ``floor = P // M``; ``P % M`` members may hold ``floor + 1``, the rest ``floor`` (their quota).
   Members are visited in member-map order; while extra slots remain, the visited member gets
   one, and keeps it after step 3 only if its kept partitions use it or too few members remain
   after it to take the remaining extra slots (Kafka 4; Kafka 3.9 gave the extra slots to the
   first ``P % M`` members outright).
2. Unassigned partitions, in order: every partition of those topics that no member currently holds
   (topic by topic in the set's order, partition numbers ascending).
3. For each member in member-map order, walk its current assignment topic by topic (the order of a
   ``HashMap`` of topic ids; within a topic, of a ``HashSet<Integer>``): a topic the group no
   longer subscribes to is dropped; a topic whose partitions fit in the remaining quota is kept
   whole; otherwise partitions are kept while quota remains and the rest are appended to the
   unassigned list. A member with quota left is *unfilled*.
4. The unfilled members, in member-map order, each take their remaining quota from the front of
   the unassigned list.

Invariants: every partition of every subscribed topic is assigned exactly once; member sizes differ
by at most one; a member never loses a partition it holds unless it is above its quota (or the
topic left the subscription).

Kafka version (the scenario's ``kafka_version``): the default reproduces Kafka 4.4; with 3.9 (and
3.8, whose ``UniformAssignor`` is 3.9's, checked against Kafka 3.8.1's own class) the even split
gives its extra slots to the first members (step 1) and heterogeneous groups go to Kafka 3.9's
first builder (:mod:`assignors.broker.uniform_kafka39`).

Heterogeneous groups (Kafka 4's ``UniformHeterogeneousAssignmentBuilder``); members are numbered
0..M-1 in member-map order, "lighter" means fewer partitions, then the smaller number:

1. Each member keeps every currently held partition of a topic it still subscribes to.
2. Topic order: partitions per subscriber descending, then subscriber count ascending, then topic
   id ascending (``Uuid.compareTo``: signed most significant long, then least).
3. Topic by topic in that order, the unheld partitions, ascending, go to the topic's subscribers
   lightest first: the subscribers are sorted once per topic; the lightest tier (equal counts)
   takes one partition each in turn, and when the tier has all had one it is widened to the next
   subscribers that now have the same count.
4. Balancing, over the topics with at least two subscribers, in the same topic order, pass after
   pass (at most 16) until a whole pass moves nothing: within a topic, sort its subscribers as in
   step 3; repeatedly take the last partition (by owner number, then partition number) of the
   heaviest subscriber still holding one of the topic's partitions (heaviest tier first, the tier
   widening downwards) and give it to the lightest (widening upwards), until the two tiers' counts
   differ by at most one.

Invariants: every partition of every subscribed existing topic is assigned exactly once, only to
a subscriber; each topic's subscribers end up within one partition of each other when they share
the same subscriptions (overlapping subscriptions may leave a larger spread, as in Kafka).
"""

from __future__ import annotations

import uuid
from bisect import bisect_right
from collections import Counter, defaultdict, deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain, compress, groupby, pairwise
from operator import itemgetter, lt

from assignors.broker.uniform_kafka39 import assign_heterogeneous_kafka39
from assignors.errors import ScenarioError
from assignors.gc_pause import paused_gc
from assignors.java_order import (
    hash_order,
    hash_set_copy_capacity,
    integer_hash,
    kafka_uuid_from_base64,
    kafka_uuid_to_base64,
    string_hash,
    uuid_hash,
)
from assignors.kafka_versions import BROKER_LINES, at_least
from assignors.model import Scenario, SortedAnswer, Topic, TopicPartition, topic_partitions
from assignors.strategy import PartitionStrategy
from assignors.trace import DecisionTrace

#: Namespace of the name-based topic ids given to topics that come without a ``topic_id``.
TOPIC_ID_NAMESPACE = uuid.UUID("6f1c2a5e-3b7d-5e4a-9c1f-8d2b4a6e0c3f")

#: Kafka's bound on the final balancing passes of the heterogeneous builder.
MAX_BALANCING_PASSES = 16


def topic_uuid(topic: Topic) -> tuple[int, int]:
    """The topic's Kafka Uuid as (most, least) significant signed longs.

    ``topic.topic_id`` when given (base64, as Kafka prints it); otherwise the name-based UUID
    ``uuid5(TOPIC_ID_NAMESPACE, topic.name)``. Raises :class:`ScenarioError` for an id that is not
    a base64 Kafka Uuid.
    """
    if topic.topic_id is None:
        raw = uuid.uuid5(TOPIC_ID_NAMESPACE, topic.name).bytes
        return (
            int.from_bytes(raw[:8], "big", signed=True),
            int.from_bytes(raw[8:], "big", signed=True),
        )
    try:
        return kafka_uuid_from_base64(topic.topic_id)
    except ValueError as error:
        raise ScenarioError([f'topic "{topic.name}".id: {error}']) from None


def topic_id_text(topic: Topic) -> str:
    """The topic id as Kafka prints it (base64), given or derived by :func:`topic_uuid`."""
    return kafka_uuid_to_base64(*topic_uuid(topic))


@dataclass(frozen=True, slots=True)
class GroupSpec:
    """A consumer group as Kafka's broker-side assignors see it.

    ``member_ids``: member-map order. ``subscribed_names``: each member's subscription as listed
    (missing topics and repeats included, as the coordinator's name set is built from it).
    ``subscriptions``: each member's existing subscribed topics
    (listed order, no repeats). ``current``: each member's valid current target assignment, topic
    -> partitions (listed order), topics in the order first claimed; a partition claimed by
    several members is left with the last of them in member-map order. ``held``: topic -> the
    partition numbers some member currently holds. ``homogeneous``: every member subscribes to the
    same topic names. ``listed``: each member's valid claims in one list (as listed when all are
    valid), or ``None`` when some partition is claimed twice. ``current`` groups a member's
    claims when first asked (a member within its quota never needs them grouped).
    """

    member_ids: tuple[str, ...]
    homogeneous: bool
    subscribed_names: Mapping[str, tuple[str, ...]]
    partition_counts: Mapping[str, int]
    topic_uuids: Mapping[str, tuple[int, int]]
    subscriptions: Mapping[str, tuple[str, ...]]
    current: Mapping[str, Mapping[str, list[TopicPartition]]]
    held: Mapping[str, set[int]]
    listed: Mapping[str, list[TopicPartition]] | None = None

    @classmethod
    def of(cls, scenario: Scenario, *, with_current: bool = True) -> GroupSpec:
        """The spec of ``scenario``; :class:`ScenarioError` for a malformed topic id.

        ``with_current=False`` leaves ``current`` and ``held`` empty, for an assignor that reads
        every claimant's claims itself (``share-simple``).
        """
        counts = scenario.partition_counts()
        uuids = {topic.name: topic_uuid(topic) for topic in scenario.topics}
        member_ids = tuple(hash_order((m.member_id for m in scenario.members), string_hash))
        by_id = {m.member_id: m for m in scenario.members}
        subscriptions, one_listing = _existing_subscriptions(scenario, counts)
        owned = {m: by_id[m].owned_partitions for m in (member_ids if with_current else ())}
        current: Mapping[str, Mapping[str, list[TopicPartition]]] = _GroupedClaims(owned, counts)
        listed = {
            member_id: _valid_listed(claims, counts, current, member_id)
            for member_id, claims in owned.items()
        }
        held, claimed_twice = _held(listed.values())
        if claimed_twice:
            current = _last_claimant_keeps(member_ids, current)
        return cls(
            member_ids=member_ids,
            homogeneous=one_listing or _same_topic_names(scenario),
            subscribed_names={m.member_id: tuple(m.topics) for m in scenario.members},
            partition_counts=counts,
            topic_uuids=uuids,
            subscriptions=subscriptions,
            current=current,
            held=held,
            listed=None if claimed_twice else listed,
        )


_partition_number = itemgetter(1)


def _existing_subscriptions(
    scenario: Scenario, counts: Mapping[str, int]
) -> tuple[dict[str, tuple[str, ...]], bool]:
    """Member id -> its existing subscribed topics (listed order, no repeats), and whether every
    member lists the same topics.

    Members mostly list the same topics: a subscription equal to the previous member's (compared
    element by element, no hashing) is not worked out again.
    """
    subscriptions: dict[str, tuple[str, ...]] = {}
    listed: tuple[str, ...] | None = None
    existing: tuple[str, ...] = ()
    listings = 0
    for member in scenario.members:
        if member.topics != listed:
            listed = member.topics
            existing = tuple(dict.fromkeys(t for t in listed if t in counts))
            listings += 1
        subscriptions[member.member_id] = existing
    return subscriptions, listings <= 1


def _same_topic_names(scenario: Scenario) -> bool:
    """Whether every member subscribes to the same topic names (repeats and order aside)."""
    return len({frozenset(member.topics) for member in scenario.members}) <= 1


def _held(listed: Iterable[list[TopicPartition]]) -> tuple[dict[str, set[int]], bool]:
    """Topic -> the partition numbers claimed, and whether some partition is claimed twice
    (by two members, or listed twice by one)."""
    claims = list(chain.from_iterable(listed))
    held: defaultdict[str, set[int]] = defaultdict(set)
    for topic, partition in claims:
        held[topic].add(partition)
    return dict(held), sum(map(len, held.values())) != len(claims)


_topic_name = itemgetter(0)


def _valid_listed(
    owned: Sequence[TopicPartition],
    counts: Mapping[str, int],
    current: Mapping[str, Mapping[str, list[TopicPartition]]],
    member_id: str,
) -> list[TopicPartition]:
    """The member's claims on existing partitions, as listed.

    When every claim is valid (checked by C-level maps), that is ``owned`` itself; otherwise
    the member's claims are grouped (``current``) and flattened.
    """
    topics = list(map(_topic_name, owned))
    if counts.keys() >= set(topics) and all(
        map(lt, map(_partition_number, owned), map(counts.__getitem__, topics))
    ):
        return list(owned)
    return list(chain.from_iterable(current[member_id].values()))


class _GroupedClaims(Mapping[str, Mapping[str, list[TopicPartition]]]):
    """Member id -> :func:`_valid_claims` of its owned partitions, grouped when first asked."""

    def __init__(
        self, owned: Mapping[str, Sequence[TopicPartition]], counts: Mapping[str, int]
    ) -> None:
        self._owned = owned
        self._counts = counts
        self._grouped: dict[str, dict[str, list[TopicPartition]]] = {}

    def __getitem__(self, member_id: str) -> dict[str, list[TopicPartition]]:
        claims = self._grouped.get(member_id)
        if claims is None:
            claims = _valid_claims(self._owned[member_id], self._counts)
            self._grouped[member_id] = claims
        return claims

    def __iter__(self) -> Iterator[str]:
        return iter(self._owned)

    def __len__(self) -> int:
        return len(self._owned)


def _valid_claims(
    owned: Sequence[TopicPartition], counts: Mapping[str, int]
) -> dict[str, list[TopicPartition]]:
    """Claims grouped by topic (first-claim order), without non-existent partitions."""
    claims: dict[str, list[TopicPartition]] = {}
    for topic, run in groupby(owned, key=itemgetter(0)):
        count = counts.get(topic)
        if count is None:
            continue
        partitions = list(run)
        if max(map(_partition_number, partitions)) >= count:
            partitions = [tp for tp in partitions if tp[1] < count]
        if topic in claims:
            claims[topic].extend(partitions)
        elif partitions:
            claims[topic] = partitions
    return claims


def _last_claimant_keeps(
    member_ids: Sequence[str], current: Mapping[str, Mapping[str, list[TopicPartition]]]
) -> dict[str, dict[str, list[TopicPartition]]]:
    """Claims with every partition left to its last claimant in member-map order, once."""
    owner = {
        tp: member_id
        for member_id in member_ids
        for tps in current[member_id].values()
        for tp in tps
    }
    kept: dict[str, dict[str, list[TopicPartition]]] = {}
    for member_id in member_ids:
        claims: dict[str, list[TopicPartition]] = {}
        for topic, partitions in current[member_id].items():
            mine = list(dict.fromkeys(tp for tp in partitions if owner[tp] == member_id))
            if mine:
                claims[topic] = mine
        kept[member_id] = claims
    return kept


# --- homogeneous ------------------------------------------------------------------------------


def _int_set_order(partitions: list[TopicPartition]) -> list[TopicPartition]:
    """Iteration order of ``new HashSet<>(partition numbers)``."""
    capacity = hash_set_copy_capacity(len(partitions))
    return hash_order(partitions, lambda tp: integer_hash(tp[1]), capacity)


def assign_homogeneous(
    group: GroupSpec, trace: DecisionTrace | None = None, *, keep_extra_unused: bool = False
) -> dict[str, list[TopicPartition]]:
    """Kafka's ``UniformHomogeneousAssignmentBuilder``: steps 1-4 of the module docstring.

    ``keep_extra_unused``: Kafka 3.9 (a member keeps its extra slot even when its kept
    partitions leave it unused); Kafka 4.1 and later give it up (step 1), and so does 4.0.2, the
    newest 4.0 patch release, which the 4.0 line reproduces. When nobody holds a
    partition, every member's answer is one slice of the unassigned list; a
    :class:`SortedAnswer` when each slice is in order (:func:`_slices_in_order`).
    """
    members = group.member_ids
    counts = group.partition_counts
    uuid_hash_of = {name: uuid_hash(*ids) for name, ids in group.topic_uuids.items()}
    # The coordinator's subscribed ids are a view (``TopicIds``) over the member's HashSet of
    # topic names that skips missing topics but counts them in its size; the builder copies it.
    names = group.subscribed_names[members[0]]
    name_order = hash_order(names, string_hash, hash_set_copy_capacity(len(names)))
    existing = [name for name in name_order if name in uuid_hash_of]
    topics = hash_order(existing, uuid_hash_of.__getitem__, hash_set_copy_capacity(len(name_order)))
    if not topics:
        return {}
    subscribed = set(topics)

    unassigned = _unheld(topics, counts, group.held)
    total = sum(map(counts.__getitem__, topics))
    floor, extra = divmod(total, len(members))
    if trace is not None:
        _note_homogeneous(trace, total, members)
    result: dict[str, list[TopicPartition]] = {}
    unfilled: list[tuple[str, int]] = []
    member_count = len(members)
    for index, member_id in enumerate(members):
        quota = floor
        has_extra = extra > 0
        if has_extra:
            quota += 1
        listed = group.listed[member_id] if group.listed is not None and trace is None else None
        if (
            listed is not None
            and len(listed) <= quota
            and subscribed.issuperset(map(_topic_name, listed))
        ):
            # Every topic fits: the walk below would keep all of them, whatever their order.
            kept, quota = list(listed), quota - len(listed)
        else:
            kept, quota = _keep(
                group.current[member_id], quota, subscribed, uuid_hash_of, unassigned
            )
        result[member_id] = kept
        if trace is not None:
            _trace_kept(trace, kept, member_id, index, floor + (1 if has_extra else 0))
        # Kafka 4: a member whose kept partitions leave its extra slot unused gives the slot up
        # while enough members remain after it to take every remaining extra partition.
        if not keep_extra_unused and quota > 0 and has_extra and member_count - index > extra:
            quota -= 1
            has_extra = False
        if quota > 0:
            unfilled.append((member_id, quota))
        if has_extra:
            extra -= 1

    position = 0
    for member_id, quota in unfilled:
        if result[member_id]:
            result[member_id].extend(unassigned[position : position + quota])
        else:
            result[member_id] = unassigned[position : position + quota]
        if trace is not None:
            _trace_filled(trace, unassigned[position : position + quota], member_id, position)
        position += quota
    if position < len(unassigned):
        raise AssertionError("uniform: partitions left unassigned (claims were not deduplicated)")
    if not group.held and _slices_in_order(topics, counts, [quota for _, quota in unfilled]):
        return SortedAnswer(result)
    return result


def _unheld(
    topics: list[str], counts: Mapping[str, int], held: Mapping[str, set[int]]
) -> list[TopicPartition]:
    """Step 2: the partitions nobody holds, topic by topic, numbers ascending, every topic
    drawing on one list of ``int`` objects."""
    unassigned: list[TopicPartition] = []
    numbers = list(range(max(map(counts.__getitem__, topics))))
    for topic in topics:
        count = counts[topic]
        taken = held.get(topic, set())
        if len(taken) < count:
            free = numbers if not taken else [p for p in numbers[:count] if p not in taken]
            unassigned.extend(topic_partitions(topic, free, count))
    return unassigned


def _slices_in_order(topics: list[str], counts: Mapping[str, int], quotas: list[int]) -> bool:
    """Whether consecutive slices of ``quotas`` partitions each, cut from every partition of
    ``topics`` in that order (topic by topic, numbers ascending), are each in
    :class:`TopicPartition` order: no slice runs on from a topic into one whose name is smaller."""
    descents: list[int] = []  # where a topic is followed by a smaller name
    start = 0
    for topic, following in pairwise(topics):
        start += counts[topic]
        if following < topic:
            descents.append(start)
    position = 0
    for quota in quotas:
        # a descent inside this slice: one strictly after its first position, before its end
        inside = bisect_right(descents, position)
        if inside < len(descents) and descents[inside] < position + quota:
            return False
        position += quota
    return True


def _keep(
    claims: Mapping[str, list[TopicPartition]],
    quota: int,
    subscribed: set[str],
    uuid_hash_of: Mapping[str, int],
    unassigned: list[TopicPartition],
) -> tuple[list[TopicPartition], int]:
    """Step 3 for one member: what it keeps of ``claims`` and its quota left.

    Topics in the order of the member's ``HashMap`` of topic ids; a topic that does not fit is
    split in its ``HashSet`` order, the rest of it (and of every later topic) going to the end
    of ``unassigned``.
    """
    kept: list[TopicPartition] = []
    for topic in hash_order(claims, uuid_hash_of.__getitem__) if claims else ():
        if topic not in subscribed:
            continue
        partitions = claims[topic]
        if len(partitions) <= quota:
            quota -= len(partitions)
            kept.extend(partitions)
            continue
        ordered = _int_set_order(partitions)
        kept.extend(ordered[:quota])
        unassigned.extend(ordered[quota:])
        quota = 0
    return kept, quota


def _note_homogeneous(trace: DecisionTrace, total: int, members: Sequence[str]) -> None:
    floor, extra = divmod(total, len(members))
    trace.note(
        f"homogeneous group: {total} partitions over {len(members)} members: floor {total} "
        f"// {len(members)} = {floor}, {total} % {len(members)} = {extra} extra slot(s); "
        f"member-map order: {', '.join(members)}"
    )


def _trace_kept(
    trace: DecisionTrace, kept: list[TopicPartition], member_id: str, index: int, quota: int
) -> None:
    trace.place_all(
        kept,
        member_id,
        "3 keep",
        f"kept from its current target: {member_id} (member {index + 1} in member-map order) "
        f"had room under its quota of {quota}",
    )


def _trace_filled(
    trace: DecisionTrace, taken: list[TopicPartition], member_id: str, position: int
) -> None:
    trace.place_all(
        taken,
        member_id,
        "4 fill",
        f"{member_id} was {len(taken)} short of its quota: unfilled members in member-map order "
        f"take their shortfall from the front of the unassigned list (places {position + 1}.."
        f"{position + len(taken)})",
    )


# --- heterogeneous ----------------------------------------------------------------------------


class _LoadTiers:
    """Kafka's ``MemberAssignmentBalancer``: two tiers over members sorted by load.

    The light tier ``[0, light_end)`` grows rightwards and the heavy tier
    ``[heavy_start, heavy_end)`` leftwards; ``light_level`` / ``heavy_level`` are the counts the
    tiers started from. Loads are read live from ``sizes``, which the caller updates.
    """

    __slots__ = (
        "heavy_end",
        "heavy_level",
        "heavy_next",
        "heavy_start",
        "light_end",
        "light_level",
        "light_next",
        "members",
        "sizes",
    )

    def __init__(self, sizes: list[int]) -> None:
        self.sizes = sizes
        self.members: list[int] = []
        self.light_end = self.light_level = self.light_next = 0
        self.heavy_start = self.heavy_end = self.heavy_level = self.heavy_next = 0

    def reset(self, subscribers: Sequence[int]) -> int:
        """Sort ``subscribers`` lightest first; answer the spread of their loads."""
        sizes = self.sizes
        # ``subscribers`` is ascending: a stable sort by load orders by (load, number).
        self.members = sorted(subscribers, key=sizes.__getitem__)
        count = len(self.members)
        lightest, heaviest = sizes[self.members[0]], sizes[self.members[-1]]
        self.light_end, self.light_level, self.light_next = 0, lightest - 1, 0
        self.heavy_start, self.heavy_end = count, count
        self.heavy_level, self.heavy_next = heaviest + 1, count - 1
        return heaviest - lightest

    def next_lightest(self) -> int:
        """The member to give the next partition to."""
        if self.light_next >= self.light_end:
            self.light_level += 1
            members, sizes = self.members, self.sizes
            while (
                self.light_end < len(members) and sizes[members[self.light_end]] == self.light_level
            ):
                self.light_end += 1
            self.light_next = 0
        member = self.members[self.light_next]
        self.light_next += 1
        return member

    def next_heaviest(self) -> int:
        """The member to take the next partition from, or -1 when none is left."""
        members, sizes = self.members, self.sizes
        if self.heavy_next < self.heavy_start:
            if self.heavy_end <= self.heavy_start and self.heavy_start > 0:
                # The tier was emptied by exclusions: restart it from the next member down.
                self.heavy_level = sizes[members[self.heavy_start - 1]]
            else:
                self.heavy_level -= 1
            while self.heavy_start > 0 and sizes[members[self.heavy_start - 1]] == self.heavy_level:
                self.heavy_start -= 1
            self.heavy_next = self.heavy_end - 1
        if self.heavy_next < 0:
            return -1
        member = members[self.heavy_next]
        self.heavy_next -= 1
        return member

    def exclude_last_heaviest(self) -> None:
        """Drop the member :meth:`next_heaviest` just answered from the heavy tier."""
        members = self.members
        slot = self.heavy_next + 1
        members[slot], members[self.heavy_end - 1] = members[self.heavy_end - 1], members[slot]
        self.heavy_end -= 1

    def balanced(self) -> bool:
        return self.heavy_level - self.light_level <= 1


_MISSING = -1


def _scatter(target: list[int], keys: Iterable[int], values: Iterable[int]) -> None:
    """``target[key] = value`` pairwise, looped in C."""
    deque(map(target.__setitem__, keys, values), maxlen=0)


class _HeterogeneousBuilder:
    """Steps 1-4 over flat state: ``owners[topic][partition]`` is the holding member's number
    (-1 for none) and ``sizes[member]`` its partition count; no per-partition objects until the
    result is built."""

    def __init__(self, group: GroupSpec, trace: DecisionTrace | None = None) -> None:
        self.trace = trace
        self.group = group
        self.members = group.member_ids
        self.counts = group.partition_counts
        # Members are appended in ascending number, so every subscriber list is ascending and a
        # stable sort by load alone orders it by (load, number).
        self.subscribers: dict[str, list[int]] = {}
        for index, member_id in enumerate(self.members):
            for topic in group.subscriptions[member_id]:
                self.subscribers.setdefault(topic, []).append(index)
        self.sizes = [0] * len(self.members)
        self.owners = {topic: [-1] * self.counts[topic] for topic in self.subscribers}
        sizes, all_owners = self.sizes, self.owners
        for index, member_id in enumerate(self.members):
            claims = group.current[member_id]
            if not claims:
                continue
            subscribed = set(group.subscriptions[member_id])
            for topic, partitions in claims.items():
                if topic in subscribed:
                    sizes[index] += len(partitions)
                    owners = all_owners[topic]
                    for _, partition in partitions:
                        owners[partition] = index
                    if trace is not None:
                        trace.place_all(
                            partitions,
                            member_id,
                            "1 keep",
                            f"kept from its current target: {member_id} still subscribes to "
                            f"{topic}",
                        )

    def topic_order_key(self, topic: str) -> tuple[float, int, tuple[int, int]]:
        subscriber_count = len(self.subscribers[topic])
        return (
            -(self.counts[topic] / subscriber_count),
            subscriber_count,
            self.group.topic_uuids[topic],
        )

    def move(self, topic: str, partition: int, member: int) -> None:
        owners = self.owners[topic]
        previous = owners[partition]
        if previous != -1:
            self.sizes[previous] -= 1
        owners[partition] = member
        self.sizes[member] += 1

    def build(self) -> dict[str, list[TopicPartition]]:
        if not self.subscribers:
            return {}
        unheld: dict[str, Sequence[int]] = {}
        for topic, owners in self.owners.items():
            if owners.count(-1) == len(owners):
                unheld[topic] = range(len(owners))
            else:
                unheld[topic] = list(compress(range(len(owners)), map(_MISSING.__eq__, owners)))
        if self.trace is not None:
            self.trace.note(
                "heterogeneous group; topic order (partitions per subscriber desc, subscribers "
                "asc, topic id): " + ", ".join(sorted(self.subscribers, key=self.topic_order_key))
            )
        for topic in sorted((t for t in unheld if unheld[t]), key=self.topic_order_key):
            self.fill(topic, unheld[topic])
        shared = sorted(
            (t for t in self.subscribers if len(self.subscribers[t]) >= 2),
            key=self.topic_order_key,
        )
        if shared:
            self.balance(shared, _LoadTiers(self.sizes))
        return self.result()

    def fill(self, topic: str, unheld: Sequence[int]) -> None:
        """Step 3 for one topic, a whole round of the lightest tier at a time.

        Every member of the tier holds ``level`` partitions at the start of a round; the tier
        widens when ``level`` reaches the next subscriber's load, so the rounds before that are
        given in one batch.
        """
        sizes = self.sizes
        owners = self.owners[topic]
        order = sorted(self.subscribers[topic], key=sizes.__getitem__)
        count = len(order)
        level = sizes[order[0]]
        width = 0
        position = 0
        total = len(unheld)
        partial = 0
        while position < total:
            while width < count and sizes[order[width]] == level:
                width += 1
            rounds = (total - position) // width
            if width < count:
                rounds = min(rounds, sizes[order[width]] - level)
            if rounds == 0:
                partial = total - position
                _scatter(owners, unheld[position:], order[:partial])
                if self.trace is not None:
                    self._trace_fill(topic, unheld[position:], order[:partial], level)
                break
            end = position + rounds * width
            _scatter(owners, unheld[position:end], order[:width] * rounds)
            if self.trace is not None:
                self._trace_fill(topic, unheld[position:end], order[:width] * rounds, level)
            position = end
            level += rounds
        for slot in range(width):
            sizes[order[slot]] = level + 1 if slot < partial else level

    def _trace_fill(
        self, topic: str, partitions: Sequence[int], receivers: Sequence[int], level: int
    ) -> None:
        assert self.trace is not None
        subscribers = len(self.subscribers[topic])
        for number, member in zip(partitions, receivers, strict=True):
            self.trace.place(
                TopicPartition(topic, number),
                self.members[member],
                "3 lightest",
                f"unheld: given to the lightest of {topic}'s {subscribers} subscriber(s) (fewest "
                f"partitions, then member-map order); the lightest tier held {level} "
                "when this round began",
            )

    def result(self) -> dict[str, list[TopicPartition]]:
        """Member id -> partitions, topic by topic in name order, partitions ascending."""
        assigned: list[list[TopicPartition]] = [[] for _ in self.members]
        for topic in sorted(self.owners):
            owners = self.owners[topic]
            by_owner = sorted(range(len(owners)), key=owners.__getitem__)
            partitions = list(topic_partitions(topic, by_owner))
            start = 0
            for owner, held in sorted(Counter(owners).items()):
                assigned[owner].extend(partitions[start : start + held])
                start += held
        return dict(zip(self.members, assigned, strict=True))

    def balance(self, topics: list[str], tiers: _LoadTiers) -> None:
        last_moved_at = -1
        for _ in range(MAX_BALANCING_PASSES):
            for position, topic in enumerate(topics):
                if position == last_moved_at:
                    return  # a whole pass since the last move: nothing more to gain
                moved = self.balance_topic(topic, tiers)
                if moved > 0 or last_moved_at == -1:
                    last_moved_at = position

    def balance_topic(self, topic: str, tiers: _LoadTiers) -> int:
        if tiers.reset(self.subscribers[topic]) <= 1:
            return 0
        owners = self.owners[topic]
        # Partitions by (owner, partition): a stable sort of the ascending numbers by owner.
        by_owner = sorted(range(len(owners)), key=owners.__getitem__)
        start: dict[int, int] = {}
        end: dict[int, int] = {}
        position = 0
        for owner, held in sorted(Counter(owners).items()):
            start[owner] = position
            position += held
            end[owner] = position
        moved = 0
        while not tiers.balanced():
            while True:
                donor = tiers.next_heaviest()
                if donor == -1 or (donor in end and end[donor] - start[donor] > 0):
                    break
                tiers.exclude_last_heaviest()
            if donor == -1:
                break
            end[donor] -= 1
            partition = by_owner[end[donor]]
            receiver = tiers.next_lightest()
            if tiers.balanced():
                break
            if self.trace is not None:
                self.trace.move(
                    TopicPartition(topic, partition),
                    self.members[owners[partition]],
                    self.members[receiver],
                    "4 balance",
                    f"{topic}'s subscribers were more than one apart: the last partition of the "
                    f"heaviest, {self.members[owners[partition]]} "
                    f"({self.sizes[owners[partition]]}), goes to the lightest, "
                    f"{self.members[receiver]} ({self.sizes[receiver]})",
                )
            self.move(topic, partition, receiver)
            moved += 1
        return moved


def assign_heterogeneous(
    group: GroupSpec, trace: DecisionTrace | None = None
) -> dict[str, list[TopicPartition]]:
    """Kafka's ``UniformHeterogeneousAssignmentBuilder``: steps 1-4 of the module docstring."""
    return _HeterogeneousBuilder(group, trace).build()


def compute(
    scenario: Scenario, trace: DecisionTrace | None = None
) -> dict[str, list[TopicPartition]]:
    """Member id -> target partitions, as Kafka's ``UniformAssignor`` computes them."""
    if not scenario.members:
        return {}
    version = scenario.kafka_version
    with paused_gc():
        group = GroupSpec.of(scenario)
        if group.homogeneous:
            return assign_homogeneous(group, trace, keep_extra_unused=not at_least(version, "4.0"))
        if not at_least(version, "4.0"):
            return assign_heterogeneous_kafka39(group, trace)
        return assign_heterogeneous(group, trace)


STRATEGY = PartitionStrategy(
    name="uniform",
    summary=(
        "Kafka 4's default broker-side assignor (KIP-848): spreads all partitions evenly over the "
        "members and keeps each member's current target where balance allows."
    ),
    when_to_use=(
        "Groups on the consumer rebalance protocol (Kafka 4+) that want even load and few "
        "movements; heterogeneous subscriptions are balanced per topic. No co-partitioning."
    ),
    consumer_config="group.protocol=consumer\ngroup.remote.assignor=uniform",
    protocol="consumer",
    compute=compute,
    older_kafka=(
        (
            "3.8-3.9",
            "members with different subscriptions: Kafka 3.9's first heterogeneous builder "
            "(fewest partitions first, then a balancing pass that can stop early and throws "
            "on some groups with current owners); an even split gives its extra partitions to "
            "the first members in member-map order",
        ),
    ),
    kafka_lines=BROKER_LINES,
)

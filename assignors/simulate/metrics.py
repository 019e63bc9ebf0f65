"""What an assignment looks like, on its own and against the one before it.

:func:`assignment_metrics` measures one :class:`~assignors.model.Assignment` of a
:class:`~assignors.model.Scenario` and compares it with the previous assignment (by default the
scenario's ``owned_partitions``). The dashboard and the pipeline draw these figures; every field
of :class:`AssignmentMetrics` says in one line what it means for an operator.

Algorithm:

1. Previous assignment (:func:`owned_assignment`): every member's ``owned_partitions`` that still
   exist; a partition claimed by several members goes to the claim with the highest
   ``generation`` (a claim without one counts as generation -1), equal generations to the
   smallest member id. Members that are gone from the group may appear in a given ``previous``.
2. Lag of every partition from :func:`assignors.simulate.lag.partition_lags` (the one lag rule).
3. Per member: partitions, lag, kept / gained / lost against the previous owner, cross-rack
   assignments (the member has a rack, the partition has replica racks, and the member's rack is
   not among them).
4. Movement, per partition of either assignment: ``kept`` (same owner), ``moved`` (owned before by
   another member), ``newly_assigned`` (owned by nobody before), ``dropped`` (owned before, by
   nobody now); ``revoked`` = moved + dropped (the previous owner gives it up).
5. Co-partitioning: subscribed topics grouped by equal partition count; a group of two or more
   topics is co-partitioned on partition number N when partition N of every topic in it has the
   same owner (or none of them has one).

Invariants: ``kept + moved`` = the partitions owned before that are assigned now; every figure is
independent of the order of members in the scenario and in the assignment; nothing is mutated.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter
from typing import Any, NamedTuple

from assignors.model import Assignment, Scenario, Topic, TopicPartition
from assignors.simulate.lag import partition_lags


class PartitionMove(NamedTuple):
    """One partition and its owner before and after (``None``: nobody)."""

    partition: TopicPartition
    from_member: str | None
    to_member: str | None


@dataclass(frozen=True, slots=True)
class Movement:
    """How ownership changed between the previous assignment and this one."""

    kept: tuple[TopicPartition, ...]
    """Partitions that stay with their owner: no pause, caches stay warm."""
    moved: tuple[PartitionMove, ...]
    """Partitions that change owner: the old owner stops, the new one starts from the commit."""
    newly_assigned: tuple[PartitionMove, ...]
    """Partitions nobody owned before (new, or unassigned until now) that now have an owner."""
    dropped: tuple[PartitionMove, ...]
    """Partitions owned before that nobody owns now: they stop being consumed."""

    @property
    def revoked(self) -> tuple[PartitionMove, ...]:
        """Partitions their previous owner must give up (moved plus dropped), by partition."""
        return tuple(sorted(self.moved + self.dropped))

    @property
    def kept_count(self) -> int:
        """How many partitions stay put."""
        return len(self.kept)

    @property
    def moved_count(self) -> int:
        """How many partitions change owner."""
        return len(self.moved)

    @property
    def newly_assigned_count(self) -> int:
        """How many partitions get a first owner."""
        return len(self.newly_assigned)

    @property
    def dropped_count(self) -> int:
        """How many partitions lose their owner and get no new one."""
        return len(self.dropped)

    @property
    def revoked_count(self) -> int:
        """How many partitions a previous owner gives up."""
        return len(self.moved) + len(self.dropped)

    def to_json(self) -> dict[str, Any]:
        """Counts plus the lists, partitions as ``[topic, partition]``."""

        def moves(items: Iterable[PartitionMove]) -> list[dict[str, Any]]:
            return [
                {
                    "partition": [m.partition.topic, m.partition.partition],
                    "from": m.from_member,
                    "to": m.to_member,
                }
                for m in items
            ]

        return {
            "kept": self.kept_count,
            "moved": self.moved_count,
            "newly_assigned": self.newly_assigned_count,
            "dropped": self.dropped_count,
            "revoked": self.revoked_count,
            "kept_partitions": [[tp.topic, tp.partition] for tp in self.kept],
            "moved_partitions": moves(self.moved),
            "newly_assigned_partitions": moves(self.newly_assigned),
            "dropped_partitions": moves(self.dropped),
        }


@dataclass(frozen=True, slots=True)
class MemberMetrics:
    """One member's share of the work and what the change does to it."""

    member_id: str
    partitions: int
    """Partitions this member consumes."""
    lag: int
    """Records this member has to catch up on (sum of its partitions' lag)."""
    kept: int
    """Partitions it keeps from before (no pause for them)."""
    gained: int
    """Partitions it did not own before and must start consuming."""
    lost: int
    """Partitions it owned before and must give up."""
    cross_rack: int
    """Partitions it reads from another rack (cross-zone traffic, higher latency)."""
    idle: bool
    """True when it gets no partition: it costs resources and consumes nothing."""

    def to_json(self) -> dict[str, Any]:
        """Plain JSON object with the field names as keys."""
        return {
            "member_id": self.member_id,
            "partitions": self.partitions,
            "lag": self.lag,
            "kept": self.kept,
            "gained": self.gained,
            "lost": self.lost,
            "cross_rack": self.cross_rack,
            "idle": self.idle,
        }


@dataclass(frozen=True, slots=True)
class CoPartitionGroup:
    """Subscribed topics with the same partition count, and where they are split."""

    topics: tuple[str, ...]
    """The topics (sorted) that share this partition count."""
    partitions: int
    """Their common partition count."""
    split_partitions: tuple[int, ...]
    """Partition numbers whose partitions sit on different members: a join over them breaks."""

    @property
    def colocated(self) -> bool:
        """True when partition N of every topic is on one member for every N (joins work)."""
        return not self.split_partitions

    def to_json(self) -> dict[str, Any]:
        """Plain JSON object."""
        return {
            "topics": list(self.topics),
            "partitions": self.partitions,
            "split_partitions": list(self.split_partitions),
            "colocated": self.colocated,
        }


@dataclass(frozen=True, slots=True)
class AssignmentMetrics:
    """Balance, lag spread, rack locality, co-partitioning and movement of one assignment."""

    members: tuple[MemberMetrics, ...]
    """Per member, sorted by member id."""
    partitions_min: int
    """Fewest partitions any member has."""
    partitions_max: int
    """Most partitions any member has."""
    partitions_spread: int
    """Max minus min partitions per member: 0 or 1 is as even as counts allow."""
    lag_total: int
    """Records the whole group has to catch up on (assigned partitions only)."""
    lag_max_min_ratio: float | None
    """Busiest member's lag over the lightest's (members with partitions); None: lightest has 0."""
    lag_stddev: float
    """Population standard deviation of lag per member, in records: how uneven the backlog is."""
    lag_cv: float | None
    """Standard deviation over mean lag per member (0 = even); None when there is no lag."""
    idle_members: tuple[str, ...]
    """Members with no partition: paid for, consuming nothing."""
    unassigned_partitions: tuple[TopicPartition, ...]
    """Subscribed partitions nobody consumes: their lag only grows."""
    cross_rack_assignments: int
    """Partitions read by a member in a rack that holds no replica of them (cross-zone traffic)."""
    rack_known_assignments: int
    """Assigned partitions where both the member's rack and the replica racks are known."""
    cross_rack_share: float | None
    """Cross-rack assignments over rack-known assignments; None when no rack is known."""
    co_partitioning: tuple[CoPartitionGroup, ...]
    """Per group of equally partitioned topics, the partition numbers split across members."""
    movement: Movement
    """What changes owner against the previous assignment."""

    @property
    def lag_by_member(self) -> dict[str, int]:
        """Member id -> its lag, in member id order."""
        return {member.member_id: member.lag for member in self.members}

    @property
    def split_partition_count(self) -> int:
        """Partition numbers split across members, over all co-partitioned topic groups."""
        return sum(len(group.split_partitions) for group in self.co_partitioning)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON object; partitions as ``[topic, partition]``."""
        return {
            "members": [member.to_json() for member in self.members],
            "partitions_min": self.partitions_min,
            "partitions_max": self.partitions_max,
            "partitions_spread": self.partitions_spread,
            "lag_total": self.lag_total,
            "lag_by_member": self.lag_by_member,
            "lag_max_min_ratio": self.lag_max_min_ratio,
            "lag_stddev": self.lag_stddev,
            "lag_cv": self.lag_cv,
            "idle_members": list(self.idle_members),
            "unassigned_partitions": [
                [tp.topic, tp.partition] for tp in self.unassigned_partitions
            ],
            "cross_rack_assignments": self.cross_rack_assignments,
            "rack_known_assignments": self.rack_known_assignments,
            "cross_rack_share": self.cross_rack_share,
            "co_partitioning": [group.to_json() for group in self.co_partitioning],
            "split_partitions": self.split_partition_count,
            "movement": self.movement.to_json(),
        }


def owned_assignment(scenario: Scenario) -> Assignment:
    """The previous assignment the scenario's members claim (rule 1 of the module docstring).

    Lists every member of the scenario; claims on partitions that no longer exist are ignored.
    """
    counts = scenario.partition_counts()
    # Visit the claims strongest first (highest generation, then smallest member id): the first
    # claim on a partition wins, so no per-partition comparison is needed.
    claimants = sorted(
        scenario.members,
        key=lambda m: (1 if m.generation is None else -m.generation, m.member_id),
    )
    owner: dict[TopicPartition, str] = {}
    for member in claimants:
        member_id = member.member_id
        for tp in member.owned_partitions:
            if tp not in owner and 0 <= tp.partition < counts.get(tp.topic, 0):
                owner[tp] = member_id
    owned: dict[str, list[TopicPartition]] = {}
    for tp, member_id in owner.items():
        owned.setdefault(member_id, []).append(tp)
    return Assignment.of((member.member_id for member in scenario.members), owned)


def sorted_partitions(partitions: Iterable[TopicPartition]) -> list[TopicPartition]:
    """``sorted(partitions)`` (by topic, then partition number), about three times faster.

    Comparing ``TopicPartition`` tuples one by one is slow in CPython; two stable sorts on a
    single key each (number, then topic) give the same order with fast key comparisons.
    """
    ordered = list(partitions)
    ordered.sort(key=itemgetter(1))
    ordered.sort(key=itemgetter(0))
    return ordered


def lags_by_topic(scenario: Scenario) -> dict[str, list[int]]:
    """Topic -> lag of each of its partitions, by partition number (:mod:`assignors.simulate.lag`
    rules).

    The same figures as :func:`lag_by_partition` without building a key per partition.
    """
    return {
        topic.name: partition_lags(topic, scenario.auto_offset_reset) for topic in scenario.topics
    }


def lag_by_partition(scenario: Scenario) -> dict[TopicPartition, int]:
    """Lag of every partition of every topic in the scenario (:mod:`assignors.simulate.lag`
    rules)."""
    return {
        TopicPartition(name, partition): lag
        for name, topic_lags in lags_by_topic(scenario).items()
        for partition, lag in enumerate(topic_lags)
    }


def movement(previous: Assignment, assignment: Assignment) -> Movement:
    """Kept / moved / newly assigned / dropped partitions from ``previous`` to ``assignment``."""
    return _movement(previous.owner_of(), assignment.owner_of())


def _movement(
    before: Mapping[TopicPartition, str], after: Mapping[TopicPartition, str]
) -> Movement:
    kept: list[TopicPartition] = []
    moved: list[PartitionMove] = []
    new: list[PartitionMove] = []
    dropped: list[PartitionMove] = []
    if before is after:  # the same owners on both sides: everything is kept
        return Movement(tuple(sorted_partitions(before.keys())), (), (), ())
    owner_before = before.get
    owner_after = after.get
    for tp in sorted_partitions(before.keys() | after.keys()):
        old_owner = owner_before(tp)
        new_owner = owner_after(tp)
        if old_owner == new_owner:
            kept.append(tp)
        elif old_owner is None:
            new.append(PartitionMove(tp, None, new_owner))
        elif new_owner is None:
            dropped.append(PartitionMove(tp, old_owner, None))
        else:
            moved.append(PartitionMove(tp, old_owner, new_owner))
    return Movement(tuple(kept), tuple(moved), tuple(new), tuple(dropped))


def _ratio(values: list[int]) -> float | None:
    if not values:
        return None
    lightest, busiest = min(values), max(values)
    if busiest == 0:
        return 1.0
    if lightest == 0:
        return None
    return busiest / lightest


OwnerRows = dict[str, list[str | None]]
"""Topic -> owner of each partition number (``None``: nobody), for every existing topic."""


def _owner_rows(scenario: Scenario, owner_of: Mapping[TopicPartition, str]) -> OwnerRows:
    rows: OwnerRows = {topic.name: [None] * topic.partitions for topic in scenario.topics}
    for (topic, number), member_id in owner_of.items():
        row = rows.get(topic)
        if row is not None and 0 <= number < len(row):
            row[number] = member_id
    return rows


def co_partitioning(
    scenario: Scenario, owner_of: Mapping[TopicPartition, str]
) -> tuple[CoPartitionGroup, ...]:
    """Groups of two or more subscribed topics with equal partition counts, with split numbers."""
    return _co_partitioning(scenario, _owner_rows(scenario, owner_of))


def _co_partitioning(scenario: Scenario, rows: OwnerRows) -> tuple[CoPartitionGroup, ...]:
    counts = scenario.partition_counts()
    by_count: dict[int, list[str]] = {}
    for topic in scenario.subscribed_existing_topics():
        by_count.setdefault(counts[topic], []).append(topic)
    groups: list[CoPartitionGroup] = []
    for count, topics in sorted(by_count.items()):
        if len(topics) < 2 or count == 0:
            continue
        # Partition N is split when the owners of partition N differ between the topics.
        columns = zip(*(rows[topic] for topic in topics), strict=True)
        split = tuple(
            number
            for number, owners in enumerate(columns)
            if owners.count(owners[0]) != len(owners)
        )
        groups.append(CoPartitionGroup(tuple(topics), count, split))
    return tuple(groups)


def _lag_sum(topic_lags: Mapping[str, list[int]], partitions: Iterable[TopicPartition]) -> int:
    """Sum of the lags of ``partitions`` (0 for partitions the scenario does not have)."""
    total = 0
    for name, group in groupby(partitions, key=itemgetter(0)):
        row = topic_lags.get(name)
        if row is None:
            continue
        numbers = [tp.partition for tp in group]
        if min(numbers) >= 0 and max(numbers) < len(row):
            total += sum(map(row.__getitem__, numbers))
        else:
            total += sum(row[number] for number in numbers if 0 <= number < len(row))
    return total


def _member_sets(assignment: Assignment, owner_of: Mapping[TopicPartition, str]) -> bool:
    """Whether no partition appears under two members (then per-member sets say who owns what)."""
    return sum(len(tps) for tps in assignment.partitions.values()) == len(owner_of)


def assignment_metrics(
    scenario: Scenario,
    assignment: Assignment,
    previous: Assignment | None = None,
    *,
    lags: Mapping[TopicPartition, int] | None = None,
    topic_lags: Mapping[str, list[int]] | None = None,
) -> AssignmentMetrics:
    """Every metric of ``assignment`` for ``scenario``, against ``previous``.

    ``previous`` defaults to the scenario's owned partitions (:func:`owned_assignment`);
    ``lags`` (partition -> lag) defaults to the :mod:`assignors.simulate.lag` figures of the
    scenario and may be passed to reuse them for several assignments of one scenario, or, cheaper,
    ``topic_lags`` (:func:`lags_by_topic` of the scenario: the same figures). Members of
    ``assignment`` missing from the scenario are measured too (no rack); members of ``previous``
    that are gone count only in the movement.

    Cost: linear in partitions plus members (a few milliseconds for 10,000 partitions).
    """
    if previous is None:
        previous = owned_assignment(scenario)
    # Every partition is read several times below: made once (PartitionRuns), then walked.
    itself = assignment is previous
    assignment = assignment.materialized()
    previous = assignment if itself else previous.materialized()
    if lags is not None:
        topic_lags = None
    elif topic_lags is None:
        topic_lags = lags_by_topic(scenario)
    topics = scenario.topic_by_name()
    racks_of_member = {member.member_id: member.rack for member in scenario.members}
    before = previous.owner_of()
    # Measured against itself (the current assignment): one owner map serves both sides.
    after = before if assignment is previous else assignment.owner_of()
    # Kept and lost are set intersections when each assignment gives a partition to one member;
    # otherwise (a malformed assignment) the owner is the one owner_of() reports, per partition.
    exact_sets = _member_sets(previous, before) and _member_sets(assignment, after)

    members: list[MemberMetrics] = []
    cross_total = 0
    rack_known = 0
    for member_id in sorted(assignment.partitions):
        partitions = assignment.partitions[member_id]
        owned_before = previous.partitions.get(member_id, ())
        cross, known = _cross_rack(racks_of_member.get(member_id), partitions, topics)
        cross_total += cross
        rack_known += known
        if exact_sets:
            kept = len(frozenset(owned_before).intersection(partitions))
            lost = len(owned_before) - kept
        else:
            kept = sum(1 for tp in partitions if before.get(tp) == member_id)
            lost = sum(1 for tp in owned_before if after.get(tp) != member_id)
        if topic_lags is None:
            assert lags is not None
            lag = sum(lags.get(tp, 0) for tp in partitions)
        else:
            lag = _lag_sum(topic_lags, partitions)
        members.append(
            MemberMetrics(
                member_id=member_id,
                partitions=len(partitions),
                lag=lag,
                kept=kept,
                gained=len(partitions) - kept,
                lost=lost,
                cross_rack=cross,
                idle=not partitions,
            )
        )
    return _summary(scenario, members, cross_total, rack_known, before, after)


def _cross_rack(
    rack: str | None, partitions: Iterable[TopicPartition], topics: Mapping[str, Topic]
) -> tuple[int, int]:
    """Step 3's cross-rack count: (partitions read across racks, partitions with known racks)."""
    cross = known = 0
    if rack is None:
        return 0, 0
    for tp in partitions:
        topic = topics.get(tp.topic)
        if topic is None or topic.replica_racks is None:
            continue
        if tp.partition >= len(topic.replica_racks):
            continue
        known += 1
        if rack not in topic.replica_racks[tp.partition]:
            cross += 1
    return cross, known


def _summary(
    scenario: Scenario,
    members: list[MemberMetrics],
    cross_total: int,
    rack_known: int,
    before: Mapping[TopicPartition, str],
    after: Mapping[TopicPartition, str],
) -> AssignmentMetrics:
    """Steps 4-5 and the group's figures from the members' rows."""
    counts = [member.partitions for member in members]
    member_lags = [member.lag for member in members]
    mean = sum(member_lags) / len(member_lags) if member_lags else 0.0
    stddev = (
        math.sqrt(sum((lag - mean) ** 2 for lag in member_lags) / len(member_lags))
        if member_lags
        else 0.0
    )
    rows = _owner_rows(scenario, after)
    unassigned = tuple(
        TopicPartition(name, number)
        for name in scenario.subscribed_existing_topics()
        for number, owner in enumerate(rows[name])
        if owner is None
    )
    return AssignmentMetrics(
        members=tuple(members),
        partitions_min=min(counts, default=0),
        partitions_max=max(counts, default=0),
        partitions_spread=max(counts, default=0) - min(counts, default=0),
        lag_total=sum(member_lags),
        lag_max_min_ratio=_ratio([m.lag for m in members if not m.idle]),
        lag_stddev=stddev,
        lag_cv=stddev / mean if mean > 0 else None,
        idle_members=tuple(member.member_id for member in members if member.idle),
        unassigned_partitions=unassigned,
        cross_rack_assignments=cross_total,
        rack_known_assignments=rack_known,
        cross_rack_share=cross_total / rack_known if rack_known else None,
        co_partitioning=_co_partitioning(scenario, rows),
        movement=_movement(before, after),
    )

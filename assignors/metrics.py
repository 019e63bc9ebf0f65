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
2. Lag of every partition from :func:`assignors.lag.partition_lags` (the one lag rule).
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
from typing import Any, NamedTuple

from assignors.lag import partition_lags
from assignors.model import Assignment, Scenario, TopicPartition


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
    best: dict[TopicPartition, tuple[int, str]] = {}
    for member in scenario.members:
        generation = -1 if member.generation is None else member.generation
        for tp in member.owned_partitions:
            if not 0 <= tp.partition < counts.get(tp.topic, 0):
                continue
            current = best.get(tp)
            # Higher generation wins; equal generations go to the smaller member id.
            if (
                current is None
                or generation > current[0]
                or (generation == current[0] and member.member_id < current[1])
            ):
                best[tp] = (generation, member.member_id)
    owned: dict[str, list[TopicPartition]] = {}
    for tp, (_, member_id) in best.items():
        owned.setdefault(member_id, []).append(tp)
    return Assignment.of((member.member_id for member in scenario.members), owned)


def lag_by_partition(scenario: Scenario) -> dict[TopicPartition, int]:
    """Lag of every partition of every topic in the scenario (:mod:`assignors.lag` rules)."""
    lags: dict[TopicPartition, int] = {}
    for topic in scenario.topics:
        for partition, lag in enumerate(partition_lags(topic, scenario.auto_offset_reset)):
            lags[TopicPartition(topic.name, partition)] = lag
    return lags


def movement(previous: Assignment, assignment: Assignment) -> Movement:
    """Kept / moved / newly assigned / dropped partitions from ``previous`` to ``assignment``."""
    before = previous.owner_of()
    after = assignment.owner_of()
    kept: list[TopicPartition] = []
    moved: list[PartitionMove] = []
    new: list[PartitionMove] = []
    dropped: list[PartitionMove] = []
    for tp in sorted(before.keys() | after.keys()):
        old_owner = before.get(tp)
        new_owner = after.get(tp)
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


def co_partitioning(
    scenario: Scenario, owner_of: Mapping[TopicPartition, str]
) -> tuple[CoPartitionGroup, ...]:
    """Groups of two or more subscribed topics with equal partition counts, with split numbers."""
    counts = scenario.partition_counts()
    by_count: dict[int, list[str]] = {}
    for topic in scenario.subscribed_existing_topics():
        by_count.setdefault(counts[topic], []).append(topic)
    groups: list[CoPartitionGroup] = []
    for count, topics in sorted(by_count.items()):
        if len(topics) < 2 or count == 0:
            continue
        split = tuple(
            number
            for number in range(count)
            if len({owner_of.get(TopicPartition(t, number)) for t in topics}) > 1
        )
        groups.append(CoPartitionGroup(tuple(topics), count, split))
    return tuple(groups)


def assignment_metrics(
    scenario: Scenario,
    assignment: Assignment,
    previous: Assignment | None = None,
    *,
    lags: Mapping[TopicPartition, int] | None = None,
) -> AssignmentMetrics:
    """Every metric of ``assignment`` for ``scenario``, against ``previous``.

    ``previous`` defaults to the scenario's owned partitions (:func:`owned_assignment`);
    ``lags`` (partition -> lag) defaults to :func:`lag_by_partition` and may be passed to avoid
    recomputing it for several assignments of one scenario. Members of ``assignment`` missing from
    the scenario are measured too (no rack); members of ``previous`` that are gone count only in
    the movement.
    """
    if previous is None:
        previous = owned_assignment(scenario)
    if lags is None:
        lags = lag_by_partition(scenario)
    topics = scenario.topic_by_name()
    racks_of_member = {member.member_id: member.rack for member in scenario.members}
    before = previous.owner_of()
    after = assignment.owner_of()

    members: list[MemberMetrics] = []
    cross_total = 0
    rack_known = 0
    for member_id in sorted(assignment.partitions):
        partitions = assignment.partitions[member_id]
        rack = racks_of_member.get(member_id)
        cross = 0
        for tp in partitions:
            topic = topics.get(tp.topic)
            if rack is None or topic is None or topic.replica_racks is None:
                continue
            if tp.partition >= len(topic.replica_racks):
                continue
            rack_known += 1
            if rack not in topic.replica_racks[tp.partition]:
                cross += 1
        cross_total += cross
        kept = sum(1 for tp in partitions if before.get(tp) == member_id)
        lost = sum(1 for tp in previous.partitions.get(member_id, ()) if after.get(tp) != member_id)
        members.append(
            MemberMetrics(
                member_id=member_id,
                partitions=len(partitions),
                lag=sum(lags.get(tp, 0) for tp in partitions),
                kept=kept,
                gained=len(partitions) - kept,
                lost=lost,
                cross_rack=cross,
                idle=not partitions,
            )
        )

    counts = [member.partitions for member in members]
    member_lags = [member.lag for member in members]
    mean = sum(member_lags) / len(member_lags) if member_lags else 0.0
    stddev = (
        math.sqrt(sum((lag - mean) ** 2 for lag in member_lags) / len(member_lags))
        if member_lags
        else 0.0
    )
    unassigned = tuple(
        tp
        for name in scenario.subscribed_existing_topics()
        for tp in topics[name].topic_partitions()
        if tp not in after
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
        co_partitioning=co_partitioning(scenario, after),
        movement=movement(previous, assignment),
    )

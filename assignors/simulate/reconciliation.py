"""Reconciliation of a live group: where each member stands against its target, and what changed
between two readings of the same group.

A KIP-848 consumer group (and a Kafka Streams group, KIP-1071) does not rebalance in one step:
the group's assignor computes a *target* per member, and each member then *reconciles* toward
it, one heartbeat at a time: it first gives up (revokes) what is no longer its own, and only
gets a partition the target moves to it once the member holding it has let it go. The
scenario's ``reconciliation`` keeps what the broker reported (epochs, current assignments);
these pure functions lay it out.

1. :func:`reconciliation_progress`: per member of a scenario, its current and target
   partitions, the partitions *pending revocation* (owned now, not in the target), *pending
   assignment* (in the target, not owned yet, each with the member that still owns it, if any)
   and whether its epoch is behind the target assignment epoch.
2. :func:`streams_reconciliation_progress`: the same for a Streams group's members, per kind of
   task (active, standby, warm-up).
3. :func:`reading_changes`: between two readings of one group, who joined and left, what each
   member gained and lost (in what it owns now), whose target changed, and how the epochs (the
   group's and each member's) moved.
4. :func:`streams_reading_changes`: the same between two readings of a Streams group, per member
   (stream thread) and kind of task (active, standby, warm-up), from the readings'
   ``reconciliation`` (what each member runs now and its target).

Invariants: a member's ``pending_revocation`` and ``pending_assignment`` are disjoint, sorted,
and both empty exactly when its current assignment equals its target; ``current`` is the
target when the scenario has no reconciliation entry for the member (it holds its target).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from assignors.model import Scenario, TopicPartition
from assignors.streams.model import ClientAssignment, StreamsScenario, TaskId


@dataclass(frozen=True, slots=True)
class MemberProgress:
    """One member against its target.

    ``released_by`` maps each pending-assignment partition still owned by another member to
    that member (the partition is assigned once it lets go). ``member_epoch`` is ``None`` when
    the scenario carries no epochs (a classic group).
    """

    member_id: str
    member_epoch: int | None
    current: tuple[TopicPartition, ...]
    target: tuple[TopicPartition, ...]
    pending_revocation: tuple[TopicPartition, ...]
    pending_assignment: tuple[TopicPartition, ...]
    epoch_behind: bool
    released_by: Mapping[TopicPartition, str] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def reconciling(self) -> bool:
        """Whether the member does not hold its target yet (or has not caught up its epoch)."""
        return bool(self.pending_revocation or self.pending_assignment or self.epoch_behind)


def current_partitions(scenario: Scenario) -> dict[str, tuple[TopicPartition, ...]]:
    """What each member owns now: its reconciliation entry's ``current`` where there is one,
    else its ``owned_partitions`` (a classic group's current assignment; a KIP-848 member's
    target, which it holds)."""
    entries = scenario.reconciliation.by_member() if scenario.reconciliation else {}
    owned: dict[str, tuple[TopicPartition, ...]] = {}
    for member in scenario.members:
        entry = entries.get(member.member_id)
        now = entry.current if entry is not None and entry.current is not None else None
        owned[member.member_id] = tuple(sorted(now if now is not None else member.owned_partitions))
    return owned


def reconciliation_progress(scenario: Scenario) -> tuple[MemberProgress, ...]:
    """Step 1 of the module docstring: one entry per member, in the scenario's member order."""
    reconciliation = scenario.reconciliation
    entries = reconciliation.by_member() if reconciliation else {}
    current = current_partitions(scenario)
    owner_now = {tp: member for member, tps in current.items() for tp in tps}
    progress = []
    for member in scenario.members:
        target = tuple(sorted(member.owned_partitions))
        now = current[member.member_id]
        entry = entries.get(member.member_id)
        epoch = entry.member_epoch if entry is not None else None
        assigned = tuple(sorted(set(target) - set(now)))
        progress.append(
            MemberProgress(
                member_id=member.member_id,
                member_epoch=epoch,
                current=now,
                target=target,
                pending_revocation=tuple(sorted(set(now) - set(target))),
                pending_assignment=assigned,
                epoch_behind=(
                    reconciliation is not None
                    and epoch is not None
                    and epoch < reconciliation.assignment_epoch
                ),
                released_by=MappingProxyType(
                    {
                        tp: owner_now[tp]
                        for tp in assigned
                        if owner_now.get(tp, member.member_id) != member.member_id
                    }
                ),
            )
        )
    return tuple(progress)


#: The kinds of Streams task, in the order a view lists them.
TASK_KINDS = ("active", "standby", "warmup")


@dataclass(frozen=True, slots=True)
class StreamsMemberProgress:
    """One Streams member (a stream thread of ``process_id``) against its target: per task kind
    (``active``, ``standby``, ``warmup``) the tasks to give up and the tasks to take."""

    member_id: str
    process_id: str
    member_epoch: int
    current: ClientAssignment
    target: ClientAssignment
    pending_revocation: Mapping[str, tuple[TaskId, ...]]
    pending_assignment: Mapping[str, tuple[TaskId, ...]]
    epoch_behind: bool

    @property
    def reconciling(self) -> bool:
        """Whether the member does not run its target tasks yet (or lags in epoch)."""
        return self.current != self.target or self.epoch_behind


def streams_reconciliation_progress(streams: StreamsScenario) -> tuple[StreamsMemberProgress, ...]:
    """Step 2 of the module docstring; empty when the scenario carries no reconciliation."""
    reconciliation = streams.reconciliation
    if reconciliation is None:
        return ()
    progress = []
    for entry in reconciliation.members:
        revoke: dict[str, tuple[TaskId, ...]] = {}
        assign: dict[str, tuple[TaskId, ...]] = {}
        for kind in TASK_KINDS:
            now, target = set(getattr(entry.current, kind)), set(getattr(entry.target, kind))
            revoke[kind] = tuple(sorted(now - target))
            assign[kind] = tuple(sorted(target - now))
        progress.append(
            StreamsMemberProgress(
                member_id=entry.member_id,
                process_id=entry.process_id,
                member_epoch=entry.member_epoch,
                current=entry.current,
                target=entry.target,
                pending_revocation=MappingProxyType(revoke),
                pending_assignment=MappingProxyType(assign),
                epoch_behind=entry.member_epoch < reconciliation.assignment_epoch,
            )
        )
    return tuple(progress)


@dataclass(frozen=True, slots=True)
class ReadingChanges:
    """What changed between two readings of one group (step 3 of the module docstring).

    ``gained`` / ``lost`` hold, per member present in both readings, the partitions it owns now
    and did not before, and the reverse; members with no change are left out. Epochs are
    ``None`` where a reading carries none.
    """

    joined: tuple[str, ...]
    left: tuple[str, ...]
    gained: Mapping[str, tuple[TopicPartition, ...]]
    lost: Mapping[str, tuple[TopicPartition, ...]]
    group_epoch: tuple[int | None, int | None]
    assignment_epoch: tuple[int | None, int | None]
    target_changed: tuple[str, ...] = ()
    member_epochs: Mapping[str, tuple[int | None, int | None]] = field(
        default_factory=lambda: MappingProxyType({})
    )
    """Per member present in both readings whose epoch moved: (before, after)."""

    @property
    def any(self) -> bool:
        """Whether anything at all changed."""
        return _anything_changed(self)


def _epochs(scenario: Scenario) -> tuple[int | None, int | None]:
    if scenario.reconciliation is None:
        return None, None
    return scenario.reconciliation.group_epoch, scenario.reconciliation.assignment_epoch


def reading_changes(before: Scenario, after: Scenario) -> ReadingChanges:
    """Step 3 of the module docstring: ``after`` compared with ``before`` (same group)."""
    owned_before, owned_after = current_partitions(before), current_partitions(after)
    targets_before = {m.member_id: set(m.owned_partitions) for m in before.members}
    stayed = [m.member_id for m in after.members if m.member_id in owned_before]
    gained: dict[str, tuple[TopicPartition, ...]] = {}
    lost: dict[str, tuple[TopicPartition, ...]] = {}
    for member in stayed:
        new = tuple(sorted(set(owned_after[member]) - set(owned_before[member])))
        gone = tuple(sorted(set(owned_before[member]) - set(owned_after[member])))
        if new:
            gained[member] = new
        if gone:
            lost[member] = gone
    epochs_before, epochs_after = _member_epochs(before), _member_epochs(after)
    moved_epochs = {
        member: (epochs_before.get(member), epochs_after.get(member))
        for member in stayed
        if epochs_before.get(member) != epochs_after.get(member)
    }
    (group_before, assignment_before), (group_after, assignment_after) = (
        _epochs(before),
        _epochs(after),
    )
    return ReadingChanges(
        joined=tuple(m.member_id for m in after.members if m.member_id not in owned_before),
        left=tuple(m.member_id for m in before.members if m.member_id not in owned_after),
        gained=MappingProxyType(gained),
        lost=MappingProxyType(lost),
        group_epoch=(group_before, group_after),
        assignment_epoch=(assignment_before, assignment_after),
        target_changed=tuple(
            m.member_id
            for m in after.members
            if m.member_id in targets_before
            and set(m.owned_partitions) != targets_before[m.member_id]
        ),
        member_epochs=MappingProxyType(moved_epochs),
    )


def _member_epochs(scenario: Scenario) -> dict[str, int]:
    if scenario.reconciliation is None:
        return {}
    return {entry.member_id: entry.member_epoch for entry in scenario.reconciliation.members}


@dataclass(frozen=True, slots=True)
class StreamsReadingChanges:
    """What changed between two readings of one Streams group (step 4 of the module docstring).

    Members are stream threads (member ids). ``gained`` / ``lost`` hold, per member present in
    both readings, per task kind (``active``, ``standby`` without the warm-ups, ``warmup``) the
    tasks it runs now and did not before, and the reverse; kinds and members with no change are
    left out (a warm-up that became active is a warm-up lost and an active task gained). Epochs
    are ``None`` where a reading carries none.
    """

    joined: tuple[str, ...]
    left: tuple[str, ...]
    gained: Mapping[str, Mapping[str, tuple[TaskId, ...]]]
    lost: Mapping[str, Mapping[str, tuple[TaskId, ...]]]
    group_epoch: tuple[int | None, int | None]
    assignment_epoch: tuple[int | None, int | None]
    target_changed: tuple[str, ...] = ()
    member_epochs: Mapping[str, tuple[int, int]] = field(
        default_factory=lambda: MappingProxyType({})
    )

    @property
    def any(self) -> bool:
        """Whether anything at all changed."""
        return _anything_changed(self)


def _by_kind(tasks: ClientAssignment) -> dict[str, set[TaskId]]:
    warmup = set(tasks.warmup)
    return {"active": set(tasks.active), "standby": set(tasks.standby) - warmup, "warmup": warmup}


def _kind_difference(
    now: ClientAssignment, then: ClientAssignment
) -> dict[str, tuple[TaskId, ...]]:
    """Per kind, the tasks in ``now`` and not in ``then`` (kinds without any left out)."""
    now_kinds, then_kinds = _by_kind(now), _by_kind(then)
    difference = {kind: tuple(sorted(now_kinds[kind] - then_kinds[kind])) for kind in TASK_KINDS}
    return {kind: tasks for kind, tasks in difference.items() if tasks}


def streams_reading_changes(
    before: StreamsScenario, after: StreamsScenario
) -> StreamsReadingChanges:
    """Step 4 of the module docstring: ``after`` compared with ``before`` (same Streams group);
    a reading without a reconciliation (not read live) has no members to compare."""
    was = {e.member_id: e for e in before.reconciliation.members} if before.reconciliation else {}
    now = {e.member_id: e for e in after.reconciliation.members} if after.reconciliation else {}
    stayed = [member for member in now if member in was]
    gained: dict[str, Mapping[str, tuple[TaskId, ...]]] = {}
    lost: dict[str, Mapping[str, tuple[TaskId, ...]]] = {}
    for member in stayed:
        if new := _kind_difference(now[member].current, was[member].current):
            gained[member] = MappingProxyType(new)
        if gone := _kind_difference(was[member].current, now[member].current):
            lost[member] = MappingProxyType(gone)

    def epochs(streams: StreamsScenario) -> tuple[int | None, int | None]:
        rec = streams.reconciliation
        return (None, None) if rec is None else (rec.group_epoch, rec.assignment_epoch)

    (group_before, assignment_before), (group_after, assignment_after) = (
        epochs(before),
        epochs(after),
    )
    return StreamsReadingChanges(
        joined=tuple(member for member in now if member not in was),
        left=tuple(member for member in was if member not in now),
        gained=MappingProxyType(gained),
        lost=MappingProxyType(lost),
        group_epoch=(group_before, group_after),
        assignment_epoch=(assignment_before, assignment_after),
        target_changed=tuple(m for m in stayed if now[m].target != was[m].target),
        member_epochs=MappingProxyType(
            {
                m: (was[m].member_epoch, now[m].member_epoch)
                for m in stayed
                if was[m].member_epoch != now[m].member_epoch
            }
        ),
    )


def _anything_changed(changes: ReadingChanges | StreamsReadingChanges) -> bool:
    """Whether two readings differ at all (members, assignments, targets or epochs)."""
    return bool(
        changes.joined
        or changes.left
        or changes.gained
        or changes.lost
        or changes.target_changed
        or changes.member_epochs
        or changes.group_epoch[0] != changes.group_epoch[1]
        or changes.assignment_epoch[0] != changes.assignment_epoch[1]
    )

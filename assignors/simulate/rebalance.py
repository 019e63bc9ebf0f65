"""How a group gets from its current assignment to a strategy's target: the rebalance as data.

:func:`simulate` runs a strategy on the changed scenario and plays the rebalance protocol that
strategy uses (``PartitionStrategy.protocol``); :func:`plan_rebalance` does the same for any
given target. The answer is a :class:`RebalanceSimulation`: a list of :class:`Phase` objects, each
saying who holds which partitions, which partitions nobody reads (paused), which are revoked,
handed over (warming up) or waiting for an owner, for how long and why; plus summary figures.

Timeline (``t = 0`` is the change; every duration comes from :class:`Timings`):

0. Before any rebalance. Static members that restart (``restarted``) are down for
   ``restart_s``: their partitions pause, nobody else notices (phase ``static restart``). Static
   members that left (``silent_departures``) send no LeaveGroup: the coordinator notices them
   after ``session_timeout_s`` and their partitions wait until then (phase ``detect departure``).
   A dynamic member that leaves sends LeaveGroup and the rebalance starts at once; its partitions
   wait from ``t = 0``.
1. ``eager`` (classic protocol): ``notice`` (members learn of the rebalance at their next
   heartbeat, ``heartbeat_interval_s``; they keep consuming) -> ``revoke and rejoin`` (every
   member revokes every partition and the group waits until all have rejoined:
   ``revoke_s + barrier``; nobody consumes) -> ``assign`` (the new assignment arrives; kept
   partitions resume at once, partitions with a new owner warm up for ``warmup_s``). One round.
2. ``cooperative`` (classic protocol, incremental): ``join (round 1)`` (everyone rejoins while
   still consuming: ``heartbeat_interval_s + barrier``) -> for each round k the assignment the
   strategy returns *as Kafka hands it out* (a partition moving between two members is withheld
   from its new owner until its owner revoked it): if any member must give something up,
   ``revoke (round k)`` (it revokes only those partitions and the group rejoins for round k + 1:
   ``revoke_s + heartbeat_interval_s + barrier``; partitions handed out in this round warm up
   meanwhile), else ``assign (round k)`` (handed-out partitions warm up for ``warmup_s``; the
   last round). Round k + 1 is the strategy run again with round k as the owned partitions,
   as Kafka does.
3. ``consumer`` (KIP-848): the coordinator computes the target at once, bumps the group epoch
   and each member reconciles on its own heartbeats, with no group-wide barrier: ``new target``
   (``heartbeat_interval_s``) -> if some member must give partitions up, ``revoke and
   acknowledge`` (those members revoke and acknowledge at their next heartbeat and stay at the
   old member epoch until then; members with nothing to revoke move to the new epoch and take
   free partitions at once: ``revoke_s + heartbeat_interval_s``) -> ``assign released`` (a
   released partition goes to its new owner only now; ``warmup_s``).

``barrier`` is ``min(rejoin_delay_s, rebalance_timeout_s)``: how long the slowest member takes to
rejoin a classic-protocol barrier (a member that misses the rebalance timeout is dropped).

Summary figures (:class:`RebalanceSimulation`): ``rounds`` (assignments handed out until the
target is reached; 0 when nothing rebalances), ``partition_pauses`` (sum over phases of the
partitions paused in it), ``stopped_members`` (members that consumed something before and read
nothing during at least one phase), ``pause_s`` (longest time one partition goes unread),
``group_stop_s`` (time during which the whole group reads nothing), ``duration_s``.

A phase that would only warm up nothing (no partition changes hands) is left out: the target
holds from the end of the phase before.

Invariants: the phases cover the partitions owned before or after the change ("the partitions in
play"); a partition is held by at most one member in every phase; under ``eager`` every
partition in play is paused in ``revoke and rejoin``; for one target, ``cooperative`` and
``consumer`` never pause more partitions than ``eager``; pure and deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from assignors import registry
from assignors.client.cooperative_sticky import assign_with_target
from assignors.errors import AssignmentExplorerError, StrategyNotApplicableError
from assignors.model import Assignment, Scenario, TopicPartition
from assignors.simulate.changes import current_assignment
from assignors.simulate.metrics import sorted_partitions
from assignors.strategy import PartitionStrategy, RebalanceProtocol

#: A cooperative rebalance that has not reached a stable assignment after this many rounds stops
#: (Kafka would go on rebalancing; the simulation says so in ``notes``).
MAX_COOPERATIVE_ROUNDS = 10


class RebalanceError(AssignmentExplorerError, ValueError):
    """The rebalance cannot be simulated as asked (the message says what to change)."""


@dataclass(frozen=True, slots=True)
class Timings:
    """Durations that set how long each phase lasts, in seconds (Kafka defaults where one exists).

    Pass your group's settings to get figures for your group; every figure in the simulation is
    a sum of these.
    """

    session_timeout_s: float = 45.0
    """``session.timeout.ms``: how long the coordinator waits before it drops a silent member."""
    rebalance_timeout_s: float = 300.0
    """``max.poll.interval.ms``: the longest a classic join barrier waits for a member."""
    heartbeat_interval_s: float = 3.0
    """``heartbeat.interval.ms``: members learn of a rebalance or a new target at the next one."""
    revoke_s: float = 1.0
    """Time a member needs to commit offsets and finish its revocation callback."""
    warmup_s: float = 2.0
    """Time from receiving a partition to reading it (fetch the commit, first fetch, caches)."""
    rejoin_delay_s: float = 0.0
    """Extra time the slowest member needs to rejoin a classic barrier (busy in a long poll)."""
    restart_s: float = 30.0
    """How long a restarting static member is down (must be below ``session_timeout_s``)."""

    def __post_init__(self) -> None:
        for name, value in self.to_json().items():
            if not (isinstance(value, int | float) and math.isfinite(value) and value >= 0):
                raise RebalanceError(f"timing {name} must be a number of seconds >= 0, got {value}")

    def barrier_s(self) -> float:
        """How long a classic-protocol barrier waits beyond the heartbeat for the slowest member."""
        return min(self.rejoin_delay_s, self.rebalance_timeout_s)

    def to_json(self) -> dict[str, float]:
        """Field name -> seconds."""
        return {
            "session_timeout_s": self.session_timeout_s,
            "rebalance_timeout_s": self.rebalance_timeout_s,
            "heartbeat_interval_s": self.heartbeat_interval_s,
            "revoke_s": self.revoke_s,
            "warmup_s": self.warmup_s,
            "rejoin_delay_s": self.rejoin_delay_s,
            "restart_s": self.restart_s,
        }


Holdings = Mapping[str, Sequence[TopicPartition]]


@dataclass(frozen=True, slots=True)
class Phase:
    """One stretch of the rebalance during which nothing changes hands."""

    name: str
    """Short name: ``notice``, ``revoke and rejoin``, ``assign (round 2)``, ..."""
    reason: str
    """Why the group is in this phase, in one sentence for a person."""
    start_s: float
    """Seconds after the change at which the phase starts."""
    duration_s: float
    """How long it lasts, from :class:`Timings`."""
    owned: Holdings
    """Member -> partitions it holds in this phase (including ones still warming up)."""
    consuming: Holdings
    """Member -> partitions it actually reads in this phase."""
    paused: tuple[TopicPartition, ...]
    """Partitions in play that nobody reads in this phase."""
    revoked: tuple[TopicPartition, ...]
    """Partitions their holder gives up as this phase starts."""
    assigned: tuple[TopicPartition, ...]
    """Partitions handed to a new holder as this phase starts (they warm up through it)."""
    waiting: tuple[TopicPartition, ...]
    """Partitions that nobody holds in this phase but that the target gives an owner."""
    member_epochs: Mapping[str, int] | None = None
    """Consumer protocol only: member id -> member epoch during this phase."""

    @property
    def end_s(self) -> float:
        """Seconds after the change at which the phase ends."""
        return self.start_s + self.duration_s

    def to_json(self) -> dict[str, Any]:
        """Plain JSON; partitions as ``[topic, partition]``."""

        def tps(items: Iterable[TopicPartition]) -> list[list[str | int]]:
            return [[tp.topic, tp.partition] for tp in items]

        return {
            "name": self.name,
            "reason": self.reason,
            "start_s": self.start_s,
            "duration_s": self.duration_s,
            "owned": {m: tps(p) for m, p in self.owned.items()},
            "consuming": {m: tps(p) for m, p in self.consuming.items()},
            "paused": tps(self.paused),
            "revoked": tps(self.revoked),
            "assigned": tps(self.assigned),
            "waiting": tps(self.waiting),
            "member_epochs": None if self.member_epochs is None else dict(self.member_epochs),
        }


@dataclass(frozen=True, slots=True)
class RebalanceSimulation:
    """The rebalance from ``previous`` to ``target`` under ``protocol``, phase by phase."""

    protocol: RebalanceProtocol
    """``eager``, ``cooperative`` or ``consumer`` (KIP-848)."""
    strategy: str | None
    """The strategy that computed the target (``None`` when a target was given)."""
    previous: Assignment
    """What the group consumed before the change (may list members that left)."""
    first_round: Assignment
    """What the first round hands out (cooperative: moving partitions withheld)."""
    target: Assignment
    """Where the group ends up."""
    phases: tuple[Phase, ...]
    """The phases in time order (the steady state after the last one is ``target``)."""
    timings: Timings
    """The durations used."""
    rounds: int
    """Assignments handed out until the target is reached (0: no rebalance at all)."""
    partition_pauses: int
    """Sum over phases of the partitions paused in it: how much of the group stops, how often."""
    stopped_members: tuple[str, ...]
    """Members that read something before and read nothing during at least one phase."""
    pause_s: float
    """Longest time one partition goes unread because of the change."""
    group_stop_s: float
    """Time during which the whole group reads nothing (stop-the-world)."""
    duration_s: float
    """Time from the change until every member reads its target."""
    notes: tuple[str, ...] = field(default=())
    """Things a person should know about this simulation."""

    def paused_seconds(self) -> dict[TopicPartition, float]:
        """Partition -> total seconds it is paused over the phases (only partitions paused)."""
        totals: dict[TopicPartition, float] = {}
        for phase in self.phases:
            for tp in phase.paused:
                totals[tp] = totals.get(tp, 0.0) + phase.duration_s
        return totals

    def to_json(self) -> dict[str, Any]:
        """Plain JSON with the summary figures and every phase."""
        return {
            "protocol": self.protocol,
            "strategy": self.strategy,
            "rounds": self.rounds,
            "partition_pauses": self.partition_pauses,
            "stopped_members": list(self.stopped_members),
            "pause_s": self.pause_s,
            "group_stop_s": self.group_stop_s,
            "duration_s": self.duration_s,
            "timings": self.timings.to_json(),
            "first_round": self.first_round.to_json(),
            "target": self.target.to_json(),
            "phases": [phase.to_json() for phase in self.phases],
            "notes": list(self.notes),
        }


# --- building phases ----------------------------------------------------------------------------

_Hold = dict[str, frozenset[TopicPartition]]


def _holdings(assignment: Assignment, members: Collection[str]) -> _Hold:
    return {m: frozenset(assignment.partitions.get(m, ())) for m in members}


#: Below this share of the partitions in play, a subset is sorted on its own; above it, the
#: partitions in play (sorted once) are filtered, which is cheaper than sorting again.
_FILTER_SHARE = 0.125


class _Timeline:
    """Accumulates phases over the partitions in play.

    Cost per phase: set operations on the partitions in play plus sorting what changes hands;
    the partitions in play are sorted once, and a holding already sorted in an assignment is
    reused rather than sorted again.
    """

    def __init__(
        self, members: list[str], in_play: frozenset[TopicPartition], target: Assignment
    ) -> None:
        self.members = members
        self.in_play = in_play
        self.in_play_sorted = tuple(sorted_partitions(in_play))
        self.target_owned = frozenset().union(*target.partitions.values())
        self.phases: list[Phase] = []
        self.clock = 0.0
        # id(frozenset) -> (the frozenset, kept alive so the id stays its own; sorted tuple)
        self._sorted: dict[int, tuple[frozenset[TopicPartition], tuple[TopicPartition, ...]]] = {}

    def remember(self, holders: _Hold, assignment: Assignment) -> _Hold:
        """Note that ``holders`` (from ``assignment``) are sorted there already; returns them.

        Relies on :class:`~assignors.model.Assignment`'s invariant (each member's partitions
        are a sorted tuple, as :meth:`Assignment.of` builds them).
        """
        for m, tps in holders.items():
            listed = assignment.partitions.get(m, ())
            if len(listed) == len(tps):
                self._sorted[id(tps)] = (tps, tuple(listed))
        return holders

    def ordered(self, tps: AbstractSet[TopicPartition]) -> tuple[TopicPartition, ...]:
        """``tps`` sorted (by topic, then partition number)."""
        if isinstance(tps, frozenset):
            known = self._sorted.get(id(tps))
            if known is not None and known[0] is tps:
                return known[1]
        if len(tps) > _FILTER_SHARE * len(self.in_play_sorted) and tps <= self.in_play:
            result = tuple(tp for tp in self.in_play_sorted if tp in tps)
        else:
            result = tuple(sorted_partitions(tps))
        if isinstance(tps, frozenset):
            self._sorted[id(tps)] = (tps, result)
        return result

    def add(
        self,
        name: str,
        reason: str,
        duration_s: float,
        holders: _Hold,
        *,
        warming: frozenset[TopicPartition] = frozenset(),
        down: Collection[str] = (),
        revoked: AbstractSet[TopicPartition] = frozenset(),
        epochs: Mapping[str, int] | None = None,
    ) -> None:
        empty: frozenset[TopicPartition] = frozenset()
        owned = {m: self.ordered(holders.get(m, empty)) for m in self.members}
        consuming: dict[str, tuple[TopicPartition, ...]] = {}
        for m in self.members:
            if m in down:
                consuming[m] = ()
            elif warming.isdisjoint(holders.get(m, empty)):
                consuming[m] = owned[m]
            else:
                consuming[m] = tuple(tp for tp in owned[m] if tp not in warming)
        held = empty.union(*holders.values())
        read = held.difference(warming, *(holders.get(m, empty) for m in down))
        self.phases.append(
            Phase(
                name=name,
                reason=reason,
                start_s=self.clock,
                duration_s=duration_s,
                owned=MappingProxyType(owned),
                consuming=MappingProxyType(consuming),
                paused=self.ordered(self.in_play - read),
                revoked=self.ordered(revoked),
                assigned=self.ordered(warming),
                waiting=self.ordered((self.in_play & self.target_owned) - held),
                member_epochs=None if epochs is None else MappingProxyType(dict(epochs)),
            )
        )
        self.clock += duration_s


def _handed(before: _Hold, after: _Hold) -> frozenset[TopicPartition]:
    return frozenset(tp for m, tps in after.items() for tp in tps - before.get(m, frozenset()))


def _given_up(before: _Hold, after: _Hold) -> frozenset[TopicPartition]:
    return frozenset(tp for m, tps in before.items() for tp in tps - after.get(m, frozenset()))


def _pre_rebalance(
    timeline: _Timeline,
    holders: _Hold,
    timings: Timings,
    silent_departures: Collection[str],
    restarted: Collection[str],
) -> None:
    """Phase 0 of the module docstring: static restarts and silent departures."""
    if restarted:
        if timings.restart_s >= timings.session_timeout_s:
            raise RebalanceError(
                f"a static restart of {timings.restart_s:g} s is not below the session timeout of"
                f" {timings.session_timeout_s:g} s: the coordinator would drop the member and"
                " rebalance; model it as a member removal instead"
            )
        timeline.add(
            "static restart",
            f"static member(s) {', '.join(sorted(restarted))} restart within the session timeout:"
            " the coordinator keeps their partitions for them and nobody else notices",
            timings.restart_s,
            holders,
            down=restarted,
        )
    if silent_departures:
        elapsed = timings.restart_s if restarted else 0.0
        timeline.add(
            "detect departure",
            f"static member(s) {', '.join(sorted(silent_departures))} left without a LeaveGroup:"
            " the coordinator notices only when the session times out",
            max(timings.session_timeout_s - elapsed, 0.0),
            holders,
        )


def _adjust_cooperative(assignment: Assignment, holders: _Hold) -> Assignment:
    """Withhold from each member the partitions another member still holds (Kafka's round 1)."""
    holder_of = {tp: m for m, tps in holders.items() for tp in tps}
    return Assignment.of(
        assignment.partitions,
        {
            m: [tp for tp in tps if holder_of.get(tp, m) == m]
            for m, tps in assignment.partitions.items()
        },
        assignment.warnings,
    )


def plan_rebalance(
    protocol: RebalanceProtocol,
    previous: Assignment,
    target: Assignment,
    *,
    rounds: Iterable[Assignment] | None = None,
    timings: Timings = Timings(),
    silent_departures: Collection[str] = (),
    restarted: Collection[str] = (),
    rebalance: bool = True,
    epoch: int = 0,
    strategy: str | None = None,
) -> RebalanceSimulation:
    """The phases from ``previous`` to ``target`` under ``protocol`` (see the module docstring).

    ``target`` lists the members of the group after the change; members only in ``previous`` have
    left. ``rounds`` (cooperative only) are the assignments handed out round by round, the last
    equal to ``target``; by default one round computed with Kafka's rule (a partition another
    member still holds is withheld) followed by ``target``. ``rebalance=False``: nothing triggers
    a rebalance (only static restarts), ``target`` must equal ``previous``'s present part.
    ``epoch`` is the group epoch before the change (consumer protocol).

    Steps: 1. the members after the change and the partitions in play; 2. phase 0 (static
    restarts, silent departures); 3. the protocol's phases (:func:`_play_eager`,
    :func:`_play_cooperative`, :func:`_play_consumer`), or none without a rebalance;
    4. the summary figures (:func:`_summarise`).
    """
    members = sorted(target.partitions)
    present = set(members)
    unknown = [m for m in restarted if m not in present]
    if unknown:
        raise RebalanceError(
            f"restarted member {unknown[0]!r} is not in the group after the change"
        )
    in_play = frozenset().union(*previous.partitions.values(), *target.partitions.values())
    timeline = _Timeline(members, in_play, target)
    before = timeline.remember(_holdings(previous, members), previous)
    goal = timeline.remember(_holdings(target, members), target)
    _pre_rebalance(timeline, before, timings, silent_departures, restarted)
    played = _Played(0, target, [])
    if not rebalance:
        if before != goal:
            raise RebalanceError("without a rebalance the target must be the current assignment")
        played.notes.append("no rebalance: static members restarted within the session timeout")
    elif protocol == "eager":
        played = _play_eager(timeline, before, goal, target, timings)
    elif protocol == "cooperative":
        played = _play_cooperative(timeline, before, goal, target, rounds, timings)
    else:
        played = _play_consumer(timeline, before, goal, target, previous, epoch, timings)
    return _summarise(
        protocol,
        strategy,
        previous,
        played.first_round,
        target,
        timeline,
        timings,
        played.rounds,
        played.notes,
    )


@dataclass(frozen=True, slots=True)
class _Played:
    """What a protocol's phases amount to: rounds handed out, the first one, notes."""

    rounds: int
    first_round: Assignment
    notes: list[str]


def _play_eager(
    timeline: _Timeline, before: _Hold, goal: _Hold, target: Assignment, timings: Timings
) -> _Played:
    """Step 1 of the module docstring: notice, revoke and rejoin, assign. One round."""
    timeline.add(
        "notice",
        "members learn of the rebalance at their next heartbeat and keep reading meanwhile",
        timings.heartbeat_interval_s,
        before,
    )
    timeline.add(
        "revoke and rejoin",
        "eager protocol: every member revokes all its partitions, then the group waits until"
        " every member has rejoined",
        timings.revoke_s + timings.barrier_s(),
        {},
        revoked=_given_up(before, {}),
    )
    warming = _handed(before, goal)
    if warming:  # otherwise the target holds as soon as the previous phase ends
        timeline.add(
            "assign",
            "the new assignment arrives: kept partitions resume at once, partitions with a new"
            " owner warm up",
            timings.warmup_s,
            goal,
            warming=warming,
        )
    return _Played(1, target, [])


def _play_cooperative(
    timeline: _Timeline,
    before: _Hold,
    goal: _Hold,
    target: Assignment,
    rounds: Iterable[Assignment] | None,
    timings: Timings,
) -> _Played:
    """Step 2 of the module docstring: join, then per round revoke (and rejoin) or assign."""
    members = timeline.members
    round_list = list(rounds) if rounds is not None else [_adjust_cooperative(target, before)]
    if rounds is None and _given_up(before, _holdings(round_list[0], members)):
        round_list.append(target)  # whoever revoked rejoins: Kafka runs a second round
    if not round_list or _holdings(round_list[-1], members) != goal:
        raise RebalanceError("the last cooperative round must be the target")
    timeline.add(
        "join (round 1)",
        "cooperative protocol: members rejoin while still reading what they hold",
        timings.heartbeat_interval_s + timings.barrier_s(),
        before,
    )
    holding, round_count = before, 0
    for number, handed_out in enumerate(round_list, start=1):
        round_count = number
        now = timeline.remember(_holdings(handed_out, members), handed_out)
        given_up = _given_up(holding, now)
        _cooperative_round(timeline, number, holding, now, given_up, timings)
        holding = now
        if not given_up:
            break
    notes = []
    if round_count < len(round_list):
        notes.append(f"rounds after round {round_count} hand out nothing new; not shown")
    return _Played(round_count, round_list[0], notes)


def _cooperative_round(
    timeline: _Timeline,
    number: int,
    holding: _Hold,
    now: _Hold,
    given_up: frozenset[TopicPartition],
    timings: Timings,
) -> None:
    """One cooperative round's phase: revoke (and rejoin for the next round), or assign."""
    warming = _handed(holding, now)
    if given_up:
        timeline.add(
            f"revoke (round {number})",
            f"round {number}: members revoke only the partitions that leave them, then"
            f" the group rejoins for round {number + 1}; partitions handed out now warm up",
            timings.revoke_s + timings.heartbeat_interval_s + timings.barrier_s(),
            now,
            warming=warming,
            revoked=given_up,
        )
    elif warming:
        timeline.add(
            f"assign (round {number})",
            f"round {number}: partitions handed out warm up; everything else keeps reading",
            timings.warmup_s,
            now,
            warming=warming,
        )


def _play_consumer(
    timeline: _Timeline,
    before: _Hold,
    goal: _Hold,
    target: Assignment,
    previous: Assignment,
    epoch: int,
    timings: Timings,
) -> _Played:
    """Step 3 of the module docstring (KIP-848): new target, then revoke and acknowledge and
    assign released, or a plain assign when nobody gives anything up."""
    members = timeline.members
    new_epoch = epoch + 1
    old_epochs = {m: (epoch if before[m] or m in previous.partitions else 0) for m in members}
    timeline.add(
        "new target",
        "consumer protocol: the coordinator computes the target and bumps the group epoch;"
        " members learn it at their next heartbeat and keep reading meanwhile",
        timings.heartbeat_interval_s,
        before,
        epochs=old_epochs,
    )
    given_up = _given_up(before, goal)
    if not given_up:
        warming = _handed(before, goal)
        if warming:  # otherwise the target holds as soon as the previous phase ends
            timeline.add(
                "assign",
                "nothing to revoke: members move to the new epoch and free partitions warm up",
                timings.warmup_s,
                goal,
                warming=warming,
                epochs=dict.fromkeys(members, new_epoch),
            )
        return _Played(1, target, [])
    held_before = frozenset(tp for tps in before.values() for tp in tps)
    step = {m: (before[m] & goal[m]) | (goal[m] - held_before) for m in members}
    revoking = {m for m in members if before[m] - goal[m]}
    timeline.add(
        "revoke and acknowledge",
        "members revoke the partitions leaving them and acknowledge at their next"
        " heartbeat; the others move to the new epoch and take free partitions now",
        timings.revoke_s + timings.heartbeat_interval_s,
        step,
        warming=_handed(before, step),
        revoked=given_up,
        epochs={m: old_epochs[m] if m in revoking else new_epoch for m in members},
    )
    warming = _handed(step, goal)
    if warming:  # otherwise the target holds as soon as the previous phase ends
        timeline.add(
            "assign released",
            "a revoked partition goes to its new owner only after its previous owner"
            " acknowledged; it warms up there",
            timings.warmup_s,
            goal,
            warming=warming,
            epochs=dict.fromkeys(members, new_epoch),
        )
    return _Played(2, Assignment.of(members, step), [])


def _summarise(
    protocol: RebalanceProtocol,
    strategy: str | None,
    previous: Assignment,
    first_round: Assignment,
    target: Assignment,
    timeline: _Timeline,
    timings: Timings,
    rounds: int,
    notes: list[str],
) -> RebalanceSimulation:
    phases = tuple(timeline.phases)
    paused_time: dict[TopicPartition, float] = {}
    for phase in phases:
        for tp in phase.paused:
            paused_time[tp] = paused_time.get(tp, 0.0) + phase.duration_s
    readers_before = {m for m in timeline.members if previous.partitions.get(m)}
    stopped = tuple(
        m
        for m in timeline.members
        if m in readers_before and any(not phase.consuming.get(m) for phase in phases)
    )
    group_stop = sum(
        phase.duration_s
        for phase in phases
        if timeline.in_play and not any(phase.consuming.values())
    )
    return RebalanceSimulation(
        protocol=protocol,
        strategy=strategy,
        previous=previous,
        first_round=first_round,
        target=target,
        phases=phases,
        timings=timings,
        rounds=rounds,
        partition_pauses=sum(len(phase.paused) for phase in phases),
        stopped_members=stopped,
        pause_s=max(paused_time.values(), default=0.0),
        group_stop_s=group_stop,
        duration_s=timeline.clock,
        notes=tuple(notes),
    )


# --- from a strategy ----------------------------------------------------------------------------


def _group_shape(scenario: Scenario) -> tuple[object, ...]:
    return (
        sorted((m.member_id, tuple(sorted(m.topics))) for m in scenario.members),
        sorted(scenario.partition_counts().items()),
    )


def _cooperative_rounds(strategy: PartitionStrategy, after: Scenario) -> list[Assignment]:
    """Round after round as Kafka plays them until no member has to revoke anything.

    ``cooperative-sticky`` gives round 1 and its target itself
    (:func:`assignors.client.cooperative_sticky.assign_with_target`); round 2 hands the target out.
    Another cooperative strategy is run round after round with the previous round as the owned
    partitions, withholding what another member still holds.
    """
    members = [m.member_id for m in after.members]
    holding = {m.member_id: frozenset(m.owned_partitions) for m in after.members}
    if strategy.name == "cooperative-sticky":
        round1, target = assign_with_target(after)
        first = Assignment.of(members, round1)
        final = Assignment.of(members, target)
        if _given_up(holding, _holdings(first, members)) or first != final:
            return [first, final]
        return [first]
    scenario = after
    rounds: list[Assignment] = []
    for _ in range(MAX_COOPERATIVE_ROUNDS):
        handed_out = _adjust_cooperative(strategy.assign(scenario), holding)
        rounds.append(handed_out)
        now = _holdings(handed_out, members)
        if not _given_up(holding, now):
            break
        generation = max((m.generation or 0 for m in scenario.members), default=0) + 1
        scenario = replace(
            scenario,
            members=tuple(
                replace(
                    m,
                    owned_partitions=tuple(handed_out.partitions[m.member_id]),
                    generation=generation,
                )
                for m in scenario.members
            ),
        )
        holding = now
    return rounds


@dataclass(frozen=True, slots=True)
class Settlement:
    """Where a strategy takes the group after a change, before any phase is played.

    ``target`` is where the group ends up; ``rounds`` the cooperative rounds handed out (the last
    equal to ``target``; ``None`` for eager and consumer strategies); ``rebalances`` is false
    when nothing but static restarts happened (then ``target`` is the current assignment of the
    members still present). ``silent_departures`` and ``epoch`` are what :func:`play` needs.
    """

    strategy: PartitionStrategy
    previous: Assignment
    target: Assignment
    rounds: tuple[Assignment, ...] | None
    rebalances: bool
    silent_departures: tuple[str, ...]
    epoch: int


def partition_strategy(strategy: str | PartitionStrategy) -> PartitionStrategy:
    """The registered strategy ``strategy`` names, refused when it assigns Streams tasks."""
    chosen = registry.get(strategy) if isinstance(strategy, str) else strategy
    if not isinstance(chosen, PartitionStrategy):
        raise StrategyNotApplicableError(
            f"strategy {chosen.name!r} assigns Kafka Streams tasks, not partitions"
        )
    return chosen


def rebalance_rounds(
    strategy: str | PartitionStrategy, scenario: Scenario, first: Assignment | None = None
) -> tuple[Assignment, ...]:
    """The assignments one rebalance of ``scenario`` (as written: its members' owned partitions
    and generations) hands out, round by round; the last is where the group ends.

    An eager or consumer-protocol strategy answers in one round (its assignment: ``first`` when
    the caller has it already, so that it is not computed twice). A cooperative one takes as
    many as Kafka plays: round 1 withholds what a member has to give up, the next hands it to
    its new owner, until nobody revokes anything (at most :data:`MAX_COOPERATIVE_ROUNDS`).
    Raises what the strategy raises.
    """
    chosen = partition_strategy(strategy)
    if chosen.protocol != "cooperative":
        return (chosen.assign(scenario) if first is None else first,)
    return tuple(_cooperative_rounds(chosen, scenario))


def settle(
    before: Scenario,
    after: Scenario,
    strategy: str | PartitionStrategy,
    *,
    restarted: Collection[str] = (),
    previous: Assignment | None = None,
) -> Settlement:
    """The target of :func:`simulate` without its phases (the strategy runs, nothing is played).

    Steps: 1. resolve the strategy; 2. the previous assignment (default: ``before``'s current
    assignment); 3. static members of ``before`` missing from ``after`` left silently; 4. only
    static restarts: no rebalance, the target is what the present members hold; 5. otherwise the
    strategy's target (a cooperative strategy round after round, as Kafka plays it).
    """
    chosen = partition_strategy(strategy)
    if previous is None:
        previous = current_assignment(before)
    present = {m.member_id for m in after.members}
    silent = tuple(
        m.member_id
        for m in before.members
        if m.member_id not in present and m.group_instance_id is not None
    )
    epoch = max((m.generation or 0 for m in after.members), default=0)
    if restarted and _group_shape(before) == _group_shape(after):
        target = Assignment.of(
            [m.member_id for m in after.members],
            {m: tps for m, tps in previous.partitions.items() if m in present},
        )
        return Settlement(chosen, previous, target, None, False, silent, epoch)
    if chosen.protocol == "cooperative":
        rounds = tuple(_cooperative_rounds(chosen, after))
        return Settlement(chosen, previous, rounds[-1], rounds, True, silent, epoch)
    # The simulation, metrics and drain read the target many times: its partitions made once.
    target = chosen.assign(after).materialized()
    return Settlement(chosen, previous, target, None, True, silent, epoch)


def play(
    settlement: Settlement, *, timings: Timings = Timings(), restarted: Collection[str] = ()
) -> RebalanceSimulation:
    """The phases of a settled rebalance under the strategy's own protocol."""
    chosen = settlement.strategy
    if not settlement.rebalances:
        return plan_rebalance(
            chosen.protocol,
            settlement.previous,
            settlement.target,
            timings=timings,
            restarted=restarted,
            rebalance=False,
            strategy=chosen.name,
        )
    return plan_rebalance(
        chosen.protocol,
        settlement.previous,
        settlement.target,
        rounds=settlement.rounds,
        timings=timings,
        silent_departures=settlement.silent_departures,
        restarted=restarted,
        epoch=settlement.epoch,
        strategy=chosen.name,
    )


def simulate(
    before: Scenario,
    after: Scenario,
    strategy: str | PartitionStrategy,
    *,
    timings: Timings = Timings(),
    restarted: Collection[str] = (),
    previous: Assignment | None = None,
) -> RebalanceSimulation:
    """The rebalance from ``before`` to ``after`` (``after`` from
    :mod:`assignors.simulate.changes`): :func:`settle` then :func:`play`.

    ``previous`` defaults to :func:`assignors.simulate.changes.current_assignment` of ``before``;
    the target is ``strategy`` run on ``after`` (whose members own the current assignment). Static
    members of ``before`` missing from ``after`` left silently (session timeout); ``restarted``
    static members were down for ``timings.restart_s``. When nothing but static restarts
    happened, no rebalance runs and the target is the current assignment.
    """
    settlement = settle(before, after, strategy, restarted=restarted, previous=previous)
    return play(settlement, timings=timings, restarted=restarted)

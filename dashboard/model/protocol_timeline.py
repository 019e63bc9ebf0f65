"""Who does what, and when, while a group rebalances: the core's phases as per-member intervals.

The core plays one change under each rebalance protocol (:class:`assignors.RebalanceSimulation`:
group-wide phases, each saying which partitions every member holds and reads). This view model
turns each run into one row of time intervals per member, each in one of :data:`STATES`:

- ``consuming``: the member reads at least one partition (under the cooperative and KIP-848
  protocols it goes on reading what it keeps while it gives other partitions up);
- ``revoking``: it reads nothing while it gives partitions up (commits their offsets, runs its
  revocation callback): the first ``timings.revoke_s`` of the phase in which it loses them;
- ``waiting``: it reads nothing, holds nothing, and its target is not empty: under the classic
  protocols at the group barrier (until every member has rejoined and the next assignment is
  handed out; ``barrier`` is set), under KIP-848 until its next heartbeat brings its target or
  until the member still holding its next partition revokes it (never a barrier);
- ``warming up``: it holds partitions and reads none of them yet (the first fetch);
- ``restarting``: a static member that is down while it restarts (it keeps its partitions);
- ``idle``: it holds nothing and its target gives it nothing.

Steps of :func:`run_timeline`:

1. The rows: the members of the group after the change (the core's phases list them), in the
   order given (the page's member order), the rest after it sorted.
2. Per phase and member: what it held in the phase before (the previous assignment before the
   first phase) and no longer holds, if the core lists it as revoked, makes the member
   ``revoking`` for ``min(revoke_s, phase length)`` when it reads nothing in the phase; the rest
   of the phase gets the state its holdings give (above).
3. After the last phase, up to ``end_s``: the target (``consuming``, or ``idle`` when it gives
   the member nothing).
4. Neighbouring intervals in the same state (and kind of wait) merge into one, their reasons
   listed in order.

:func:`protocol_timelines` does this for every run of one change, on one time axis: every row
ends at the longest run's end plus :data:`TAIL_SHARE` of it, so the steady state after each run
shows; past a number of members it keeps the rows of those that stop longest.

Invariants: each member's intervals are sorted, the first starts at 0 and the last ends at
``end_s``, and each starts where the one before ended (they cover the time axis, never overlap,
and none is empty); a member is ``consuming`` exactly when the core says it reads something, so
the time during which no member consumes is the core's ``group_stop_s`` (the ``stops`` of a
:class:`RunTimeline` are those phases); under KIP-848 no interval is a barrier.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from assignors import Phase, RebalanceSimulation, TopicPartition

#: Every state a member can be in, in the order a legend lists them.
STATES = ("consuming", "revoking", "waiting", "warming up", "restarting", "idle")
#: The states in which a member reads nothing although it read something or will.
STOPPED_STATES = frozenset({"revoking", "waiting", "warming up", "restarting"})
#: After the longest run, the time axis goes on for this share of it (the steady state shows).
TAIL_SHARE = 0.15
#: The time axis of a change that triggers no phase at all (seconds).
EMPTY_AXIS_S = 1.0
#: The core's phase names before any rebalance (see :mod:`assignors.simulate.rebalance`, step 0):
#: a member waiting then waits for the coordinator to notice a departure, not at a barrier.
BEFORE_REBALANCE = frozenset({"static restart", "detect departure"})
#: How many partitions a reason names before it says "and N more".
NAMED_PARTITIONS = 3


@dataclass(frozen=True, slots=True)
class Interval:
    """One member in one state from ``start_s`` to ``end_s`` (seconds after the change)."""

    member: str
    state: str
    start_s: float
    end_s: float
    why: str
    """One sentence for a person: what the member does and why (names member ids: escape it)."""
    barrier: bool = False
    """Waiting at a classic protocol's group barrier (JoinGroup / SyncGroup)."""

    @property
    def length_s(self) -> float:
        """How long the interval lasts."""
        return self.end_s - self.start_s


@dataclass(frozen=True, slots=True)
class RunTimeline:
    """One protocol's run of the change, member by member."""

    protocol: str
    members: tuple[str, ...]
    """The rows, top to bottom (all members, or those :func:`protocol_timelines` kept)."""
    intervals: tuple[Interval, ...]
    """Every member's intervals, member by member in row order, each member's in time order."""
    end_s: float
    stops: tuple[tuple[float, float], ...]
    """The core's phases in which no member reads anything: (start, end) in seconds."""
    rounds: int
    group_stop_s: float
    pause_s: float
    done_s: float
    """When every member reads its target (the core's ``duration_s``)."""
    group_size: int
    """Members in the group after the change (rows or not)."""

    def of(self, member: str) -> tuple[Interval, ...]:
        """``member``'s intervals in time order."""
        return tuple(i for i in self.intervals if i.member == member)

    @property
    def states(self) -> tuple[str, ...]:
        """The states that occur, in :data:`STATES` order."""
        present = {i.state for i in self.intervals}
        return tuple(state for state in STATES if state in present)


def _names(partitions: Sequence[TopicPartition]) -> str:
    shown = ", ".join(f"{tp.topic}-{tp.partition}" for tp in partitions[:NAMED_PARTITIONS])
    more = len(partitions) - NAMED_PARTITIONS
    return shown + (f" and {more:,} more" if more > 0 else "")


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}" if count == 1 else f"{count:,} {word}s"


Owners = Mapping[TopicPartition, str]


def _waiting_why(
    protocol: str, phase: Phase, target: Sequence[TopicPartition], owner_before: Owners
) -> tuple[str, bool]:
    """Why a member that holds nothing waits in ``phase``, and whether it is a barrier.

    Under KIP-848 a member waits for partitions of its target that their previous owner
    revokes in this phase, else for its next heartbeat to bring its target."""
    if phase.name in BEFORE_REBALANCE:
        return "waits for the coordinator to notice the departure (session timeout)", False
    if protocol != "consumer":
        return (
            "at the group barrier: waits until every member has rejoined and the next"
            " assignment is handed out",
            True,
        )
    revoked = set(phase.revoked)
    released = [tp for tp in target if tp in revoked]
    if released:
        holder = owner_before.get(released[0], "another member")
        return (
            f"waits for {_names(released)}: {holder} revokes it and acknowledges at its next"
            " heartbeat (no group barrier)",
            False,
        )
    return "learns its target at its next heartbeat (no group barrier)", False


def _state(
    simulation: RebalanceSimulation,
    phase: Phase,
    member: str,
    gave_up: int,
    owner_before: Owners,
) -> tuple[str, str, bool]:
    """The state of ``member`` in ``phase`` once any revocation is over: state, why, barrier."""
    owned = phase.owned.get(member, ())
    reading = phase.consuming.get(member, ())
    target = simulation.target.partitions.get(member, ())
    if reading:
        why = f"reads {_plural(len(reading), 'partition')}"
        if gave_up:
            why += f"; gave {_plural(gave_up, 'partition')} up as this phase began"
        return "consuming", why, False
    if owned:
        assigned = set(phase.assigned)
        if any(tp in assigned for tp in owned):
            return "warming up", f"received {_names(owned)}; reads none of it yet", False
        return "restarting", f"is down while it restarts; keeps {_names(owned)}", False
    if not target:
        return "idle", "holds nothing and its target gives it nothing", False
    why, barrier = _waiting_why(simulation.protocol, phase, target, owner_before)
    return "waiting", why, barrier


def _phase_intervals(
    simulation: RebalanceSimulation,
    phase: Phase,
    member: str,
    held_before: frozenset[TopicPartition],
    owner_before: Owners,
) -> list[Interval]:
    """``member``'s intervals in one phase: revoking first if it gives partitions up and reads
    nothing meanwhile, then the state its holdings give."""
    revoked = set(phase.revoked)
    gave_up = sorted(tp for tp in held_before - set(phase.owned.get(member, ())) if tp in revoked)
    state, why, barrier = _state(simulation, phase, member, len(gave_up), owner_before)
    start, end = phase.start_s, phase.end_s
    result = []
    until = min(start + simulation.timings.revoke_s, end)
    if gave_up and state != "consuming" and until > start:
        result.append(
            Interval(member, "revoking", start, until, f"gives up {_names(gave_up)}; reads nothing")
        )
        start = until
    if end > start:
        result.append(Interval(member, state, start, end, why, barrier))
    return result


def _merged(intervals: Sequence[Interval]) -> list[Interval]:
    """Step 4: neighbours in the same state (and, waiting, the same kind of wait) become one
    interval whose reason lists theirs in order, each once."""
    result: list[Interval] = []
    for interval in intervals:
        last = result[-1] if result else None
        if (
            last is not None
            and (last.state, last.barrier) == (interval.state, interval.barrier)
            and last.end_s == interval.start_s
        ):
            why = last.why
            if interval.why not in why.split("; then "):
                why = f"{why}; then {interval.why}"
            result[-1] = Interval(
                last.member, last.state, last.start_s, interval.end_s, why, last.barrier
            )
        else:
            result.append(interval)
    return result


def _member_intervals(
    simulation: RebalanceSimulation, member: str, end_s: float, owner_before: Owners
) -> list[Interval]:
    """Steps 2-4 for one member (``owner_before``: who held each partition before the
    change)."""
    intervals: list[Interval] = []
    held = frozenset(simulation.previous.partitions.get(member, ()))
    for phase in simulation.phases:
        if phase.duration_s > 0:
            intervals += _phase_intervals(simulation, phase, member, held, owner_before)
        held = frozenset(phase.owned.get(member, ()))
    settled = min(simulation.duration_s, end_s)
    if end_s > settled:
        target = simulation.target.partitions.get(member, ())
        if target:
            why = f"reads its target: {_plural(len(target), 'partition')}"
            intervals.append(Interval(member, "consuming", settled, end_s, why))
        else:
            why = "holds nothing and its target gives it nothing"
            intervals.append(Interval(member, "idle", settled, end_s, why))
    return _merged(intervals)


def _rows(simulation: RebalanceSimulation, order: Sequence[str]) -> tuple[str, ...]:
    """Step 1: the members after the change, in ``order`` first."""
    present = set(simulation.target.partitions)
    first = [m for m in dict.fromkeys(order) if m in present]
    placed = set(first)
    return (*first, *sorted(m for m in present if m not in placed))


def run_timeline(
    simulation: RebalanceSimulation, order: Sequence[str] = (), end_s: float | None = None
) -> RunTimeline:
    """One run, member by member (steps 1-4 of the module docstring); ``end_s`` defaults to the
    run's own end plus :data:`TAIL_SHARE` of it. ``end_s`` shorter than the run cuts it there."""
    end = _axis_end([simulation]) if end_s is None else end_s
    if not end > 0:
        raise ValueError(f"the time axis must end after 0 s, not at {end}")
    members = _rows(simulation, order)
    owner_before = {tp: m for m, tps in simulation.previous.partitions.items() for tp in tps}
    intervals = [i for m in members for i in _member_intervals(simulation, m, end, owner_before)]
    in_play = any(simulation.previous.partitions.values()) or any(
        simulation.target.partitions.values()
    )
    stops = tuple(
        (phase.start_s, min(phase.end_s, end))
        for phase in simulation.phases
        if phase.duration_s > 0
        and phase.start_s < end
        and in_play
        and not any(phase.consuming.values())
    )
    return RunTimeline(
        protocol=simulation.protocol,
        members=members,
        intervals=tuple(intervals),
        end_s=end,
        stops=stops,
        rounds=simulation.rounds,
        group_stop_s=simulation.group_stop_s,
        pause_s=simulation.pause_s,
        done_s=simulation.duration_s,
        group_size=len(members),
    )


def _axis_end(simulations: Sequence[RebalanceSimulation]) -> float:
    longest = max((s.duration_s for s in simulations), default=0.0)
    return longest * (1 + TAIL_SHARE) if longest > 0 else EMPTY_AXIS_S


def protocol_timelines(
    runs: Mapping[str, RebalanceSimulation], order: Sequence[str] = (), most: int | None = None
) -> tuple[RunTimeline, ...]:
    """Every run of one change (protocol -> the core's run), in the order given, on one time
    axis: the longest run's end plus :data:`TAIL_SHARE` of it. With ``most``, a group of more
    members keeps the ``most`` that stop longest over all runs (ties in row order), in row
    order; ``group_size`` still counts them all."""
    end = _axis_end(list(runs.values()))
    timelines = tuple(run_timeline(simulation, order, end) for simulation in runs.values())
    rows = list(dict.fromkeys(m for t in timelines for m in t.members))
    if most is None or len(rows) <= most:
        return timelines
    stopped: dict[str, float] = {}
    for timeline in timelines:
        for member, seconds in stopped_members(timeline).items():
            stopped[member] = stopped.get(member, 0.0) + seconds
    place = {member: index for index, member in enumerate(rows)}
    kept = set(sorted(rows, key=lambda m: (-stopped.get(m, 0.0), place[m]))[:most])
    return tuple(
        replace(
            t,
            members=tuple(m for m in t.members if m in kept),
            intervals=tuple(i for i in t.intervals if i.member in kept),
        )
        for t in timelines
    )


def stopped_members(timeline: RunTimeline) -> dict[str, float]:
    """Member -> seconds it reads nothing although it holds partitions before or after
    (revoking, waiting, warming up or restarting); members that never stop are left out."""
    stopped: dict[str, float] = {}
    for interval in timeline.intervals:
        if interval.state in STOPPED_STATES:
            stopped[interval.member] = stopped.get(interval.member, 0.0) + interval.length_s
    return stopped

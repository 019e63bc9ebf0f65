"""The deploy planner: what a rolling restart, a scale step or an upgrade costs, step by step.

:func:`plan_deploy` plays a :class:`~assignors.simulate.deploy_plan.DeployPlan` on a scenario with
the rebalance simulation of :mod:`assignors.simulate.rebalance` and projects the backlog through
the whole deploy with :mod:`assignors.simulate.drain`.

Steps:

1. The group as the deploy finds it: the current assignment, every member owning its part;
   ``static_membership`` ``True``/``False`` gives every member a ``group.instance.id`` (its member
   id) or takes it away.
2. The scale step, if any: ``+K`` members join (one rebalance), or the last K members leave (one
   rebalance; a static member leaves silently and is noticed after the session timeout). Under
   the consumer protocol (KIP-848) there is no join barrier: each member that joins or leaves is
   a rebalance of its own (a group epoch), one after the other, here and in step 3c (measured on
   Apache Kafka; docs/prediction-accuracy.md). Their moves are then an upper bound: a member
   may skip a target that the next one replaced before it got there.
3. Per bounce (two for ``eager-to-cooperative``, else one), per batch of members in the
   scenario's order, one step:

   a. static members and ``restart_s`` below ``session.timeout.ms``: the coordinator keeps their
      partitions; only theirs pause, for ``restart_s``; no rebalance, unless the restart changes
      the assignor the group selects (then one rebalance once they are back);
   b. ``scheduled.rebalance.max.delay.ms`` set, cooperative protocol, ``restart_s`` within it:
      the batch's partitions are held for it (two rebalances that move nothing), they pause for
      ``restart_s``;
   c. otherwise the batch leaves (dynamic members send LeaveGroup: a rebalance at once; static
      members are dropped after the session timeout, then a rebalance), its partitions go to the
      others; it is back ``restart_s`` after it went down and rejoins owning nothing (a second
      rebalance). A classic group that the batch left empty waits
      ``group.initial.rebalance.delay.ms`` before that rebalance. A restarted dynamic member keeps
      its member id here (Kafka gives it a new one; only strategies that sort by member id see a
      difference).

   Each rebalance is the assignor the group selects and the protocol it runs at that moment
   (:mod:`assignors.simulate.deploy_upgrade`), played by :func:`rebalance.settle` and
   :func:`rebalance.play`. The next step starts when the previous one is over.
4. The phases of every step, back to back, form one timeline; the drain projection runs over it
   and then holds the final assignment (model of :mod:`assignors.simulate.drain`).
5. The figures: rebalances, partitions moved (a partition that moves away and back counts twice),
   partitions paused, members stopped, per step and in all; the group's backlog at the start, its
   peak and when (exact: between two phase ends the backlog is convex, so it peaks at one of
   them), and when it is back to where it started once the deploy is over (worked out exactly from
   the backlogs and rates at the deploy's end, ``None`` when it never is).

Invariants: backlogs are never negative; a deploy of static members restarting within the session
timeout, with no upgrade and no scale step, runs no rebalance and moves nothing; pure and
deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from assignors.model import Assignment, Member, Scenario, TopicPartition
from assignors.simulate import changes as change_ops
from assignors.simulate import drain as drain_ops
from assignors.simulate import metrics as metric_ops
from assignors.simulate import rebalance
from assignors.simulate.deploy_plan import DeployError, DeployPlan
from assignors.simulate.deploy_run import Run, Tally, restart, scale, subscribed
from assignors.simulate.deploy_upgrade import Upgrade, resolve
from assignors.strategy import PartitionStrategy, RebalanceProtocol

#: Partitions in play times batches past which a deploy is refused (each step is O(partitions)).
MAX_DEPLOY_WORK = 20_000_000
#: Frames keep each partition's backlog up to this many partitions (else per member and topic).
MAX_FRAME_PARTITIONS = 20_000
#: Drain grid points at most over the deploy and its recovery.
GRID_POINTS = 600
#: Relative slack when asking whether the backlog is back to where it started.
BACK_TOLERANCE = 1e-9
#: Seconds from a deploy's start at which the backlog with and without it is reported.
CHECKPOINTS_S = (900.0, 3600.0)


@dataclass(frozen=True, slots=True)
class DeployStep:
    """One step of the deploy: a scale step or one batch's restart."""

    number: int
    action: str
    """``scale out``, ``scale in``, ``restart`` or ``bounce 1`` / ``bounce 2``."""
    members: tuple[str, ...]
    """Who joins, leaves or restarts."""
    description: str
    start_s: float
    end_s: float
    strategy: str
    """The assignor the group selects at the end of the step."""
    protocol: RebalanceProtocol | None
    """The protocol of the step's last rebalance (``None``: no rebalance)."""
    rebalances: int
    rounds: int
    moved: int
    """Owner changes over the step's rebalances."""
    paused: int
    """Distinct partitions unread at some moment of the step."""
    partition_pauses: int
    """Sum over the step's phases of the partitions paused in each."""
    stopped_members: tuple[str, ...]
    """Members present that read nothing at some moment of the step (restarting ones included)."""
    assignment: Assignment
    """Who owns what once the step is over."""
    lag_at_end: float
    """The group's backlog when the step ends."""
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Plain JSON object (the assignment as ``{member: [[topic, partition], ...]}``)."""
        return {
            "number": self.number,
            "action": self.action,
            "members": list(self.members),
            "description": self.description,
            "start_s": self.start_s,
            "end_s": self.end_s,
            "strategy": self.strategy,
            "protocol": self.protocol,
            "rebalances": self.rebalances,
            "rounds": self.rounds,
            "moved": self.moved,
            "paused": self.paused,
            "partition_pauses": self.partition_pauses,
            "stopped_members": list(self.stopped_members),
            "lag_at_end": self.lag_at_end,
            "notes": list(self.notes),
            "assignment": self.assignment.to_json(),
        }


@dataclass(frozen=True, slots=True)
class DeployFrame:
    """The group during one phase of the deploy (frame 0: before it), with backlogs at its end."""

    step: int
    phase: str
    start_s: float
    time_s: float
    """When the phase ends (where the backlogs are taken)."""
    restarting: tuple[str, ...]
    """Members down (restarting) during the phase."""
    owned: Mapping[str, Sequence[TopicPartition]]
    consuming: Mapping[str, Sequence[TopicPartition]]
    paused: int
    lag_by_member: Mapping[str, float]
    """Backlog per holder during the phase (``""``: partitions nobody holds)."""
    lag_by_topic: Mapping[str, float]
    partition_lag: tuple[float, ...] | None
    """Aligned with :attr:`DeployOutcome.partitions`; ``None`` past MAX_FRAME_PARTITIONS."""

    @property
    def group_lag(self) -> float:
        """The whole group's backlog at :attr:`time_s`."""
        return drain_ops.exact_sum(self.lag_by_topic.values())


@dataclass(frozen=True, slots=True)
class DeployOutcome:
    """A deploy played out (see the module docstring for each figure)."""

    plan: DeployPlan
    strategy: str
    final_strategy: str
    steps: tuple[DeployStep, ...]
    frames: tuple[DeployFrame, ...]
    partitions: tuple[TopicPartition, ...]
    timeline: rebalance.RebalanceSimulation
    """Every step's phases back to back, from the assignment before to the one after."""
    drain: drain_ops.DrainProjection
    before: Assignment
    after: Assignment
    deploy_s: float
    rebalances: int
    rounds: int
    moved: int
    partition_pauses: int
    stopped_members: tuple[str, ...]
    initial_lag: float
    peak_lag: float
    """The group's largest backlog during the deploy (exact: it peaks at a phase's end)."""
    peak_at_s: float
    added_lag: float
    """The most the deploy's backlog exceeds the backlog with no deploy at all, at a phase end."""
    added_lag_at_s: float
    recovered_at_s: float | None
    """When the backlog is back to ``initial_lag`` for the first time after the deploy; None:
    never (the group falls behind for good)."""
    notes: tuple[str, ...] = ()
    checkpoints: tuple[tuple[float, float, float], ...] = ()
    """``(t, with, without)`` for each t of :data:`CHECKPOINTS_S` (seconds from the deploy's
    start): the group's backlog then with the deploy (its final assignment holding from the
    deploy's end; t within the deploy: the backlog at the deploy's end) and without it."""
    drained_at_s: float | None = None
    """When the backlog is gone for good with the deploy (None: never)."""
    drained_without_s: float | None = None
    """When it would be gone without the deploy (None: never)."""

    @property
    def recovered_after_s(self) -> float | None:
        """Seconds from the end of the deploy until the backlog is back where it started."""
        return None if self.recovered_at_s is None else self.recovered_at_s - self.deploy_s

    def summary_json(self) -> dict[str, Any]:
        """The figures without the per-step assignments, frames or drain lines."""
        return {
            "plan": self.plan.to_json(),
            "description": self.plan.describe(),
            "strategy": self.strategy,
            "final_strategy": self.final_strategy,
            "deploy_s": self.deploy_s,
            "rebalances": self.rebalances,
            "rounds": self.rounds,
            "moved": self.moved,
            "partition_pauses": self.partition_pauses,
            "stopped_members": list(self.stopped_members),
            "initial_lag": self.initial_lag,
            "peak_lag": self.peak_lag,
            "peak_at_s": self.peak_at_s,
            "added_lag": self.added_lag,
            "added_lag_at_s": self.added_lag_at_s,
            "recovered_at_s": self.recovered_at_s,
            "recovered_after_s": self.recovered_after_s,
            "notes": list(self.notes),
            "checkpoints": [
                {"at_s": at, "with_deploy": with_, "without_deploy": without}
                for at, with_, without in self.checkpoints
            ],
            "drained_at_s": self.drained_at_s,
            "drained_without_s": self.drained_without_s,
        }

    def to_json(self) -> dict[str, Any]:
        """The figures, every step, and the group's backlog over time."""
        return {
            **self.summary_json(),
            "steps": [step.to_json() for step in self.steps],
            "lag_over_time": {
                "times_s": list(self.drain.times_s),
                "group_lag": list(self.drain.group_lag),
            },
            "after": self.after.to_json(),
        }


# --- playing the plan ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Span:
    """A step before its backlog is known: its phases are ``run.phases[first:last]``."""

    action: str
    members: tuple[str, ...]
    description: str
    start_s: float
    end_s: float
    first: int
    last: int
    held_before: frozenset[str]
    strategy: str
    tally: Tally
    assignment: Assignment


def _membership(scenario: Scenario, static: bool | None) -> Scenario:
    """Step 1: every member static (its member id as ``group.instance.id``), none, or as given."""
    if static is None:
        return scenario
    return replace(
        scenario,
        members=tuple(
            replace(m, group_instance_id=(m.group_instance_id or m.member_id) if static else None)
            for m in scenario.members
        ),
    )


def _to_restart(run: Run, plan: DeployPlan) -> list[Member]:
    """The members to restart, in the group's order (all of them for an upgrade)."""
    if plan.members is None or plan.upgrade is not None:
        return list(run.group.members)
    by_id = {m.member_id: m for m in run.group.members}
    unknown = [m for m in plan.members if m not in by_id]
    if unknown:
        known = ", ".join(by_id) or "none"
        raise DeployError(f"no member {unknown[0]!r} in the group to restart (members: {known})")
    wanted = set(plan.members)
    return [m for m in run.group.members if m.member_id in wanted]


def _check_work(group: Scenario, holding: Assignment, plan: DeployPlan) -> None:
    partitions = len(set(subscribed(group)) | set(holding.owner_of()))
    restarts = (
        len(group.members) + max(plan.scale, 0) if plan.members is None else len(plan.members)
    )
    batches = -(-restarts // plan.batch_size) * (2 if plan.upgrade == "eager-to-cooperative" else 1)
    if partitions * (batches + 1) > MAX_DEPLOY_WORK:
        raise DeployError(
            f"a deploy of {batches:,} batch(es) over {partitions:,} partitions is too much to"
            f" simulate (at most {MAX_DEPLOY_WORK:,} partition-batches); use larger batches"
        )


def _play(run: Run, plan: DeployPlan) -> list[_Span]:
    """Steps 2-3: the scale step, then each bounce's batches."""
    spans: list[_Span] = []

    def record(
        action: str,
        members: tuple[str, ...],
        text: str,
        start: float,
        first: int,
        held: frozenset[str],
    ) -> None:
        spans.append(
            _Span(
                action,
                members,
                text,
                start,
                run.clock,
                first,
                len(run.phases),
                held,
                run.choice(run.present())[0].name,
                run.tally,
                run.holding,
            )
        )

    if plan.scale:
        start, first, held = run.clock, len(run.phases), _holders(run.holding)
        run.tally = Tally()
        action, members, text = scale(run, plan.scale, plan.settings.static_membership)
        record(action, members, text, start, first, held)
    bounces = max(run.upgrade.bounces, 1)
    for bounce in range(1, bounces + 1):
        action = f"bounce {bounce}" if run.upgrade.path is not None else "restart"
        ids = [m.member_id for m in _to_restart(run, plan)]
        for batch_ids in _batches_of(ids, plan.batch_size):
            by_id = {m.member_id: m for m in run.group.members}
            batch = [by_id[m] for m in batch_ids]
            start, first, held = run.clock, len(run.phases), _holders(run.holding)
            run.tally = Tally()
            text = restart(run, batch, bounce)
            record(action, tuple(batch_ids), text, start, first, held)
    return spans


def _batches_of(ids: Sequence[str], size: int) -> list[list[str]]:
    return [list(ids[i : i + size]) for i in range(0, len(ids), size)]


def _holders(holding: Assignment) -> frozenset[str]:
    return frozenset(m for m, tps in holding.partitions.items() if tps)


def plan_deploy(
    scenario: Scenario,
    strategy: str | PartitionStrategy,
    plan: DeployPlan,
    *,
    previous: Assignment | None = None,
    default_consume_rate: float = drain_ops.DEFAULT_CONSUME_RATE,
) -> DeployOutcome:
    """Play ``plan`` on ``scenario`` whose group runs ``strategy`` (see the module docstring).

    ``previous`` overrides the current assignment. Raises :class:`DeployError` when the plan does
    not fit the group, and the core's errors when a strategy cannot run.
    """
    chosen = rebalance.partition_strategy(strategy)
    upgrade = resolve(plan.upgrade, chosen)
    current = change_ops.current_assignment(scenario) if previous is None else previous
    group = _membership(
        change_ops.with_current_ownership(scenario, current), plan.settings.static_membership
    )
    if not group.members:
        raise DeployError("the group has no member: there is nothing to deploy")
    _check_work(group, current, plan)
    run = Run(group, current, upgrade, plan)
    everyone = list(group.members)
    spans = _play(run, plan)
    seen = {m.member_id for m in everyone}
    for span in spans:
        if span.action == "scale out":
            everyone.extend(
                m
                for m in run.group.members
                if m.member_id in span.members and m.member_id not in seen
            )
    return _outcome(
        scenario,
        replace(group, members=tuple(everyone)),
        plan,
        chosen,
        run,
        spans,
        current,
        default_consume_rate,
    )


def _timeline(
    run: Run, before: Assignment, everyone: Sequence[str], strategy: str
) -> rebalance.RebalanceSimulation:
    """Step 4: every phase back to back as one simulation ending in the final assignment."""
    phases = tuple(run.phases)
    target = Assignment.of(everyone, run.holding.partitions)
    paused_time: dict[TopicPartition, float] = {}
    for phase in phases:
        for tp in phase.paused:
            paused_time[tp] = paused_time.get(tp, 0.0) + phase.duration_s
    return rebalance.RebalanceSimulation(
        protocol=run.choice(run.present())[1],
        strategy=strategy,
        previous=before,
        first_round=before,
        target=target,
        phases=phases,
        timings=run.timings,
        rounds=0,
        partition_pauses=sum(len(phase.paused) for phase in phases),
        stopped_members=(),
        pause_s=max(paused_time.values(), default=0.0),
        group_stop_s=sum(p.duration_s for p in phases if not any(p.consuming.values())),
        duration_s=run.clock,
    )


def _frame(
    step: int,
    phase: rebalance.Phase | None,
    restarting: tuple[str, ...],
    time_s: float,
    partitions: tuple[TopicPartition, ...],
    backlog: tuple[float, ...],
    holding: Assignment,
) -> DeployFrame:
    owned = holding.partitions if phase is None else phase.owned
    consuming = holding.partitions if phase is None else phase.consuming
    owner = {tp: m for m, tps in owned.items() for tp in tps}
    by_member: dict[str, float] = dict.fromkeys(owned, 0.0)
    by_topic: dict[str, float] = {}
    for tp, value in zip(partitions, backlog, strict=True):
        holder = owner.get(tp, "")
        by_member[holder] = by_member.get(holder, 0.0) + value
        by_topic[tp.topic] = by_topic.get(tp.topic, 0.0) + value
    return DeployFrame(
        step=step,
        phase="before the deploy" if phase is None else phase.name,
        start_s=0.0 if phase is None else phase.start_s,
        time_s=time_s,
        restarting=restarting,
        owned=owned,
        consuming=consuming,
        paused=0 if phase is None else len(phase.paused),
        lag_by_member=MappingProxyType(by_member),
        lag_by_topic=MappingProxyType(by_topic),
        partition_lag=backlog if len(partitions) <= MAX_FRAME_PARTITIONS else None,
    )


def _frames(
    run: Run,
    spans: Sequence[_Span],
    timeline: rebalance.RebalanceSimulation,
    drain_scenario: Scenario,
    lags: Mapping[TopicPartition, int],
    default_consume_rate: float,
) -> tuple[tuple[DeployFrame, ...], tuple[TopicPartition, ...], tuple[float, ...]]:
    """Frame 0 and one frame per phase with time in it; and the backlogs at the deploy's end."""
    step_of = {
        index: number
        for number, span in enumerate(spans, 1)
        for index in range(span.first, span.last)
    }
    timed = [i for i, phase in enumerate(run.phases) if phase.duration_s > 0]
    snapshots = drain_ops.backlog_through(
        drain_scenario, timeline, default_consume_rate=default_consume_rate, lags=lags
    )
    time_s, partitions, backlog = next(snapshots)
    frames = [_frame(0, None, (), time_s, partitions, backlog, timeline.previous)]
    for index, (time_s, _, backlog) in zip(timed, snapshots, strict=True):
        phase = run.phases[index]
        frames.append(
            _frame(
                step_of.get(index, 0),
                phase,
                run.restarting_in[index],
                time_s,
                partitions,
                backlog,
                timeline.target,
            )
        )
    return tuple(frames), partitions, backlog


@dataclass(frozen=True, slots=True)
class _Settled:
    """The group's backlog once an assignment holds for good, exactly, as a sum of pieces.

    A piece ``(backlog, clears_at, deficit)`` is one holder's backlog
    (:func:`assignors.simulate.drain.settled_outcome`): falling linearly to 0 at ``clears_at``
    and 0 after, or (``clears_at`` None) growing by ``deficit`` per second. The sum is convex and
    piecewise linear.
    """

    pieces: tuple[tuple[float, float | None, float], ...]

    def value(self, at: float) -> float:
        """The backlog ``at`` seconds after the assignment starts holding."""
        total = 0.0
        for backlog, clears, deficit in self.pieces:
            if clears is None:
                total += backlog + deficit * at
            elif at < clears:
                total += backlog * (1.0 - at / clears)
        return total

    def slope(self, at: float) -> float:
        """Records/s the backlog changes by just after ``at``."""
        total = 0.0
        for backlog, clears, deficit in self.pieces:
            if clears is None:
                total += deficit
            elif at < clears:
                total -= backlog / clears
        return total

    def back_to(self, level: float) -> float | None:
        """The first ``t >= 0`` at which the backlog is at most ``level``; None: never."""
        slack = BACK_TOLERANCE * max(level, 1.0)
        breaks = sorted({c for _, c, _ in self.pieces if c is not None and c > 0})
        start = 0.0
        for end in [*breaks, math.inf]:
            here = self.value(start)
            if here <= level + slack:
                return start
            rate = self.slope(start)
            if rate < 0:
                reached = start + (here - level) / -rate
                if reached <= end:
                    return reached
            start = end
        return None


def _settled(
    drain_scenario: Scenario,
    holding: Assignment,
    partitions: Sequence[TopicPartition],
    backlog: Sequence[float],
    default_consume_rate: float,
) -> _Settled:
    """The backlog from ``backlog`` on while ``holding`` holds (model step 6 of the drain)."""
    owner = holding.owner_of()
    rates = drain_ops.produce_rate_by_partition(drain_scenario)
    held: dict[str | None, list[float]] = {}
    produced: dict[str | None, list[float]] = {}
    for tp, value in zip(partitions, backlog, strict=True):
        who = owner.get(tp)
        held.setdefault(who, []).append(value)
        produced.setdefault(who, []).append(rates.get(tp, 0.0))
    given = {m.member_id: m.consume_rate for m in drain_scenario.members}
    pieces: list[tuple[float, float | None, float]] = []
    for who, values in held.items():
        total, rate = sum(values), drain_ops.exact_sum(produced[who])
        if who is None:
            pieces.append((total, None, rate) if total > 0 or rate > 0 else (0.0, 0.0, 0.0))
            continue
        consume = given.get(who)
        reads = default_consume_rate if consume is None else float(consume)
        clears, deficit = drain_ops.settled_outcome(total, rate, reads, 0.0, total)
        pieces.append((total, clears, deficit))
    return _Settled(tuple(pieces))


def _backlog0(
    partitions: Sequence[TopicPartition], lags: Mapping[TopicPartition, int]
) -> tuple[float, ...]:
    return tuple(float(lags.get(tp, 0)) for tp in partitions)


def _step(number: int, span: _Span, run: Run, frames: Sequence[DeployFrame]) -> DeployStep:
    phases = run.phases[span.first : span.last]
    paused = frozenset(tp for phase in phases for tp in phase.paused)
    stopped = sorted(
        m for m in span.held_before if any(not phase.consuming.get(m) for phase in phases)
    )
    lag = frames[0].group_lag
    for frame in frames:
        if frame.time_s <= span.end_s:
            lag = frame.group_lag
    return DeployStep(
        number=number,
        action=span.action,
        members=span.members,
        description=span.description,
        start_s=span.start_s,
        end_s=span.end_s,
        strategy=span.strategy,
        protocol=span.tally.protocol,
        rebalances=span.tally.rebalances,
        rounds=span.tally.rounds,
        moved=span.tally.moved,
        paused=len(paused),
        partition_pauses=sum(len(phase.paused) for phase in phases),
        stopped_members=tuple(stopped),
        assignment=span.assignment,
        lag_at_end=lag,
        notes=tuple(span.tally.notes),
    )


def _notes(plan: DeployPlan, upgrade: Upgrade, drain: drain_ops.DrainProjection) -> list[str]:
    notes = []
    settings = plan.settings
    if settings.static_membership and plan.restart_s >= settings.session_timeout_s:
        notes.append(
            f"static members are down {plan.restart_s:g} s, not less than session.timeout.ms"
            f" ({settings.session_timeout_s:g} s): the coordinator drops them and rebalances"
        )
    if (
        upgrade.path
        and upgrade.path.startswith("assignor:")
        and (upgrade.old.protocol == "eager" and upgrade.new.protocol == "cooperative")
    ):
        notes.append(
            f"members still list {upgrade.old.name} after the bounce, so rebalances stay eager;"
            " a second bounce without it makes them cooperative (--upgrade eager-to-cooperative)"
        )
    if drain.members_using_default_rate:
        notes.append(
            f"consume rate {drain.default_consume_rate:g} records/s assumed for"
            f" {len(drain.members_using_default_rate)} member(s) without consume_rate"
        )
    return notes


def _outcome(
    scenario: Scenario,
    drain_scenario: Scenario,
    plan: DeployPlan,
    chosen: PartitionStrategy,
    run: Run,
    spans: Sequence[_Span],
    current: Assignment,
    default_consume_rate: float,
) -> DeployOutcome:
    """Steps 4-5: the timeline, the frames, the drain, the figures."""
    everyone = [m.member_id for m in drain_scenario.members]
    final_name = run.choice(run.present())[0].name
    timeline = _timeline(run, current, everyone, final_name)
    lags = metric_ops.lag_by_partition(scenario)
    frames, partitions, end_backlog = _frames(
        run, spans, timeline, drain_scenario, lags, default_consume_rate
    )
    initial = frames[0].group_lag
    settled = _settled(
        drain_scenario, timeline.target, partitions, end_backlog, default_consume_rate
    )
    after = settled.back_to(initial)
    start = frames[0].partition_lag or _backlog0(partitions, lags)
    baseline = _settled(drain_scenario, current, partitions, start, default_consume_rate)
    drained = settled.back_to(0.0)
    added, added_at = max((f.group_lag - baseline.value(f.time_s), -f.time_s) for f in frames)
    recovered_at = None if after is None else run.clock + after
    end = run.clock + plan.recovery_horizon_s if recovered_at is None else recovered_at
    horizon = end + max(60.0, 0.1 * end)
    drain = drain_ops.project_drain(
        drain_scenario,
        timeline,
        horizon_s=horizon,
        step_s=max(1.0, horizon / GRID_POINTS),
        default_consume_rate=default_consume_rate,
        lags=lags,
    )
    peak, peak_at = max((f.group_lag, -f.time_s) for f in frames)
    steps = tuple(_step(number, span, run, frames) for number, span in enumerate(spans, 1))
    return DeployOutcome(
        plan=plan,
        strategy=chosen.name,
        final_strategy=final_name,
        steps=steps,
        frames=frames,
        partitions=partitions,
        timeline=timeline,
        drain=drain,
        before=current,
        after=run.holding,
        deploy_s=run.clock,
        rebalances=sum(s.rebalances for s in steps),
        rounds=sum(s.rounds for s in steps),
        moved=sum(s.moved for s in steps),
        partition_pauses=sum(s.partition_pauses for s in steps),
        stopped_members=tuple(sorted({m for s in steps for m in s.stopped_members})),
        initial_lag=initial,
        peak_lag=peak,
        peak_at_s=-peak_at,
        added_lag=max(added, 0.0),
        added_lag_at_s=-added_at if added > 0 else 0.0,
        recovered_at_s=recovered_at,
        notes=tuple(_notes(plan, run.upgrade, drain)),
        checkpoints=tuple(
            (at, settled.value(max(at - run.clock, 0.0)), baseline.value(at))
            for at in CHECKPOINTS_S
        ),
        drained_at_s=None if drained is None else run.clock + drained,
        drained_without_s=baseline.back_to(0.0),
    )

"""The figures a lesson's narration states, computed from the scenario for each step.

A walkthrough step's text names its numbers as placeholders (:mod:`assignors.io.narration`);
:func:`narrate` fills them with the core's answers, so a sentence can never disagree with the
charts the step shows.

How a step's figures are computed (a consumer group):

1. The group before the step (:func:`sample_data.step_before`): the sample as shipped for the
   first step, else the group as the steps before it leave it, every member owning what the
   last of them settled on; a step that only narrates keeps the "before" of the step before
   it. The "before" the dashboard shows for that step.
2. ``evaluate(before, step.changes, [strategy, *named])``: the step's own strategy (the last
   switch so far) and every strategy a placeholder names (``{moved:roundrobin}``).
3. Each figure of :data:`GROUP_FIGURES` reads one answer of that evaluation; the per-protocol
   ones (``{eager_rounds}``, ``{consumer_group_stop_s}``, ...) read ``protocol_run(p)`` and the
   same names without a protocol read the strategy's own protocol (``simulation``).

A Kafka Streams sample's steps change nothing: each step's figures (:data:`STREAMS_FIGURES`)
read the application's probing rebalances (:func:`assignors.simulate_convergence` at
:data:`RESTORE_SPEED`, the Streams page's default, with no input growth).

Invariants: the figures of a step depend only on the sample and the step (pure, deterministic);
a placeholder no table knows raises :class:`assignors.io.narration.NarrationError`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from assignors import (
    PROTOCOLS,
    AssignmentExplorerError,
    Evaluation,
    RebalanceProtocol,
    RebalanceSimulation,
    Scenario,
    StrategyEvaluation,
    StreamsAssignment,
    StreamsScenario,
    evaluate,
    simulate_convergence,
)
from assignors.io.narration import PLACEHOLDER, NarrationError, fill, strategies_named
from assignors.io.walkthrough import WalkthroughStep

#: Records/s a warm-up restores per task in a Streams lesson (the Streams page's default).
RESTORE_SPEED = 1_000.0


def count(value: int) -> str:
    """An integer as a lesson states it (thousands separated)."""
    return f"{value:,}"


def seconds(value: float) -> str:
    """Seconds with at most one decimal, none when whole (``4``, ``4.5``)."""
    return f"{value:,.1f}".removesuffix(".0")


def names(items: Sequence[str]) -> str:
    """Member ids as a list in words (``nobody`` for none)."""
    if not items:
        return "nobody"
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _stopped(run: RebalanceSimulation) -> str:
    return count(len(run.stopped_members))


def _waiting(run: RebalanceSimulation) -> str:
    """Partitions that some phase leaves with nobody holding them though the target names one."""
    return count(len({tp for phase in run.phases for tp in phase.waiting}))


RunFigure = Callable[[RebalanceSimulation], str]
#: Figures of one rebalance run, under any protocol.
RUN_FIGURES: Mapping[str, RunFigure] = {
    "rounds": lambda run: count(run.rounds),
    "stopped": _stopped,
    "stopped_members": lambda run: names(run.stopped_members),
    "pauses": lambda run: count(run.partition_pauses),
    "pause_s": lambda run: seconds(run.pause_s),
    "group_stop_s": lambda run: seconds(run.group_stop_s),
    "duration_s": lambda run: seconds(run.duration_s),
    "waiting": _waiting,
}


def _lags(item: StrategyEvaluation) -> list[int]:
    return [m.lag for m in item.metrics.members if m.partitions]


def _busiest(item: StrategyEvaluation) -> str:
    busy = max(item.metrics.members, key=lambda m: (m.lag, m.member_id))
    return busy.member_id


def _sharing(item: StrategyEvaluation) -> str:
    holders: dict[object, int] = {}
    for partitions in item.target.partitions.values():
        for tp in partitions:
            holders[tp] = holders.get(tp, 0) + 1
    return count(max(holders.values(), default=0))


def _share(value: float | None) -> str:
    return "no" if value is None else f"{value:.0%}"


def _cross_rate(item: StrategyEvaluation) -> str:
    """Records/s read across zones: the produce rate of every partition read from another rack."""
    after = item.evaluation.after
    racks = {m.member_id: m.rack for m in after.members}
    rates = {t.name: t.produce_rates for t in after.topics}
    replicas = {t.name: t.replica_racks for t in after.topics}
    total = 0.0
    for member, partitions in item.target.partitions.items():
        for tp in partitions:
            held = replicas.get(tp.topic)
            rate = rates.get(tp.topic)
            if racks.get(member) and held and rate and racks[member] not in held[tp.partition]:
                total += rate[tp.partition]
    return count(math.ceil(total))


def _each(item: StrategyEvaluation) -> str:
    """Partitions per member: ``2 each``, or ``2 to 3 each`` when they differ."""
    low, high = item.metrics.partitions_min, item.metrics.partitions_max
    return f"{count(low)} each" if low == high else f"{count(low)} to {count(high)} each"


def _member_partitions(item: StrategyEvaluation) -> str:
    """Each member's partitions, in member order: ``C0: t0-0 and t0-1; C1: t0-2``."""
    held = item.target.partitions
    order = [m.member_id for m in item.evaluation.after.members]
    return "; ".join(f"{member}: {names([str(tp) for tp in held[member]])}" for member in order)


def _member_lags(item: StrategyEvaluation) -> str:
    """Each member's lag under the strategy: ``C0 100,000 and C1 110,000``."""
    return names([f"{m.member_id} {count(m.lag)}" for m in item.metrics.members])


def _partition_lags(item: StrategyEvaluation) -> str:
    """Each partition's lag: ``t0-0 (100,000), t0-1 (60,000) and t0-2 (50,000)``."""
    lags = item.evaluation.lags
    return names([f"{tp} ({count(lags[tp])})" for tp in sorted(lags)])


def _commits(item: StrategyEvaluation, committed: bool) -> str:
    """The partitions with (``committed``) or without a committed offset."""
    found = [
        f"{topic.name}-{index}"
        for topic in item.evaluation.after.topics
        for index in range(topic.partitions)
        if (
            topic.committed_offsets is not None
            and index < len(topic.committed_offsets)
            and topic.committed_offsets[index] is not None
        )
        == committed
    ]
    return names(found)


def _moves(item: StrategyEvaluation) -> str:
    """Each partition that changes owner and where it goes: ``orders-1 to C1 and ...``."""
    return names([f"{move.partition} to {move.to_member}" for move in item.movement.moved])


def _kept_by_member(item: StrategyEvaluation) -> str:
    """What each member that owned partitions keeps: ``C0 keeps 4 of its 5 and C1 ...``."""
    owned = item.evaluation.current.partitions
    kept = [
        f"{m.member_id} keeps {count(m.kept)} of its {count(len(owned[m.member_id]))}"
        for m in item.metrics.members
        if owned.get(m.member_id)
    ]
    return names(kept)


def _holder(item: StrategyEvaluation) -> str:
    """The member holding the most partitions (ties: the first in member order)."""
    held = item.target.partitions
    order = [m.member_id for m in item.evaluation.after.members]
    return max(order, key=lambda member: (len(held[member]), -order.index(member)))


def _holder_priority(item: StrategyEvaluation) -> str:
    """The failover priority of :func:`_holder` (``none`` when it states none)."""
    holder = _holder(item)
    member = next(m for m in item.evaluation.after.members if m.member_id == holder)
    return "none" if member.priority is None else count(member.priority)


def _departed_partitions(item: StrategyEvaluation) -> str:
    """Partitions the members that leave held before the change."""
    present = {m.member_id for m in item.evaluation.after.members}
    owned = item.evaluation.current.partitions
    return count(sum(len(tps) for member, tps in owned.items() if member not in present))


StrategyFigure = Callable[[StrategyEvaluation], str]
#: Figures of one strategy on the step's change (``{name}`` or ``{name:strategy}``).
GROUP_FIGURES: dict[str, StrategyFigure] = {
    "moved": lambda s: count(s.movement.moved_count + len(s.movement.dropped)),
    "kept": lambda s: count(s.movement.kept_count),
    "revoking": lambda s: names(sorted({m.from_member or "" for m in s.movement.revoked} - {""})),
    "moved_partitions": lambda s: names([f"{m.partition}" for m in s.movement.moved]),
    "members": lambda s: count(len(s.evaluation.after.members)),
    "partitions": lambda s: count(sum(t.partitions for t in s.evaluation.after.topics)),
    "partitions_max": lambda s: count(s.metrics.partitions_max),
    "partitions_min": lambda s: count(s.metrics.partitions_min),
    "lag_max": lambda s: count(max(_lags(s), default=0)),
    "lag_min": lambda s: count(min(_lags(s), default=0)),
    "busiest": _busiest,
    "idle": lambda s: count(len(s.metrics.idle_members)),
    "cross_rack": lambda s: count(s.metrics.cross_rack_assignments),
    "cross_rack_share": lambda s: _share(s.metrics.cross_rack_share),
    "cross_rack_rate": _cross_rate,
    "sharing": _sharing,
    "partitions_each": _each,
    "member_partitions": _member_partitions,
    "member_lags": _member_lags,
    "partition_lags": _partition_lags,
    "committed": lambda s: _commits(s, committed=True),
    "uncommitted": lambda s: _commits(s, committed=False),
    "moves": _moves,
    "kept_by_member": _kept_by_member,
    "holder": _holder,
    "holder_priority": _holder_priority,
    "departed_partitions": _departed_partitions,
    "restarted": lambda s: names(s.evaluation.restarted),
    "session_timeout_s": lambda s: seconds(s.evaluation.timings.session_timeout_s),
    "restart_s": lambda s: seconds(s.evaluation.timings.restart_s),
    "heartbeat_s": lambda s: seconds(s.evaluation.timings.heartbeat_interval_s),
}


def _own_run(figure: RunFigure) -> StrategyFigure:
    """``figure`` of the rebalance under the strategy's own protocol."""
    return lambda item: figure(item.simulation)


def _protocol_run(figure: RunFigure, protocol: RebalanceProtocol) -> StrategyFigure:
    """``figure`` of the same target played under ``protocol``."""
    return lambda item: figure(item.protocol_run(protocol))


for _name, _run_figure in RUN_FIGURES.items():
    GROUP_FIGURES[_name] = _own_run(_run_figure)
    for _protocol in PROTOCOLS:
        GROUP_FIGURES[f"{_protocol}_{_name}"] = _protocol_run(_run_figure, _protocol)


def _unknown(name: str, known: Sequence[str]) -> NarrationError:
    return NarrationError(f"no figure named {name!r}; figures: {', '.join(sorted(known))}")


@dataclass(frozen=True, slots=True)
class GroupStep:
    """What a consumer-group step's figures are read from: the evaluation and the strategy."""

    evaluation: Evaluation
    strategy: str

    def figure(self, name: str, strategy: str | None = None) -> str:
        """Figure ``name`` under ``strategy`` (default: the step's)."""
        if name not in GROUP_FIGURES:
            raise _unknown(name, list(GROUP_FIGURES))
        return GROUP_FIGURES[name](self.evaluation.strategy(strategy or self.strategy))


def group_steps(scenario: Scenario, steps: Sequence[WalkthroughStep]) -> list[GroupStep]:
    """Steps 1-2 of the module docstring for every step of a consumer-group walkthrough."""
    from sample_data import replay_walkthrough, step_before

    states = replay_walkthrough(scenario, steps)
    result = []
    for index, step in enumerate(steps):
        before = step_before(scenario, steps, index)
        strategy = states[index].strategy
        wanted = [strategy, *strategies_named(step.text)]
        result.append(GroupStep(evaluate(before, step.changes, wanted), strategy))
    return result


def _newcomers(streams: StreamsScenario) -> list[str]:
    """Clients that ran nothing before the rebalance (new instances, empty state)."""
    return [c.process_id for c in streams.clients if not c.prev_active and not c.prev_standby]


def streams_figures(streams: StreamsScenario) -> dict[str, str]:
    """Every figure of :data:`STREAMS_FIGURES` for ``streams`` (its probing rebalances)."""
    run = simulate_convergence(streams, RESTORE_SPEED)
    first, final = run.steps[0].assignment, run.final
    new = _newcomers(streams)

    stateful = set(streams.stateful_tasks)

    def on_new(answer: StreamsAssignment, role: str) -> int:
        """Stateful tasks the new instances run in ``role`` (``active`` or ``warmup``)."""
        held = [getattr(answer.clients[c], role) for c in new if c in answer.clients]
        return sum(1 for tasks in held for task in tasks if task in stateful)

    standbys = sum(len(c.standby) - len(c.warmup) for c in first.clients.values())
    return {
        "clients": count(len(streams.clients)),
        "tasks": count(len(streams.tasks)),
        "stateful": count(len(streams.stateful_tasks)),
        "standby_replicas": count(streams.config.num_standby_replicas),
        "acceptable_recovery_lag": count(streams.config.acceptable_recovery_lag),
        "max_warmups": count(streams.config.max_warmup_replicas),
        "interval_min": seconds(run.interval_ms / 60_000),
        "restore_speed": count(round(RESTORE_SPEED)),
        "standbys": count(standbys),
        "warmups": count(first.warmup_count),
        "probing_rebalances": count(run.probing_rebalances),
        "settle_min": seconds(run.probing_rebalances * run.interval_ms / 60_000),
        "new_active_first": count(on_new(first, "active")),
        "new_active_final": count(on_new(final, "active")),
        "new_warmups_first": count(on_new(first, "warmup")),
    }


#: The figures a Streams lesson may name (each step reads the same application).
STREAMS_FIGURES = (
    *("clients", "tasks", "stateful", "standby_replicas", "acceptable_recovery_lag"),
    *("max_warmups", "interval_min", "restore_speed", "standbys", "warmups"),
    *("probing_rebalances", "settle_min", "new_active_first", "new_active_final"),
    "new_warmups_first",
)


def _streams_figure(figures: Mapping[str, str]) -> Callable[[str, str | None], str]:
    def figure(name: str, strategy: str | None = None) -> str:
        if name not in figures or strategy is not None:
            raise _unknown(name if strategy is None else f"{name}:{strategy}", list(figures))
        return figures[name]

    return figure


def narrate(
    steps: Sequence[WalkthroughStep],
    scenario: Scenario | None = None,
    streams: StreamsScenario | None = None,
) -> tuple[str, ...]:
    """Each step's text with its placeholders filled (one of ``scenario`` / ``streams``)."""
    if not any(PLACEHOLDER.search(step.text) for step in steps):
        return tuple(step.text for step in steps)
    if streams is not None:
        figure = _streams_figure(streams_figures(streams))
        return tuple(fill(step.text, figure) for step in steps)
    if scenario is None:
        raise AssignmentExplorerError("narrate needs a consumer group or a Streams application")
    return tuple(
        fill(step.text, computed.figure)
        for step, computed in zip(steps, group_steps(scenario, steps), strict=True)
    )

"""A group too big to draw per partition, as numbers: when a group is big, and the small
:class:`Summary` of each assignment that the big-group page draws (numbers and per-member
counts, no per-partition data), worked out by :func:`work_out` in a worker process.

Invariants: a summary's size does not grow with the partitions (only with the members, as
counts); :func:`work_out` makes the what-if plan once and sends each answer as soon as it has
it (the current assignment first, then per strategy its measured target and its played
rebalance); a strategy that cannot apply sends a summary with its error, never raises.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pandas as pd

from assignors import (
    AssignmentExplorerError,
    AssignmentMetrics,
    RebalanceSimulation,
    Scenario,
)
from dashboard.model import whatif

#: Past any of these the group is shown as aggregates (issue 21: a browser draws about this much).
MAX_DRAWN_PARTITIONS = 50_000
MAX_DRAWN_MEMBERS = 1_000
MAX_DRAWN_TOPICS = 500
#: Members named in the "busiest" table.
BUSIEST = 10


def is_big(scenario: Scenario) -> bool:
    """Whether ``scenario`` is past what the per-partition views can draw."""
    return (
        sum(topic.partitions for topic in scenario.topics) > MAX_DRAWN_PARTITIONS
        or len(scenario.members) > MAX_DRAWN_MEMBERS
        or len(scenario.topics) > MAX_DRAWN_TOPICS
    )


@dataclass(frozen=True, slots=True)
class Summary:
    """One assignment (the current one or a strategy's target) in numbers.

    ``partitions_per_member`` and ``lag_per_member`` are sorted from the largest down; ``busiest``
    names the members with the most lag: ``(member, partitions, lag)``. ``rounds``, ``pause_s``
    and ``group_stop_s`` are ``None`` while the rebalance is still being played (a strategy's
    first, partial summary; never cached).
    """

    name: str
    moved: int
    idle: int
    partitions_spread: int
    lag_total: int
    lag_spread: float | None
    cross_rack: int
    splits: int
    rounds: int | None
    pause_s: float | None
    group_stop_s: float | None
    partitions_per_member: tuple[int, ...]
    lag_per_member: tuple[int, ...]
    busiest: tuple[tuple[str, int, int], ...]
    error: str | None = None


def _summary(
    name: str,
    measured: AssignmentMetrics,
    simulation: RebalanceSimulation | None,
    played: bool = True,
) -> Summary:
    members = measured.members
    busiest = sorted(members, key=lambda m: (-m.lag, -m.partitions, m.member_id))[:BUSIEST]
    return Summary(
        name=name,
        moved=measured.movement.moved_count + measured.movement.dropped_count,
        idle=len(measured.idle_members),
        partitions_spread=measured.partitions_spread,
        lag_total=measured.lag_total,
        lag_spread=measured.lag_max_min_ratio,
        cross_rack=measured.cross_rack_assignments,
        splits=measured.split_partition_count,
        rounds=None if not played else 0 if simulation is None else simulation.rounds,
        pause_s=None if not played else 0.0 if simulation is None else simulation.pause_s,
        group_stop_s=(
            None if not played else 0.0 if simulation is None else simulation.group_stop_s
        ),
        partitions_per_member=tuple(sorted((m.partitions for m in members), reverse=True)),
        lag_per_member=tuple(sorted((m.lag for m in members), reverse=True)),
        busiest=tuple((m.member_id, m.partitions, m.lag) for m in busiest),
    )


def _failed(name: str, error: str) -> Summary:
    return Summary(name, 0, 0, 0, 0, None, 0, 0, 0, 0.0, 0.0, (), (), (), error=error)


def summarise_current(plan: whatif.WhatIf) -> Summary:
    """The group as it is (runs in a worker process; the core's evaluation answers)."""
    return _summary("current", plan.evaluation.current_metrics, None)


def summarise_strategy(plan: whatif.WhatIf, name: str) -> Summary:
    """Strategy ``name`` on the what-if (runs in a worker process; the core's evaluation
    answers)."""
    evaluated = plan.evaluation.strategy(name)
    try:
        simulation = evaluated.simulation
        measured = evaluated.metrics
    except AssignmentExplorerError as error:
        return _failed(name, str(error))
    return _summary(name, measured, simulation)


def _measured_first(plan: whatif.WhatIf, name: str) -> Summary:
    """Strategy ``name``'s target measured, before its rebalance is played (the simulation's
    figures ``None``)."""
    evaluated = plan.evaluation.strategy(name)
    try:
        measured = evaluated.metrics
    except AssignmentExplorerError as error:
        return _failed(name, str(error))
    return _summary(name, measured, None, played=False)


Piece = tuple[tuple[str, ...], str]
"""A summary still to work out: its cache key and the assignment's name (``current`` or a
strategy's)."""


def work_out(
    emit: Callable[[tuple[tuple[str, ...], Summary, bool]], None],
    source: Scenario,
    edits: tuple[whatif.Edit, ...],
    pieces: Sequence[Piece],
) -> None:
    """In a worker process: the plan once, then each piece, emitted as soon as it is known.

    Emits ``(cache key, summary, final)``: the current assignment's summary, then per strategy
    a partial one (target measured; ``final`` False) and the final one (rebalance played). One
    plan serves every piece, so the current assignment, the lags and the after are worked out
    once per scenario, not once per piece.
    """
    plan = whatif.plan(source, edits)
    for cache_key, name in pieces:
        if name == "current":
            emit((cache_key, summarise_current(plan), True))
            continue
        partial = _measured_first(plan, name)
        if partial.error is None:
            emit((cache_key, partial, False))
        emit((cache_key, summarise_strategy(plan, name), True))


def summary_table(rows: Sequence[Summary]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "assignment": row.name,
                "moved": row.moved if row.name != "current" else None,
                "idle members": row.idle,
                "partition spread": row.partitions_spread,
                "lag spread": None if row.lag_spread is None else round(row.lag_spread, 2),
                "cross-rack": row.cross_rack,
                "co-partition splits": row.splits,
                "rounds": row.rounds if row.name != "current" else None,
                "longest pause (s)": row.pause_s if row.name != "current" else None,
            }
            for row in rows
        ]
    )

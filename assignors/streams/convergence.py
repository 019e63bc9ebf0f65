"""How many probing rebalances a Kafka Streams application needs to settle (KIP-441).

The high-availability assignor (:mod:`assignors.streams.high_availability`) keeps a task on a
caught-up instance and sends a *warm-up* to the instance that should own it; every
``probing.rebalance.interval.ms`` it runs again, and once the warm-ups have caught up the
balanced placement sticks. :func:`simulate_convergence` plays that sequence forward.

The model, one step per rebalance (step 0 is the rebalance of the scenario itself, every later
step a probing rebalance, ``interval`` seconds after the previous one):

1. Run the assignor on the current lags. If it asks for no probing rebalance, stop: converged.
2. Otherwise, advance the clock by ``interval`` and compute each client's lag on each stateful
   task for the next rebalance from what it held in this step:
   * held **active**: ``-2`` (it ran the task as active: caught up by definition);
   * held a **standby or warm-up**: it restores the changelog: starting from its lag (``0`` if
     it was ``-2``; for ``-3``, an unknown offset, a full restore: the largest non-negative lag
     any client reports for the task, or 0), the lag becomes
     ``max(0, ceil(start + (input_rate - restore_speed) * interval))``;
   * held **nothing**: its local state goes stale while the task's input grows the changelog:
     ``start + ceil(input_rate * interval)`` (``-3`` stays unknown).
   ``input_rate`` is the task's records/s (``input_rates``, default 0) and ``restore_speed``
   the records/s one replica restores. The next scenario also carries this step's assignment
   as ``prev_active`` / ``prev_standby``.
3. Repeat until converged or ``max_probing_rebalances`` probing rebalances have run (then
   ``converged`` is false: with ``restore_speed <= input_rate`` a warm-up never catches up).

Invariants: pure (the input scenario is not changed; the same inputs give the same steps);
``steps[i].time_ms == i * interval_ms``; only the last step may have
``probing_rebalance_needed`` false; ``probing_rebalances == len(steps) - 1``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType

from assignors.errors import AssignmentExplorerError
from assignors.streams.high_availability import assign_streams_ha
from assignors.streams.model import (
    LATEST_OFFSET,
    MIN_PROBING_REBALANCE_INTERVAL_MS,
    UNKNOWN_OFFSET,
    StreamsAssignment,
    StreamsClient,
    StreamsScenario,
    TaskId,
)

DEFAULT_MAX_PROBING_REBALANCES = 100


class ConvergenceInputError(AssignmentExplorerError, ValueError):
    """A simulation parameter is out of range; the message names it and what it accepts."""


@dataclass(frozen=True, slots=True)
class ConvergenceStep:
    """One rebalance: when it happens, the lags the assignor saw, and its answer."""

    index: int
    time_ms: int
    lags: Mapping[str, Mapping[TaskId, int]]
    assignment: StreamsAssignment


@dataclass(frozen=True, slots=True)
class Convergence:
    """The rebalances from the scenario's own (step 0) to the last probing rebalance."""

    steps: tuple[ConvergenceStep, ...]
    converged: bool
    interval_ms: int

    @property
    def probing_rebalances(self) -> int:
        """Probing rebalances that ran after the scenario's own rebalance."""
        return len(self.steps) - 1

    @property
    def final(self) -> StreamsAssignment:
        return self.steps[-1].assignment


def _check_rate(name: str, value: float, *, positive: bool) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ConvergenceInputError(f"{name}: expected a finite number of records/s, got {value!r}")
    if value < 0 or (positive and value == 0):
        bound = "greater than 0" if positive else "at least 0"
        raise ConvergenceInputError(f"{name}: expected a rate {bound} records/s, got {value}")


def _next_lag(
    lag: int, role: str, full_restore: int, input_rate: float, restore_speed: float, seconds: float
) -> int:
    if role == "active":
        return LATEST_OFFSET
    if role == "standby":
        start = full_restore if lag == UNKNOWN_OFFSET else max(lag, 0)
        return max(0, math.ceil(start + (input_rate - restore_speed) * seconds))
    if lag == UNKNOWN_OFFSET:
        return UNKNOWN_OFFSET
    return max(lag, 0) + math.ceil(input_rate * seconds)


def _advance(
    scenario: StreamsScenario,
    assignment: StreamsAssignment,
    restore_speed: float,
    input_rates: Mapping[TaskId, float],
    seconds: float,
) -> StreamsScenario:
    stateful = scenario.stateful_tasks
    full_restore = {
        task: max(
            (c.task_lags[task] for c in scenario.clients if c.task_lags[task] >= 0), default=0
        )
        for task in stateful
    }
    clients: list[StreamsClient] = []
    for client in scenario.clients:
        held = assignment.clients[client.process_id]
        active, standby = set(held.active), set(held.standby)
        lags = {
            task: _next_lag(
                client.task_lags[task],
                "active" if task in active else "standby" if task in standby else "none",
                full_restore[task],
                input_rates.get(task, 0.0),
                restore_speed,
                seconds,
            )
            for task in stateful
        }
        clients.append(
            replace(
                client,
                prev_active=held.active,
                prev_standby=held.standby,
                task_lags=MappingProxyType(lags),
            )
        )
    return replace(scenario, clients=tuple(clients))


def simulate_convergence(
    scenario: StreamsScenario,
    restore_speed: float,
    probing_interval_ms: int | None = None,
    input_rates: Mapping[TaskId, float] | None = None,
    max_probing_rebalances: int = DEFAULT_MAX_PROBING_REBALANCES,
) -> Convergence:
    """Play probing rebalances forward until the assignor asks for none (see module docstring).

    ``restore_speed``: records/s one standby or warm-up restores per task (> 0).
    ``probing_interval_ms``: time between rebalances (default: the scenario's
    ``probing_rebalance_interval_ms``; at least 60,000, as Kafka requires).
    ``input_rates``: records/s written to each stateful task's changelog (default 0).
    Raises :class:`ConvergenceInputError` for a parameter out of range.
    """
    interval_ms = (
        scenario.config.probing_rebalance_interval_ms
        if probing_interval_ms is None
        else probing_interval_ms
    )
    if isinstance(interval_ms, bool) or not isinstance(interval_ms, int):
        raise ConvergenceInputError(
            f"probing_interval_ms: expected an integer number of milliseconds, got {interval_ms!r}"
        )
    if interval_ms < MIN_PROBING_REBALANCE_INTERVAL_MS:
        raise ConvergenceInputError(
            f"probing_interval_ms: {interval_ms:,} is below Kafka's minimum of "
            f"{MIN_PROBING_REBALANCE_INTERVAL_MS:,} (probing.rebalance.interval.ms)"
        )
    _check_rate("restore_speed", restore_speed, positive=True)
    rates = dict(input_rates or {})
    stateful = set(scenario.stateful_tasks)
    for task, rate in rates.items():
        if task not in stateful:
            raise ConvergenceInputError(
                f"input_rates[{task}]: not a stateful task of the scenario; only stateful tasks "
                "have changelogs"
            )
        _check_rate(f"input_rates[{task}]", rate, positive=False)
    if isinstance(max_probing_rebalances, bool) or not isinstance(max_probing_rebalances, int):
        raise ConvergenceInputError("max_probing_rebalances: expected an integer")
    if max_probing_rebalances < 0:
        raise ConvergenceInputError(
            f"max_probing_rebalances: expected at least 0, got {max_probing_rebalances}"
        )

    seconds = interval_ms / 1000.0
    steps: list[ConvergenceStep] = []
    current = scenario
    while True:
        assignment = assign_streams_ha(current)
        steps.append(
            ConvergenceStep(
                index=len(steps),
                time_ms=len(steps) * interval_ms,
                lags=MappingProxyType({c.process_id: c.task_lags for c in current.clients}),
                assignment=assignment,
            )
        )
        if not assignment.probing_rebalance_needed:
            return Convergence(tuple(steps), converged=True, interval_ms=interval_ms)
        if len(steps) > max_probing_rebalances:
            return Convergence(tuple(steps), converged=False, interval_ms=interval_ms)
        current = _advance(current, assignment, restore_speed, rates, seconds)

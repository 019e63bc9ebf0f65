"""The expensive calls into the core, cached: what-if plan, strategies, simulation, metrics, drain.

Every function takes a ``key`` naming its input (the source's key plus a digest of the edits, see
:func:`dashboard.session.state.scenario_key`) and the input itself as an underscore argument, never
hashed: hashing a 10,000-partition scenario on every rerun would cost more than the cache saves.

Caching: every answer lives in the server's one byte-budgeted, expiring cache
(:mod:`dashboard.runtime.budget`, ``AE_CACHE_BYTES`` / ``AE_CACHE_TTL_S``), shared by the sessions
and never mutated. The plan's evaluation keeps each answer it computed, so after each answer the
plan's entry grows by that answer's size; an answer is also counted in its own entry, which
over-counts shared objects (the safe side for a budget). Work is done once per scenario: a
rerun that changes nothing finds everything here. Groups too big for these per-partition views
never come here: :mod:`dashboard.panels.big_group` works them out in worker processes.

A closed tab's page stops before its next piece of work here (each answer, figure and table):
what runs in the script thread is cut within one such piece; groups whose pieces are too big for
that go to the worker processes (above).

Nothing here decides anything: it asks the core's :func:`assignors.evaluate` (held by the
what-if plan, :class:`dashboard.model.whatif.WhatIf`) for the answers each view needs and packs them
for the views.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import streamlit as st

from assignors import (
    PROTOCOLS,
    Assignment,
    AssignmentExplorerError,
    AssignmentMetrics,
    DrainProjection,
    PartitionStrategy,
    RebalanceSimulation,
    Scenario,
    Timings,
    default_step,
    registry,
)
from dashboard.model import whatif
from dashboard.runtime import budget, sessions

T = TypeVar("T")
#: Entry cap of the few small Streamlit caches left elsewhere (e.g. a Streams convergence).
CACHE_ENTRIES = 96


@dataclass(frozen=True, slots=True)
class Current:
    """The group as it is: its current assignment and that assignment's metrics.

    ``key`` names the shaped scenario it was worked out for (the source and the shaping edits
    only), so views of the "before" alone are cached once for every membership edit.
    """

    assignment: Assignment
    metrics: AssignmentMetrics
    key: str = ""


@dataclass(frozen=True, slots=True)
class StrategyOutcome:
    """One strategy on the what-if: the rebalance it causes and where it ends.

    ``error`` is set (and the rest empty) when the strategy cannot run on this scenario.
    """

    name: str
    strategy: PartitionStrategy
    simulation: RebalanceSimulation | None
    metrics: AssignmentMetrics | None
    error: str | None = None

    @property
    def target(self) -> Assignment | None:
        return None if self.simulation is None else self.simulation.target


_imports_frozen = False


def freeze_imports() -> None:
    """Once per process: exempt what is loaded so far (modules, classes) from garbage collection.

    Streamlit, Plotly and pandas leave ~150,000 objects that live as long as the process. A full
    collection scans every tracked object, and the cached results of a 10,000-partition group
    trigger one every rerun or two; frozen, those objects no longer add ~100 ms to it. Nothing
    frozen here would ever be garbage, so nothing leaks. Call it after the app's imports.
    """
    global _imports_frozen
    if not _imports_frozen:
        gc.collect()
        gc.freeze()
        _imports_frozen = True


def _cached(entry: tuple[str, ...], build: Callable[[], T], plan_key: str | None = None) -> T:
    """``build()`` once per ``entry`` in the shared budget; the plan it came from (which keeps
    the answer too) grows by the answer's size, sized once: re-walking the whole plan after
    each answer cost ~50-80 ms per strategy at 10,000 partitions."""
    cache = budget.shared()
    found = cache.get(entry)
    if found is not None:
        value: T = found
        return value
    if not sessions.session_alive():
        # The tab closed: Streamlit would run this page to its end for nobody (a script thread
        # cannot be stopped from outside); end the run before the next piece of work instead.
        st.stop()
    value = build()
    nbytes = budget.estimate_bytes(value)
    cache.put(entry, value, nbytes)
    if plan_key is not None:
        cache.grow(("plan", plan_key), nbytes)
    return value


def memo(key: str, what: str, _build: Callable[[], Any]) -> Any:
    """``_build()`` once per (``key``, ``what``): figures and tables derived from cached results.

    ``key`` names the scenario and edits, ``what`` the view and every choice that shapes it
    (strategy, horizon, ...); the callable itself is not hashed.
    """
    return _cached(("memo", key, what), _build)


def partition_strategies() -> dict[str, PartitionStrategy]:
    """Every registered consumer-group strategy, in registry order."""
    return registry.partition_strategies()


def plan(key: str, _source: Scenario, _edits: tuple[whatif.Edit, ...]) -> whatif.WhatIf:
    """The what-if for ``key`` (see :func:`dashboard.model.whatif.plan`)."""
    return _cached(("plan", key), lambda: whatif.plan(_source, _edits))


def current(key: str, _plan: whatif.WhatIf) -> Current:
    """The before: the current assignment of the shaped scenario and its metrics.

    ``key`` names the source and the shaping edits only (the "before" does not depend on the
    membership edits), so adding a member reuses it.
    """
    evaluation = _plan.evaluation
    return _cached(
        ("current", key),
        lambda: Current(evaluation.current, evaluation.current_metrics, key),
    )


def outcome(key: str, name: str, _plan: whatif.WhatIf) -> StrategyOutcome:
    """Strategy ``name`` on the what-if: simulated rebalance and metrics against the before."""
    return _cached(("outcome", key, name), lambda: _outcome(name, _plan), plan_key=key)


def _outcome(name: str, _plan: whatif.WhatIf) -> StrategyOutcome:
    strategy = partition_strategies()[name]
    evaluated = _plan.evaluation.strategy(name)
    try:
        simulation = evaluated.simulation
        measured = evaluated.metrics
    except AssignmentExplorerError as error:
        return StrategyOutcome(name, strategy, None, None, error=str(error))
    return StrategyOutcome(name, strategy, simulation, measured)


def outcomes(key: str, names: Sequence[str], the_plan: whatif.WhatIf) -> list[StrategyOutcome]:
    """Every picked strategy's outcome, in the order picked."""
    known = partition_strategies()
    return [outcome(key, name, the_plan) for name in names if name in known]


def drain_projection(
    key: str, name: str, _plan: whatif.WhatIf, _outcome: StrategyOutcome, horizon_s: float
) -> DrainProjection | None:
    """How the lag drains after the change under strategy ``name``."""
    if _outcome.simulation is None:
        return None
    evaluated = _plan.evaluation.strategy(name)
    return _cached(
        ("drain", key, name, str(horizon_s)),
        lambda: evaluated.drain(horizon_s, default_step(horizon_s)),
        plan_key=key,
    )


def protocol_runs(
    key: str,
    name: str,
    _plan: whatif.WhatIf,
    _outcome: StrategyOutcome,
    timings: Timings | None = None,
) -> dict[str, RebalanceSimulation]:
    """The same change and target played out under each protocol (eager, cooperative, KIP-848),
    with the evaluation's timings or ``timings`` (the core's :class:`assignors.Timings`)."""
    if _outcome.simulation is None:
        return {}
    evaluated = _plan.evaluation.strategy(name)
    entry = ("protocols", key, name) if timings is None else ("protocols", key, name, repr(timings))
    return _cached(
        entry,
        lambda: {protocol: evaluated.protocol_run(protocol, timings) for protocol in PROTOCOLS},
        plan_key=key,
    )

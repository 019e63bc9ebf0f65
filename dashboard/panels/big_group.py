"""The page for a group too big to draw per partition: worked out in stoppable worker processes,
kept once per scenario, and shown as aggregates.

Past :func:`is_big` (more partitions, members or topics than a browser can show one mark each),
the explorer swaps its per-partition views for this page:

1. The server's thread only applies the edits (:func:`dashboard.model.whatif.outline`: the shaping
   controls' lists); no assignment is worked out there.
2. Whatever is not cached yet is worked out in one worker process (:mod:`dashboard.runtime.jobs`),
   which makes the what-if plan once and sends each answer as a small :class:`Summary` (numbers and
   per-member counts, no per-partition data) as soon as it has it: the current assignment first,
   then per strategy its measured target and then its played rebalance. The page draws each as
   it arrives, with a progress line; a closed tab or a new action stops the worker. Final
   summaries are kept under the scenario's key, so a rerun that changes nothing recomputes
   nothing and the server never holds a per-partition structure of its own for the group.
3. The page says why it shows aggregates, and shows: a table of each assignment's numbers, the
   partitions and the lag per member as sorted curves (:mod:`dashboard.charts.aggregate_charts`),
   and the busiest members.

Invariants: the server holds no per-partition structure for the group besides the source and
the edited scenarios; the figures' size does not grow with the group; the shaping controls are
the same panel as for small groups; an answer is worked out at most once per scenario and edits.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from assignors import (
    AssignmentExplorerError,
    AssignmentMetrics,
    RebalanceSimulation,
    Scenario,
    registry,
)
from dashboard.charts import aggregate_charts
from dashboard.model import whatif
from dashboard.panels import shape_panel
from dashboard.runtime import budget, jobs, sessions
from dashboard.session import state

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


def _outline(source: Scenario) -> tuple[Scenario, Scenario] | None:
    """The shaped before and the after's membership (:func:`dashboard.model.whatif.outline`), once
    per scenario and edits; an edit that does not fit is undone. No strategy runs here: the
    server's thread only applies the edits."""
    cache = budget.shared()
    for _ in range(len(state.edits()) + 1):
        key = state.scenario_key()
        try:
            found: tuple[Scenario, Scenario] = cache.get_or_build(
                ("outline", key), lambda: whatif.outline(source, state.edits())
            )
            return found
        except AssignmentExplorerError as error:
            dropped = state.undo()
            if dropped is None:
                st.error(f"The scenario cannot be shown: {error}")
                return None
            st.error(f"Edit “{whatif.describe(dropped)}” was undone: {error}")
    return None


def summaries(
    key: str,
    current_key: str,
    source: Scenario,
    names: Sequence[str],
    draw: Callable[[Sequence[Summary], bool], None],
    size: tuple[int, int],
) -> list[Summary]:
    """The current assignment's summary, then each strategy's: cached ones at once, the others
    worked out in one worker process and drawn (``draw(rows, final)``) as each arrives, with a
    progress line. Only final summaries are cached."""
    cache = budget.shared()
    wanted = [(("current", current_key), "current")] + [(("strategy", key, n), n) for n in names]
    missing = [(k, n) for k, n in wanted if k not in cache]
    if not missing:
        return [found for found in (cache.get(k) for k, _ in wanted) if found is not None]
    partitions, members = size
    shown: dict[tuple[str, ...], Summary] = {}
    with st.status(
        f"Working out {len(missing)} assignment(s) of {partitions:,} partitions over "
        f"{members:,} members…",
        expanded=True,
    ) as box:
        line = st.empty()
        started = time.monotonic()
        finished: list[str] = []

        def rows() -> list[Summary]:
            return [
                row for row in (shown.get(k) or cache.get(k) for k, _ in wanted) if row is not None
            ]

        def arrived(item: tuple[tuple[str, ...], Summary, bool]) -> None:
            cache_key, summary, final = item
            shown[cache_key] = summary
            if final:
                cache.put(cache_key, summary)
                finished.append(summary.name)
            progress(time.monotonic() - started)
            draw(rows(), False)

        def progress(elapsed: float) -> None:
            busy = next((n for k, n in missing if n not in finished), None)
            line.text(
                f"{len(finished)} of {len(missing)} done"
                + (f"; now {busy}" if busy else "")
                + f" ({elapsed:.0f} s)"
            )

        jobs.stream(
            work_out,
            source,
            tuple(state.edits()),
            missing,
            on_item=arrived,
            on_wait=progress,
            still_wanted=sessions.session_alive,
            on_queued=lambda ahead, elapsed: line.text(jobs.queued_text(ahead, elapsed)),
        )
        box.update(label=f"Worked out in {time.monotonic() - started:.1f} s", state="complete")
    return rows()


def _table(rows: Sequence[Summary]) -> pd.DataFrame:
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


def render(source: Scenario, picked: Sequence[str]) -> None:
    """The big-group page below the title: note, shaping controls, numbers, aggregate charts.

    The server's thread applies the edits (:func:`_outline`) and draws; every assignment is
    worked out in a worker process (:func:`work_out`), the current one first, and drawn as it
    arrives.
    """
    shaped = _outline(source)
    if shaped is None:
        return
    before, after = shaped
    key = state.plan_key()  # the outline may have undone an edit that no longer fits
    partitions = sum(topic.partitions for topic in after.topics)
    st.info(
        f"This group has {partitions:,} partitions, {len(after.members):,} members and "
        f"{len(after.topics):,} topics: more than a browser can draw one mark each "
        f"(the per-partition views stop at {MAX_DRAWN_PARTITIONS:,} partitions, "
        f"{MAX_DRAWN_MEMBERS:,} members or {MAX_DRAWN_TOPICS:,} topics). "
        "Shown here: each assignment's numbers and how the members share the partitions and "
        "the lag."
    )
    shape_panel.panel(source, before, after)
    known = [name for name in picked if name in registry.partition_strategies()]
    area = st.empty()
    drawn = [0]

    def draw(rows: Sequence[Summary], final: bool) -> None:
        drawn[0] += 1
        with area.container():
            _results(key, rows, "" if final else f".{drawn[0]}")

    try:
        rows = summaries(
            key,
            state.scenario_key(whatif.is_shaping),
            source,
            known,
            draw,
            (partitions, len(after.members)),
        )
    except jobs.JobCancelled:
        st.stop()
    except jobs.JobFailed as error:
        area.empty()
        st.error(f"The computation failed: {error}")
        return
    draw(rows, True)


def _results(key: str, rows: Sequence[Summary], suffix: str) -> None:
    """Warnings, the numbers table and the figures for ``rows``; ``suffix`` keeps the element
    keys of the drawings made while the work goes on distinct from the final one's."""
    for row in rows:
        if row.error is not None:
            st.warning(f"{row.name} cannot run on this scenario: {row.error}")
    ran = [row for row in rows if row.error is None]
    st.dataframe(_table(ran), hide_index=True, width="stretch")
    _figures(key, ran, suffix)


def _figures(key: str, rows: Sequence[Summary], suffix: str = "") -> None:
    left, right = st.columns(2)
    names = ",".join(row.name for row in rows)  # a partial summary draws as its final one
    cache = budget.shared()
    partitions = cache.get_or_build(
        ("figure", key, "partitions", names),
        lambda: aggregate_charts.sorted_values_figure(
            [(row.name, row.partitions_per_member) for row in rows],
            title="Partitions per member",
            value_label="partitions",
        ),
    )
    lag = cache.get_or_build(
        ("figure", key, "lag", names),
        lambda: aggregate_charts.sorted_values_figure(
            [(row.name, row.lag_per_member) for row in rows],
            title="Lag per member",
            value_label="lag (records)",
        ),
    )
    left.plotly_chart(partitions, width="stretch", key=f"big.partitions{suffix}")
    right.plotly_chart(lag, width="stretch", key=f"big.lag{suffix}")
    st.markdown("**Busiest members** (most lag) per assignment")
    st.dataframe(
        pd.DataFrame(
            [
                {"assignment": row.name, "member": member, "partitions": count, "lag": lag_value}
                for row in rows
                for member, count, lag_value in row.busiest
            ]
        ),
        hide_index=True,
        width="stretch",
        height=300,
    )

"""The page for a group too big to draw per partition: worked out in stoppable worker processes,
kept once per scenario, and shown as aggregates.

Past :func:`is_big` (more partitions, members or topics than a browser can show one mark each),
the explorer swaps its per-partition views for this page:

1. The what-if plan is computed once per scenario and edits, and kept in the byte-budgeted cache
   (:mod:`dashboard.budget`).
2. The current assignment's and each picked strategy's metrics are computed one piece at a time
   in a worker process (:mod:`dashboard.jobs`), with a progress line; a closed tab or a new
   action stops the piece under way. Each piece comes back as a small :class:`Summary` (numbers
   and per-member counts, no per-partition data), kept under the scenario's key, so a rerun that
   changes nothing recomputes nothing.
3. The page says why it shows aggregates, and shows: a table of each assignment's numbers, the
   partitions and the lag per member as sorted curves (:mod:`dashboard.aggregate_charts`), and
   the busiest members.

Invariants: nothing here holds a per-partition structure besides the plan; the figures' size does
not grow with the group; the shaping controls are the same panel as for small groups.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
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
from dashboard import aggregate_charts, budget, jobs, shape_panel, state, whatif

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
    names the members with the most lag: ``(member, partitions, lag)``.
    """

    name: str
    moved: int
    idle: int
    partitions_spread: int
    lag_total: int
    lag_spread: float | None
    cross_rack: int
    splits: int
    rounds: int
    pause_s: float
    group_stop_s: float
    partitions_per_member: tuple[int, ...]
    lag_per_member: tuple[int, ...]
    busiest: tuple[tuple[str, int, int], ...]
    error: str | None = None


def _summary(
    name: str,
    measured: AssignmentMetrics,
    simulation: RebalanceSimulation | None,
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
        rounds=0 if simulation is None else simulation.rounds,
        pause_s=0.0 if simulation is None else simulation.pause_s,
        group_stop_s=0.0 if simulation is None else simulation.group_stop_s,
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


def _session_alive() -> bool:
    """False once the browser tab of this script's session has gone (True outside a server)."""
    try:
        from streamlit.runtime import Runtime
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        context = get_script_run_ctx()
        if context is None or not Runtime.exists():
            return True
        return Runtime.instance().is_active_session(context.session_id)
    except Exception:  # no runtime to ask: nobody to stop for
        return True


def _plan(source: Scenario) -> whatif.WhatIf | None:
    """The what-if plan, once per scenario and edits; an edit that does not fit is undone."""
    cache = budget.shared()
    for _ in range(len(state.edits()) + 1):
        key = state.scenario_key()
        try:
            return cache.get_or_build(("plan", key), lambda: whatif.plan(source, state.edits()))
        except AssignmentExplorerError as error:
            dropped = state.undo()
            if dropped is None:
                st.error(f"The scenario cannot be shown: {error}")
                return None
            st.error(f"Edit “{whatif.describe(dropped)}” was undone: {error}")
    return None


def summaries(
    key: str, current_key: str, plan: whatif.WhatIf, names: Sequence[str]
) -> list[Summary]:
    """The current assignment's summary, then each strategy's: cached ones at once, the others
    computed one by one in a worker process with a progress line."""
    cache = budget.shared()
    wanted = [(("current", current_key), "current")] + [(("strategy", key, n), n) for n in names]
    missing = [(k, n) for k, n in wanted if k not in cache]
    if missing:
        size = sum(topic.partitions for topic in plan.after.topics)
        with st.status(
            f"Working out {len(missing)} assignment(s) of {size:,} partitions over "
            f"{len(plan.after.members):,} members…",
            expanded=True,
        ) as box:
            line = st.empty()
            started = time.monotonic()
            for done, (cache_key, name) in enumerate(missing):

                def progress(elapsed: float, done: int = done, name: str = name) -> None:
                    line.text(
                        f"{done} of {len(missing)} done; now {name} ({elapsed:.0f} s, "
                        f"{time.monotonic() - started:.0f} s in all)"
                    )

                if name == "current":
                    result = jobs.run(
                        summarise_current, plan, on_wait=progress, still_wanted=_session_alive
                    )
                else:
                    result = jobs.run(
                        summarise_strategy,
                        plan,
                        name,
                        on_wait=progress,
                        still_wanted=_session_alive,
                    )
                cache.put(cache_key, result)
            box.update(label=f"Worked out in {time.monotonic() - started:.1f} s", state="complete")
    found = [cache.get(k) for k, _ in wanted]
    return [summary for summary in found if summary is not None]


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
    """The big-group page below the title: note, shaping controls, numbers, aggregate charts."""
    plan = _plan(source)
    if plan is None:
        return
    key = state.scenario_key()  # the plan may have undone an edit that no longer fits
    partitions = sum(topic.partitions for topic in plan.after.topics)
    st.info(
        f"This group has {partitions:,} partitions, {len(plan.after.members):,} members and "
        f"{len(plan.after.topics):,} topics: more than a browser can draw one mark each "
        f"(the per-partition views stop at {MAX_DRAWN_PARTITIONS:,} partitions, "
        f"{MAX_DRAWN_MEMBERS:,} members or {MAX_DRAWN_TOPICS:,} topics). "
        "Shown here: each assignment's numbers and how the members share the partitions and "
        "the lag."
    )
    with st.expander("Shape the what-if: add, remove or restart members, topics, lag"):
        shape_panel.render(source, plan.before, plan.after)
    known = [name for name in picked if name in registry.partition_strategies()]
    try:
        rows = summaries(key, state.scenario_key(whatif.is_shaping), plan, known)
    except jobs.JobCancelled:
        st.stop()
    except jobs.JobFailed as error:
        st.error(f"The computation failed: {error}")
        return
    for row in rows:
        if row.error is not None:
            st.warning(f"{row.name} cannot run on this scenario: {row.error}")
    ran = [row for row in rows if row.error is None]
    st.dataframe(_table(ran), hide_index=True, width="stretch")
    _figures(key, ran)


def _figures(key: str, rows: Sequence[Summary]) -> None:
    left, right = st.columns(2)
    names = ",".join(row.name for row in rows)
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
    left.plotly_chart(partitions, width="stretch", key="big.partitions")
    right.plotly_chart(lag, width="stretch", key="big.lag")
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

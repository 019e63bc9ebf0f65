"""Kafka Streams: tasks per client and the probing rebalances that follow, as warm-ups catch up.

Shown instead of the consumer-group views when the source is a Kafka Streams application (a
Streams sample or upload). The core does the work: :mod:`assignors.streams.convergence` runs the
registry's ``streams-ha`` assignor rebalance after rebalance; this module lays it out:

1. Inputs: how fast a warm-up or standby restores (records/s per task), the probing rebalance
   interval, and how fast each stateful task's changelog grows (records/s).
2. The figure (:func:`dashboard.charts.assignment_charts.streams_tasks_figure`): one frame for what
   the clients held before, then one per rebalance (the scenario's own, then each probing
   rebalance), with active, standby and warm-up tasks per client.
3. In words: how many probing rebalances until the warm-ups caught up (and how long), or that
   they never do (restore speed not above the input rate).
4. A table per rebalance: time, warm-ups handed out, tasks per client.
5. Every task assignor Kafka has on the same application (:mod:`dashboard.panels.streams_compare`).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from assignors import (
    MIN_PROBING_REBALANCE_INTERVAL_MS,
    AssignmentExplorerError,
    ClientAssignment,
    Convergence,
    StreamsScenario,
    simulate_convergence,
)
from dashboard.charts import assignment_charts
from dashboard.model import palette
from dashboard.model.plain import ERROR_ICON, SUCCESS_ICON, WARNING_ICON, escape_markdown
from dashboard.panels import projector_panel, streams_compare
from dashboard.session import compute
from sample_data import narration

#: Records/s one warm-up or standby restores, before the user changes it (the speed a Streams
#: lesson's narration states its figures at).
DEFAULT_RESTORE_SPEED = narration.RESTORE_SPEED
#: A sequence that has not converged after this many probing rebalances stops there.
MAX_PROBING_REBALANCES = 100


@st.cache_resource(max_entries=compute.CACHE_ENTRIES, show_spinner=False)
def convergence(
    key: str,
    _streams: StreamsScenario,
    restore_speed: float,
    interval_ms: int,
    input_rate: float,
) -> Convergence:
    """The probing-rebalance sequence of source ``key`` for these inputs (cached)."""
    rates = dict.fromkeys(_streams.stateful_tasks, input_rate) if input_rate > 0 else None
    return simulate_convergence(
        _streams,
        restore_speed,
        probing_interval_ms=interval_ms,
        input_rates=rates,
        max_probing_rebalances=MAX_PROBING_REBALANCES,
    )


def step_label(index: int, time_ms: int) -> str:
    """``rebalance`` for the scenario's own, ``probing k (+m min)`` for the later ones."""
    if index == 0:
        return "rebalance"
    return f"probing {index} (+{time_ms / 60_000:,.0f} min)"


def phases(
    streams: StreamsScenario, result: Convergence
) -> list[tuple[str, list[assignment_charts.ClientTasks]]]:
    """The figure's frames: what the clients held before, then every rebalance's answer."""
    frames = [
        (
            "before",
            [
                assignment_charts.ClientTasks.of(
                    client.process_id, ClientAssignment.of(client.prev_active, client.prev_standby)
                )
                for client in streams.clients
            ],
        )
    ]
    for step in result.steps:
        frames.append(
            (
                step_label(step.index, step.time_ms),
                [
                    assignment_charts.ClientTasks.of(client, held)
                    for client, held in step.assignment.clients.items()
                ],
            )
        )
    return frames


def summary(result: Convergence, restore_speed: float, input_rate: float) -> str:
    """The outcome in one sentence."""
    minutes = result.steps[-1].time_ms / 60_000
    if result.converged and result.probing_rebalances == 0:
        return "The first rebalance is final: every task lands on a caught-up client."
    if result.converged:
        return (
            f"The warm-ups caught up after {result.probing_rebalances} probing rebalance(s): "
            f"the balanced assignment holds {minutes:,.0f} minutes after the first rebalance."
        )
    if restore_speed <= input_rate:
        why = (
            f"a warm-up restores {restore_speed:,.0f} records/s while its task's input grows "
            f"{input_rate:,.0f} records/s, so it never catches up. Raise the restore speed or "
            "lower the input rate."
        )
    else:
        why = "the warm-ups are still restoring; at this speed they need longer than shown."
    return (
        f"Not converged after {result.probing_rebalances} probing rebalances "
        f"({minutes:,.0f} minutes): {why}"
    )


def step_table(result: Convergence) -> pd.DataFrame:
    """One row per rebalance: when, warm-ups handed out, and a column per client (named
    shortly, the header no wider than its cells) with its active/standby tasks."""
    rows = []
    for step in result.steps:
        row: dict[str, object] = {
            "rebalance": step_label(step.index, step.time_ms),
            "minutes": step.time_ms / 60_000,
            "warm-ups": step.assignment.warmup_count,
            "probing needed": step.assignment.probing_rebalance_needed,
        }
        for client, held in step.assignment.clients.items():
            row[palette.short_label(client, 14)] = f"{len(held.active)}/{len(held.standby)}"
        rows.append(row)
    return pd.DataFrame(rows)


@st.fragment
def render(key: str, streams: StreamsScenario) -> None:
    """The Streams view (reruns alone when an input changes)."""
    stateful = len(streams.stateful_tasks)
    st.markdown(
        f"**{len(streams.clients)} clients**, {len(streams.tasks)} tasks ({stateful:,} stateful);"
        f" {streams.config.num_standby_replicas:,} standby replica(s), at most "
        f"{streams.config.max_warmup_replicas:,} warm-up(s), acceptable recovery lag "
        f"{streams.config.acceptable_recovery_lag:,} records. Assigned by `streams-ha` "
        "(Kafka Streams' high-availability task assignor)."
    )
    speed, interval, rate = st.columns(3)
    restore_speed = speed.number_input(
        "Restore speed (records/s per task)",
        min_value=1.0,
        value=DEFAULT_RESTORE_SPEED,
        step=100.0,
        key="streams.restore_speed",
        help="How fast a warm-up or standby replica replays a task's changelog.",
    )
    minutes = interval.number_input(
        "Probing rebalance interval (minutes)",
        min_value=MIN_PROBING_REBALANCE_INTERVAL_MS / 60_000,
        value=streams.config.probing_rebalance_interval_ms / 60_000,
        step=1.0,
        key="streams.interval_min",
        help="probing.rebalance.interval.ms (Kafka requires at least one minute).",
    )
    input_rate = rate.number_input(
        "Input rate (records/s per stateful task)",
        min_value=0.0,
        value=0.0,
        step=100.0,
        key="streams.input_rate",
        help="How fast each task's changelog grows while a warm-up restores it.",
    )
    try:
        result = convergence(
            key, streams, float(restore_speed), round(minutes * 60_000), float(input_rate)
        )
    except AssignmentExplorerError as error:
        st.error(escape_markdown(str(error)), icon=ERROR_ICON)
        return
    outcome = summary(result, float(restore_speed), float(input_rate))
    if result.converged:
        st.success(escape_markdown(outcome), icon=SUCCESS_ICON)
    else:
        st.warning(escape_markdown(outcome), icon=WARNING_ICON)
    st.subheader("Tasks per client, rebalance by rebalance")
    st.caption(
        "Blue: active; teal: standby; orange, hatched: warm-up (a standby restoring state on the "
        "client that should own the task). Press ▶ Play or drag the slider."
    )
    projector_panel.plotly_chart(
        assignment_charts.streams_tasks_figure(phases(streams, result)),
        width="stretch",
        key="streams.figure",
    )
    st.caption("Rebalance by rebalance: each client's tasks, active/standby.")
    projector_panel.dataframe(step_table(result), hide_index=True, width="stretch")
    streams_compare.render(key, streams)

"""The Streams view's comparison: every task assignor Kafka has, on the same application.

Kafka Streams assigns tasks with one of three assignors, chosen by how the application joins:
``streams-ha`` (the classic protocol's default, KIP-441), ``streams-sticky`` (the classic
protocol's ``task.assignor.class`` alternative, KIP-924) and ``streams-group-sticky`` (the
broker's assignor of a Streams group, ``group.protocol=streams``, KIP-1071). The core runs them
(:func:`assignors.compare_task_strategies`); this module shows:

1. A figure with a frame per assignor (and one for what the clients held before): tasks per
   client, active, standby and warm-up, the slider switching between assignors.
2. Two tables: per assignor, the active tasks that change client, the warm-ups handed out and
   whether a probing rebalance follows (or why it cannot run); per client, its active/standby
   counts under each assignor (a row per client: the table keeps its width however many
   clients the application has).
3. How an application selects each one (the registry's configuration text).

A *Kafka version* selector (default: the one picked in the sidebar, else the application's
``kafka_version``, else the newest) sets the release that the assignors whose answers changed
between releases (``streams-sticky``) reproduce.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from assignors import (
    ClientAssignment,
    StreamsScenario,
    TaskComparison,
    compare_task_strategies,
    registry,
)
from dashboard.charts import assignment_charts
from dashboard.model import palette
from dashboard.model.plain import escape_markdown
from dashboard.panels import projector_panel
from dashboard.panels.strategy_panel import kafka_version_picker
from dashboard.session import compute

_VERSION = "streams.kafka_version"


@st.cache_resource(max_entries=compute.CACHE_ENTRIES, show_spinner=False)
def comparison(
    key: str, _streams: StreamsScenario, kafka_version: str | None = None
) -> tuple[TaskComparison, ...]:
    """Every registered task strategy on source ``key`` as Kafka ``kafka_version`` (cached)."""
    return compare_task_strategies(
        _streams, registry.task_strategies(), kafka_version=kafka_version
    )


def _kafka_version(streams: StreamsScenario) -> str:
    """The Kafka version selector for the task strategies that answer by Kafka release."""
    dependent = {n: s.older_kafka for n, s in registry.task_strategies().items() if s.older_kafka}
    return kafka_version_picker(_VERSION, streams.kafka_version, dependent)


def phases(
    streams: StreamsScenario, results: Sequence[TaskComparison]
) -> list[tuple[str, list[assignment_charts.ClientTasks]]]:
    """The figure's frames: ``before``, then one per assignor that could run."""
    before = [
        assignment_charts.ClientTasks.of(
            c.process_id, ClientAssignment.of(c.prev_active, c.prev_standby)
        )
        for c in streams.clients
    ]
    frames = [("before", before)]
    for result in results:
        if result.error is None:
            frames.append(
                (
                    result.strategy,
                    [
                        assignment_charts.ClientTasks.of(p, held)
                        for p, held in result.clients.items()
                    ],
                )
            )
    return frames


def table(results: Sequence[TaskComparison]) -> pd.DataFrame:
    """One row per assignor: moves, warm-ups, probing; or why it cannot run."""
    rows = []
    for result in results:
        row: dict[str, object] = {"assignor": result.strategy}
        if result.error is not None:
            row["active tasks moved"] = None
            row["note"] = result.error
        else:
            row["active tasks moved"] = result.moved_active
            row["warm-ups"] = result.warmups
            row["probing rebalance follows"] = "yes" if result.probing_rebalance_needed else "no"
        rows.append(row)
    return pd.DataFrame(rows)


def clients_table(streams: StreamsScenario, results: Sequence[TaskComparison]) -> pd.DataFrame:
    """One row per client: its active/standby counts before and under each assignor that ran."""
    ran = [result for result in results if result.error is None]
    rows = []
    for client in streams.clients:
        row: dict[str, object] = {
            "client": palette.short_label(client.process_id, 14),
            "before": f"{len(client.prev_active)}/{len(client.prev_standby)}",
        }
        for result in ran:
            held = result.clients[client.process_id]
            row[result.strategy] = f"{len(held.active)}/{len(held.standby)}"
        rows.append(row)
    return pd.DataFrame(rows)


def render(key: str, streams: StreamsScenario) -> None:
    """The comparison section of the Streams view."""
    st.subheader("Every Streams task assignor on this application")
    results = comparison(key, streams, _kafka_version(streams))
    st.caption(
        "The same clients, tasks and lags under each of Kafka's task assignors. Drag the slider "
        "to switch assignor; 'before' is what the clients held."
    )
    projector_panel.plotly_chart(
        assignment_charts.streams_tasks_figure(phases(streams, results), slider_prefix="Assignor"),
        width="stretch",
        key="streams.compare_figure",
    )
    projector_panel.dataframe(table(results), hide_index=True, width="stretch")
    st.caption("Each client's tasks, active/standby, before and under each assignor.")
    projector_panel.dataframe(clients_table(streams, results), hide_index=True, width="stretch")
    with st.expander("How an application chooses its assignor"):
        for name, strategy in registry.task_strategies().items():
            st.markdown(
                f"**{escape_markdown(name)}**: {escape_markdown(strategy.summary)}  \n"
                f"{escape_markdown(strategy.consumer_config)}"
            )

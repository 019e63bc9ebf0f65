"""The *Protocols* view: the what-if's change under eager, cooperative (KIP-429) and KIP-848
rebalancing, side by side on one time axis, one row per member.

The timings are inputs (milliseconds, as Kafka's settings are written), their defaults the
core's :class:`assignors.Timings` (Kafka's defaults where Kafka has one). The runs come from the
core (:func:`dashboard.session.compute.protocol_runs`), the rows from
:mod:`dashboard.model.protocol_timeline`, the figure and its caption from
:mod:`dashboard.charts.protocol_timeline_chart`; this module lays them out.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from assignors import AssignmentExplorerError, RebalanceSimulation, Timings
from dashboard.charts import protocol_timeline_chart
from dashboard.charts.figure_build import Figure
from dashboard.model import protocol_timeline, whatif
from dashboard.model.plain import INFO_ICON, WARNING_ICON, escape_markdown
from dashboard.panels import projector_panel, tables
from dashboard.session import compute

PROTOCOL_LABELS = {
    "eager": "eager (classic)",
    "cooperative": "cooperative (classic, KIP-429)",
    "consumer": "KIP-848 consumer protocol",
}
#: Past this many members the timeline draws the ones that stop longest.
MOST_ROWS = 60


@dataclass(frozen=True, slots=True)
class TimingInput:
    """One timing the view asks for: the core's field, its label and what it does."""

    field: str
    label: str
    help: str


TIMING_INPUTS = (
    TimingInput(
        "heartbeat_interval_s",
        "heartbeat.interval.ms",
        "Members learn of a rebalance (or, KIP-848, of a new target) at their next heartbeat.",
    ),
    TimingInput(
        "revoke_s", "revoke (ms)", "Time a member needs to commit and run its revocation callback."
    ),
    TimingInput("warmup_s", "warm-up (ms)", "Time from receiving a partition to reading it."),
    TimingInput(
        "rejoin_delay_s",
        "slowest rejoin (ms)",
        "How long the slowest member takes to rejoin a classic group barrier (it is busy in a"
        " long poll); everybody else waits for it. Capped by max.poll.interval.ms.",
    ),
    TimingInput(
        "rebalance_timeout_s",
        "max.poll.interval.ms",
        "The longest a classic barrier waits for a member before it drops it.",
    ),
    TimingInput(
        "session_timeout_s",
        "session.timeout.ms",
        "A static member that leaves without a LeaveGroup is noticed after this.",
    ),
    TimingInput("restart_s", "static restart (ms)", "How long a restarting static member is down."),
)
_KEY = "view.timing."


def chosen_timings() -> Timings:
    """The timings the view's inputs hold (the core's defaults before any is touched)."""
    defaults = Timings()
    seconds = {
        t.field: float(st.session_state.get(_KEY + t.field, getattr(defaults, t.field) * 1000))
        / 1000
        for t in TIMING_INPUTS
    }
    try:
        return Timings(**seconds)
    except AssignmentExplorerError:
        return defaults


def _timing_inputs() -> None:
    """The timings, in milliseconds, in a closed expander (its label names the main ones)."""
    timings = chosen_timings()
    label = (
        f"Timings: heartbeat {timings.heartbeat_interval_s:g} s, revoke {timings.revoke_s:g} s,"
        f" warm-up {timings.warmup_s:g} s, slowest rejoin {timings.rejoin_delay_s:g} s"
    )
    defaults = Timings()
    with st.expander(escape_markdown(label)):
        columns = st.columns(4)
        for index, timing in enumerate(TIMING_INPUTS):
            columns[index % 4].number_input(
                escape_markdown(timing.label),
                min_value=0,
                max_value=3_600_000,
                value=round(getattr(defaults, timing.field) * 1000),
                step=100,
                key=_KEY + timing.field,
                help=f"{timing.help} Default {getattr(defaults, timing.field) * 1000:,.0f} ms.",
            )


def timelines(
    runs: Mapping[str, RebalanceSimulation], order: Sequence[str]
) -> tuple[protocol_timeline.RunTimeline, ...]:
    """The runs as member rows, at most :data:`MOST_ROWS` of them."""
    return protocol_timeline.protocol_timelines(runs, order, most=MOST_ROWS)


def timeline_figure(
    key: str,
    plan: whatif.WhatIf,
    chosen: compute.StrategyOutcome,
    colours: Mapping[str, str],
    order: Sequence[str],
    timings: Timings | None = None,
) -> Figure:
    """The same change under eager, cooperative and KIP-848 rebalancing, member by member on
    one time axis (built once per scenario, strategy, timings and member order)."""
    used = chosen_timings() if timings is None else timings
    runs = compute.protocol_runs(key, chosen.name, plan, chosen, used)
    digest = hashlib.sha1(repr((used, list(order), sorted(colours.items()))).encode()).hexdigest()
    figure: Figure = compute.memo(
        key,
        f"protocols:{chosen.name}:{digest}",
        lambda: protocol_timeline_chart.protocol_timeline_figure(
            timelines(runs, order), PROTOCOL_LABELS, colours
        ),
    )
    return figure


def summary_frame(runs: Mapping[str, RebalanceSimulation], order: Sequence[str]) -> pd.DataFrame:
    """One row per protocol: the core's figures and who stops (every member, drawn or not)."""
    rows = []
    every = protocol_timeline.protocol_timelines(runs, order)
    for (protocol, simulation), timeline in zip(runs.items(), every, strict=True):
        stops = protocol_timeline.stopped_members(timeline)
        rows.append(
            {
                "protocol": PROTOCOL_LABELS.get(protocol, protocol),
                "rounds": f"{simulation.rounds:,}",
                "whole group stopped": f"{simulation.group_stop_s:,.1f} s",
                "members that stop": f"{len(stops):,} of {len(timeline.members):,}",
                "longest a member stops": f"{max(stops.values(), default=0.0):,.1f} s",
                "longest partition pause": f"{simulation.pause_s:,.1f} s",
                "partition pauses": f"{simulation.partition_pauses:,}",
                "done after": f"{simulation.duration_s:,.1f} s",
            }
        )
    return pd.DataFrame(rows)


def render(
    key: str,
    plan: whatif.WhatIf,
    outcomes: Sequence[compute.StrategyOutcome],
    colours: Mapping[str, str],
    order: Sequence[str],
) -> None:
    """The view: the strategy whose target is played, the timings, the timeline, its caption
    and the figures per protocol."""
    if not outcomes:
        st.info("Pick a strategy to compare protocols.", icon=INFO_ICON)
        return
    name = st.selectbox(
        "Target assignment from", [o.name for o in outcomes], key="view.protocol_strategy"
    )
    chosen = next(o for o in outcomes if o.name == name)
    _timing_inputs()
    timings = chosen_timings()
    try:
        runs = compute.protocol_runs(key, name, plan, chosen, timings)
    except AssignmentExplorerError as error:
        st.warning(
            f"These timings do not fit this change: {escape_markdown(str(error))}",
            icon=WARNING_ICON,
        )
        return
    shown = timelines(runs, order)
    figure = timeline_figure(key, plan, chosen, colours, order, timings)
    projector_panel.plotly_chart(figure, width="stretch", key="view.timeline")
    st.caption(escape_markdown(protocol_timeline_chart.timeline_caption(shown)))
    table = summary_frame(runs, order).set_index("protocol")
    st.markdown(tables.markdown_table(table))

"""See it: metrics cards, the animated before/after, lag per consumer, the assignment matrix, the
movement table, the lag-drain projection and the protocol timeline.

Everything drawn here is computed by :mod:`dashboard.compute` (which calls the core) and drawn by
:mod:`dashboard.charts`; this module only lays it out.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from assignors import AssignmentMetrics
from dashboard import charts, compute, whatif

#: Horizons offered for the drain projection, in seconds.
DRAIN_HORIZONS = {"10 minutes": 600.0, "1 hour": 3600.0, "6 hours": 21600.0}
PROTOCOL_LABELS = {
    "eager": "eager (classic)",
    "cooperative": "cooperative (classic, incremental)",
    "consumer": "KIP-848 consumer protocol",
}


def render(
    key: str,
    plan: whatif.WhatIf,
    current: compute.Current,
    outcomes: Sequence[compute.StrategyOutcome],
    colours: Mapping[str, str],
    order: Sequence[str],
) -> None:
    """Every view of the what-if, for the picked strategies."""
    for failed in (o for o in outcomes if o.error is not None):
        st.warning(f"{failed.name} cannot run on this scenario: {failed.error}")
    ran = [o for o in outcomes if o.simulation is not None and o.metrics is not None]
    _cards(current, ran)
    animation(key, plan, current, ran, colours, order)
    _lag(key, current, ran, colours, order)
    more_views(key, plan, current, ran, order)


#: The views below the animation and the lag chart; only the one picked is computed.
MORE_VIEWS = ("Assignment matrix", "Movement", "Lag drain", "Protocols")


@st.fragment
def more_views(
    key: str,
    plan: whatif.WhatIf,
    current: compute.Current,
    outcomes: Sequence[compute.StrategyOutcome],
    order: Sequence[str],
) -> None:
    """Matrix, movement, drain projection, protocol timeline: one at a time, rerun alone."""
    view = st.segmented_control("More views", MORE_VIEWS, default=MORE_VIEWS[0], key="view.more")
    if view == "Assignment matrix":
        _matrix(key, current, outcomes, order)
    elif view == "Movement":
        _movement(key, outcomes)
    elif view == "Lag drain":
        drain_view(key, plan, outcomes)
    elif view == "Protocols":
        protocols_view(key, plan, outcomes)


def _ratio_text(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}x"


def _cards(current: compute.Current, outcomes: Sequence[compute.StrategyOutcome]) -> None:
    rows: list[tuple[str, AssignmentMetrics, bool]] = [("current", current.metrics, False)]
    rows += [(o.name, o.metrics, True) for o in outcomes if o.metrics is not None]
    for name, measured, is_change in rows:
        columns = st.columns([2, 1, 1, 1, 1, 1, 1])
        columns[0].markdown(f"**{name}**" + ("" if is_change else " (as it is now)"))
        moved = measured.movement.moved_count + measured.movement.dropped_count
        columns[1].metric("moved", moved if is_change else "—", help="partitions that change owner")
        columns[2].metric("idle", len(measured.idle_members), help="members with no partition")
        columns[3].metric(
            "partition spread",
            measured.partitions_spread,
            help="most minus fewest partitions per member",
        )
        columns[4].metric(
            "lag spread",
            _ratio_text(measured.lag_max_min_ratio),
            help="busiest member's lag over the quietest's",
        )
        share = measured.cross_rack_share
        columns[5].metric(
            "cross-rack",
            "—" if share is None else f"{measured.cross_rack_assignments} ({share:.0%})",
            help="partitions read from a rack without a replica",
        )
        columns[6].metric(
            "co-partition splits",
            measured.split_partition_count,
            help="partition numbers of equally partitioned topics owned by different members",
        )


def phases_for(current: compute.Current, outcome: compute.StrategyOutcome) -> list[charts.Phase]:
    """Before, every intermediate phase of the protocol, after: the animation's frames."""
    assert outcome.simulation is not None
    frames = [charts.Phase("before", current.assignment.partitions)]
    for phase in outcome.simulation.phases:
        frames.append(charts.Phase(phase.name, phase.owned))
    target = outcome.simulation.target.partitions
    if dict(frames[-1].owners) != dict(target):
        frames.append(charts.Phase(f"after ({outcome.name})", target))
    else:
        frames[-1] = charts.Phase(f"after ({outcome.name})", target)
    labels: dict[str, int] = {}
    unique = []
    for frame in frames:
        count = labels.get(frame.label, 0)
        labels[frame.label] = count + 1
        label = frame.label if count == 0 else f"{frame.label} ({count + 1})"
        unique.append(charts.Phase(label, frame.owners))
    return unique


@st.fragment
def animation(
    key: str,
    plan: whatif.WhatIf,
    current: compute.Current,
    outcomes: Sequence[compute.StrategyOutcome],
    colours: Mapping[str, str],
    order: Sequence[str],
) -> None:
    """The animated before/after for one strategy (reruns alone when another is picked)."""
    if not outcomes:
        st.info("Pick a strategy to see the rebalance.")
        return
    st.subheader("Before → after")
    names = [o.name for o in outcomes]
    name = st.radio("Animate", names, horizontal=True, key="view.animate")
    chosen = next(o for o in outcomes if o.name == name)
    assert chosen.simulation is not None
    st.caption(
        f"{chosen.strategy.protocol} protocol: {chosen.simulation.rounds} round(s); "
        "outlined tiles change owner. Press ▶ Play or drag the slider."
    )
    figure = animation_figure(key, current, chosen, colours, order)
    st.plotly_chart(figure, width="stretch", key=f"view.animation.{name}")
    for note in chosen.simulation.notes:
        st.caption(note)


def animation_figure(
    key: str,
    current: compute.Current,
    outcome: compute.StrategyOutcome,
    colours: Mapping[str, str],
    order: Sequence[str],
) -> go.Figure:
    """The animated before/after of one strategy (built once per scenario and strategy)."""
    figure: go.Figure = compute.memo(
        key,
        f"animation:{outcome.name}",
        lambda: charts.assignment_animation(
            phases_for(current, outcome),
            # Every assignable partition is owned in the last frame or left unassigned there.
            partitions=outcome.metrics.unassigned_partitions if outcome.metrics else (),
            order=order,
            colours=colours,
        ),
    )
    return figure


def lag_figure(
    key: str,
    current: compute.Current,
    outcomes: Sequence[compute.StrategyOutcome],
    colours: Mapping[str, str],
    order: Sequence[str],
) -> go.Figure:
    """Lag per consumer, current and each strategy (built once per scenario and choice)."""
    names = ",".join(o.name for o in outcomes)
    figure: go.Figure = compute.memo(
        key,
        f"lag:{names}",
        lambda: charts.lag_by_member_figure(
            lag_columns(current, outcomes), order=order, colours=colours
        ),
    )
    return figure


def _with_partitions(measured: AssignmentMetrics) -> dict[str, float]:
    return {m.member_id: float(m.lag) for m in measured.members if m.partitions}


def lag_columns(
    current: compute.Current, outcomes: Sequence[compute.StrategyOutcome]
) -> list[tuple[str, Mapping[str, float]]]:
    """``[("current", lag by member), (strategy, lag by member), ...]`` for the lag chart."""
    columns: list[tuple[str, Mapping[str, float]]] = [
        ("current", {k: float(v) for k, v in current.metrics.lag_by_member.items()})
    ]
    for o in outcomes:
        if o.metrics is not None:
            columns.append((o.name, {k: float(v) for k, v in o.metrics.lag_by_member.items()}))
    return columns


def _lag(
    key: str,
    current: compute.Current,
    outcomes: Sequence[compute.StrategyOutcome],
    colours: Mapping[str, str],
    order: Sequence[str],
) -> None:
    measured: list[tuple[str, AssignmentMetrics]] = [("current", current.metrics)]
    for o in outcomes:
        assert o.metrics is not None
        measured.append((o.name, o.metrics))
    sentences = [
        (name, charts.spread_sentence(_with_partitions(m), m.lag_max_min_ratio))
        for name, m in measured
    ]
    st.subheader("Lag per consumer")
    if current.metrics.lag_total == 0:
        # Bars of height zero read as a broken chart; say why and how to get some.
        st.info(
            "This scenario carries no lag (no offsets or lags are given, or every member is "
            "caught up). Give partitions some lag in the what-if panel above to compare it."
        )
    figure = lag_figure(key, current, outcomes, colours, order)
    st.plotly_chart(figure, width="stretch", key="view.lag")
    for name, sentence in sentences:
        st.markdown(f"**{name}**: {sentence}.")


def _matrix(
    key: str,
    current: compute.Current,
    outcomes: Sequence[compute.StrategyOutcome],
    order: Sequence[str],
) -> None:
    options = ["current", *(o.name for o in outcomes)]
    name = st.selectbox("Assignment", options, key="view.matrix")
    if name == "current":
        assignment = current.assignment.partitions
    else:
        target = next(o for o in outcomes if o.name == name).target
        assert target is not None
        assignment = target.partitions
    st.plotly_chart(
        compute.memo(
            key, f"matrix:{name}", lambda: charts.assignment_matrix(assignment, order=order)
        ),
        width="stretch",
        key="view.matrix_chart",
    )


def movement_frame(measured: AssignmentMetrics) -> pd.DataFrame:
    """The movement table of one outcome: partition, from, to, and what kind of move."""
    rows = []
    movement = measured.movement
    for kind, moves in (
        ("moved", movement.moved),
        ("newly assigned", movement.newly_assigned),
        ("dropped", movement.dropped),
    ):
        for move in moves:
            rows.append(
                {
                    "topic": move.partition.topic,
                    "partition": move.partition.partition,
                    "from": move.from_member or "(nobody)",
                    "to": move.to_member or "(nobody)",
                    "kind": kind,
                }
            )
    return pd.DataFrame(rows, columns=["topic", "partition", "from", "to", "kind"])


def _movement(key: str, outcomes: Sequence[compute.StrategyOutcome]) -> None:
    if not outcomes:
        st.info("Pick a strategy to see what moves.")
        return
    for o in outcomes:
        assert o.metrics is not None
        table = compute.memo(
            key, f"movement:{o.name}", functools.partial(movement_frame, o.metrics)
        )
        movement = o.metrics.movement
        st.markdown(
            f"**{o.name}**: {movement.moved_count} moved, {movement.kept_count} kept, "
            f"{movement.newly_assigned_count} newly assigned, {movement.dropped_count} dropped"
        )
        if len(table):
            st.dataframe(
                table,
                hide_index=True,
                width="stretch",
                height=min(300, 38 + 35 * len(table)),
            )


def drain_view(key: str, plan: whatif.WhatIf, outcomes: Sequence[compute.StrategyOutcome]) -> None:
    """Total lag over time per strategy, with each protocol's pause shaded."""
    if not outcomes:
        st.info("Pick a strategy to project the lag.")
        return
    horizon_name = st.radio(
        "Horizon", list(DRAIN_HORIZONS), index=1, horizontal=True, key="view.drain_horizon"
    )
    horizon = DRAIN_HORIZONS[horizon_name]
    series = []
    pauses = []
    notes = []
    for o in outcomes:
        projection = compute.drain_projection(key, o.name, plan, o, horizon)
        if projection is None or o.simulation is None:
            continue
        series.append((o.name, projection.times_s, projection.group_lag))
        paused = [p for p in o.simulation.phases if p.paused]
        if paused:
            start = min(p.start_s for p in paused)
            end = max(p.start_s + p.duration_s for p in paused)
            pauses.append((f"{o.name} pause", start, end))
        clears = projection.group_clears_at_s
        notes.append(
            f"**{o.name}**: "
            + (
                f"lag clears after {clears:,.0f} s"
                if clears is not None
                else f"lag never clears (the group falls {projection.group_deficit:,.0f} "
                "records/s behind)"
            )
            + f"; longest pause of a partition {o.simulation.pause_s:,.0f} s"
        )
        if projection.members_using_default_rate:
            notes.append(
                f"{len(projection.members_using_default_rate)} member(s) have no consume rate; "
                f"assumed {projection.default_consume_rate:,.0f} records/s."
            )
    names = ",".join(o.name for o in outcomes)
    st.plotly_chart(
        compute.memo(
            key,
            f"drain:{names}:{horizon}",
            lambda: charts.drain_projection_figure(series, pauses=pauses),
        ),
        width="stretch",
        key="view.drain",
    )
    for note in dict.fromkeys(notes):
        st.markdown(note)


def protocols_view(
    key: str, plan: whatif.WhatIf, outcomes: Sequence[compute.StrategyOutcome]
) -> None:
    """The same change under eager, cooperative and KIP-848 rebalancing, side by side in time."""
    if not outcomes:
        st.info("Pick a strategy to compare protocols.")
        return
    name = st.selectbox(
        "Target assignment from", [o.name for o in outcomes], key="view.protocol_strategy"
    )
    chosen = next(o for o in outcomes if o.name == name)
    runs = compute.protocol_runs(key, name, plan, chosen)
    bars = [
        charts.TimelineBar(
            row=PROTOCOL_LABELS.get(protocol, protocol),
            step=phase.name,
            start=phase.start_s,
            end=phase.start_s + phase.duration_s,
            consuming=not phase.paused,
        )
        for protocol, simulation in runs.items()
        for phase in simulation.phases
    ]
    st.plotly_chart(charts.protocol_timeline_figure(bars), width="stretch", key="view.timeline")
    st.caption("Hatched steps: some partitions are not being consumed.")
    table = pd.DataFrame(
        [
            {
                "protocol": PROTOCOL_LABELS.get(protocol, protocol),
                "rounds": simulation.rounds,
                "longest partition pause (s)": simulation.pause_s,
                "whole group stopped (s)": simulation.group_stop_s,
                "partition pauses": simulation.partition_pauses,
                "done after (s)": simulation.duration_s,
            }
            for protocol, simulation in runs.items()
        ]
    )
    st.dataframe(table, hide_index=True, width="stretch")

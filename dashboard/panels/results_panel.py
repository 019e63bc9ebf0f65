"""See it: metrics cards, the animated before/after, lag per consumer, the assignment matrix, the
movement table, the lag-drain projection and the protocol timeline (:mod:`.protocols_panel`).

Everything drawn here is computed by :mod:`dashboard.session.compute` (which calls the core) and
drawn by :mod:`dashboard.charts.assignment_charts`; this module only lays it out.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from assignors import AssignmentMetrics, describe_change
from dashboard.charts import animation_chart, assignment_charts
from dashboard.charts.figure_build import Figure
from dashboard.model import members_table, summary, whatif
from dashboard.model.plain import INFO_ICON, WARNING_ICON, escape_markdown
from dashboard.panels import explain_panel, member_picker, projector_panel, protocols_panel, tables
from dashboard.session import compute, state

#: Horizons offered for the drain projection, in seconds; "fit the backlog" (the default) ends
#: a third after the slowest strategy clears it (an hour when one never does).
FIT_HORIZON = "fit the backlog"
DRAIN_HORIZONS = {FIT_HORIZON: 0.0, "10 minutes": 600.0, "1 hour": 3600.0, "6 hours": 21600.0}
#: How far "fit the backlog" looks for the time the lag clears.
FIT_SEARCH_S = 21600.0


def render(
    key: str,
    plan: whatif.WhatIf,
    current: compute.Current,
    picked: Sequence[str],
    colours: Mapping[str, str],
    order: Sequence[str],
    headline_at: DeltaGenerator,
) -> list[compute.StrategyOutcome]:
    """Every view of the what-if, for the picked strategies; the headline written into its
    slot. Returns every picked strategy's outcome.

    The animated strategy is worked out first and its animation sent at once: the browser
    draws it while the other strategies are worked out, before the comparison table above it
    and the lag chart under it (issue 17.7: the browser's drawing and the server's work
    overlap instead of following each other).
    """
    warnings = st.container()
    cards = st.empty()
    names = [name for name in picked if name in compute.partition_strategies()]
    animation(key, plan, current, names, colours, order)
    outcomes = compute.outcomes(key, names, plan)
    ran = [o for o in outcomes if o.simulation is not None and o.metrics is not None]
    with headline_at:
        headline(plan, outcomes)
    with warnings:
        for failed in (o for o in outcomes if o.error is not None):
            st.warning(
                f"{escape_markdown(failed.name)} cannot run on this scenario:"
                f" {escape_markdown(str(failed.error))}",
                icon=WARNING_ICON,
            )
    with cards:
        _cards(current, ran)
    _lag(key, current, ran, colours, order)
    more_views(key, plan, current, ran, colours, order)
    return outcomes


#: The views below the animation and the lag chart; only the one picked is computed.
MORE_VIEWS = ("Members", "Assignment matrix", "Movement", "Lag drain", "Protocols")
#: The *More views* picker's key (a walkthrough step picks the view it names).
MORE_VIEW = "view.more"


@st.fragment
def more_views(
    key: str,
    plan: whatif.WhatIf,
    current: compute.Current,
    outcomes: Sequence[compute.StrategyOutcome],
    colours: Mapping[str, str],
    order: Sequence[str],
) -> None:
    """Matrix, movement, drain projection, protocol timeline: one at a time, rerun alone."""
    # A walkthrough step (or its link) may have picked the view: then no default, which
    # Streamlit would otherwise log as a clash with the session's value.
    first = None if MORE_VIEW in st.session_state else MORE_VIEWS[0]
    view = st.segmented_control(
        "More views", MORE_VIEWS, default=first, key=MORE_VIEW, required=True
    )
    if view == "Members":
        _members(key, plan, current)
    elif view == "Assignment matrix":
        _matrix(key, plan, current, outcomes, order)
    elif view == "Movement":
        _movement(key, outcomes)
    elif view == "Lag drain":
        drain_view(key, plan, outcomes)
    elif view == "Protocols":
        protocols_panel.render(key, plan, outcomes, colours, order)


def cards_frame(
    current: compute.Current, outcomes: Sequence[compute.StrategyOutcome]
) -> pd.DataFrame:
    """The comparison table: one row for the group as it is, one per strategy, with readable
    headers and formatted numbers (a table never cuts a label, as narrow cards did)."""
    rows = []
    measured_rows: list[tuple[str, AssignmentMetrics, compute.StrategyOutcome | None]] = [
        ("current (as it is now)", current.metrics, None)
    ]
    measured_rows += [(o.name, o.metrics, o) for o in outcomes if o.metrics is not None]
    for name, measured, outcome in measured_rows:
        moved = measured.movement.moved_count + measured.movement.dropped_count
        share = measured.cross_rack_share
        simulation = outcome.simulation if outcome is not None else None
        rows.append(
            {
                "strategy": name,
                "partitions moved": "—" if outcome is None else f"{moved:,}",
                "partition pauses": "—"
                if simulation is None
                else f"{simulation.partition_pauses:,}",
                "whole group stopped": "—"
                if simulation is None
                else f"{simulation.group_stop_s:,.1f} s",
                "idle members": f"{len(measured.idle_members):,}",
                "partitions per member": _per_member_range(measured),
                "lag spread": summary.lag_spread_value(
                    _with_partitions(measured), measured.lag_max_min_ratio
                ),
                "cross-rack reads": "—"
                if share is None
                else f"{measured.cross_rack_assignments:,} ({share:.0%})",
                "co-partition splits": f"{measured.split_partition_count:,}",
            }
        )
    return pd.DataFrame(rows)


def _per_member_range(measured: AssignmentMetrics) -> str:
    if not measured.members:
        return "—"
    low, high = measured.partitions_min, measured.partitions_max
    return f"{low:,}" if low == high else f"{low:,} to {high:,}"


def _cards(current: compute.Current, outcomes: Sequence[compute.StrategyOutcome]) -> None:
    # Markdown, not st.table: the first page then needs no data-grid code in the browser.
    st.markdown(tables.markdown_table(cards_frame(current, outcomes).set_index("strategy")))


#: The headline shown last in this session (see :func:`headline_slot`).
_HEADLINE = "ae.headline"


def headline_slot() -> DeltaGenerator:
    """The headline's place, drawn before the strategies' answers are worked out: it shows the
    sentence shown last until :func:`headline` replaces it (emptied meanwhile, everything under
    it would jump up a line and back)."""
    slot = st.empty()
    last_markdown = st.session_state.get(_HEADLINE)
    if last_markdown:
        slot.markdown(last_markdown)
    return slot


def headline(plan: whatif.WhatIf, outcomes: Sequence[compute.StrategyOutcome]) -> None:
    """The comparison in one sentence, at the top of the page."""
    costs = [
        summary.StrategyCost(
            name=o.name,
            moved=o.metrics.movement.moved_count + o.metrics.movement.dropped_count,
            partition_pauses=o.simulation.partition_pauses,
            group_stop_s=o.simulation.group_stop_s,
            lag_ratio=o.metrics.lag_max_min_ratio,
            lag_total=float(o.metrics.lag_total),
        )
        for o in outcomes
        if o.metrics is not None and o.simulation is not None
    ]
    # Member ids are user text: literal, never Markdown (the sentence's own words carry none).
    change = summary.change_phrase(
        [escape_markdown(describe_change(change)) for change in plan.changes]
    )
    headline_markdown = f"#### {summary.comparison_sentence(change, costs)}"
    st.session_state[_HEADLINE] = headline_markdown
    st.markdown(headline_markdown)


def phases_for(
    current: compute.Current, outcome: compute.StrategyOutcome
) -> list[animation_chart.Phase]:
    """Before, every intermediate phase of the protocol, after: the animation's frames, each
    with a caption saying what happens in it (:func:`animation_chart.rebalance_phases`)."""
    assert outcome.simulation is not None
    return animation_chart.rebalance_phases(
        current.assignment.partitions, outcome.simulation, outcome.name
    )


#: Past this many members the cell animation shows a chosen subset (a member filter).
MAX_ANIMATED_MEMBERS = 30


def _busiest_changes(
    current: compute.Current, outcome: compute.StrategyOutcome, order: Sequence[str]
) -> list[str]:
    """The members the change touches most (gained plus lost), then the rest in order."""
    if outcome.metrics is None:
        return list(order)
    touched = {m.member_id: m.gained + m.lost for m in outcome.metrics.members}
    place = {member: index for index, member in enumerate(order)}
    return sorted(order, key=lambda member: (-touched.get(member, 0), place[member]))


def _members_shown(
    key: str, current: compute.Current, outcome: compute.StrategyOutcome, order: Sequence[str]
) -> list[str]:
    """The members the cell animation draws: by default the :data:`MAX_ANIMATED_MEMBERS` the
    change touches most. Up to :data:`member_picker.SUBSET_LIMIT` members a multiselect (its
    default follows each edit); past it a filter box, kept across edits of the same source (a
    multiselect of 30 chips re-created on every *Add member* cost the browser more than the
    chart it filters)."""
    busiest = _busiest_changes(current, outcome, order)[:MAX_ANIMATED_MEMBERS]
    label = (
        f"Members shown ({len(order):,} in the group; by default the {MAX_ANIMATED_MEMBERS} the"
        " change touches most)"
    )
    if len(order) <= member_picker.SUBSET_LIMIT:
        widget_key = f"view.animate_members.{key}"
    else:
        widget_key = f"view.animate_members.{state.source().key}"
    return member_picker.pick_subset(label, order, busiest, widget_key) or busiest


@st.fragment
def animation(
    key: str,
    plan: whatif.WhatIf,
    current: compute.Current,
    names: Sequence[str],
    colours: Mapping[str, str],
    order: Sequence[str],
) -> None:
    """The animated before/after for one of the strategies ``names`` (reruns alone when
    another is picked); only that strategy's outcome is worked out here."""
    st.subheader("Before → after")
    if not names:
        st.info("Pick a strategy in the sidebar to see the rebalance.", icon=INFO_ICON)
        return
    if not order:  # a group without members (an empty group read from a listing or a file)
        st.info(
            "The group has no members: add one under “Shape the what-if” to see its"
            " partitions move.",
            icon=INFO_ICON,
        )
        return
    left, right = st.columns([3, 2])
    name = left.radio("Animate", names, horizontal=True, key="view.animate")
    chosen = compute.outcome(key, name, plan)
    if chosen.simulation is None:
        st.info(
            f"{escape_markdown(name)} cannot run on this scenario (why: above);"
            " animate another strategy.",
            icon=INFO_ICON,
        )
        return
    tiles = sum(plan.after.partition_counts().values()) <= animation_chart.DEFAULT_MAX_TILES
    colour_by = "topic"
    if tiles:
        colour_by = right.radio(
            "Tile colour", ["topic", "lag"], horizontal=True, key="view.colour_by"
        )
    shown = list(order)
    if not tiles and len(order) > MAX_ANIMATED_MEMBERS:
        shown = _members_shown(key, current, chosen, order)
    figure = animation_figure(key, plan, current, chosen, colours, order, colour_by, shown)
    projector_panel.plotly_chart(figure, width="stretch", key=f"view.animation.{name}")
    st.caption(
        f"{escape_markdown(chosen.strategy.protocol)} protocol,"
        f" {chosen.simulation.rounds:,} round(s). Press ▶ Play "
        "or drag the slider under the chart: one frame per phase, its caption above the chart."
    )
    for note in chosen.simulation.notes:
        st.caption(escape_markdown(note))


def animation_figure(
    key: str,
    plan: whatif.WhatIf,
    current: compute.Current,
    outcome: compute.StrategyOutcome,
    colours: Mapping[str, str],
    order: Sequence[str],
    colour_by: str = "topic",
    shown: Sequence[str] | None = None,
) -> Figure:
    """The animated before/after of one strategy (built once per scenario and choice)."""
    members = list(order) if shown is None else [m for m in order if m in set(shown)]
    partial = len(members) < len(order)

    def build() -> Figure:
        return animation_chart.strategy_animation(
            phases_for(current, outcome),
            plan.after,
            members,
            whole_group=not partial,
            unassigned=() if outcome.metrics is None else outcome.metrics.unassigned_partitions,
            colours=colours,
            colour_by=colour_by,
        )

    figure: Figure = compute.memo(
        key, f"animation:{outcome.name}:{colour_by}:{','.join(members) if partial else ''}", build
    )
    return figure


def lag_figure(
    key: str,
    current: compute.Current,
    outcomes: Sequence[compute.StrategyOutcome],
    colours: Mapping[str, str],
    order: Sequence[str],
) -> Figure:
    """Lag per consumer, current and each strategy (built once per scenario and choice)."""
    names = ",".join(o.name for o in outcomes)
    figure: Figure = compute.memo(
        key,
        f"lag:{names}",
        lambda: assignment_charts.lag_by_member_figure(
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
        (name, assignment_charts.spread_sentence(_with_partitions(m), m.lag_max_min_ratio))
        for name, m in measured
    ]
    st.subheader("Lag per consumer")
    if current.metrics.lag_total == 0:
        # Bars of height zero read as a broken chart; say why and how to get some.
        st.info(
            "This scenario carries no lag (no offsets or lags are given, or every member is "
            "caught up). Give partitions some lag in the what-if panel above to compare it.",
            icon=INFO_ICON,
        )
    figure = lag_figure(key, current, outcomes, colours, order)
    projector_panel.plotly_chart(figure, width="stretch", key="view.lag")
    for name, sentence in sentences:
        st.markdown(f"**{escape_markdown(name)}**: {escape_markdown(sentence)}.")


#: Up to this many members the Members view is a Markdown table (the browser needs no
#: data-grid code for it on a first visit); past it, a scrollable, sortable grid.
MAX_MARKDOWN_MEMBERS = 40


def _members(key: str, plan: whatif.WhatIf, current: compute.Current) -> None:
    """The members as ``kafka-consumer-groups.sh --describe --members --verbose`` lists them."""
    # The group as it is depends on the shaping edits only: adding a member reuses the table.
    table = compute.memo(
        current.key or key,
        "members",
        functools.partial(members_table.members_frame, plan.before, current.assignment.partitions),
    )
    st.caption(
        "The group as it is now, like `kafka-consumer-groups.sh --describe --members --verbose`."
    )
    if len(table) <= MAX_MARKDOWN_MEMBERS:
        st.markdown(
            tables.markdown_table(table.set_index("member"), text=members_table.TEXT_COLUMNS)
        )
        return
    st.dataframe(
        table,
        hide_index=True,
        width="stretch",
        height=min(420, 38 + 35 * len(table)),
        column_config={"member id": st.column_config.TextColumn(width="medium")},
    )


def _matrix(
    key: str,
    plan: whatif.WhatIf,
    current: compute.Current,
    outcomes: Sequence[compute.StrategyOutcome],
    order: Sequence[str],
) -> None:
    options = ["current", *(o.name for o in outcomes)]
    name = st.selectbox("Assignment", options, key="view.matrix")
    target = None if name == "current" else next(o for o in outcomes if o.name == name).target
    assignment = current.assignment.partitions if target is None else target.partitions
    projector_panel.plotly_chart(
        compute.memo(
            key,
            f"matrix:{name}",
            lambda: assignment_charts.assignment_matrix(assignment, order=order),
        ),
        width="stretch",
        key="view.matrix_chart",
    )
    if target is not None:
        explain_panel.render(key, plan, name, target)


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
        st.info("Pick a strategy to see what moves.", icon=INFO_ICON)
        return
    for o in outcomes:
        assert o.metrics is not None
        table = compute.memo(
            key, f"movement:{o.name}", functools.partial(movement_frame, o.metrics)
        )
        movement = o.metrics.movement
        st.markdown(
            f"**{escape_markdown(o.name)}**: {movement.moved_count:,} moved,"
            f" {movement.kept_count:,} kept, {movement.newly_assigned_count:,} newly assigned,"
            f" {movement.dropped_count:,} dropped"
        )
        if len(table):
            st.dataframe(
                table,
                hide_index=True,
                width="stretch",
                height=min(300, 38 + 35 * len(table)),
            )


def _drain_parts(
    key: str, plan: whatif.WhatIf, outcomes: Sequence[compute.StrategyOutcome], horizon: float
) -> tuple[
    list[tuple[str, Sequence[float], Sequence[float]]], list[tuple[str, float, float]], list[str]
]:
    """The drain chart's series and pauses, and the sentences under it."""
    series: list[tuple[str, Sequence[float], Sequence[float]]] = []
    pauses: list[tuple[str, float, float]] = []
    notes: list[str] = []
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
            f"**{escape_markdown(o.name)}**: "
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
    return series, pauses, list(dict.fromkeys(notes))


def drain_figure(
    key: str,
    plan: whatif.WhatIf,
    outcomes: Sequence[compute.StrategyOutcome],
    horizon: float | None = None,
) -> Figure:
    """Total lag over time per strategy (``horizon`` ``None``: fitted to the backlog)."""
    chosen = horizon if horizon else fitted_horizon(key, plan, outcomes)
    names = ",".join(o.name for o in outcomes)

    def build() -> Figure:
        series, pauses, _ = _drain_parts(key, plan, outcomes, chosen)
        return assignment_charts.drain_projection_figure(series, pauses=pauses)

    figure: Figure = compute.memo(key, f"drain:{names}:{chosen}", build)
    return figure


def drain_view(key: str, plan: whatif.WhatIf, outcomes: Sequence[compute.StrategyOutcome]) -> None:
    """Total lag over time per strategy, with each protocol's pause shaded."""
    if not outcomes:
        st.info("Pick a strategy to project the lag.", icon=INFO_ICON)
        return
    horizon_name = st.radio(
        "Horizon", list(DRAIN_HORIZONS), index=0, horizontal=True, key="view.drain_horizon"
    )
    horizon = DRAIN_HORIZONS[horizon_name] or fitted_horizon(key, plan, outcomes)
    projector_panel.plotly_chart(
        drain_figure(key, plan, outcomes, horizon), width="stretch", key="view.drain"
    )
    for note_markdown in _drain_parts(key, plan, outcomes, horizon)[2]:
        st.markdown(note_markdown)


def fitted_horizon(
    key: str, plan: whatif.WhatIf, outcomes: Sequence[compute.StrategyOutcome]
) -> float:
    """A horizon that fits the backlog (:func:`assignment_charts.fitted_horizon_s`); an hour
    when some strategy never clears."""
    clears = []
    for o in outcomes:
        projection = compute.drain_projection(key, o.name, plan, o, FIT_SEARCH_S)
        if projection is None:
            continue
        if projection.group_clears_at_s is None:
            return 3600.0
        clears.append(projection.group_clears_at_s)
    if not clears:
        return 3600.0
    return assignment_charts.fitted_horizon_s(clears)

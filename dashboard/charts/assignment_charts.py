"""Pure figure functions: data in, :class:`plotly.graph_objects.Figure` out.

Nothing here imports Streamlit or computes an assignment; the dashboard hands in what the core
computed (assignments, lag per member, rebalance phases, drain projections) and shows the figure.
Tests call these functions directly.

Conventions every figure keeps:

1. Each member has one colour everywhere (:func:`dashboard.model.palette.member_colours`), never
   repeated within a view; topics have their own palette; grey is reserved for "nobody".
2. Members keep their column (their position in ``member_order``) in every frame of the
   animation (:mod:`dashboard.charts.animation_chart`).
3. Every number in a hover is exact (thousands separators, no rounding to "k").
4. No figure sets its own background: Streamlit's light or dark theme (and Plotly's default in an
   export) decides, so every chart reads in both.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter

import numpy as np
import plotly.graph_objects as go

from assignors import ClientAssignment, TopicPartition
from dashboard.charts.animation_chart import owner_map, play_controls
from dashboard.charts.figure_build import label_px, trusted_figure
from dashboard.charts.plotly_text import plain, plain_all, plain_array
from dashboard.model.palette import NOBODY_COLOUR, ROLE_COLOURS, member_colours, short_labels

Owners = Mapping[str, Sequence[TopicPartition]]


def member_order(*assignments: Mapping[str, object]) -> list[str]:
    """Members in first-seen order across ``assignments``: the columns every figure uses."""
    seen: dict[str, None] = {}
    for assignment in assignments:
        for member in assignment:
            seen.setdefault(member, None)
    return list(seen)


def moved_partitions(before: Owners, after: Owners) -> set[TopicPartition]:
    """Partitions owned before whose owner after is a different member (or nobody)."""
    owner_before = owner_map(before)
    owner_after = owner_map(after)
    return {tp for tp, member in owner_before.items() if owner_after.get(tp) != member}


def _text_array(values: Sequence[str]) -> np.ndarray:
    """Strings as a NumPy array: Plotly validates and copies it at once, not item by item."""
    return np.array(values, dtype=str)


#: The plot's width in pixels on the narrowest page the layout is made for (1280 px wide, the
#: sidebar open): panels leave gaps for their labels sized against it.
NARROWEST_PLOT_PX = 720
#: The least width of one lag panel's bars, in pixels of that narrowest plot: panels that would
#: be narrower wrap onto another row.
MIN_PANEL_PX = 140
#: Pixels between two rows of lag panels: the upper row's lag axis and the lower row's titles.
ROW_GAP_PX = 110
#: Past this many members a lag panel names the busiest and quietest and summarises the rest.
MAX_NAMED_MEMBERS = 40
#: How many of the busiest and of the quietest members a large panel names.
NAMED_AT_EACH_END = 10


def _lag_rows(lag: Mapping[str, float]) -> tuple[list[str], list[float], list[str]]:
    """Members sorted by lag (busiest first) as bar labels, values and hover texts (names
    escaped for Plotly); past :data:`MAX_NAMED_MEMBERS` the middle becomes one bar: the mean of
    the rest."""
    ranked = sorted(lag.items(), key=lambda item: (-item[1], item[0]))
    if len(ranked) > MAX_NAMED_MEMBERS:
        top, rest, bottom = (
            ranked[:NAMED_AT_EACH_END],
            ranked[NAMED_AT_EACH_END:-NAMED_AT_EACH_END],
            ranked[-NAMED_AT_EACH_END:],
        )
        values = [value for _, value in rest]
        mean = sum(values) / len(values)
        summary = (
            f"… {len(rest)} others",
            mean,
            f"{len(rest)} members in between: mean {mean:,.0f}, "
            f"{min(values):,.0f} to {max(values):,.0f}",
        )
        rows = [(m, v, f"{plain(m)}: {v:,.0f}") for m, v in top]
        rows.append(summary)
        rows += [(m, v, f"{plain(m)}: {v:,.0f}") for m, v in bottom]
    else:
        rows = [(m, v, f"{plain(m)}: {v:,.0f}") for m, v in ranked]
    return [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]


def lag_by_member_figure(
    columns: Sequence[tuple[str, Mapping[str, float]]],
    *,
    order: Sequence[str] | None = None,
    colours: Mapping[str, str] | None = None,
    unit: str = "messages",
) -> go.Figure:
    """Lag per consumer: one panel per column (e.g. "current", then each strategy).

    ``columns`` is ``[(title, {member: lag}), ...]``. Each panel is horizontal bars sorted
    busiest first in member colours, with the fair share (total over members) as a dashed line;
    past :data:`MAX_NAMED_MEMBERS` members the busiest and quietest ten are named and the rest
    are one grey bar (their mean). The lag axis is shared so panels compare at a glance.

    1. Every member's colour and short label, and each panel's bars (:func:`_lag_rows`).
    2. Where the panels sit (:func:`_lag_grid`): side by side, a label gutter between them,
       wrapping onto more rows when a row would make them too narrow to read (:func:`panel_grid`).
    3. Per panel its bars, its two axes, its fair-share line and its title
       (:func:`_lag_panel`).
    4. One layout with margins wide enough for the labels (Plotly would otherwise widen them by
       drawing the chart twice).
    """
    if not columns:
        raise ValueError("the lag chart needs at least one column")
    members = list(order) if order is not None else member_order(*(lag for _, lag in columns))
    palette = dict(colours) if colours is not None else member_colours(members)
    labels = short_labels(members + [m for _, lag in columns for m in lag if m not in palette], 16)
    rows = [_lag_rows(lag) for _, lag in columns]
    grid = _lag_grid(columns, rows, labels)
    traces: list[dict[str, object]] = []  # dicts, checked by the tests (trusted_figure)
    axes: dict[str, object] = {}
    notes: list[dict[str, object]] = []
    shapes: list[dict[str, object]] = []
    for index, ((title, lag), bars) in enumerate(zip(columns, rows, strict=True)):
        panel = _lag_panel(index, title, lag, bars, grid, labels, palette, unit)
        traces.append(panel.trace)
        axes.update(panel.axes)
        shapes.append(panel.fair_share)
        notes.append(panel.title)
    layout = {
        "height": 126 + grid.panels.plot_px,
        "margin": {"l": 8 + grid.gutter, "r": 24, "t": 60, "b": 66},
        "annotations": notes,
        "shapes": shapes,
        "bargap": 0.25,
        **axes,
    }
    return trusted_figure(traces, layout)


@dataclass(frozen=True, slots=True)
class PanelGrid:
    """Where each of ``count`` panels sits, in paper coordinates: ``domains[i]`` is
    ``(x0, x1, y0, y1)``; ``plot_px`` is the plot area's height in pixels."""

    domains: tuple[tuple[float, float, float, float], ...]
    per_row: int
    plot_px: int


def panel_grid(count: int, spacing: float, row_px: int) -> PanelGrid:
    """Panels left to right, wrapping onto more rows when one row would give a panel less than
    :data:`MIN_PANEL_PX` on the narrowest page.

    Invariants: every domain lies within [0, 1] (a float sum never spills past 1); panels of a
    row are ``spacing`` apart and equally wide; rows are ``row_px`` tall, :data:`ROW_GAP_PX`
    apart; no two domains overlap.
    """
    if count < 1:
        raise ValueError("a grid needs at least one panel")
    least = MIN_PANEL_PX / NARROWEST_PLOT_PX
    per_row = max(1, min(count, int((1 + spacing) // (least + spacing))))
    rows = -(-count // per_row)
    width = (1 - spacing * (per_row - 1)) / per_row
    plot_px = rows * row_px + (rows - 1) * ROW_GAP_PX
    height, gap = row_px / plot_px, ROW_GAP_PX / plot_px
    domains = []
    for index in range(count):
        row, column = divmod(index, per_row)
        x0 = column * (width + spacing)
        top = 1 - row * (height + gap)
        domains.append((min(x0, 1.0), min(x0 + width, 1.0), max(top - height, 0.0), min(top, 1.0)))
    return PanelGrid(tuple(domains), per_row, plot_px)


@dataclass(frozen=True, slots=True)
class _LagGrid:
    """Where the lag chart's panels sit (``panels``); ``gutter`` pixels for the member labels
    left of each; ``peak`` the largest lag of any panel (their shared axis's end)."""

    gutter: int
    panels: PanelGrid
    peak: float


def _lag_grid(
    columns: Sequence[tuple[str, Mapping[str, float]]],
    rows: Sequence[tuple[list[str], list[float], list[str]]],
    labels: Mapping[str, str],
) -> _LagGrid:
    """Step 2 of :func:`lag_by_member_figure`. Each panel's member labels sit in the gap left
    of it: a gap as wide as the longest label on the narrowest page (1280 px, ~720 px of plot),
    so no label runs over the bars left of it. A row is as tall as its longest list of bars."""
    gutter = 12 + label_px(labels.get(n, n) for names, _, _ in rows for n in names)
    spacing = max(0.06, gutter / NARROWEST_PLOT_PX)
    row_px = max(200, 90 + 24 * max(len(names) for names, _, _ in rows))
    peak = max((max(lag.values(), default=0.0) for _, lag in columns), default=0.0)
    return _LagGrid(gutter, panel_grid(len(columns), spacing, row_px), peak)


@dataclass(frozen=True, slots=True)
class _LagPanel:
    """One panel of the lag chart: its bar trace, its x and y axes (keyed as the layout keys
    them), its fair-share line and its title, all as Plotly's plain dicts."""

    trace: dict[str, object]
    axes: dict[str, object]
    fair_share: dict[str, object]
    title: dict[str, object]


def _lag_panel(
    index: int,
    title: str,
    lag: Mapping[str, float],
    bars: tuple[list[str], list[float], list[str]],
    grid: _LagGrid,
    labels: Mapping[str, str],
    palette: Mapping[str, str],
    unit: str,
) -> _LagPanel:
    """Step 3 of :func:`lag_by_member_figure`: panel ``index`` (axes ``x``/``y`` for the first,
    ``x2``/``y2`` for the second, ...), its bars ``bars`` (names, values, hovers)."""
    names, values, hovers = bars
    suffix = "" if index == 0 else str(index + 1)
    fair = sum(lag.values()) / len(lag) if lag else 0.0
    start, end, bottom, top = grid.panels.domains[index]
    trace: dict[str, object] = {
        "type": "bar",
        "orientation": "h",
        "x": np.array(values, dtype=float),
        "y": plain_array(names),
        "customdata": _text_array([f"{hover} {plain(unit)}" for hover in hovers]),
        "marker": {"color": _text_array([palette.get(n, NOBODY_COLOUR) for n in names])},
        "name": plain(title),
        "showlegend": False,
        "hovertemplate": "%{customdata}<extra>%{fullData.name}</extra>",
        "xaxis": f"x{suffix}",
        "yaxis": f"y{suffix}",
    }
    axes: dict[str, object] = {
        f"xaxis{suffix}": {
            "domain": [start, end],
            "anchor": f"y{suffix}",
            "range": [0, max(grid.peak, 1.0) * 1.08],
            "tickformat": ",~s",
            "title": {"text": f"lag ({plain(unit)})", "font": {"size": 12}},
        },
        f"yaxis{suffix}": {
            "domain": [bottom, top],
            "anchor": f"x{suffix}",
            "autorange": "reversed",
            "tickvals": plain_array(names),
            "ticktext": plain_array(labels.get(n, n) for n in names),
            "automargin": True,
        },
    }
    fair_share: dict[str, object] = {
        "type": "line",
        "xref": f"x{suffix}",
        "yref": f"y{suffix} domain",
        "x0": fair,
        "x1": fair,
        "y0": 0,
        "y1": 1,
        "line": {"dash": "dash", "width": 2, "color": "#777777"},
    }
    note: dict[str, object] = {
        # Two lines: one would run into the next panel's title on a narrow page.
        "text": f"<b>{plain(title)}</b><br>fair share {fair:,.0f}",
        "x": start,
        "y": top,
        "xref": "paper",
        "yref": "paper",
        "xanchor": "left",
        "yanchor": "bottom",
        "showarrow": False,
        "font": {"size": 14},
    }
    return _LagPanel(trace, axes, fair_share, note)


def spread_sentence(lag_by_member: Mapping[str, float], ratio: float | None = None) -> str:
    """The lag spread in words, e.g. "the busiest consumer carries 1.8x the lag of the quietest".

    ``lag_by_member`` holds the members that have partitions; ``ratio`` is the metrics' busiest
    over quietest ratio (``None`` when the quietest has no lag).
    """
    if not lag_by_member:
        return "no consumer has a partition"
    busiest_member = max(lag_by_member, key=lambda member: (lag_by_member[member], member))
    quietest_member = min(lag_by_member, key=lambda member: (lag_by_member[member], member))
    busiest = lag_by_member[busiest_member]
    if busiest <= 0:
        return "no consumer has any lag"
    if ratio is None:
        idle = sum(1 for value in lag_by_member.values() if value <= 0)
        return (
            f"{busiest_member} carries the most lag ({busiest:,.0f}) while "
            f"{idle} consumer{'s carry' if idle != 1 else ' carries'} none"
        )
    if ratio <= 1.0:
        return "every consumer carries the same lag"
    return (
        f"the busiest consumer ({busiest_member}) carries {ratio:.1f}x "
        f"the lag of the quietest ({quietest_member})"
    )


def assignment_matrix(
    assignment: Owners, *, topics: Sequence[str] | None = None, order: Sequence[str] | None = None
) -> go.Figure:
    """Heat map of partition counts: members down, topics across."""
    members = list(order) if order is not None else list(assignment)
    members = [member for member in members if member in assignment]
    counts = {member: Counter(map(itemgetter(0), tps)) for member, tps in assignment.items()}
    short = short_labels(members, 20)
    topic_names = (
        list(topics)
        if topics is not None
        else sorted({topic for counted in counts.values() for topic in counted})
    )
    z = np.array(
        [[counts[member][topic] for topic in topic_names] for member in members], dtype=int
    ).reshape(len(members), len(topic_names))
    figure = go.Figure(
        go.Heatmap(
            z=z,
            x=plain_array(topic_names),
            y=plain_array(members),
            xgap=1,
            ygap=1,
            colorscale="Cividis",
            # The scale starts at zero partitions: 12 versus 13 reads as nearly the same colour,
            # not as the two ends of the scale.
            zmin=0,
            zmax=max(int(z.max()) if z.size else 1, 1),
            text=z.tolist() if len(members) * len(topic_names) <= 400 else None,
            texttemplate="%{text}" if len(members) * len(topic_names) <= 400 else None,
            hovertemplate="%{y} · %{x}: %{z:,} partitions<extra></extra>",
            colorbar={"title": "partitions"},
        )
    )
    figure.update_layout(
        height=min(900, 160 + 22 * max(len(members), 1)),
        margin={"l": 10, "r": 10, "t": 30, "b": 40},
        yaxis={
            "autorange": "reversed",
            "tickvals": plain_array(members),
            "ticktext": plain_array(short.get(m, m) for m in members),
        },
    )
    return figure


#: Pixels between two pause labels of the drain chart.
PAUSE_LINE_PX = 16


def _pause_spans(pauses: Sequence[tuple[str, float, float]]) -> list[tuple[str, float, float]]:
    """Pauses over the same span merged into one, labelled with every strategy's name
    (``"range, sticky pause"``)."""
    spans: dict[tuple[float, float], list[str]] = {}
    for label, start, end in pauses:
        spans.setdefault((round(start, 6), round(end, 6)), []).append(label.removesuffix(" pause"))
    return [(", ".join(names) + " pause", start, end) for (start, end), names in spans.items()]


#: The horizons a fitted drain chart ends at under a minute, in seconds.
ROUND_SECONDS = (5, 10, 15, 20, 30, 45, 60)


def fitted_horizon_s(clears: Sequence[float]) -> float:
    """A horizon that fits a backlog clearing after ``clears`` seconds (one per strategy): a
    third past the slowest, up to a round number of seconds (:data:`ROUND_SECONDS`), past a
    minute up to whole minutes."""
    wanted = max(clears, default=0.0) * 4 / 3
    for seconds in ROUND_SECONDS:
        if wanted <= seconds:
            return float(seconds)
    return float(math.ceil(wanted / 60) * 60)


def drain_projection_figure(
    series: Sequence[tuple[str, Sequence[float], Sequence[float]]],
    *,
    pauses: Sequence[tuple[str, float, float]] = (),
    unit: str = "messages",
) -> go.Figure:
    """Total lag over time per strategy: ``[(name, times_s, total_lag), ...]``.

    ``pauses`` marks when consumption stops for the rebalance: ``[(label, start_s, end_s)]``.
    """
    figure = go.Figure()
    palette = member_colours([name for name, _, _ in series])
    for name, times, totals in series:
        figure.add_trace(
            go.Scatter(
                x=list(times),
                y=list(totals),
                mode="lines",
                name=plain(name),
                line={"color": palette[name], "width": 2},
                customdata=[plain(unit)] * len(times),
                hovertemplate="%{fullData.name}<br>%{x:,.0f} s: %{y:,.0f} %{customdata}"
                "<extra></extra>",
            )
        )
    for row, (label, start, end) in enumerate(_pause_spans(pauses)):
        figure.add_vrect(
            x0=start,
            x1=max(end, start + 1e-9),
            fillcolor="#CC6677",
            opacity=0.15,
            line_width=0,
        )
        # One line per distinct pause, each under the last: the strategies' pauses mostly
        # start together, and their labels sat on one spot.
        figure.add_annotation(
            x=start,
            xref="x",
            y=1,
            yref="paper",
            yshift=-PAUSE_LINE_PX * row,
            xanchor="left",
            yanchor="top",
            text=plain(label),
            showarrow=False,
            font={"size": 11},
        )
    figure.update_layout(
        xaxis_title="seconds after the change",
        yaxis_title=f"total lag ({plain(unit)})",
        height=380,
        margin={"l": 50, "r": 10, "t": 30, "b": 40},
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom"},
    )
    return figure


@dataclass(frozen=True, slots=True)
class ClientTasks:
    """One Kafka Streams client in one phase: its active, standby and warm-up tasks."""

    client: str
    active: tuple[str, ...]
    standby: tuple[str, ...]
    warmup: tuple[str, ...]

    @staticmethod
    def of(client: str, held: ClientAssignment) -> ClientTasks:
        """What ``client`` holds in the core's terms, as the figure's task ids."""
        return ClientTasks(
            client=client,
            active=tuple(str(task) for task in held.active),
            standby=tuple(str(task) for task in held.standby),
            warmup=tuple(str(task) for task in held.warmup),
        )


def streams_tasks_figure(
    phases: Sequence[tuple[str, Sequence[ClientTasks]]],
    *,
    colours: Mapping[str, str] | None = None,
    slider_prefix: str = "Phase",
) -> go.Figure:
    """Tasks per Streams client, one frame per phase (the probing-rebalance sequence, or one
    assignor after another; the slider shows ``slider_prefix: phase``).

    Stacked bars per client: active, standby (not warm-up) and warm-up counts; hover lists the
    task ids.
    """
    if not phases:
        raise ValueError("the streams figure needs at least one phase")
    clients = list(dict.fromkeys(c.client for _, tasks in phases for c in tasks))
    palette = dict(colours) if colours is not None else member_colours(clients)
    kinds = (
        ("active", ROLE_COLOURS["active"], ""),
        ("standby", ROLE_COLOURS["standby"], ""),
        ("warm-up", ROLE_COLOURS["warm-up"], "/"),
    )
    short = short_labels(clients, 14)

    def bars(tasks: Sequence[ClientTasks]) -> list[go.Bar]:
        by_client = {c.client: c for c in tasks}
        result = []
        for kind, colour, pattern in kinds:
            lists: list[tuple[str, ...]] = []
            for client in clients:
                entry = by_client.get(client)
                if entry is None:
                    lists.append(())
                elif kind == "active":
                    lists.append(entry.active)
                elif kind == "standby":
                    warm = set(entry.warmup)
                    lists.append(tuple(t for t in entry.standby if t not in warm))
                else:
                    lists.append(entry.warmup)
            result.append(
                go.Bar(
                    x=plain_all(short[client] for client in clients),
                    y=[len(tasks_) for tasks_ in lists],
                    name=kind,
                    marker={"color": colour, "pattern": {"shape": pattern}},
                    hovertext=[plain(", ".join(tasks_)) or "none" for tasks_ in lists],
                    hoverinfo="text+name",
                )
            )
        return result

    labels = [label for label, _ in phases]
    figure = go.Figure(
        data=bars(phases[0][1]),
        frames=[go.Frame(data=bars(tasks), name=label) for label, tasks in phases],
    )
    peak = max((len(c.active) + len(c.standby) for _, tasks in phases for c in tasks), default=1)
    figure.update_layout(
        barmode="stack",
        yaxis={"title": "tasks", "range": [0, max(peak, 1) * 1.15]},
        height=420,
        margin={"l": 40, "r": 10, "t": 40, "b": 120},
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom"},
        **play_controls(labels, 1500, slider_prefix),
    )
    figure.update_xaxes(
        tickvals=plain_all(short[client] for client in clients),
        ticktext=[
            f"<span style='color:{palette.get(client, NOBODY_COLOUR)}'>■</span>"
            f" {plain(short[client])}"
            for client in clients
        ],
    )
    return figure

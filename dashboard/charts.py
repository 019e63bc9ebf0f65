"""Pure figure functions: data in, :class:`plotly.graph_objects.Figure` out.

Nothing here imports Streamlit or computes an assignment; the dashboard hands in what the core
computed (assignments, lag per member, rebalance phases, drain projections) and shows the figure.
Tests call these functions directly.

Conventions every figure keeps:

1. Each member has one colour everywhere (:func:`member_colours`), taken from colour-blind-safe
   palettes (Paul Tol's *muted* set, then Okabe-Ito); grey is reserved for "nobody".
2. Members keep their column (their position in ``member_order``) in every figure and frame.
3. In the assignment animation a partition keeps its tile colour (the colour of the member that
   owned it in the first frame) and, while it stays with a member, its row; a partition that ends
   with another owner than it started with is outlined in black.
4. Past ``max_tiles`` partitions the animation draws one stacked bar per member (one segment per
   topic plus a hatched "moved here" segment) instead of a tile per partition, so 10,000
   partitions stay cheap to draw and to send to the browser.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter

import numpy as np
import plotly.graph_objects as go

from assignors import TopicPartition

#: Paul Tol's "muted" qualitative palette (colour-blind safe), then Okabe-Ito without black.
MEMBER_PALETTE: tuple[str, ...] = (
    "#332288",
    "#88CCEE",
    "#44AA99",
    "#117733",
    "#999933",
    "#DDCC77",
    "#CC6677",
    "#882255",
    "#AA4499",
    "#E69F00",
    "#56B4E9",
    "#009E73",
    "#F0E442",
    "#0072B2",
    "#D55E00",
    "#CC79A7",
)
#: Tiles nobody owns (before a fresh group's first assignment, or revoked mid-rebalance).
NOBODY_COLOUR = "#BBBBBB"
MOVED_OUTLINE = "#000000"
UNASSIGNED_COLUMN = "(unassigned)"
#: Above this many partitions the animation aggregates per member and topic.
DEFAULT_MAX_TILES = 600

Owners = Mapping[str, Sequence[TopicPartition]]


@dataclass(frozen=True, slots=True)
class Phase:
    """One frame of a rebalance: a label and who holds which partition at that moment."""

    label: str
    owners: Owners


def member_colours(member_ids: Sequence[str]) -> dict[str, str]:
    """One colour per member, by position in ``member_ids`` (the palette repeats past 16)."""
    return {
        member: MEMBER_PALETTE[index % len(MEMBER_PALETTE)]
        for index, member in enumerate(member_ids)
    }


def member_order(*assignments: Mapping[str, object]) -> list[str]:
    """Members in first-seen order across ``assignments``: the columns every figure uses."""
    seen: dict[str, None] = {}
    for assignment in assignments:
        for member in assignment:
            seen.setdefault(member, None)
    return list(seen)


def _owner_map(owners: Owners) -> dict[TopicPartition, str]:
    return {tp: member for member, tps in owners.items() for tp in tps}


def moved_partitions(before: Owners, after: Owners) -> set[TopicPartition]:
    """Partitions owned before whose owner after is a different member (or nobody)."""
    owner_before = _owner_map(before)
    owner_after = _owner_map(after)
    return {tp for tp, member in owner_before.items() if owner_after.get(tp) != member}


def _stable_slots(
    phases: Sequence[Phase], columns: Sequence[str], universe: Sequence[TopicPartition]
) -> list[dict[TopicPartition, tuple[str, int]]]:
    """Per phase, partition -> (column, row); rows stay put while a partition stays."""
    placements: list[dict[TopicPartition, tuple[str, int]]] = []
    previous: dict[TopicPartition, tuple[str, int]] = {}
    for phase in phases:
        owner = _owner_map(phase.owners)
        by_column: dict[str, list[TopicPartition]] = defaultdict(list)
        for tp in universe:
            by_column[owner.get(tp, UNASSIGNED_COLUMN)].append(tp)
        placement: dict[TopicPartition, tuple[str, int]] = {}
        for column in columns:
            members_tps = by_column.get(column, [])
            kept = {
                tp: previous[tp][1]
                for tp in members_tps
                if tp in previous and previous[tp][0] == column
            }
            used = set(kept.values())
            free_row = 0
            for tp in members_tps:
                if tp in kept:
                    placement[tp] = (column, kept[tp])
                    continue
                while free_row in used:
                    free_row += 1
                used.add(free_row)
                placement[tp] = (column, free_row)
        placements.append(placement)
        previous = placement
    return placements


def _columns(phases: Sequence[Phase], order: Sequence[str] | None, unassigned: bool) -> list[str]:
    columns = list(order) if order is not None else member_order(*(p.owners for p in phases))
    for phase in phases:
        for member in phase.owners:
            if member not in columns:
                columns.append(member)
    if unassigned:
        columns.append(UNASSIGNED_COLUMN)
    return columns


def _play_controls(labels: Sequence[str], duration_ms: int) -> dict[str, object]:
    """Play/pause buttons and a slider with one step per frame."""
    frame_args = {
        "frame": {"duration": duration_ms, "redraw": True},
        "transition": {"duration": int(duration_ms * 0.6), "easing": "cubic-in-out"},
        "mode": "immediate",
    }
    return {
        "updatemenus": [
            {
                "type": "buttons",
                "direction": "left",
                "x": 0.0,
                "y": -0.08,
                "xanchor": "left",
                "yanchor": "top",
                "showactive": False,
                "buttons": [
                    {"label": "▶ Play", "method": "animate", "args": [None, frame_args]},
                    {
                        "label": "❚❚ Pause",
                        "method": "animate",
                        "args": [
                            [None],
                            {"frame": {"duration": 0, "redraw": False}, "mode": "immediate"},
                        ],
                    },
                ],
            }
        ],
        "sliders": [
            {
                "active": 0,
                "x": 0.18,
                "len": 0.82,
                "y": -0.04,
                "yanchor": "top",
                "currentvalue": {"prefix": "Phase: "},
                "steps": [
                    {
                        "label": label,
                        "method": "animate",
                        "args": [
                            [label],
                            {
                                "frame": {"duration": 0, "redraw": True},
                                "transition": {"duration": 300},
                                "mode": "immediate",
                            },
                        ],
                    }
                    for label in labels
                ],
            }
        ],
    }


def assignment_animation(
    phases: Sequence[Phase],
    *,
    partitions: Sequence[TopicPartition] = (),
    order: Sequence[str] | None = None,
    colours: Mapping[str, str] | None = None,
    max_tiles: int = DEFAULT_MAX_TILES,
    title: str = "",
    duration_ms: int = 1200,
) -> go.Figure:
    """Animate ``phases`` (first = before, last = after, any rebalance phases between).

    ``partitions`` lists every assignable partition so that ones nobody owns appear in an
    "(unassigned)" column; ``order`` fixes the member columns. Past ``max_tiles`` partitions the
    figure is the aggregated stacked-bar form (see the module docstring).
    """
    if not phases:
        raise ValueError("an animation needs at least one phase")
    everything = frozenset(partitions).union(
        *(tps for phase in phases for tps in phase.owners.values())
    )
    if len(everything) > max_tiles:
        return _aggregated_animation(phases, everything, order, colours, title, duration_ms)
    universe = sorted(everything)
    owned_everywhere = all(len(_owner_map(phase.owners)) == len(universe) for phase in phases)
    columns = _columns(phases, order, unassigned=not owned_everywhere)
    palette = dict(colours) if colours is not None else member_colours(columns)
    first_owner = _owner_map(phases[0].owners)
    last_owner = _owner_map(phases[-1].owners)
    moved = {tp for tp in universe if first_owner.get(tp) != last_owner.get(tp)}
    placements = _stable_slots(phases, columns, universe)
    column_index = {column: index for index, column in enumerate(columns)}
    tallest = max((row for placement in placements for _, row in placement.values()), default=0)
    tile_colours = [palette.get(first_owner.get(tp, ""), NOBODY_COLOUR) for tp in universe]
    outline = [MOVED_OUTLINE if tp in moved else "rgba(0,0,0,0)" for tp in universe]
    widths = [3 if tp in moved else 0 for tp in universe]
    show_text = len(universe) <= 120
    size = 26 if len(universe) <= 60 else 16 if len(universe) <= 240 else 9

    def tiles(index: int) -> go.Scatter:
        placement = placements[index]
        owner_now = _owner_map(phases[index].owners)
        return go.Scatter(
            x=[column_index[placement[tp][0]] for tp in universe],
            y=[placement[tp][1] for tp in universe],
            ids=[str(tp) for tp in universe],
            mode="markers+text" if show_text else "markers",
            text=[f"{tp.topic[:6]}-{tp.partition}" for tp in universe] if show_text else None,
            textfont={"size": 8},
            hovertext=[
                f"{tp}: {first_owner.get(tp, 'nobody')} → {last_owner.get(tp, 'nobody')}"
                f" (now {owner_now.get(tp, 'nobody')})"
                for tp in universe
            ],
            hoverinfo="text",
            marker={
                "symbol": "square",
                "size": size,
                "color": tile_colours,
                "line": {"color": outline, "width": widths},
                "opacity": 0.9,
            },
            name="partitions",
            showlegend=False,
        )

    headers = go.Scatter(
        x=list(range(len(columns))),
        y=[-1.2] * len(columns),
        mode="markers",
        marker={
            "symbol": "square",
            "size": 14,
            "color": [palette.get(column, NOBODY_COLOUR) for column in columns],
        },
        hovertext=columns,
        hoverinfo="text",
        name="members",
        showlegend=False,
    )
    labels = [phase.label for phase in phases]
    figure = go.Figure(
        data=[tiles(0), headers],
        frames=[
            go.Frame(data=[tiles(index)], traces=[0], name=label)
            for index, label in enumerate(labels)
        ],
    )
    figure.update_layout(
        title=title or f"{labels[0]} → {labels[-1]}  ({len(moved)} partitions move, outlined)",
        xaxis={
            "tickvals": list(range(len(columns))),
            "ticktext": [_short(column) for column in columns],
            "range": [-0.6, len(columns) - 0.4],
            "showgrid": False,
            "zeroline": False,
        },
        yaxis={
            "range": [tallest + 0.8, -1.8],
            "showticklabels": False,
            "showgrid": False,
            "zeroline": False,
        },
        height=min(900, 220 + 30 * (tallest + 2) if size >= 16 else 220 + 12 * (tallest + 2)),
        margin={"l": 20, "r": 20, "t": 50, "b": 110},
        plot_bgcolor="white",
        **_play_controls(labels, duration_ms),
    )
    return figure


def _short(member: str, limit: int = 18) -> str:
    return member if len(member) <= limit else member[: limit - 1] + "…"


def short_label(text: str, limit: int = 18) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis, as the figures label members."""
    return _short(text, limit)


def _text_array(values: Sequence[str]) -> np.ndarray:
    """Strings as a NumPy array: Plotly validates and copies it at once, not item by item."""
    return np.array(values, dtype=str)


def _aggregated_animation(
    phases: Sequence[Phase],
    universe: frozenset[TopicPartition],
    order: Sequence[str] | None,
    colours: Mapping[str, str] | None,
    title: str,
    duration_ms: int,
) -> go.Figure:
    """Stacked bars per member: partitions kept per topic plus a hatched "moved here" segment.

    Counted with set operations per member (no loop over partitions in Python), and the trace
    data are NumPy arrays, so 10,000 partitions cost a few milliseconds per frame.
    """
    empty: frozenset[TopicPartition] = frozenset()
    held = [{member: frozenset(tps) for member, tps in phase.owners.items()} for phase in phases]
    owned = [empty.union(*holding.values()) for holding in held]
    owned_everywhere = all(len(now) == len(universe) for now in owned)
    columns = _columns(phases, order, unassigned=not owned_everywhere)
    column_index = {column: index for index, column in enumerate(columns)}
    topics = sorted({tp.topic for tp in universe})
    topic_palette = member_colours(topics)
    first, first_nobody = held[0], universe - owned[0]

    def kept_and_arrived(index: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
        kept = {topic: np.zeros(len(columns), dtype=int) for topic in topics}
        arrived = np.zeros(len(columns), dtype=int)
        holdings: list[tuple[str, frozenset[TopicPartition], frozenset[TopicPartition]]] = [
            (member, tps, first.get(member, empty)) for member, tps in held[index].items()
        ]
        if not owned_everywhere:
            holdings.append((UNASSIGNED_COLUMN, universe - owned[index], first_nobody))
        for holder, tps, had in holdings:
            column = column_index[holder]
            stayed = had & tps
            for topic, count in Counter(map(itemgetter(0), stayed)).items():
                kept[topic][column] += count
            arrived[column] += len(tps) - len(stayed)
        return kept, arrived

    x = _text_array(columns)

    # Traces and frames as plain dicts: the figure validates them once (a go.Bar per trace would
    # be validated, then copied and validated again by the figure).
    def counts(index: int) -> list[dict[str, object]]:
        kept, arrived = kept_and_arrived(index)
        bars: list[dict[str, object]] = [
            {
                "type": "bar",
                "x": x,
                "y": kept[topic],
                "name": topic,
                "marker": {"color": topic_palette[topic]},
            }
            for topic in topics
        ]
        bars.append(
            {
                "type": "bar",
                "x": x,
                "y": arrived,
                "name": "moved here",
                "marker": {
                    "color": "white",
                    "line": {"color": MOVED_OUTLINE, "width": 1},
                    "pattern": {"shape": "/", "fgcolor": MOVED_OUTLINE},
                },
            }
        )
        return bars

    last = held[-1]
    stayed_total = sum(len(tps & last.get(member, empty)) for member, tps in first.items())
    moved_total = len(universe) - stayed_total - len(first_nobody - owned[-1])
    labels = [phase.label for phase in phases]
    frames = [{"data": counts(index), "name": label} for index, label in enumerate(labels)]
    figure = go.Figure(data=frames[0]["data"], frames=frames)
    peak = max(len(tps) for holding in held for tps in [empty, *holding.values()])
    unassigned_peak = max(len(universe) - len(now) for now in owned)
    palette = dict(colours) if colours is not None else member_colours(columns)
    figure.update_layout(
        barmode="stack",
        title=title
        or f"{labels[0]} → {labels[-1]}: partitions per member and topic "
        f"({len(universe):,} partitions, {moved_total:,} move)",
        yaxis={"title": "partitions", "range": [0, max(peak, unassigned_peak, 1) * 1.1]},
        xaxis={
            "tickvals": x,
            "ticktext": _text_array([_short(column) for column in columns]),
            "categoryorder": "array",
            "categoryarray": x,
        },
        height=480,
        margin={"l": 40, "r": 20, "t": 50, "b": 140},
        plot_bgcolor="white",
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom"},
        **_play_controls(labels, duration_ms),
    )
    # Member colours appear as a strip under the bars so they match the other charts.
    figure.add_trace(
        go.Scatter(
            x=x,
            y=np.zeros(len(columns), dtype=int),
            mode="markers",
            marker={
                "symbol": "square",
                "size": 8,
                "color": _text_array([palette.get(column, NOBODY_COLOUR) for column in columns]),
            },
            hovertext=x,
            hoverinfo="text",
            showlegend=False,
            name="members",
        )
    )
    return figure


def lag_by_member_figure(
    columns: Sequence[tuple[str, Mapping[str, float]]],
    *,
    order: Sequence[str] | None = None,
    colours: Mapping[str, str] | None = None,
    unit: str = "messages",
) -> go.Figure:
    """Lag per consumer: one panel per column (e.g. "current", then each strategy).

    ``columns`` is ``[(title, {member: lag}), ...]``; bars keep member colours and the y axis is
    shared so panels compare at a glance.
    """
    if not columns:
        raise ValueError("the lag chart needs at least one column")
    members = list(order) if order is not None else member_order(*(lag for _, lag in columns))
    palette = dict(colours) if colours is not None else member_colours(members)
    # One x axis per panel side by side, all sharing the first y axis (what make_subplots
    # builds, without its cost: this chart is redrawn on every change).
    spacing = 0.02
    width = (1 - spacing * (len(columns) - 1)) / len(columns)
    traces: list[dict[str, object]] = []  # dicts: validated once, by the figure
    axes: dict[str, object] = {}
    titles: list[dict[str, object]] = []
    for index, (title, lag) in enumerate(columns):
        suffix = "" if index == 0 else str(index + 1)
        shown = [member for member in members if member in lag]
        traces.append(
            {
                "type": "bar",
                "x": _text_array(shown),
                "y": np.array([lag[member] for member in shown], dtype=float),
                "marker": {
                    "color": _text_array([palette.get(member, NOBODY_COLOUR) for member in shown])
                },
                "name": title,
                "showlegend": False,
                "hovertemplate": "%{x}: %{y:,} " + unit + "<extra>" + title + "</extra>",
                "xaxis": f"x{suffix}",
                "yaxis": "y",
            }
        )
        start = index * (width + spacing)
        axes[f"xaxis{suffix}"] = {
            "domain": [start, start + width],
            "anchor": "y",
            "showticklabels": len(shown) <= 30,
            "tickangle": -45,
        }
        titles.append(
            {
                "text": title,
                "x": start + width / 2,
                "y": 1.0,
                "xref": "paper",
                "yref": "paper",
                "xanchor": "center",
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": 16},
            }
        )
    figure = go.Figure(data=traces)
    figure.update_layout(
        height=380,
        margin={"l": 50, "r": 10, "t": 40, "b": 80},
        plot_bgcolor="white",
        yaxis={"title": {"text": f"lag ({unit})"}, "anchor": "x"},
        annotations=titles,
        **axes,
    )
    return figure


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
            x=_text_array(topic_names),
            y=_text_array([_short(member, 28) for member in members]),
            colorscale="Cividis",
            text=z.tolist() if len(members) * len(topic_names) <= 400 else None,
            texttemplate="%{text}" if len(members) * len(topic_names) <= 400 else None,
            hovertemplate="%{y} · %{x}: %{z} partitions<extra></extra>",
            colorbar={"title": "partitions"},
        )
    )
    figure.update_layout(
        height=min(900, 160 + 22 * max(len(members), 1)),
        margin={"l": 10, "r": 10, "t": 30, "b": 40},
        yaxis={"autorange": "reversed"},
    )
    return figure


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
                name=name,
                line={"color": palette[name], "width": 2},
            )
        )
    for label, start, end in pauses:
        figure.add_vrect(
            x0=start,
            x1=max(end, start + 1e-9),
            fillcolor="#CC6677",
            opacity=0.15,
            line_width=0,
            annotation_text=label,
            annotation_position="top left",
        )
    figure.update_layout(
        xaxis_title="seconds after the change",
        yaxis_title=f"total lag ({unit})",
        height=380,
        margin={"l": 50, "r": 10, "t": 30, "b": 40},
        plot_bgcolor="white",
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom"},
    )
    return figure


@dataclass(frozen=True, slots=True)
class TimelineBar:
    """One bar of the protocol timeline: a row (protocol), a step name, start and end."""

    row: str
    step: str
    start: float
    end: float
    consuming: bool


def protocol_timeline_figure(bars: Sequence[TimelineBar], *, unit: str = "s") -> go.Figure:
    """Gantt-like comparison of protocols for the same change: one row per protocol."""
    rows = list(dict.fromkeys(bar.row for bar in bars))
    steps = list(dict.fromkeys(bar.step for bar in bars))
    palette = member_colours(steps)
    figure = go.Figure()
    shown: set[str] = set()
    for bar in bars:
        figure.add_trace(
            go.Bar(
                y=[bar.row],
                x=[max(bar.end - bar.start, 0.0)],
                base=[bar.start],
                orientation="h",
                name=bar.step,
                legendgroup=bar.step,
                showlegend=bar.step not in shown,
                marker={
                    "color": palette[bar.step],
                    "pattern": {"shape": "" if bar.consuming else "x"},
                },
                hovertemplate=(
                    f"{bar.row}: {bar.step} {bar.start:g}–{bar.end:g} {unit}"
                    f"{'' if bar.consuming else ' (not consuming)'}<extra></extra>"
                ),
            )
        )
        shown.add(bar.step)
    figure.update_layout(
        barmode="overlay",
        xaxis_title=f"time ({unit})",
        yaxis={"categoryorder": "array", "categoryarray": list(reversed(rows))},
        height=140 + 50 * len(rows),
        margin={"l": 10, "r": 10, "t": 30, "b": 40},
        plot_bgcolor="white",
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


def streams_tasks_figure(
    phases: Sequence[tuple[str, Sequence[ClientTasks]]],
    *,
    colours: Mapping[str, str] | None = None,
) -> go.Figure:
    """Tasks per Streams client, one frame per phase (the probing-rebalance sequence).

    Stacked bars per client: active, standby (not warm-up) and warm-up counts; hover lists the
    task ids.
    """
    if not phases:
        raise ValueError("the streams figure needs at least one phase")
    clients = list(dict.fromkeys(c.client for _, tasks in phases for c in tasks))
    palette = dict(colours) if colours is not None else member_colours(clients)
    kinds = (
        ("active", "#332288", ""),
        ("standby", "#88CCEE", ""),
        ("warm-up", "#DDCC77", "/"),
    )

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
                    x=[_short(client, 14) for client in clients],
                    y=[len(tasks_) for tasks_ in lists],
                    name=kind,
                    marker={"color": colour, "pattern": {"shape": pattern}},
                    hovertext=[", ".join(tasks_) or "none" for tasks_ in lists],
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
        plot_bgcolor="white",
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom"},
        **_play_controls(labels, 1500),
    )
    figure.update_xaxes(
        tickvals=[_short(client, 14) for client in clients],
        ticktext=[
            f"<span style='color:{palette.get(client, NOBODY_COLOUR)}'>■</span> "
            f"{_short(client, 14)}"
            for client in clients
        ],
    )
    return figure

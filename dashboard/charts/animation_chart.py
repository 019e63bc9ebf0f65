"""The animated rebalance, a pure figure: phases in, :class:`plotly.graph_objects.Figure` out.

Two forms, by size:

1. **Tiles** (up to ``max_tiles`` partitions, ~60): one labelled tile per partition in its
   owner's column, the member's name and colour swatch above the column. Tiles are coloured by
   topic (the topics' own palette) or by lag (one sequential scale, numbers in the hover); the
   label is black or white, whichever reads on the tile. Every tile's border is its owner's
   colour in that frame, so a moved tile takes its new owner's mark; in the frames after it
   moved, a dashed trail joins where it started to where it is. Kept tiles keep their cell.
2. **Cells** (above that): one cell per member and topic whose area grows and shrinks with the
   partitions held in each frame; the count is written in the cell and the hover gives the exact
   numbers (held, arrived since the first frame).

Both: one frame per phase, the frame's caption (what happens in that phase) as the figure's
title, ▶ Play / ❚❚ Pause and the phase slider *below* the chart, nothing drawn over names.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Literal

import numpy as np
import plotly.graph_objects as go

from assignors import RebalanceSimulation, Scenario, TopicPartition, partition_lags
from dashboard.charts.figure_build import label_px, trusted_figure
from dashboard.charts.plotly_text import plain, plain_all, plain_array
from dashboard.model import palette

#: Above this many partitions the animation draws cells per member and topic.
DEFAULT_MAX_TILES = 64
UNASSIGNED_COLUMN = "(unassigned)"
ColourBy = Literal["topic", "lag"]
#: The lag colour scale (colour-blind safe, light = little lag).
LAG_SCALE = "YlOrRd"

Owners = Mapping[str, Sequence[TopicPartition]]
#: A cell of the cells form: (column, topic).
Cell = tuple[str, str]


@dataclass(frozen=True, slots=True)
class Phase:
    """One frame of a rebalance: a label, who holds which partition then, and a caption."""

    label: str
    owners: Owners
    caption: str = ""


def owner_map(owners: Owners) -> dict[TopicPartition, str]:
    """Partition -> the member holding it."""
    return {tp: member for member, tps in owners.items() for tp in tps}


def columns_for(
    phases: Sequence[Phase], order: Sequence[str] | None, unassigned: bool
) -> list[str]:
    """Member columns: ``order`` first, then members only the phases name, then nobody."""
    columns = list(order) if order is not None else []
    seen = set(columns)
    for phase in phases:
        for member in phase.owners:
            if member not in seen:
                columns.append(member)
                seen.add(member)
    if unassigned:
        columns.append(UNASSIGNED_COLUMN)
    return columns


def play_controls(
    labels: Sequence[str], duration_ms: int, prefix: str = "Phase"
) -> dict[str, object]:
    """Play/pause buttons and a slider over ``labels``, both under the plot area; the slider
    shows ``prefix: label``."""
    frame_args = {
        "frame": {"duration": duration_ms, "redraw": True},
        "transition": {"duration": int(duration_ms * 0.6), "easing": "cubic-in-out"},
        "mode": "immediate",
        "fromcurrent": True,
    }
    return {
        "updatemenus": [
            {
                "type": "buttons",
                "direction": "left",
                "x": 0.0,
                "y": 0.0,
                "xanchor": "left",
                "yanchor": "top",
                "pad": {"t": 30, "r": 10},
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
                "x": 0.2,
                "len": 0.74,
                "y": 0.0,
                "yanchor": "top",
                "pad": {"t": 20},
                "currentvalue": {"prefix": f"{plain(prefix)}: ", "font": {"size": 14}},
                "steps": [
                    {
                        "label": plain(label),
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


def _caption(phase: Phase) -> str:
    return phase.caption or phase.label


def _title(phase: Phase) -> dict[str, object]:
    """The frame's caption as the title, pinned to the top left of the figure."""
    return {
        "text": plain(_caption(phase)),
        "font": {"size": 15},
        "x": 0.01,
        "xanchor": "left",
        "xref": "paper",
        "y": 0.995,
        "yref": "container",
        "yanchor": "top",
    }


def assignment_animation(
    phases: Sequence[Phase],
    *,
    partitions: Sequence[TopicPartition] = (),
    order: Sequence[str] | None = None,
    colours: Mapping[str, str] | None = None,
    lags: Mapping[TopicPartition, int] | None = None,
    colour_by: ColourBy = "topic",
    max_tiles: int = DEFAULT_MAX_TILES,
    duration_ms: int = 1400,
) -> go.Figure:
    """Animate ``phases`` (first = before, last = after, protocol phases between).

    ``partitions`` lists every assignable partition, so that ones nobody holds appear in an
    "(unassigned)" column; ``order`` fixes the member columns; ``lags`` (partition -> lag) feeds
    the hover and ``colour_by="lag"``. Past ``max_tiles`` partitions: cells (module docstring).
    """
    if not phases:
        raise ValueError("an animation needs at least one phase")
    everything = frozenset(partitions).union(
        *(tps for phase in phases for tps in phase.owners.values())
    )
    if len(everything) > max_tiles:
        return _cells(phases, everything, order, colours, duration_ms)
    return _tiles(phases, sorted(everything), order, colours, lags or {}, colour_by, duration_ms)


def partition_lag_map(scenario: Scenario) -> dict[TopicPartition, int]:
    """Partition -> lag, for the animation's hover and its lag colours."""
    return {
        TopicPartition(topic.name, number): lag
        for topic in scenario.topics
        for number, lag in enumerate(partition_lags(topic, scenario.auto_offset_reset))
    }


def strategy_animation(
    phases: Sequence[Phase],
    after: Scenario,
    members: Sequence[str],
    *,
    whole_group: bool,
    unassigned: Sequence[TopicPartition] = (),
    colours: Mapping[str, str] | None = None,
    colour_by: str = "topic",
) -> go.Figure:
    """The what-if's before -> after of one strategy, for the group ``after`` (the edited
    scenario), its columns ``members`` in order:

    1. Without ``whole_group`` (a chosen subset of the members is drawn) each frame keeps only
       those members' partitions, and no "(unassigned)" column is drawn (a subset cannot tell
       what nobody holds); with it, ``unassigned`` (the target's unassigned partitions) is.
    2. A group small enough for tiles gets the partitions' lags, for the hover and
       ``colour_by="lag"`` (any other ``colour_by`` colours by topic).
    """
    if not whole_group:
        keep = set(members)
        phases = [
            Phase(p.label, {m: tps for m, tps in p.owners.items() if m in keep}, p.caption)
            for p in phases
        ]
    small = sum(after.partition_counts().values()) <= DEFAULT_MAX_TILES
    lags = partition_lag_map(after) if small else {}
    return assignment_animation(
        phases,
        # Every assignable partition is owned in the last frame or left unassigned there.
        partitions=unassigned if whole_group else (),
        order=members,
        colours=colours,
        lags=lags,
        colour_by="lag" if colour_by == "lag" else "topic",
    )


def _tile_slots(
    phases: Sequence[Phase], columns: Sequence[str], universe: Sequence[TopicPartition]
) -> list[dict[TopicPartition, tuple[str, int]]]:
    """Per phase, partition -> (column, slot); a partition keeps its slot while it stays."""
    placements: list[dict[TopicPartition, tuple[str, int]]] = []
    previous: dict[TopicPartition, tuple[str, int]] = {}
    for phase in phases:
        owner = owner_map(phase.owners)
        by_column: dict[str, list[TopicPartition]] = defaultdict(list)
        for tp in universe:
            by_column[owner.get(tp, UNASSIGNED_COLUMN)].append(tp)
        placement: dict[TopicPartition, tuple[str, int]] = {}
        for column in columns:
            held = by_column.get(column, [])
            kept = {tp: previous[tp][1] for tp in held if previous.get(tp, ("", 0))[0] == column}
            used = set(kept.values())
            free = 0
            for tp in held:
                if tp in kept:
                    placement[tp] = (column, kept[tp])
                    continue
                while free in used:
                    free += 1
                used.add(free)
                placement[tp] = (column, free)
        placements.append(placement)
        previous = placement
    return placements


def _lag_colour(value: float, peak: float) -> str:
    """``value`` on :data:`LAG_SCALE` (0 = lightest)."""
    from plotly.colors import sample_colorscale

    share = 0.0 if peak <= 0 else min(1.0, value / peak)
    rgb = sample_colorscale(LAG_SCALE, [0.08 + 0.92 * share])[0]
    red, green, blue = (int(float(part)) for part in rgb[4:-1].split(","))
    return f"#{red:02X}{green:02X}{blue:02X}"


def _tiles(
    phases: Sequence[Phase],
    universe: list[TopicPartition],
    order: Sequence[str] | None,
    colours: Mapping[str, str] | None,
    lags: Mapping[TopicPartition, int],
    colour_by: ColourBy,
    duration_ms: int,
) -> go.Figure:
    """The tiles form (module docstring, form 1), in four steps:

    1. The columns (the members in ``order``, then "(unassigned)" when some frame leaves a
       partition unowned) and each partition's slot in every frame (:func:`_tile_slots`).
    2. What stays the same in every frame (:func:`_tile_look`): the grid the slots sit on,
       each tile's fill (its topic's or its lag's colour) and label ink, first and last owners.
    3. Per frame the tiles, bordered in their owner's colour, and the trails of the moved ones
       (:func:`_tile_frame`).
    4. The layout (:func:`_tile_layout`): member headers above, the topic legend or the lag
       colour bar, the controls below.
    """
    owned_everywhere = all(len(owner_map(phase.owners)) == len(universe) for phase in phases)
    columns = columns_for(phases, order, unassigned=not owned_everywhere)
    member_palette = dict(colours) if colours is not None else palette.member_colours(columns)
    placements = _tile_slots(phases, columns, universe)
    topics = sorted({tp.topic for tp in universe})
    topic_palette = palette.topic_colours(topics)
    look = _tile_look(phases, universe, columns, placements, lags, colour_by, topic_palette)
    labels = [phase.label for phase in phases]
    figure = go.Figure(
        data=_tile_frame(look, phases[0], placements[0], member_palette),
        frames=[
            go.Frame(
                data=_tile_frame(look, phases[index], placements[index], member_palette),
                traces=[0, 1],
                name=label,
                layout={"title": _title(phases[index])},
            )
            for index, label in enumerate(labels)
        ],
    )
    legend = _topic_legend(topics, topic_palette) if colour_by == "topic" else []
    figure.update_layout(
        **_tile_layout(look, phases[0], columns, member_palette, legend),
        **play_controls(labels, duration_ms),
    )
    if colour_by == "lag":
        figure.add_trace(_lag_colourbar(look.peak))
    return figure


@dataclass(frozen=True, slots=True)
class _TileLook:
    """What the tiles keep in every frame: the partitions (``universe``, sorted), the grid
    (``across`` tiles side by side in a column of ``rows`` rows, each ``size`` pixels), each
    tile's fill and label ink, its owner in the first and last frame, its lag, and where each
    sat in the first frame (the start of its trail)."""

    universe: Sequence[TopicPartition]
    column_index: Mapping[str, int]
    across: int
    rows: int
    size: int
    fill: Sequence[str]
    ink: Sequence[str]
    first: Mapping[TopicPartition, tuple[str, int]]
    first_owner: Mapping[TopicPartition, str]
    last_owner: Mapping[TopicPartition, str]
    lags: Mapping[TopicPartition, int]
    peak: int

    def xy(self, place: tuple[str, int]) -> tuple[float, float]:
        """Where slot ``place`` (column, slot) is drawn: column by column, ``across`` wide."""
        column, slot = place
        x = self.column_index[column] + (slot % self.across + 0.5) / self.across - 0.5
        return x, slot // self.across

    @property
    def moved(self) -> int:
        """How many partitions end with another owner than they started with."""
        return sum(1 for tp in self.universe if self.first_owner.get(tp) != self.last_owner.get(tp))


def _tile_look(
    phases: Sequence[Phase],
    universe: Sequence[TopicPartition],
    columns: Sequence[str],
    placements: Sequence[Mapping[TopicPartition, tuple[str, int]]],
    lags: Mapping[TopicPartition, int],
    colour_by: ColourBy,
    topic_palette: Mapping[str, str],
) -> _TileLook:
    """Step 2 of :func:`_tiles`. A column holds at most eight rows: past that its tiles sit
    side by side; a tile fits its column of a ~1,100 px wide chart, never below a label's size."""
    tallest = max((slot for p in placements for _, slot in p.values()), default=0) + 1
    across = max(1, math.ceil(tallest / 8))
    peak = max((lags.get(tp, 0) for tp in universe), default=0)
    fill = [
        _lag_colour(lags.get(tp, 0), peak) if colour_by == "lag" else topic_palette[tp.topic]
        for tp in universe
    ]
    return _TileLook(
        universe=universe,
        column_index={column: index for index, column in enumerate(columns)},
        across=across,
        rows=math.ceil(tallest / across),
        size=max(30, min(54, int(1000 / (len(columns) * across)) - 8)),
        fill=fill,
        ink=[palette.text_colour(colour) for colour in fill],
        first=placements[0],
        first_owner=owner_map(phases[0].owners),
        last_owner=owner_map(phases[-1].owners),
        lags=lags,
        peak=peak,
    )


def _tile_frame(
    look: _TileLook,
    phase: Phase,
    placement: Mapping[TopicPartition, tuple[str, int]],
    member_palette: Mapping[str, str],
) -> list[go.Scatter]:
    """Step 3 of :func:`_tiles`: the trail and the tiles of one frame (in that order: the
    frames update traces 0 and 1)."""
    owner_now = owner_map(phase.owners)
    universe = look.universe
    points = [look.xy(placement[tp]) for tp in universe]
    trail_x: list[float | None] = []
    trail_y: list[float | None] = []
    for tp, (x, y) in zip(universe, points, strict=True):
        if placement[tp][0] != look.first[tp][0]:
            start_x, start_y = look.xy(look.first[tp])
            trail_x += [start_x, x, None]
            trail_y += [start_y, y, None]
    tiles = go.Scatter(
        x=[x for x, _ in points],
        y=[y for _, y in points],
        ids=plain_all(str(tp) for tp in universe),
        mode="markers+text",
        text=[f"{plain(_topic_label(tp.topic))}<br><b>{tp.partition}</b>" for tp in universe],
        textfont={"size": 11, "color": look.ink},
        customdata=[
            [
                plain(str(tp)),
                plain(look.first_owner.get(tp, "nobody")),
                plain(owner_now.get(tp, "nobody")),
                plain(look.last_owner.get(tp, "nobody")),
                f"{look.lags.get(tp, 0):,}",
            ]
            for tp in universe
        ],
        hovertemplate=(
            "<b>%{customdata[0]}</b><br>now: %{customdata[2]}<br>"
            "before: %{customdata[1]} → after: %{customdata[3]}<br>"
            "lag: %{customdata[4]}<extra></extra>"
        ),
        marker={
            "symbol": "square",
            "size": look.size,
            "color": look.fill,
            "line": {
                "color": [
                    member_palette.get(owner_now.get(tp, ""), palette.NOBODY_COLOUR)
                    for tp in universe
                ],
                "width": 4,
            },
        },
        name="partitions",
        showlegend=False,
    )
    trail = go.Scatter(
        x=trail_x or [None],
        y=trail_y or [None],
        mode="lines",
        line={"color": palette.TRAIL_COLOUR, "width": 3, "dash": "dot"},
        hoverinfo="skip",
        name="trail",
        showlegend=False,
    )
    return [trail, tiles]


def _tile_layout(
    look: _TileLook,
    first: Phase,
    columns: Sequence[str],
    member_palette: Mapping[str, str],
    legend: Sequence[dict[str, object]],
) -> dict[str, object]:
    """Step 4 of :func:`_tiles` (the controls apart): the first frame's title, member headers
    on top, the grid's axes, and a note of how many partitions change owner."""
    return {
        "title": _title(first),
        "xaxis": {
            "range": [-0.55, len(columns) - 0.45],
            "side": "top",
            "tickvals": list(range(len(columns))),
            "ticktext": _headers(columns, member_palette),
            "tickfont": {"size": 13},
            "showgrid": False,
            "zeroline": False,
            "fixedrange": True,
        },
        "yaxis": {
            "range": [look.rows - 0.4, -0.6],
            "showticklabels": False,
            "showgrid": False,
            "zeroline": False,
            "fixedrange": True,
        },
        "height": max(300, 190 + (look.size + 10) * look.rows),
        # Room for the slider and buttons under the plot (Plotly would otherwise widen the
        # margin by drawing the chart twice).
        "margin": {"l": 10, "r": 10, "t": 100, "b": 112},
        "annotations": [
            *legend,
            {
                "text": f"{look.moved} of {len(look.universe)} partitions change owner; a tile's "
                "border is its owner's colour",
                "xref": "paper",
                "yref": "paper",
                "x": 1,
                "y": 1,
                "yshift": 48,
                "xanchor": "right",
                "showarrow": False,
                "font": {"size": 12},
            },
        ],
    }


def _inks(fills: Sequence[str]) -> list[str]:
    """The label colour (:func:`dashboard.model.palette.text_colour`) for each fill."""
    ink = {fill: palette.text_colour(fill) for fill in set(fills)}
    return [ink[fill] for fill in fills]


def _topic_label(topic: str) -> str:
    return topic if len(topic) <= 7 else topic[:6] + "…"


def _headers(columns: Sequence[str], member_palette: Mapping[str, str]) -> list[str]:
    """Each column's name (short, distinct) after its member's colour swatch."""
    labels = palette.short_labels([c for c in columns if c != UNASSIGNED_COLUMN], 14)
    labels[UNASSIGNED_COLUMN] = UNASSIGNED_COLUMN
    return [
        f"<span style='color:{member_palette.get(column, palette.NOBODY_COLOUR)}'>■</span> "
        f"{plain(labels[column])}"
        for column in columns
    ]


def _topic_legend(
    topics: Sequence[str], topic_palette: Mapping[str, str]
) -> list[dict[str, object]]:
    """The topics' colours as one line of text under the chart title."""
    text = "   ".join(
        f"<span style='color:{topic_palette[topic]}'>■</span> {plain(topic)}" for topic in topics
    )
    return [
        {
            "text": "tile colour = topic:  " + text,
            "xref": "paper",
            "yref": "paper",
            "x": 0,
            "y": 1,
            "yshift": 48,
            "xanchor": "left",
            "showarrow": False,
            "font": {"size": 12},
        }
    ]


def _lag_colourbar(peak: int) -> go.Scatter:
    """An invisible trace that carries the lag scale's colour bar."""
    return go.Scatter(
        x=[None],
        y=[None],
        mode="markers",
        marker={
            "colorscale": LAG_SCALE,
            "cmin": 0,
            "cmax": max(peak, 1),
            "color": [0],
            "showscale": True,
            "colorbar": {"title": {"text": "lag"}, "thickness": 12, "tickformat": ",d"},
        },
        hoverinfo="skip",
        showlegend=False,
        name="lag scale",
    )


def _cells(
    phases: Sequence[Phase],
    universe: frozenset[TopicPartition],
    order: Sequence[str] | None,
    colours: Mapping[str, str] | None,
    duration_ms: int,
) -> go.Figure:
    """One cell per member and topic, its area the partitions held, one frame per phase:

    1. Who holds what in each frame; the columns (the members in ``order``, then
       "(unassigned)" when some frame leaves a partition unowned).
    2. Per frame, per column and topic: the partitions held and those arrived since the first
       frame (:func:`_cell_counts`).
    3. The cells, sized against the largest holding (:func:`_cell_grid`), as one trace for the
       figure and what changes per frame (:func:`_cell_trace`).
    4. The layout (:func:`_cell_layout`): member headers on top, topics down the side, how many
       partitions change owner, the controls below.
    """
    empty: frozenset[TopicPartition] = frozenset()
    held = [{member: frozenset(tps) for member, tps in phase.owners.items()} for phase in phases]
    owned = [empty.union(*holding.values()) for holding in held]
    owned_everywhere = all(len(now) == len(universe) for now in owned)
    columns = columns_for(phases, order, unassigned=not owned_everywhere)
    member_palette = dict(colours) if colours is not None else palette.member_colours(columns)
    topics = sorted({tp.topic for tp in universe})
    per_frame = _cell_counts(held, owned, universe, owned_everywhere)
    grid = _cell_grid(columns, topics, per_frame)
    labels = [phase.label for phase in phases]
    frames = [
        {
            "data": _cell_trace(grid, *per_frame[index]),
            "traces": [0],
            "name": label,
            "layout": {"title": _title(phases[index])},
        }
        for index, label in enumerate(labels)
    ]
    nobody_first = universe - owned[0]
    stayed = sum(len(tps & held[-1].get(member, empty)) for member, tps in held[0].items())
    moved = len(universe) - stayed - len(nobody_first - owned[-1])
    layout = {
        **_cell_layout(phases[0], columns, member_palette, topics, len(universe), moved),
        **play_controls(labels, duration_ms),
    }
    return trusted_figure(_cell_trace(grid, *per_frame[0], whole=True), layout, frames)


def _cell_counts(
    held: Sequence[Mapping[str, frozenset[TopicPartition]]],
    owned: Sequence[frozenset[TopicPartition]],
    universe: frozenset[TopicPartition],
    owned_everywhere: bool,
) -> list[tuple[dict[Cell, int], dict[Cell, int]]]:
    """Step 2 of :func:`_cells`: per frame, (column, topic) -> partitions held, and ->
    partitions arrived since the first frame; unless every frame owns every partition, the
    "(unassigned)" column holds what nobody holds."""
    empty: frozenset[TopicPartition] = frozenset()
    nobody_first = universe - owned[0]
    per_frame = []
    for index in range(len(held)):
        holding = dict(held[index])
        had = dict(held[0])
        if not owned_everywhere:
            holding[UNASSIGNED_COLUMN] = universe - owned[index]
            had[UNASSIGNED_COLUMN] = nobody_first
        total: Counter[Cell] = Counter()
        arrived: Counter[Cell] = Counter()
        for member, tps in holding.items():
            before = had.get(member, empty)
            for topic, count in Counter(map(itemgetter(0), tps)).items():
                total[(member, topic)] += count
            for topic, count in Counter(map(itemgetter(0), tps - before)).items():
                arrived[(member, topic)] += count
        per_frame.append((dict(total), dict(arrived)))
    return per_frame


@dataclass(frozen=True, slots=True)
class _CellGrid:
    """The cells, column by column and topic by topic (``ids`` ``column|topic``, the topics'
    colours), and ``peak``: the largest number of partitions a member holds of a topic in any
    frame, the size of a full cell."""

    cells: Sequence[Cell]
    ids: np.ndarray
    colours: np.ndarray
    peak: int


def _cell_grid(
    columns: Sequence[str],
    topics: Sequence[str],
    per_frame: Sequence[tuple[Mapping[Cell, int], Mapping[Cell, int]]],
) -> _CellGrid:
    """Step 3 of :func:`_cells`, the fixed part. Sized against the members' largest holding:
    the unassigned column (everything, in an eager rebalance's revoke phase) is drawn at most
    that large, its count written in it. NumPy arrays throughout: Plotly checks and copies an
    array at once, not item by item (a list of 800 cells per frame cost ~10 ms to validate),
    and sends numbers as typed arrays."""
    peak = max(
        (n for total, _ in per_frame for (who, _), n in total.items() if who != UNASSIGNED_COLUMN),
        default=1,
    )
    topic_palette = palette.topic_colours(topics)
    cells = [(column, topic) for column in columns for topic in topics]
    return _CellGrid(
        cells=cells,
        ids=plain_array(f"{column}|{topic}" for column, topic in cells),
        colours=np.array([topic_palette[topic] for _, topic in cells], dtype=str),
        peak=peak,
    )


def _cell_trace(
    grid: _CellGrid,
    total: Mapping[Cell, int],
    arrived: Mapping[Cell, int],
    whole: bool = False,
) -> list[dict[str, object]]:
    """The cells holding ``total`` (``arrived`` since the first frame): the whole trace for
    the figure, only what changes between phases (counts, sizes, outlines; ``ids`` to match
    cells) for a frame, which Plotly merges into the trace. Half the bytes per frame, and no
    colour list to check."""
    cells, peak = grid.cells, grid.peak
    values = np.array([total.get(cell, 0) for cell in cells], dtype=np.int64)
    came = np.array([arrived.get(cell, 0) for cell in cells], dtype=np.int64)
    sizes = np.where(values > 0, 6 + 30 * np.sqrt(np.minimum(values, peak) / peak), 0.0)
    outlines = np.where(came > 0, 2, 0)  # an outline where some arrived, none elsewhere
    text = np.where(values > 0, values.astype(str), "")
    customdata = np.column_stack([values, came])  # held, arrived since the first frame
    if not whole:
        return [
            {
                "type": "scatter",
                "ids": grid.ids,
                "text": text,
                "customdata": customdata,
                "marker": {"size": sizes, "line": {"width": outlines}},
                "name": "partitions",
            }
        ]
    return [
        {
            "type": "scatter",
            "x": plain_array(column for column, _ in cells),
            "y": plain_array(topic for _, topic in cells),
            "ids": grid.ids,
            "mode": "markers+text",
            "text": text,
            # Black or white by the cell's colour (drawn opaque: a see-through cell's colour
            # would depend on the page under it).
            "textfont": {"size": 11, "color": _inks(grid.colours.tolist())},
            "customdata": customdata,
            "hovertemplate": (
                "<b>%{x}</b> · %{y}<br>%{customdata[0]:,} partitions"
                "<br>%{customdata[1]:,} arrived since the first frame<extra></extra>"
            ),
            "marker": {
                "symbol": "square",
                "size": sizes,
                "sizemode": "diameter",
                "color": grid.colours,
                "line": {"color": palette.MOVED_OUTLINE, "width": outlines},
            },
            "name": "partitions",
            "showlegend": False,
        }
    ]


def _cell_layout(
    first: Phase,
    columns: Sequence[str],
    member_palette: Mapping[str, str],
    topics: Sequence[str],
    partitions: int,
    moved: int,
) -> dict[str, object]:
    """Step 4 of :func:`_cells` (the controls apart)."""
    return dict(
        title=_title(first),
        xaxis={
            "side": "top",
            "categoryorder": "array",
            "categoryarray": plain_all(columns),
            "tickangle": -40 if len(columns) > 8 else 0,
            "tickvals": plain_all(columns),
            "ticktext": _headers(columns, member_palette),
            "fixedrange": True,
        },
        yaxis={"categoryorder": "array", "categoryarray": plain_all(topics), "fixedrange": True},
        height=max(320, 260 + 42 * len(topics)),
        # Room for the topic names, the last column's slanted name and the slider and buttons
        # (Plotly would otherwise widen the margins by drawing the chart twice).
        margin={
            "l": 20 + label_px(topics),
            "r": 24,
            "t": 150,
            "b": 112,
        },
        annotations=[
            {
                "text": f"{partitions:,} partitions, {moved:,} change owner; a cell's size is "
                "the partitions its member holds of that topic, outlined where some arrived",
                "xref": "paper",
                "yref": "paper",
                "x": 0,
                "y": 1,
                "yshift": 110,
                "xanchor": "left",
                "showarrow": False,
                "font": {"size": 12},
            }
        ],
    )


def rebalance_phases(before: Owners, simulation: RebalanceSimulation, strategy: str) -> list[Phase]:
    """The frames of one strategy's rebalance: before, every intermediate phase of the
    protocol, after, each with a caption saying what happens in it (the simulator's own reason).

    ``before`` is who owns what before the change (the current assignment). The last frame is
    the target, labelled ``after (strategy)``; labels are made unique (``name (2)``), so the
    slider can tell every frame apart.
    """
    frames = [Phase("before", before, "Before the change: every member reads what it owns now.")]
    for phase in simulation.phases:
        paused = f" {len(phase.paused):,} partition(s) unread." if phase.paused else ""
        reason = phase.reason[:1].upper() + phase.reason[1:]
        frames.append(
            Phase(phase.name, phase.owned, f"{phase.name}: {reason.rstrip('.')}.{paused}")
        )
    target = simulation.target.partitions
    after = Phase(
        f"after ({strategy})",
        target,
        f"After ({strategy}): {simulation.rounds} round(s), longest pause of a partition "
        f"{simulation.pause_s:,.1f} s, whole group stopped {simulation.group_stop_s:,.1f} s.",
    )
    if dict(frames[-1].owners) != dict(target):
        frames.append(after)
    else:
        frames[-1] = after
    seen: Counter[str] = Counter()
    unique = []
    for frame in frames:
        seen[frame.label] += 1
        count = seen[frame.label]
        label = frame.label if count == 1 else f"{frame.label} ({count})"
        unique.append(Phase(label, frame.owners, frame.caption))
    return unique

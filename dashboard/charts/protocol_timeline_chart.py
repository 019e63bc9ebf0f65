"""The protocol timeline: one change under eager, cooperative and KIP-848 rebalancing, side by
side, one row per member and time running left to right.

:func:`protocol_timeline_figure` draws the runs of :mod:`dashboard.model.protocol_timeline`
(one panel per protocol, the members on a shared vertical axis, one time axis for all) and
:func:`timeline_caption` says in words exactly what the figure draws: the same state styles,
the same stop-the-world frames, the same unit.

Encoding: a member's state is a fill and a pattern (:data:`STATE_STYLES`), all in neutral greys,
so no state looks like a member; a member's own colour (the page's palette) marks its name on
the axis. Reading is solid mid grey; every way of not reading is light with a pattern (revoking
``/``, waiting ``x``, warming up ``.``, restarting ``-``), and idle is an empty outline, so a
stop-the-world shows as a light column across every row, framed, its length in the panel's
title; a light bar carries its length where it fits. One legend entry per state that occurs;
member names (typed by users) are drawn as typed (:func:`.plotly_text.plain`).

Invariants: every state's fill is at least :data:`dashboard.model.palette.LEAST_DELTA_E` away
(CIEDE2000) from the first 30 member colours and the task roles' colours; every state's mark
(its fill, or idle's outline) stands out at 3:1 on the light and the dark page, and the
durations written on bars read at 4.5:1 on their fill and pattern; the time axes share one
range, ``[0, end]`` of the runs; pure (data in, a Plotly figure out).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.charts.plotly_text import plain
from dashboard.model import palette
from dashboard.model.protocol_timeline import STATES, STOPPED_STATES, RunTimeline


@dataclass(frozen=True, slots=True)
class StateStyle:
    """How one state is drawn, and how the caption names that drawing."""

    fill: str
    """The bar's fill (``#RRGGBB``; ``outline_only`` draws an outline instead)."""
    pattern: str
    """Plotly's pattern shape drawn over the fill in :data:`PATTERN_INK` ("" for none)."""
    looks: str
    """The drawing in words, for the caption ("solid grey")."""
    means: str
    """What the state means, for the caption and the legend's hover."""
    outline_only: bool = False


#: The durations' text on the light bars: a near-black grey (no member colour is near it: the
#: palette's dark greyish green is 24 units of colour difference away).
INK = "#222222"
#: Reading's fill and idle's outline: a mid grey that stands out on the light page (4.2:1) and
#: the dark one (4.5:1), and is 16 units of colour difference from any member colour; the
#: near-black ink it replaces all but vanished on the dark page (1.2:1).
SOLID = "#7C7C7C"
#: The patterns' ink: a mid grey, light enough that a duration written over it reads.
PATTERN_INK = "#8C8C8C"
#: Each state's drawing. Neutral greys only: member colours are all chromatic.
STATE_STYLES: dict[str, StateStyle] = {
    "consuming": StateStyle(SOLID, "", "solid grey", "reads partitions"),
    "revoking": StateStyle(
        "#F8F8F8", "/", "hatched /", "gives partitions up, commits their offsets, reads nothing"
    ),
    "waiting": StateStyle(
        "#E0E0E0",
        "x",
        "cross-hatched",
        "holds nothing yet, at the group barrier (classic protocol) or until another member"
        " lets its partition go (KIP-848)",
    ),
    "warming up": StateStyle("#F8F8F8", ".", "dotted", "holds new partitions, reads none yet"),
    "restarting": StateStyle("#F8F8F8", "-", "lined -", "a static member down while it restarts"),
    "idle": StateStyle("#FFFFFF", "", "an empty outline", "holds nothing", outline_only=True),
}
#: Runs shorter than this are drawn in milliseconds, longer ones in seconds.
MILLISECONDS_BELOW_S = 2.0
#: The frame around a stop-the-world: dashed, in a grey that reads on a light and a dark page.
STOP_LINE = "#888888"
#: Rows up to this many members each get a name on the axis; past it every n-th does.
NAMED_ROWS = 40
#: Height of one member's row in pixels (fewer pixels for large groups, at least the minimum).
ROW_PX, MIN_ROW_PX = 30, 4
#: The figure's height outside the rows: legend, titles, time axis.
FRAME_PX = 150


def time_unit(end_s: float) -> tuple[str, float]:
    """The time axis' unit for an axis ending at ``end_s`` seconds, and seconds -> that unit."""
    return ("ms", 1000.0) if end_s < MILLISECONDS_BELOW_S else ("s", 1.0)


def _number(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() or abs(value) >= 100 else f"{value:,.1f}"


def run_title(timeline: RunTimeline, label: str) -> str:
    """A panel's title: the protocol and its figures from the core."""
    unit, scale = time_unit(timeline.end_s)
    stopped = (
        f"stop-the-world {_number(timeline.group_stop_s * scale)} {unit} (dashed)"
        if timeline.group_stop_s > 0
        else "no stop-the-world"
    )
    rounds = f"{timeline.rounds:,} round" + ("" if timeline.rounds == 1 else "s")
    return f"<b>{plain(label)}</b><br>{rounds} · {stopped}"


def _row_px(members: int) -> int:
    return max(MIN_ROW_PX, min(ROW_PX, (NAMED_ROWS * ROW_PX) // max(members, 1)))


def _axis_labels(members: Sequence[str], colours: Mapping[str, str]) -> tuple[list[int], list[str]]:
    """Tick positions and labels of the member axis: a colour swatch and an escaped short name,
    on every row up to :data:`NAMED_ROWS` rows, then on every n-th."""
    short = palette.short_labels(list(members), 18)
    step = math.ceil(len(members) / NAMED_ROWS) if members else 1
    positions = list(range(0, len(members), step))
    labels = [
        f"<span style='color:{colours.get(members[i], palette.NOBODY_COLOUR)}'>■</span> "
        f"{plain(short[members[i]])}"
        for i in positions
    ]
    return positions, labels


def _state_trace(
    timeline: RunTimeline, state: str, rows: Mapping[str, int], legend: bool
) -> go.Bar:
    """One state's bars in one run's panel."""
    style = STATE_STYLES[state]
    unit, scale = time_unit(timeline.end_s)
    mine = [i for i in timeline.intervals if i.state == state]
    hover = [
        f"{plain(i.member)}<br><b>{state}</b> {_number(i.start_s * scale)}–"
        f"{_number(i.end_s * scale)} {unit} ({_number(i.length_s * scale)} {unit})"
        f"<br>{plain(i.why)}"
        for i in mine
    ]
    fill = "rgba(0,0,0,0)" if style.outline_only else style.fill
    lengths = [
        f"{_number(i.length_s * scale)} {unit}" if state in STOPPED_STATES else "" for i in mine
    ]
    return go.Bar(
        text=lengths,
        textposition="inside",
        insidetextanchor="middle",
        textangle=0,
        textfont={"color": INK, "size": 12, "weight": "bold"},
        x=[i.length_s * scale for i in mine],
        base=[i.start_s * scale for i in mine],
        y=[rows[i.member] for i in mine],
        orientation="h",
        width=0.8,
        name=state,
        legendgroup=state,
        showlegend=legend,
        marker={
            "color": fill,
            "line": {"color": SOLID, "width": 2 if style.outline_only else 0},
            "pattern": {
                "shape": style.pattern,
                "fgcolor": PATTERN_INK,
                "bgcolor": fill,
                "size": 8,
                "solidity": 0.35,
            },
        },
        hovertext=hover,
        hovertemplate="%{hovertext}<extra></extra>",
    )


def _stop_frames(figure: go.Figure, timeline: RunTimeline, column: int) -> None:
    """Frame each stop-the-world of one run (the panel's title says how long it lasts)."""
    _, scale = time_unit(timeline.end_s)
    for start, end in timeline.stops:
        figure.add_vrect(
            x0=start * scale,
            x1=end * scale,
            row=1,
            col=column,
            layer="above",
            line={"color": STOP_LINE, "width": 2, "dash": "dash"},
            fillcolor="rgba(0,0,0,0)",
        )


def protocol_timeline_figure(
    timelines: Sequence[RunTimeline],
    labels: Mapping[str, str] | None = None,
    colours: Mapping[str, str] | None = None,
) -> go.Figure:
    """One panel per run (``labels``: protocol -> panel title, else the protocol), members as
    rows on a shared axis (``colours``: member -> its colour, else the palette's), one legend
    entry per state that occurs in any run. Raises ``ValueError`` without a run."""
    if not timelines:
        raise ValueError("the protocol timeline needs at least one run")
    named = labels or {}
    members = list(dict.fromkeys(m for t in timelines for m in t.members))
    colour_of = dict(colours) if colours else palette.member_colours(members)
    rows = {member: index for index, member in enumerate(members)}
    figure = make_subplots(
        rows=1,
        cols=len(timelines),
        shared_yaxes=True,
        horizontal_spacing=0.025,
        subplot_titles=[run_title(t, named.get(t.protocol, t.protocol)) for t in timelines],
    )
    present = {state for t in timelines for state in t.states}
    for state in (s for s in STATES if s in present):
        first = next(t for t in timelines if state in t.states)
        for column, timeline in enumerate(timelines, start=1):
            trace = _state_trace(timeline, state, rows, legend=timeline is first)
            figure.add_trace(trace, row=1, col=column)
    for column, timeline in enumerate(timelines, start=1):
        _stop_frames(figure, timeline, column)
    _lay_out(figure, timelines, members, colour_of)
    return figure


def _lay_out(
    figure: go.Figure,
    timelines: Sequence[RunTimeline],
    members: Sequence[str],
    colours: Mapping[str, str],
) -> None:
    end = max(t.end_s for t in timelines)
    unit, scale = time_unit(end)
    positions, ticks = _axis_labels(members, colours)
    figure.update_xaxes(range=[0, end * scale], title_text=f"time since the change ({unit})")
    figure.update_yaxes(
        tickmode="array",
        tickvals=positions,
        ticktext=ticks,
        range=[len(members) - 0.5, -0.5],
        tickfont={"size": 13},
        showgrid=False,
        zeroline=False,
    )
    figure.update_layout(
        barmode="overlay",
        height=FRAME_PX + _row_px(len(members)) * max(len(members), 1),
        margin={"l": 10, "r": 10, "t": 90, "b": 50},
        legend={
            "orientation": "h",
            "yref": "container",
            "y": 1.0,
            "yanchor": "top",
            "traceorder": "normal",
        },
        hoverlabel={"align": "left"},
        uniformtext={"mode": "hide", "minsize": 10},
    )


def timeline_caption(timelines: Sequence[RunTimeline]) -> str:
    """The figure in words: what a row is, the time axis, each state drawn (the legend's, in
    its order) and the stop-the-world frames, as :func:`protocol_timeline_figure` draws them."""
    end = max((t.end_s for t in timelines), default=0.0)
    unit, _ = time_unit(end)
    present = {state for t in timelines for state in t.states}
    states = "; ".join(
        f"{state} ({STATE_STYLES[state].looks}): {STATE_STYLES[state].means}"
        for state in STATES
        if state in present
    )
    frames = (
        " A dashed frame marks a stop-the-world (no member reads anything); each title says"
        " how long it lasts."
        if any(t.stops for t in timelines)
        else " No protocol stops the whole group here."
    )
    shown = max((len(t.members) for t in timelines), default=0)
    size = max((t.group_size for t in timelines), default=0)
    rows = f" Showing the {shown:,} of {size:,} members that stop longest." if size > shown else ""
    lengths = (
        f" A number on a light bar says how long it lasts ({unit}), where it fits."
        if present & STOPPED_STATES
        else ""
    )
    return (
        "One row per member, the same rows in every panel; time runs left to right from the"
        f" change at 0 {unit}. {states[:1].upper()}{states[1:]}.{lengths}{frames}{rows}"
    )

"""Any figure made readable from the back of a room: :func:`projected`, a pure function
(figure in, new figure out) that every chart drawn in projector mode goes through.

1. Every text grows by :data:`SCALE` and to at least :data:`TEXT_PX` (tick labels, legends,
   annotations, tile labels, the slider and buttons; in every animation frame too); titles to at
   least :data:`TITLE_PX`, wrapped at word boundaries so that none runs past the figure's width
   (:data:`MIN_WIDTH_PX`: the chart's width in a 1280 px window).
2. The figure paints its own background, the page's (:data:`dashboard.model.palette
   .PAGE_BACKGROUNDS`), and its text in black or white, whichever contrasts more with it
   (:func:`dashboard.model.palette.text_colour`): text reads at more than 15:1 whatever theme
   the browser's template would have set.
3. Labelled markers (the animation's tiles) grow with their labels, and the plot area with
   them (rows :data:`ROW_GAP_PX` apart), less where the figure would be taller than
   :data:`FIT_HEIGHT_PX`; margins grow by :data:`MARGIN_SCALE`; the trail of a moved tile is
   drawn in the text colour, twice as wide.

Invariants: the input figure is not changed; data, frames' names and hover texts are kept.
"""

from __future__ import annotations

import copy
import textwrap
from collections.abc import Iterator, MutableMapping
from typing import Any, Literal

import plotly.graph_objects as go

from dashboard.charts.figure_build import CHAR_PX
from dashboard.model import palette

#: The least size of any text in a projected figure, and of its titles (CSS pixels).
TEXT_PX = 18
TITLE_PX = 24
#: How much every text and margin grows (a 12 px label becomes 18 px).
SCALE = 1.5
#: The narrowest a projected figure is drawn (a 1280 px window without the sidebar): titles are
#: wrapped to fit it.
MIN_WIDTH_PX = 1150
#: How much labelled markers grow (an 11 px label on a 54 px tile is 18 px on a 78 px one),
#: and the largest they grow to (pixels).
MARKER_SCALE = 1.45
MAX_MARKER_PX = 96
#: The space between two rows of grown markers (pixels).
ROW_GAP_PX = 16
#: The tallest a figure of rows of tiles is drawn, its tiles grown less where needed (never
#: shrunk): a 1920 x 1080 projector's window less the browser's and the page's edges, so the
#: chart scrolled to the top of the window shows whole, its slider too.
FIT_HEIGHT_PX = 1040
#: How much the margins grow, side by side: the sides hold labels (as their text grows); the
#: top holds one title line and the notes over the plot, the bottom the slider and buttons
#: (tighter: a chart of three rows of tiles fits a 720 px high window with its controls).
MARGIN_SCALE = {"l": SCALE, "r": SCALE, "t": 1.2, "b": 1.3}
#: The keys under which Plotly keeps a font.
FONT_KEYS = frozenset(
    {"font", "textfont", "tickfont", "insidetextfont", "outsidetextfont", "titlefont"}
)

Theme = Literal["light", "dark"]


def projected(figure: go.Figure, theme: Theme = "light") -> go.Figure:
    """``figure`` for a projector on a ``theme`` page (module docstring, steps 1-3)."""
    spec = copy.deepcopy(figure.to_plotly_json())
    layout: dict[str, Any] = spec.setdefault("layout", {})
    background = palette.PAGE_BACKGROUNDS[theme]
    ink = palette.text_colour(background)
    markers = _marker_scale(spec.get("data", []))
    margin = _grown_margin(layout)
    top = _wrap_titles(spec)
    margin["t"] = margin["t"] + top
    height = None
    if isinstance(layout.get("height"), int | float):
        # Worked out on the markers as they were: growing them is the next step.
        markers = _fitting(spec, markers, margin["t"] + margin["b"])
        height = round(_plot_height(spec, markers) + margin["t"] + margin["b"])
    for part in _parts(spec):
        _grow_fonts({key: value for key, value in part.items() if key != "frames"})  # once each
        _restyle_traces(part, markers, ink)
    if height is not None:
        layout["height"] = height
        _lower_long_titles(spec, height)
    layout["margin"] = margin
    layout["font"] = {**layout.get("font", {}), "size": TEXT_PX, "color": ink}
    _ink_everywhere(layout, ink)
    layout["paper_bgcolor"] = background
    layout["plot_bgcolor"] = background
    return go.Figure(spec, skip_invalid=False, _validate=False)


def _rows(spec: dict[str, Any]) -> tuple[float, float] | None:
    """The rows of labelled markers a figure draws (its y range, in rows one unit apart) and
    their largest marker as drawn before projection; ``None`` for any other figure."""
    span = _get(spec["layout"], "yaxis", "range")
    sizes = _labelled_sizes(spec.get("data", []))
    if not sizes or not isinstance(span, list | tuple) or len(span) != 2:
        return None
    return abs(float(span[1]) - float(span[0])), max(sizes)


def _fitting(spec: dict[str, Any], markers: float, frame_px: float) -> float:
    """``markers`` (how much labelled markers grow), less where that fits the figure into
    :data:`FIT_HEIGHT_PX` with ``frame_px`` of margins; never below 1 (they never shrink)."""
    rows = _rows(spec)
    if rows is None or markers == 1.0:
        return markers
    count, size = rows
    fits = ((FIT_HEIGHT_PX - frame_px) / count - ROW_GAP_PX) / size
    return max(1.0, min(markers, fits))


def _plot_height(spec: dict[str, Any], markers: float) -> float:
    """The plot area's new height: rows of labelled markers (one y unit apart, as the
    animation's tiles) as tall as the markers grown ``markers`` times need (called before they
    are grown), :data:`ROW_GAP_PX` apart; any other plot as it was."""
    layout = spec["layout"]
    margin = layout.get("margin", {})
    plot = float(layout["height"] - margin.get("t", 100) - margin.get("b", 80))
    rows = _rows(spec)
    if markers == 1.0 or rows is None:
        return max(plot, 100.0)
    count, size = rows
    return max(120.0, count * (size * markers + ROW_GAP_PX))


def _ink_everywhere(layout: dict[str, Any], ink: str) -> None:
    """``ink`` for the texts a theme's template colours on its own (axes, legend, slider,
    buttons, colour bars), which the layout's font colour does not reach; and the axes' tick
    labels and titles at least :data:`TEXT_PX` (Streamlit's theme sizes them itself where a
    figure does not: 12 px under the layout's 18)."""
    for key, value in layout.items():
        if key.startswith(("xaxis", "yaxis")) and isinstance(value, dict):
            ticks = value.get("tickfont", {})
            size = max(TEXT_PX, ticks.get("size") or 0)
            value["tickfont"] = {**ticks, "color": ink, "size": size}
            if isinstance(value.get("title"), dict):
                title = value["title"]
                font = title.get("font", {})
                title["font"] = {**font, "color": ink, "size": max(TEXT_PX, font.get("size") or 0)}
    for menu in (*layout.get("sliders", []), *layout.get("updatemenus", [])):
        menu["font"] = {**menu.get("font", {}), "color": ink}
        if "currentvalue" in menu:
            current = menu["currentvalue"]
            current["font"] = {**current.get("font", {}), "color": ink}
    if isinstance(layout.get("legend"), dict):
        layout["legend"]["font"] = {**layout["legend"].get("font", {}), "color": ink}
    for note in layout.get("annotations", []):
        note["font"] = {"color": ink, **note.get("font", {})}


def _parts(spec: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The figure and each of its frames (each has data and may have a layout)."""
    yield spec
    yield from spec.get("frames", [])


def _marker_scale(traces: list[dict[str, Any]]) -> float:
    """How much labelled markers grow: as their labels do, up to :data:`MAX_MARKER_PX`."""
    sizes = _labelled_sizes(traces)
    if not sizes:
        return 1.0
    return max(1.0, min(MARKER_SCALE, MAX_MARKER_PX / max(sizes)))


def _labelled_sizes(traces: list[dict[str, Any]]) -> list[float]:
    """The marker size of every trace that writes text on its markers (one size each)."""
    return [
        float(trace["marker"]["size"])
        for trace in traces
        if "text" in str(trace.get("mode", "")) and isinstance(_get(trace, "marker", "size"), int)
    ]


def _get(mapping: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        if not isinstance(mapping, dict):
            return None
        mapping = mapping.get(key)  # type: ignore[assignment]
    return mapping


def _grown_margin(layout: dict[str, Any]) -> dict[str, float]:
    """The layout's margins (Plotly's defaults where unset), grown by :data:`MARGIN_SCALE`."""
    margin = {"l": 80, "r": 80, "t": 100, "b": 80, **layout.get("margin", {})}
    return {
        side: value * MARGIN_SCALE.get(side, 1.0)
        for side, value in margin.items()
        if isinstance(value, int | float)
    }


def _wrap_titles(spec: dict[str, Any]) -> float:
    """Every title (the figure's and its frames') at :data:`TITLE_PX` or more, wrapped to fit
    :data:`MIN_WIDTH_PX`; returns how much taller than one line the tallest one is (pixels)."""
    extra = 0.0
    for part in _parts(spec):
        title = _get(part, "layout", "title")
        if not isinstance(title, dict) or not title.get("text"):
            continue
        size = max(TITLE_PX, SCALE * float(_get(title, "font", "size") or 17))
        title["font"] = {**title.get("font", {}), "size": size}
        title["text"] = wrap(str(title["text"]), size)
        extra = max(extra, title["text"].count("<br>") * size * 1.25)
    return extra


def _lower_long_titles(spec: dict[str, Any], height: float) -> None:
    """Plotly centres a title of several lines on its anchor, so a title pinned to the top of
    the figure (``yref="container"``, ``yanchor="top"``) would lose half its first lines
    above the figure: each such title moves down by that much."""
    for part in _parts(spec):
        title = _get(part, "layout", "title")
        if not isinstance(title, dict) or title.get("yref") != "container":
            continue
        breaks = str(title.get("text", "")).count("<br>")
        if breaks and title.get("yanchor") == "top":
            drop = (breaks * 1.3 / 2 + 0.4) * float(title["font"]["size"])
            title["y"] = min(float(title.get("y", 1.0)), 1.0 - drop / height)


def wrap(text: str, font_px: float, width_px: float = MIN_WIDTH_PX) -> str:
    """``text`` broken into lines (``<br>``) at word boundaries, each no wider than
    ``width_px`` at ``font_px`` (upper estimate); an existing break is kept."""
    chars = max(10, int(width_px / (CHAR_PX * font_px / 12)))
    lines = [
        line
        for paragraph in text.split("<br>")
        for line in textwrap.wrap(paragraph, chars, break_long_words=False) or [""]
    ]
    return "<br>".join(lines)


def _grow_fonts(node: Any, key: str = "") -> None:
    """Every font under ``node``: :data:`SCALE` times larger, never under :data:`TEXT_PX`."""
    if isinstance(node, list):
        for item in node:
            _grow_fonts(item, key)
        return
    if not isinstance(node, dict):
        return
    if key in FONT_KEYS:
        size = node.get("size")
        node["size"] = max(TEXT_PX, SCALE * size) if isinstance(size, int | float) else TEXT_PX
    for child_key, child in node.items():
        if child_key != "title" or key != "layout":  # titles: _wrap_titles
            _grow_fonts(child, child_key)
    if key == "layout":
        for menu in (*node.get("sliders", []), *node.get("updatemenus", [])):
            menu["font"] = {**menu.get("font", {}), "size": TEXT_PX}
    if key == "layout":  # notes placed a fixed distance off the plot: further, as they grew
        for note in node.get("annotations", []):
            if isinstance(note.get("yshift"), int | float):
                note["yshift"] = note["yshift"] * MARGIN_SCALE["t"] * 1.1
    if key == "layout" and isinstance(node.get("legend"), dict):
        node["legend"]["font"] = {**node["legend"].get("font", {}), "size": TEXT_PX}


def _restyle_traces(part: MutableMapping[str, Any], markers: float, ink: str) -> None:
    """Labelled markers ``markers`` times larger, their outlines too; trails in ``ink``."""
    for trace in part.get("data", []):
        marker = trace.get("marker")
        if "text" in str(trace.get("mode", "")) and isinstance(_get(trace, "marker", "size"), int):
            marker["size"] = round(marker["size"] * markers)
            line = marker.get("line")
            if isinstance(line, dict) and isinstance(line.get("width"), int | float):
                line["width"] = line["width"] * SCALE
        line = trace.get("line")
        if isinstance(line, dict) and line.get("color") == palette.TRAIL_COLOUR:
            trace["line"] = {**line, "color": ink, "width": 2 * float(line.get("width", 2))}
        if trace.get("textfont") is None and "text" in str(trace.get("mode", "")):
            trace["textfont"] = {"size": TEXT_PX}

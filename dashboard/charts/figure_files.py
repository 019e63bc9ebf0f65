"""A figure as a downloadable file: one HTML file that opens offline, and the still copy a PNG
is drawn from (:func:`dashboard.charts.png_export.figure_png` renders it).

Invariant: neither function changes the figure it is given; the still shows what the
animation ends on.
"""

from __future__ import annotations

import plotly.graph_objects as go


def standalone_html(figure: go.Figure) -> str:
    """A chart as one HTML file that opens offline: Plotly's JavaScript inlined (~4.7 MB),
    the animation's buttons working."""
    html: str = figure.to_html(include_plotlyjs=True, full_html=True)
    return html


def static_figure(figure: go.Figure) -> go.Figure:
    """A copy for a picture: an animation's last frame (the *after* of a before -> after), its
    caption as the title, and no Play/Pause buttons or slider (they do nothing in a PNG).

    A frame may carry only what changes of some traces (``traces`` says which, else the first
    ``len(data)``): those values are laid over the figure's traces, the rest kept.
    """
    still = go.Figure(figure)
    if still.frames:
        last = still.frames[-1]
        indices = list(last.traces) if last.traces else list(range(len(last.data)))
        for index, values in zip(indices, last.data, strict=False):
            changes = values.to_plotly_json()
            changes.pop("type", None)
            still.data[index].update(changes)
        if last.layout is not None:
            still.layout.update(last.layout.to_plotly_json())
        still.frames = ()
    still.layout.updatemenus = ()
    still.layout.sliders = ()
    return still

"""A figure as a downloadable file: one HTML file that opens offline, and the still copy a PNG
is drawn from (:func:`dashboard.charts.png_export.figure_png` renders it).

Invariant: neither function changes the figure it is given.
"""

from __future__ import annotations

import plotly.graph_objects as go


def standalone_html(figure: go.Figure) -> str:
    """A chart as one HTML file that opens offline: Plotly's JavaScript inlined (~4.7 MB),
    the animation's buttons working."""
    html: str = figure.to_html(include_plotlyjs=True, full_html=True)
    return html


def static_figure(figure: go.Figure) -> go.Figure:
    """A copy for a picture: no Play/Pause buttons or slider (they do nothing in a PNG)."""
    still = go.Figure(figure)
    still.layout.updatemenus = ()
    still.layout.sliders = ()
    return still

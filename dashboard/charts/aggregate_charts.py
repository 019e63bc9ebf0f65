"""Figures for groups too big to draw one mark per partition or member: distributions, not lists.

Pure functions, data in and ``plotly.graph_objects.Figure`` out. Each series is a list of values,
one per member, sorted from the largest down; a figure draws it as a curve over the members'
rank (0 % = the busiest member, 100 % = the quietest) with at most :data:`MAX_POINTS` points
per curve, so the page weighs the same for 2,000 or 100,000 members.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from dashboard.charts.plotly_text import plain

#: Points per curve at most (the curve keeps the first and last member exactly).
MAX_POINTS = 400


def downsample(
    values: Sequence[float], points: int = MAX_POINTS
) -> tuple[list[float], list[float]]:
    """``(rank percent, value)`` pairs at up to ``points`` evenly spaced ranks, ends included."""
    count = len(values)
    if count == 0:
        return [], []
    if count <= points:
        picks = list(range(count))
    else:
        step = (count - 1) / (points - 1)
        picks = sorted({round(index * step) for index in range(points)})
    scale = 100.0 / max(1, count - 1)
    return [index * scale for index in picks], [float(values[index]) for index in picks]


def sorted_values_figure(
    series: Sequence[tuple[str, Sequence[float]]], *, title: str, value_label: str
) -> go.Figure:
    """One curve per ``(name, values sorted descending)``: how evenly the members share."""
    figure = go.Figure()
    for name, values in series:
        ranks, shown = downsample(values)
        figure.add_trace(
            go.Scatter(
                x=ranks,
                y=shown,
                mode="lines",
                name=f"{plain(name)} ({len(values):,} members)",
                # The names ride in the data, not the template (a name may hold "%{x}"); no
                # ``meta``: with it Plotly would read the trace's name as a template too.
                customdata=[[plain(name), plain(value_label)]] * len(shown),
                hovertemplate="%{customdata[0]}<br>member at %{x:.1f} % of the ranking<br>"
                "%{customdata[1]} %{y:,.0f}<extra></extra>",
            )
        )
    figure.update_layout(
        title=plain(title),
        xaxis_title="members, busiest first (% of the group)",
        yaxis_title=plain(value_label),
        height=360,
        margin={"l": 60, "r": 20, "t": 50, "b": 50},
        legend={"orientation": "h", "y": -0.25},
    )
    figure.update_xaxes(range=[0, 100], ticksuffix=" %")
    return figure

"""The Deploy view's figures, pure: a :class:`~dashboard.model.deploy_model.DeployPicture` in, a
:class:`plotly.graph_objects.Figure` out.

1. :func:`deploy_animation`: one frame per phase of the deploy. Above, per member column, the
   partitions it holds and reads (stacked by topic, the topics' colours) and those it holds but
   does not read (grey: restarting, revoked, warming up); a ↻ over a column whose member is
   restarting. Below, each column's backlog as a bar. The caption (step, phase, times, who
   restarts, backlog) is the title; ▶ Play and the slider sit under the chart.
2. :func:`lag_over_time`: the group's backlog through the deploy and after it, the same group
   without a deploy (dashed), each step a shaded span with its number, the peak, the deploy's
   end and the moment the backlog is back where it started.
3. :func:`alternatives_figure`: the lag each alternative adds, the plan asked for highlighted.
"""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from assignors import short_count, short_seconds
from dashboard.charts.animation_chart import play_controls
from dashboard.model import palette
from dashboard.model.deploy_model import DeployPicture

IDLE_COLOUR = palette.NOBODY_COLOUR
LAG_COLOUR = "#CC3311"
RESTART_MARK = "↻"


def _frame_traces(picture: DeployPicture, index: int) -> list[go.Bar | go.Scatter]:
    columns = list(picture.columns)
    colours = palette.topic_colours(list(picture.topics))
    traces: list[go.Bar | go.Scatter] = [
        go.Bar(
            x=columns,
            y=list(picture.reading[index][t]),
            name=f"{topic} (read)",
            marker_color=colours[topic],
            hovertemplate=f"%{{x}}<br>{topic}: %{{y}} partition(s) read<extra></extra>",
            xaxis="x",
            yaxis="y",
        )
        for t, topic in enumerate(picture.topics)
    ]
    traces.append(
        go.Bar(
            x=columns,
            y=list(picture.not_reading[index]),
            name="held, not read",
            marker_color=IDLE_COLOUR,
            marker_pattern_shape="/",
            hovertemplate="%{x}<br>%{y} partition(s) held but not read<extra></extra>",
            xaxis="x",
            yaxis="y",
        )
    )
    marked_x, marked_y = _restart_marks(picture, index)
    traces.append(
        go.Scatter(
            x=marked_x,
            y=marked_y,
            mode="text",
            text=[RESTART_MARK] * len(marked_x),
            textposition="top center",
            textfont={"size": 22, "color": LAG_COLOUR},
            name="restarting",
            hoverinfo="skip",
            showlegend=False,
            xaxis="x",
            yaxis="y",
        )
    )
    lag = picture.lag[index]
    traces.append(
        go.Bar(
            x=[*columns, "(nobody)"],
            y=list(lag),
            name="backlog",
            marker_color=LAG_COLOUR,
            hovertemplate="%{x}<br>backlog %{y:,.0f} records<extra></extra>",
            xaxis="x2",
            yaxis="y2",
        )
    )
    return traces


def _restart_marks(picture: DeployPicture, index: int) -> tuple[list[str | None], list[int | None]]:
    """Where the ↻ marks go in frame ``index``: over each restarting column's stack."""
    down = picture.restarting[index]
    marked_x: list[str | None] = []
    marked_y: list[int | None] = []
    for column, is_down in enumerate(down):
        if is_down:
            marked_x.append(picture.columns[column])
            marked_y.append(
                sum(picture.reading[index][t][column] for t in range(len(picture.topics)))
                + picture.not_reading[index][column]
            )
    return marked_x or [None], marked_y or [None]


def _frame_values(picture: DeployPicture, index: int) -> list[dict[str, object]]:
    """The values of frame ``index`` for the traces :func:`_frame_traces` draws, in order."""
    values: list[dict[str, object]] = [
        {"type": "bar", "y": list(row)} for row in picture.reading[index]
    ]
    values.append({"type": "bar", "y": list(picture.not_reading[index])})
    marked_x, marked_y = _restart_marks(picture, index)
    text = [RESTART_MARK] * len(marked_x)
    values.append({"type": "scatter", "x": marked_x, "y": marked_y, "text": text})
    values.append({"type": "bar", "y": list(picture.lag[index])})
    return values


def deploy_animation(picture: DeployPicture, *, duration_ms: int = 900) -> go.Figure:
    """The deploy, phase by phase (see the module docstring, 1)."""
    figure = make_subplots(
        rows=2,
        cols=1,
        row_heights=[0.55, 0.45],
        vertical_spacing=0.14,
        subplot_titles=("Partitions held per member", "Backlog per member (records)"),
    )
    for trace in _frame_traces(picture, 0):
        figure.add_trace(trace)
    count = len(_frame_traces(picture, 0))
    # Frames carry only what changes (the values); the traces' looks come from the first frame.
    figure.frames = [
        go.Frame(
            data=_frame_values(picture, index),
            traces=list(range(count)),
            name=label,
            layout={"title": {"text": picture.frame_captions[index]}},
        )
        for index, label in enumerate(picture.frame_labels)
    ]
    most_held = max(
        (
            sum(frame[t][c] for t in range(len(picture.topics))) + idle[c]
            for frame, idle in zip(picture.reading, picture.not_reading, strict=True)
            for c in range(len(picture.columns))
        ),
        default=1,
    )
    most_lag = max((max(lag) for lag in picture.lag), default=1.0)
    controls = play_controls(list(picture.frame_labels), duration_ms)
    sliders = controls["sliders"]
    if isinstance(sliders, list) and sliders:
        sliders[0]["currentvalue"] = {"prefix": "Frame: ", "font": {"size": 13}}
    figure.update_layout(
        title={
            "text": picture.frame_captions[0],
            "x": 0.01,
            "xanchor": "left",
            "font": {"size": 14},
        },
        barmode="stack",
        height=720,
        margin={"l": 60, "r": 20, "t": 110, "b": 150},
        legend={"orientation": "h", "y": 1.13, "x": 0.0, "yanchor": "bottom"},
        **controls,
    )
    figure.update_yaxes(range=[0, most_held * 1.25 + 1], row=1, col=1, title_text="partitions")
    figure.update_yaxes(range=[0, most_lag * 1.1 + 1], row=2, col=1, title_text="records")
    figure.update_xaxes(tickangle=-35, row=1, col=1)
    figure.update_xaxes(tickangle=-35, row=2, col=1)
    return figure


def lag_over_time(picture: DeployPicture) -> go.Figure:
    """The group's backlog through the whole deploy (see the module docstring, 2)."""
    figure = go.Figure()
    for number, start, end, label in picture.steps:
        figure.add_vrect(
            x0=start,
            x1=end,
            fillcolor="#4477AA" if number % 2 else "#88CCEE",
            opacity=0.12,
            line_width=0,
            annotation_text=label,
            annotation_position="top left",
            annotation_font_size=10,
        )
    figure.add_trace(
        go.Scatter(
            x=list(picture.times_s),
            y=list(picture.baseline_lag),
            mode="lines",
            name="without the deploy",
            line={"color": "#777777", "dash": "dash"},
            hovertemplate="%{x:,.0f} s: %{y:,.0f} records (no deploy)<extra></extra>",
        )
    )
    figure.add_trace(
        go.Scatter(
            x=list(picture.times_s),
            y=list(picture.group_lag),
            mode="lines",
            name="with the deploy",
            line={"color": LAG_COLOUR, "width": 2},
            hovertemplate="%{x:,.0f} s: %{y:,.0f} records<extra></extra>",
        )
    )
    figure.add_trace(
        go.Scatter(
            x=[picture.peak_at_s],
            y=[picture.peak_lag],
            mode="markers+text",
            text=[f"peak {short_count(picture.peak_lag)}"],
            textposition="top center",
            marker={"size": 10, "color": LAG_COLOUR, "symbol": "diamond"},
            name="peak",
            hovertemplate="peak %{y:,.0f} records at %{x:,.1f} s<extra></extra>",
        )
    )
    figure.add_vline(
        x=picture.deploy_s,
        line_dash="dot",
        annotation_text=f"deploy over ({short_seconds(picture.deploy_s)})",
        annotation_position="bottom right",
    )
    if picture.recovered_at_s is not None and picture.recovered_at_s > picture.deploy_s:
        figure.add_vline(
            x=picture.recovered_at_s,
            line_dash="dash",
            line_color="#228833",
            annotation_text="back to the start",
            annotation_position="top right",
        )
    figure.update_layout(
        title="Backlog through the deploy (each shaded span is a step)",
        xaxis_title="seconds after the deploy starts",
        yaxis_title="records behind",
        height=420,
        margin={"l": 60, "r": 20, "t": 60, "b": 50},
        legend={"orientation": "h", "y": -0.2},
    )
    return figure


def alternatives_figure(picture: DeployPicture) -> go.Figure:
    """The lag each alternative adds, cheapest on top (see the module docstring, 3)."""
    rows = [row for row in picture.alternatives if row["lag added"] is not None]
    rows.reverse()
    figure = go.Figure(
        go.Bar(
            x=[row["lag added"] for row in rows],
            y=[row["plan"] for row in rows],
            orientation="h",
            marker_color=[LAG_COLOUR if "(asked)" in row["plan"] else "#4477AA" for row in rows],
            hovertemplate="%{y}<br>adds %{x:,.0f} records of lag<extra></extra>",
            name="lag added",
        )
    )
    figure.update_layout(
        title="Lag each way of running the deploy adds (cheapest on top)",
        xaxis_title="records more than without a deploy, at the worst moment",
        height=120 + 40 * len(rows),
        margin={"l": 20, "r": 20, "t": 50, "b": 50},
    )
    figure.update_yaxes(automargin=True)
    return figure

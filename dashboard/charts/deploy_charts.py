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
3. :func:`alternatives_figure`: each alternative's score in parts, one stacked segment per cost,
   first on top.
"""

from __future__ import annotations

import math

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from assignors import short_count, short_seconds
from dashboard.charts.animation_chart import play_controls
from dashboard.charts.assignment_charts import NARROWEST_PLOT_PX
from dashboard.charts.figure_build import label_px
from dashboard.charts.plotly_text import plain, plain_all
from dashboard.model import palette
from dashboard.model.deploy_model import DeployPicture

IDLE_COLOUR = palette.NOBODY_COLOUR
LAG_COLOUR = "#CC3311"
RESTART_MARK = "↻"
#: Pixels a step number of :func:`lag_over_time` needs to itself on the narrowest plot.
STEP_LABEL_PX = 28
#: One colour per cost of the ranking's stacked bars (Paul Tol's muted scheme: distinct, and
#: none is the lag red of the other charts).
COST_COLOURS = (
    "#332288", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77", "#CC6677", "#AA4499",
)  # fmt: skip
#: The angle of the member names under a deploy panel when they do not fit side by side.
TICK_ANGLE = -90


def _frame_traces(picture: DeployPicture, index: int) -> list[go.Bar | go.Scatter]:
    columns = plain_all(picture.column_labels)
    full = plain_all(picture.columns)  # the hover names each column whole
    colours = palette.topic_colours(list(picture.topics))
    traces: list[go.Bar | go.Scatter] = [
        go.Bar(
            x=columns,
            y=list(picture.reading[index][t]),
            name=f"{plain(topic)} (read)",
            marker_color=colours[topic],
            customdata=[[column, plain(topic)] for column in full],
            hovertemplate="%{customdata[0]}<br>%{customdata[1]}: %{y} partition(s) read"
            "<extra></extra>",
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
            customdata=full,
            hovertemplate="%{customdata}<br>%{y} partition(s) held but not read<extra></extra>",
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
            customdata=[*full, "(nobody)"],
            hovertemplate="%{customdata}<br>backlog %{y:,.0f} records<extra></extra>",
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
            marked_x.append(plain(picture.column_labels[column]))
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


def _tick_reach(labels: list[str]) -> tuple[int, int]:
    """The angle of the column names (level when they fit side by side on the narrowest plot)
    and how far below the axis they reach, in pixels."""
    longest = label_px(labels)
    if len(labels) * (longest + 8) <= NARROWEST_PLOT_PX:
        return 0, 24
    return TICK_ANGLE, round(longest * math.sin(math.radians(-TICK_ANGLE))) + 24


def deploy_animation(picture: DeployPicture, *, duration_ms: int = 900) -> go.Figure:
    """The deploy, phase by phase (see the module docstring, 1). Sized in pixels from the
    column names' reach: the gap between the panels holds the upper names and the lower
    panel's title; the controls sit under the lower names."""
    angle, reach = _tick_reach([*picture.column_labels, "(nobody)"])
    top, bottom, gap = 110, reach + 120, reach + 44
    plot_px = 540 + reach
    figure = make_subplots(
        rows=2,
        cols=1,
        row_heights=[0.55, 0.45],
        vertical_spacing=gap / plot_px,
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
            layout={"title": {"text": plain(picture.frame_captions[index])}},
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
    for control in (*controls["updatemenus"], *controls["sliders"]):  # type: ignore[misc]
        control["pad"] = {**control["pad"], "t": reach + 10}
    controls["sliders"][0]["currentvalue"] = {"prefix": "Frame: ", "font": {"size": 13}}  # type: ignore[index]
    figure.update_layout(
        title={
            "text": plain(picture.frame_captions[0]),
            "x": 0.01,
            "xanchor": "left",
            "font": {"size": 14},
        },
        barmode="stack",
        height=top + plot_px + bottom,
        margin={"l": 60, "r": 20, "t": top, "b": bottom},
        legend={"orientation": "h", "y": 1.13, "x": 0.0, "yanchor": "bottom"},
        **controls,
    )
    figure.update_yaxes(range=[0, most_held * 1.25 + 1], row=1, col=1, title_text="partitions")
    figure.update_yaxes(range=[0, most_lag * 1.1 + 1], row=2, col=1, title_text="records")
    figure.update_xaxes(tickangle=angle, automargin=False)
    return figure


def _mark_steps(figure: go.Figure, picture: DeployPicture) -> None:
    """Every step of :func:`lag_over_time` shaded; its number only where it has room (28 steps
    in 16 minutes read "1234567891011..." side by side), above the plot, clear of the lines'
    notes."""
    end_s = max(picture.times_s, default=1.0) or 1.0
    last_px = -float("inf")
    for number, start, end, label in picture.steps:
        figure.add_vrect(
            x0=start,
            x1=end,
            fillcolor="#4477AA" if number % 2 else "#88CCEE",
            opacity=0.12,
            line_width=0,
        )
        at_px = start / end_s * NARROWEST_PLOT_PX
        if at_px - last_px >= STEP_LABEL_PX:
            last_px = at_px
            figure.add_annotation(
                x=start,
                xref="x",
                y=1,
                yref="paper",
                xanchor="left",
                yanchor="bottom",
                text=plain(label),
                showarrow=False,
                font={"size": 10},
            )


def lag_over_time(picture: DeployPicture) -> go.Figure:
    """The group's backlog through the whole deploy (see the module docstring, 2)."""
    figure = go.Figure()
    _mark_steps(figure, picture)
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
        margin={"l": 60, "r": 20, "t": 70, "b": 50},
        legend={"orientation": "h", "y": -0.2},
    )
    return figure


def alternatives_figure(picture: DeployPicture) -> go.Figure:
    """Each way of running the deploy, first on top: its score in parts, one stacked bar
    segment per cost (weight times the cost scaled by the largest among the plans), so the
    bar's length is what ranks it and its segments say which costs weigh (see the module
    docstring, 3). A plan that cannot run has no bar; when every plan costs nothing, the title
    says so rather than draw an empty axis."""
    rows = [row for row in picture.alternatives if row["cost parts"] is not None]
    rows.reverse()
    labels = list(rows[0]["cost parts"]) if rows else []
    figure = go.Figure(
        [
            go.Bar(
                x=[row["cost parts"][label] for row in rows],
                y=[plain(row["plan"]) for row in rows],
                orientation="h",
                name=plain(label),
                marker_color=COST_COLOURS[index % len(COST_COLOURS)],
                hovertemplate="%{y}<br>%{fullData.name}: %{x:.2f} of the score<extra></extra>",
            )
            for index, label in enumerate(labels)
        ]
    )
    empty = not any(sum(row["cost parts"].values()) > 0 for row in rows)
    figure.update_layout(
        title="Every plan costs the same: nothing to rank"
        if empty
        else "What each way of running the deploy costs (shorter is better; first on top)",
        barmode="stack",
        xaxis_title="score: each cost scaled by the largest among the plans, times its weight",
        height=220 + 40 * len(rows),
        # The legend sits at the figure's foot (container coordinates), under the axis title:
        # placed relative to the plot, it met the title at 1920 px.
        margin={"l": 20, "r": 20, "t": 50, "b": 120},
        legend={"orientation": "h", "yref": "container", "y": 0.0, "yanchor": "bottom"},
    )
    figure.update_yaxes(automargin=True)
    if empty:
        figure.update_xaxes(range=[0, 1])
    return figure

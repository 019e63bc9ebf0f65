"""Pure figures and tables for the pipeline's outputs: frames in, Plotly figures out.

No Streamlit here; :mod:`dashboard.views.history_view` and :mod:`dashboard.views.fleet_view` call
these. Members keep the project's colours
(:func:`dashboard.charts.assignment_charts.member_colours`); health statuses have fixed colours
(:data:`STATUS_COLOURS`).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go

from dashboard.charts.plotly_text import plain, plain_all
from dashboard.model.palette import POINT_COLOUR, member_colours

STATUS_COLOURS = {
    "OK": "#117733",
    "WARN": "#DDCC77",
    "ERR": "#CC6677",
    "NOTFOUND": "#BBBBBB",
    "STALL": "#CC6677",
    "STOP": "#882255",
    "REWIND": "#AA4499",
}
#: Order that puts the worst verdict first.
STATUS_RANK = {"ERR": 0, "WARN": 1, "NOTFOUND": 2, "OK": 3}


def member_lag_figure(member_lag: pd.DataFrame, title: str = "Lag per member") -> go.Figure:
    """One line per member: ``member_lag`` rows with ``time``, ``member_id``, ``lag``."""
    figure = go.Figure()
    if member_lag.empty:
        figure.update_layout(title=f"{plain(title)}: no rows")
        return figure
    ordered = member_lag.sort_values("time")
    ids = sorted(str(m) for m in ordered["member_id"].unique())
    colours = member_colours(ids)
    for member_id in ids:
        rows = ordered[ordered["member_id"] == member_id]
        figure.add_trace(
            go.Scatter(
                x=rows["time"],
                y=rows["lag"],
                mode="lines",
                name=plain(member_id),
                line={"color": colours.get(member_id, "#888888"), "width": 1.5},
            )
        )
    figure.update_layout(
        title=plain(title),
        xaxis_title="time (UTC)",
        yaxis_title="lag (records)",
        hovermode="x unified",
    )
    return figure


def group_lag_figure(group_lag: pd.DataFrame, groups: Sequence[str]) -> go.Figure:
    """Total lag and worst member's lag over time for each of ``groups``."""
    figure = go.Figure()
    for group_id in groups:
        rows = group_lag[group_lag["group_id"] == group_id].sort_values("time")
        figure.add_trace(
            go.Scatter(x=rows["time"], y=rows["lag_total"], name=f"{plain(group_id)} total")
        )
        figure.add_trace(
            go.Scatter(
                x=rows["time"],
                y=rows["worst_member_lag"],
                name=f"{plain(group_id)} worst member",
                line={"dash": "dot"},
            )
        )
    figure.update_layout(
        title="Group lag",
        xaxis_title="time (UTC)",
        yaxis_title="lag (records)",
        hovermode="x unified",
    )
    return figure


def verdict_table(group_health: pd.DataFrame) -> pd.DataFrame:
    """Group verdicts, worst first (ERR, WARN, NOTFOUND, OK; then larger lag first)."""
    table = group_health.copy()
    table["_rank"] = table["status"].map(STATUS_RANK).fillna(9)
    table = table.sort_values(["_rank", "lag_total"], ascending=[True, False], na_position="last")
    columns = ["cluster", "group_id", "status", "rule", "lag_total", "partitions", "flagged"]
    return table[[c for c in columns if c in table.columns]].reset_index(drop=True)


def verdict_counts_figure(group_health: pd.DataFrame) -> go.Figure:
    """A bar per verdict with its group count."""
    counts = group_health["status"].value_counts()
    names = [s for s in STATUS_RANK if s in counts.index]
    figure = go.Figure(
        go.Bar(
            x=names,
            y=[int(counts[s]) for s in names],
            marker_color=[STATUS_COLOURS[s] for s in names],
        )
    )
    figure.update_layout(title="Groups by verdict", yaxis_title="groups", height=260)
    return figure


def replay_worst_figure(replay_worst: pd.DataFrame, group_id: str) -> go.Figure:
    """Worst member's lag over time under each strategy for one group."""
    rows = replay_worst[replay_worst["group_id"] == group_id].sort_values("time")
    figure = go.Figure()
    for strategy in sorted(rows["strategy"].unique()):
        part = rows[rows["strategy"] == strategy]
        dash = "dot" if str(strategy).startswith("(") else "solid"
        figure.add_trace(
            go.Scatter(
                x=part["time"],
                y=part["worst_member_lag"],
                name=plain(str(strategy)),
                line={"dash": dash},
            )
        )
    figure.update_layout(
        title=f"{plain(group_id)}: worst member's lag by strategy (replay)",
        xaxis_title="time (UTC)",
        yaxis_title="lag (records)",
        hovermode="x unified",
    )
    return figure


def fleet_table(
    whatif: pd.DataFrame,
    strategy: str | None = None,
    change: str | None = None,
    sort_by: str = "worst_member_lag",
    missing_is_worst: bool = False,
) -> pd.DataFrame:
    """What-if rows filtered to one strategy/change (None: all), worst first by ``sort_by``.

    Flagged groups (``error`` set) come first: they need a person before any number does. A
    computed row whose ``sort_by`` is empty comes after the others, or before them when
    ``missing_is_worst`` (an empty drain: the backlog never clears).
    """
    table = whatif.copy()
    if strategy is not None:
        table = table[(table["strategy"] == strategy) | table["error"].notna()]
    if change is not None:
        table = table[(table["change"] == change) | table["error"].notna()]
    table = table.assign(_flagged=table["error"].notna())
    # Every column sorts larger-is-worse (lag, CV, moves, pause, extra members needed).
    table = table.sort_values(
        ["_flagged", sort_by],
        ascending=[False, False],
        na_position="first" if missing_is_worst else "last",
    )
    return table.drop(columns=["_flagged"]).reset_index(drop=True)


def fleet_scatter_figure(current: pd.DataFrame) -> go.Figure:
    """Each group as a point: total lag against lag imbalance (CV) for the ``current`` rows."""
    rows = current[current["error"].isna() & (current["lag_total"] > 0)]
    figure = go.Figure(
        go.Scatter(
            x=rows["lag_total"],
            y=rows["lag_cv"],
            mode="markers",
            text=plain_all(rows["group_id"].astype(str)),
            marker={"size": 7, "color": POINT_COLOUR},
            hovertemplate="%{text}<br>lag %{x:,}<br>CV %{y:.2f}<extra></extra>",
        )
    )
    figure.update_layout(
        title="Groups: backlog against imbalance (now)",
        xaxis={"title": "total lag (records)", "type": "log"},
        yaxis_title="lag CV across members",
        height=360,
    )
    return figure

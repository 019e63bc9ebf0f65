"""The Fleet page's table and a group's details, worked out from the pipeline's what-if rows.

The what-if table has some 30 columns; the page's grid shows :func:`grid_columns` (the link, the
group, what was tried, the figures that rank a group, and whatever the rows are sorted by), few
enough to show whole at 1280 px. Every other figure of a group is in :func:`group_details`: one
line per figure, one column per row of that group (a strategy under a change), each number
formatted once.

Invariants: the grid's columns are a subset of the view's and always hold the sort column; the
details hold every figure of :data:`DETAIL_COLUMNS` that the table has, for every row of the
group and no other; no cell reads ``nan`` or ``None``.

An empty figure says why in words (:data:`EMPTY`), in the grid and the details alike: in a row
the pipeline computed, an empty drain means the backlog never clears ("never"), an empty count
of members to add that none helps, and so on; in a flagged row (the pipeline could not compute
it) every figure is empty and reads "—". The grid shows those figures as these words, so the
column says what the empty cell means (:func:`grid_help`), and its cells are text.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from assignors import short_seconds
from dashboard.model.column_names import header

#: What the grid always shows, in order: the way into the Explorer, which group, what was tried,
#: and the figures that say how bad it is.
GRID_COLUMNS = (
    "explorer",
    "group_id",
    "strategy",
    "change",
    "lag_total",
    "worst_member_lag",
    "moved",
    "drain_s",
    "flagged",
)
#: A group's figures in its details, in order.
DETAIL_COLUMNS = (
    "members",
    "partitions",
    "lag_total",
    "worst_member",
    "worst_member_lag",
    "lag_cv",
    "lag_max_min_ratio",
    "moved",
    "revoked",
    "rounds",
    "pause_s",
    "group_stop_s",
    "drain_s",
    "extra_members_to_drain",
    "extra_members_note",
    "error",
)
#: Figures of a ratio (two decimals); counts get thousands separators, seconds a unit.
_RATIOS = {"lag_cv", "lag_max_min_ratio"}
_SECONDS = {"pause_s", "group_stop_s", "drain_s"}
#: What a figure of a flagged row reads (the pipeline computed none of them).
NO_FIGURE = "—"


@dataclass(frozen=True, slots=True)
class Empty:
    """What an empty figure means in a row the pipeline computed."""

    words: str
    """What its cell reads."""
    worst: bool
    """Whether it is worse than any figure of its column (worst first puts it first)."""
    means: str
    """The column's help: when the figure is empty."""


#: The figures the pipeline leaves empty on purpose, and what that means.
EMPTY = {
    "drain_s": Empty(
        "never",
        True,
        "“never”: the backlog never clears, because the consumers read slower than the"
        " producers write or a partition has no owner (the drain deficit says by how much)",
    ),
    "extra_members_to_drain": Empty(
        "none helps",
        True,
        "“none helps”: no number of added members clears the backlog within the hour, e.g. one"
        " partition alone is written faster than a member reads (the group's note says why)",
    ),
    "lag_max_min_ratio": Empty(
        "unbounded",
        True,
        "“unbounded”: the least loaded member with partitions has no lag, so there is no ratio",
    ),
    "lag_cv": Empty("no lag", False, "“no lag”: the group has no lag, so nothing varies"),
}


def grid_columns(columns: Sequence[str], sort_by: str) -> list[str]:
    """The grid's columns among ``columns``: :data:`GRID_COLUMNS`, with ``sort_by`` before
    ``flagged`` when it is not one of them (a user sees what the rows are ordered by)."""
    wanted = [name for name in GRID_COLUMNS if name != "flagged"]
    if sort_by not in wanted:
        wanted.append(sort_by)
    return [name for name in [*wanted, "flagged"] if name in columns]


def with_flag(view: pd.DataFrame) -> pd.DataFrame:
    """``view`` with ``flagged``: whether the pipeline could not compute the row (its error is
    in the group's details)."""
    return view.assign(flagged=view["error"].notna())


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA


def figure(name: str, value: Any, flagged: bool = True) -> str:
    """One figure as the details show it: ``12,384,473``; ``1.73``; ``4.7 h``. An empty one
    says why (:data:`EMPTY`) in a row the pipeline computed (not ``flagged``), else "—"."""
    if _missing(value):
        empty = EMPTY.get(name)
        return empty.words if empty is not None and not flagged else NO_FIGURE
    if name in _SECONDS:
        return short_seconds(float(value))
    if name in _RATIOS:
        return f"{float(value):,.2f}"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
        return f"{number:,.0f}" if number.is_integer() else f"{number:,.2f}"
    return " ".join(str(value).split())


def group_details(view: pd.DataFrame, group_id: str) -> pd.DataFrame:
    """Every figure (:data:`DETAIL_COLUMNS`) of ``group_id``'s rows in ``view``: one line per
    figure (its header in words, the index named "figure"), one column per row, named
    "strategy · change" (rows of one change: the strategy alone)."""
    rows = view[view["group_id"] == group_id]
    names = [name for name in DETAIL_COLUMNS if name in rows.columns]
    one_change = rows["change"].nunique() <= 1
    columns: dict[str, list[str]] = {}
    for row in rows.to_dict("records"):
        label = str(row["strategy"]) if one_change else f"{row['strategy']} · {row['change']}"
        while label in columns:  # the same strategy twice (flagged rows of another change)
            label += " ·"
        flagged = not _missing(row.get("error"))
        columns[label] = [figure(name, row[name], flagged) for name in names]
    details = pd.DataFrame(columns, index=[header(name) for name in names])
    details.index.name = "figure"
    return details


def grid_view(view: pd.DataFrame) -> pd.DataFrame:
    """``view`` (with ``flagged``: :func:`with_flag`) with the figures of :data:`EMPTY` as the
    grid shows them: text, each cell formatted by :func:`figure` (an empty one in words)."""
    words = {
        name: [
            figure(name, value, bool(flagged))
            for value, flagged in zip(view[name], view["flagged"], strict=True)
        ]
        for name in EMPTY
        if name in view.columns
    }
    return view.assign(**words)


def grid_help(name: str) -> str | None:
    """The help of a grid column whose figure may be empty: what the empty cell says and why;
    ``None`` for the others."""
    empty = EMPTY.get(name)
    if empty is None:
        return None
    return f"{empty.means}. “{NO_FIGURE}”: the row is flagged, the pipeline could not compute it."


def missing_is_worst(sort_by: str) -> bool:
    """Whether an empty ``sort_by`` figure of a computed row is the worst of its column (a
    group that never drains is worse than one that drains in a week)."""
    empty = EMPTY.get(sort_by)
    return empty is not None and empty.worst

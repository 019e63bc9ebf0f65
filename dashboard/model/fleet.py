"""The Fleet page's table and a group's details, worked out from the pipeline's what-if rows.

The what-if table has some 30 columns; the page's grid shows :func:`grid_columns` (the link, the
group, what was tried, the figures that rank a group, and whatever the rows are sorted by), few
enough to show whole at 1280 px. Every other figure of a group is in :func:`group_details`: one
line per figure, one column per row of that group (a strategy under a change), each number
formatted once.

Invariants: the grid's columns are a subset of the view's and always hold the sort column; the
details hold every figure of :data:`DETAIL_COLUMNS` that the table has, for every row of the
group and no other; a missing figure reads "—", never ``nan``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
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


def figure(name: str, value: Any) -> str:
    """One figure as the details show it: ``12,384,473``; ``1.73``; ``4.7 h``; "—" for none."""
    if _missing(value):
        return "—"
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
        columns[label] = [figure(name, row[name]) for name in names]
    details = pd.DataFrame(columns, index=[header(name) for name in names])
    details.index.name = "figure"
    return details

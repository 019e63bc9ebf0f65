"""The Fleet page's grid and a group's details (:mod:`dashboard.model.fleet`).

Specification: the grid shows few columns, always the one the rows are sorted by; every other
figure of a group is in its details, one column per row of that group, each number formatted
once ("—" for a figure the pipeline left empty, never ``nan`` or ``None``).
"""

from __future__ import annotations

import math

import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from dashboard.charts import pipeline_charts
from dashboard.model import fleet
from dashboard.views.fleet_view import SORTABLE

#: The what-if table's columns, as ``python -m pipeline whatif`` writes them.
WHATIF_COLUMNS = [
    "cluster",
    "group_id",
    "t",
    "strategy",
    "change",
    "current_assignor",
    "members",
    "partitions",
    "lag_total",
    "worst_member",
    "worst_member_lag",
    "lag_max_min_ratio",
    "lag_cv",
    "partitions_spread",
    "idle_members",
    "unassigned",
    "moved",
    "kept",
    "revoked",
    "rounds",
    "pause_s",
    "group_stop_s",
    "rebalance_s",
    "drain_s",
    "drain_deficit",
    "members_using_default_rate",
    "extra_members_to_drain",
    "extra_members_note",
    "warnings",
    "error",
]
#: At 1280 px the grid has about 1,130 px: nine columns of ~120 px.
MOST_GRID_COLUMNS = 10


def test_a_group_worked_example() -> None:
    rows = pd.DataFrame(
        {
            "group_id": ["g", "g", "other"],
            "strategy": ["range", "sticky", "range"],
            "change": ["current", "current", "current"],
            "lag_total": [12_384_473, 5, 1],
            "lag_cv": [1.414214, math.nan, 0.0],
            "drain_s": [16_948.43, math.nan, 0.0],
            "extra_members_note": ["clears  in time", None, ""],
            "error": [None, "no offsets", None],
        }
    )
    details = fleet.group_details(rows, "g")
    assert list(details.columns) == ["range", "sticky"]
    assert details.index.name == "figure"
    assert details.loc["lag total"].tolist() == ["12,384,473", "5"]
    assert details.loc["lag coeff. of variation"].tolist() == ["1.41", "—"]
    assert details.loc["drain (s)"].tolist() == ["4.7 h", "—"]  # sticky's row is flagged
    assert details.loc["note"].tolist() == ["clears in time", "—"]
    assert details.loc["error"].tolist() == ["—", "no offsets"]


def test_rows_of_several_changes_are_named_by_strategy_and_change() -> None:
    rows = pd.DataFrame(
        {
            "group_id": ["g", "g"],
            "strategy": ["range", "range"],
            "change": ["current", "none"],
            "moved": [0, 4],
            "error": [None, None],
        }
    )
    details = fleet.group_details(rows, "g")
    assert list(details.columns) == ["range · current", "range · none"]
    assert details.loc["moved"].tolist() == ["0", "4"]


@given(sort_by=st.sampled_from(SORTABLE))
def test_the_grid_is_narrow_and_shows_what_the_rows_are_sorted_by(sort_by: str) -> None:
    columns = fleet.grid_columns([*WHATIF_COLUMNS, "explorer", "flagged"], sort_by)
    assert sort_by in columns
    assert columns[:2] == ["explorer", "group_id"]
    assert len(columns) <= MOST_GRID_COLUMNS
    assert len(set(columns)) == len(columns)


NUMBERS = st.one_of(
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=True, allow_infinity=False, width=64),
    st.none(),
)


@given(
    values=st.lists(st.tuples(NUMBERS, NUMBERS, NUMBERS), min_size=1, max_size=6),
    strategies=st.lists(st.sampled_from(["range", "sticky", "uniform"]), min_size=6, max_size=6),
)
def test_every_row_of_the_group_and_every_figure_is_in_its_details(
    values: list[tuple[object, object, object]], strategies: list[str]
) -> None:
    rows = pd.DataFrame(
        {
            "group_id": [*["g"] * len(values), "h"],
            "strategy": [*strategies[: len(values)], "range"],
            "change": ["none"] * (len(values) + 1),
            "lag_total": [*(v[0] for v in values), 1],
            "lag_cv": [*(v[1] for v in values), 1.0],
            "pause_s": [*(v[2] for v in values), 1.0],
            "error": [None] * (len(values) + 1),
        }
    )
    details = fleet.group_details(rows, "g")
    assert details.shape == (4, len(values))  # lag total, lag CV, pause, error
    cells = [cell for column in details.columns for cell in details[column]]
    assert all(cell and "nan" not in cell.lower() and cell != "None" for cell in cells)


def test_an_empty_drain_reads_never_and_a_flagged_row_a_dash() -> None:
    """The grid's drain (the Fleet page showed "None"): group ``slow``'s consumers read 53
    records/s slower than its producers write, so the pipeline leaves its drain empty."""
    rows = pd.DataFrame(
        {
            "group_id": ["fast", "slow", "broken"],
            "strategy": ["range"] * 3,
            "change": ["none"] * 3,
            "drain_s": [16_948.43, math.nan, math.nan],
            "drain_deficit": [0.0, 53.4, math.nan],
            "extra_members_to_drain": [0.0, math.nan, math.nan],
            "lag_cv": [1.41, 0.0, math.nan],
            "error": [None, None, "ValueError: no offsets"],
        }
    )
    grid = fleet.grid_view(fleet.with_flag(rows))
    assert grid["drain_s"].tolist() == ["4.7 h", "never", "—"]
    assert grid["extra_members_to_drain"].tolist() == ["0", "none helps", "—"]
    assert grid["lag_cv"].tolist() == ["1.41", "0.00", "—"]
    assert grid["drain_deficit"].equals(rows["drain_deficit"])  # other figures stay numbers
    help_text = fleet.grid_help("drain_s")
    assert help_text is not None and "“never”" in help_text and "“—”" in help_text
    assert fleet.grid_help("moved") is None
    details = fleet.group_details(rows, "slow")
    assert details.loc["drain (s)"].tolist() == ["never"]


@given(
    values=st.lists(st.tuples(NUMBERS, st.booleans()), min_size=1, max_size=8),
    name=st.sampled_from(sorted(fleet.EMPTY)),
)
def test_every_grid_cell_that_may_be_empty_says_why(
    values: list[tuple[object, bool]], name: str
) -> None:
    rows = pd.DataFrame(
        {
            "group_id": [f"g{index}" for index in range(len(values))],
            name: [value for value, _ in values],
            "error": ["RuntimeError: x" if flagged else None for _, flagged in values],
        }
    )
    grid = fleet.grid_view(fleet.with_flag(rows))
    for cell, (value, flagged) in zip(grid[name], values, strict=True):
        assert isinstance(cell, str) and cell and "nan" not in cell.lower() and cell != "None"
        if fleet.figure(name, value) == fleet.NO_FIGURE:  # an empty figure
            assert cell == (fleet.NO_FIGURE if flagged else fleet.EMPTY[name].words)
        else:
            assert cell == fleet.figure(name, value)
    assert fleet.EMPTY[name].words in str(fleet.grid_help(name))


@given(
    drains=st.lists(st.one_of(st.floats(0, 1e7), st.just(math.nan)), min_size=1, max_size=10),
    flagged=st.lists(st.booleans(), min_size=10, max_size=10),
)
def test_worst_first_by_drain_puts_a_group_that_never_drains_first_after_flagged_ones(
    drains: list[float], flagged: list[bool]
) -> None:
    rows = pd.DataFrame(
        {
            "group_id": [f"g{index}" for index in range(len(drains))],
            "strategy": ["range"] * len(drains),
            "change": ["none"] * len(drains),
            "drain_s": [math.nan if f else d for d, f in zip(drains, flagged, strict=False)],
            "error": ["ValueError: x" if f else None for f in flagged[: len(drains)]],
        }
    )
    table = pipeline_charts.fleet_table(
        rows, sort_by="drain_s", missing_is_worst=fleet.missing_is_worst("drain_s")
    )
    order = fleet.grid_view(fleet.with_flag(table))["drain_s"].tolist()
    kinds = ["—" if cell == "—" else "never" if cell == "never" else "drains" for cell in order]
    assert kinds == sorted(kinds, key=["—", "never", "drains"].index)
    seconds = table.loc[[kind == "drains" for kind in kinds], "drain_s"].tolist()
    assert seconds == sorted(seconds, reverse=True)

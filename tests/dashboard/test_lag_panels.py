"""The lag-per-consumer panels fit any number of panels and any member id (issue 36).

The chart crashed (Plotly refused an axis domain past 1) with seven or more panels and member
ids of about eight characters or more: each panel's labels take a gap on its left, and seven
gaps no longer fit in one row. Panels now wrap onto rows (:func:`panel_grid`).
"""

from __future__ import annotations

import plotly.graph_objects as go
from hypothesis import given, settings
from hypothesis import strategies as st

from assignors import registry
from dashboard.charts import assignment_charts
from dashboard.charts.assignment_charts import MIN_PANEL_PX, NARROWEST_PLOT_PX, panel_grid

#: Every strategy the explorer can compare, plus the current assignment.
MOST_PANELS = len(registry.partition_strategies()) + 1
ids = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=255)


def _overlap(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a[0] < b[1] and b[0] < a[1] and a[2] < b[3] and b[2] < a[3]


@given(
    count=st.integers(1, MOST_PANELS),
    spacing=st.floats(0.06, 1.5),
    row_px=st.integers(200, 2000),
)
def test_the_grid_keeps_every_panel_inside_the_figure_and_apart(
    count: int, spacing: float, row_px: int
) -> None:
    grid = panel_grid(count, spacing, row_px)
    assert len(grid.domains) == count
    for x0, x1, y0, y1 in grid.domains:
        assert 0.0 <= x0 < x1 <= 1.0 and 0.0 <= y0 < y1 <= 1.0
    for i, a in enumerate(grid.domains):
        for b in grid.domains[i + 1 :]:
            assert not _overlap(a, b)
    if grid.per_row > 1:  # a row holds only panels wide enough to read
        width = grid.domains[0][1] - grid.domains[0][0]
        assert width * NARROWEST_PLOT_PX >= MIN_PANEL_PX - 1e-6


def test_worked_example_seven_panels_of_long_ids_wrap() -> None:
    grid = panel_grid(7, 0.2, 300)
    assert grid.per_row == 3  # 140 px panels and a 0.2 gap: three to a row
    # rows of 300 px with 110 px between them: a plot 3 x 300 + 2 x 110 = 1,120 px tall, so each
    # row starts 410 / 1,120 = 0.366 below the one above
    assert grid.plot_px == 1120
    assert [round(d[3], 3) for d in grid.domains[::3]] == [1.0, 0.634, 0.268]


@settings(max_examples=60, deadline=None)
@given(
    panels=st.integers(1, MOST_PANELS),
    members=st.lists(ids, min_size=1, max_size=60, unique=True),
    data=st.data(),
)
def test_the_lag_chart_validates_for_any_panels_and_ids(
    panels: int, members: list[str], data: st.DataObject
) -> None:
    lags = st.floats(0, 1e12, allow_nan=False)
    columns = [
        (f"strategy {index}", {m: data.draw(lags) for m in members}) for index in range(panels)
    ]
    figure = assignment_charts.lag_by_member_figure(columns)
    checked = go.Figure(figure.to_dict())  # Plotly's own validation: raises on a bad domain
    layout = checked.to_plotly_json()["layout"]
    for name, axis in layout.items():
        if name.startswith(("xaxis", "yaxis")) and "domain" in axis:
            assert 0.0 <= axis["domain"][0] < axis["domain"][1] <= 1.0


def test_the_reported_crash_six_strategies_and_a_member_added() -> None:
    """The path of the report: six strategies plus the current assignment, ids of ~10
    characters (``consumer-4`` added)."""
    members = [f"consumer-{i}" for i in range(5)]
    columns = [(f"s{i}", {m: float(i * 10 + n) for n, m in enumerate(members)}) for i in range(7)]
    go.Figure(assignment_charts.lag_by_member_figure(columns).to_dict())

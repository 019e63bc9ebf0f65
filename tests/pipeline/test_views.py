"""The History and Fleet views: pure figures, the explorer hand-off, and the views in AppTest."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from assignors.simulate import changes, metrics
from dashboard.charts import pipeline_charts
from dashboard.views.fleet_view import explorer_link
from pipeline.local import group_scenario
from tests.pipeline.sample_outputs import SAMPLE_HISTORY, write_sample_outputs

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def outputs(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The lag and what-if outputs of the sample history, written once."""
    root = tmp_path_factory.mktemp("pipeline-out")
    write_sample_outputs(spark, root)
    return root


def test_verdict_table_puts_the_worst_first() -> None:
    health = pd.DataFrame(
        {
            "cluster": ["c"] * 4,
            "group_id": ["a", "b", "c", "d"],
            "status": ["OK", "ERR", "WARN", "ERR"],
            "rule": ["r"] * 4,
            "lag_total": [5, 10, 99, 20],
        }
    )
    assert list(pipeline_charts.verdict_table(health)["group_id"]) == ["d", "b", "c", "a"]
    bars = pipeline_charts.verdict_counts_figure(health).data[0]
    assert list(bars.x) == ["ERR", "WARN", "OK"] and list(bars.y) == [2, 1, 1]


def test_member_lag_figure_draws_one_line_per_member() -> None:
    rows = pd.DataFrame(
        {"time": [1, 2, 1, 2], "member_id": ["b", "b", "a", "a"], "lag": [4, 5, 1, 0]}
    )
    figure = pipeline_charts.member_lag_figure(rows)
    assert [trace.name for trace in figure.data] == ["a", "b"]
    assert list(figure.data[1].y) == [4, 5]


def test_fleet_table_sorts_worst_first_with_flagged_groups_on_top() -> None:
    rows = pd.DataFrame(
        {
            "group_id": ["a", "b", "c", "d"],
            "strategy": ["range", "range", "range", None],
            "change": ["none", "none", "none", None],
            "moved": [3, 9, 1, None],
            "error": [None, None, None, "ScenarioError: bad"],
        }
    )
    table = pipeline_charts.fleet_table(rows, "range", "none", sort_by="moved")
    assert list(table["group_id"]) == ["d", "b", "a", "c"]


def test_explorer_scenario_is_the_one_the_what_if_measured(outputs: Path) -> None:
    table = pd.read_parquet(outputs / "whatif" / "whatif")
    current = table[table["change"] == "current"]
    assert len(current) == 6 and table["error"].isna().all()
    for row in current.itertuples(index=False):
        scenario, _ = group_scenario(SAMPLE_HISTORY, row.cluster, row.group_id, int(row.t))
        measured = metrics.assignment_metrics(scenario, changes.current_assignment(scenario))
        assert measured.lag_total == row.lag_total
        assert max(measured.lag_by_member.values()) == row.worst_member_lag
    link = explorer_link("sample-history", "cluster-1", "group-00002", 5)
    assert link.startswith("?dataset=sample-history&") and "group=group-00002" in link
    assert "at=5" in link and str(SAMPLE_HISTORY) not in link  # a name, never a path


def _history_app(output: str) -> None:
    from dashboard.model.operator_file import DatasetEntry
    from dashboard.views import history_view

    history_view.render(DatasetEntry("sample-history", output))


def _fleet_app(output: str, history: str) -> None:
    from dashboard.model.operator_file import DatasetEntry
    from dashboard.views import fleet_view

    fleet_view.render(DatasetEntry("sample-history", output, history))


def test_history_view_renders_verdicts_and_charts(outputs: Path) -> None:
    app = AppTest.from_function(_history_app, args=(str(outputs),), default_timeout=60)
    app.run()
    assert not app.exception
    assert len(app.dataframe) >= 2  # verdicts and the partitions of the picked group
    verdicts = app.dataframe[0].value
    assert set(verdicts["group_id"]) == {f"group-{i:05d}" for i in range(6)}
    assert app.selectbox[0].options[0].startswith(str(verdicts.iloc[0]["group_id"]))


def test_fleet_view_opens_a_group_in_the_explorer(outputs: Path) -> None:
    app = AppTest.from_function(
        _fleet_app, args=(str(outputs), str(SAMPLE_HISTORY)), default_timeout=60
    )
    app.run()
    assert not app.exception
    shown = app.dataframe[0].value
    assert shown["explorer"].str.startswith("?dataset=sample-history&").all()
    app.selectbox(key="fleet.group").set_value("group-00003")
    app.button(key="fleet.open").click().run()
    assert not app.exception
    source = app.session_state["ae.source"]
    assert source.scenario.group_id == "group-00003"
    assert "pipeline snapshot" in source.label

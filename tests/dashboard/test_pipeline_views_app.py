"""The History and Fleet views inside the app, driven with AppTest on real pipeline output.

The pipeline runs once (a local Spark session) over the small history shipped in
``sample_data/history`` and writes its lag and what-if tables where the app reads them
(``AE_PIPELINE_OUTPUT``); the app then shows them through the sidebar's *View* switch.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.views import fleet_view, pages
from tests.dashboard import plotly_spec
from tests.dashboard.app_session import (
    assert_no_exception,
    open_address,
    open_page,
    page_title,
    start_app,
)

HISTORY = Path(__file__).resolve().parents[2] / "sample_data" / "history"


@pytest.fixture
def pipeline_output(pipeline_tables: Path | None) -> Path:
    """``lag/`` and ``whatif/whatif`` of the sample history, as ``python -m pipeline`` writes
    (written once per test session: ``tests/dashboard/conftest.py``)."""
    if pipeline_tables is None:
        pytest.skip("the pipeline views need the spark extra")
    return pipeline_tables


def _start(monkeypatch: pytest.MonkeyPatch, output: Path, **query: str) -> AppTest:
    monkeypatch.setenv("AE_PIPELINE_OUTPUT", str(output))
    monkeypatch.setenv("AE_PIPELINE_INPUT", str(HISTORY))
    return start_app(**query)


def _open(
    monkeypatch: pytest.MonkeyPatch, output: Path, name: str, params: dict[str, str]
) -> AppTest:
    """Page ``name``'s address with ``params``, opened in a fresh session."""
    monkeypatch.setenv("AE_PIPELINE_OUTPUT", str(output))
    monkeypatch.setenv("AE_PIPELINE_INPUT", str(HISTORY))
    spec = next(spec for spec in pages.PAGES if spec.title == name)
    return open_address(spec, **params)


def _view(app: AppTest, name: str) -> AppTest:
    spec = next(spec for spec in pages.PAGES if spec.title == name)
    return open_page(app, spec)


def test_without_pipeline_output_the_views_say_what_to_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    app = _start(monkeypatch, tmp_path / "nothing-here")
    assert [spec.title for spec in pages.PAGES] == [
        "Explorer",
        "Kafka Streams",
        "Live group",
        "Deploy",
        "History",
        "Fleet",
        "Classroom",
    ]
    _view(app, "History")
    assert "python -m pipeline lag" in app.info[0].value
    _view(app, "Fleet")
    assert "python -m pipeline whatif" in app.info[0].value
    _view(app, "Explorer")
    assert _compares(app)  # the explorer is back


def _shown_commands(text: str) -> list[list[str]]:
    """The shell commands in a fenced block of ``text``, split as a shell splits them."""
    assert "```" in text, text
    block = text.split("```", 2)[1]
    lines = [line for line in block.splitlines()[1:] if line.strip()]  # after ```bash
    return [shlex.split(line) for line in lines]


def _check_runnable(commands: list[list[str]], job: str, output: Path) -> None:
    """The commands install the spark extra from an existing checkout, then run ``job`` over
    existing snapshots into ``output``, with options the pipeline's own parser accepts."""
    from pipeline.__main__ import _parser

    install, run = commands
    assert install[:4] == ["python", "-m", "pip", "install"] and install[4] == "-e", install
    checkout, extra = install[5].removesuffix("]").split("[")
    assert extra == "spark"
    assert "spark = [" in (Path(checkout) / "pyproject.toml").read_text()
    assert run[:3] == ["python", "-m", "pipeline"]
    options = _parser().parse_args(run[3:])
    assert options.command == job
    assert (Path(options.input) / "offsets").is_dir() and (Path(options.input) / "members").is_dir()
    assert Path(options.input) == HISTORY
    assert Path(options.output) == output


def test_the_commands_the_views_show_run_from_a_fresh_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    output = tmp_path / "nothing-here"
    app = _view(_start(monkeypatch, output), "History")
    _check_runnable(_shown_commands(app.info[0].value), "lag", output / "lag")
    _view(app, "Fleet")
    _check_runnable(_shown_commands(app.info[0].value), "whatif", output / "whatif")


@pytest.mark.spark
def test_the_history_view_shows_verdicts_and_lag_over_time(
    monkeypatch: pytest.MonkeyPatch, pipeline_output: Path
) -> None:
    app = _view(_start(monkeypatch, pipeline_output), "History")
    verdicts = pd.read_parquet(pipeline_output / "lag" / "group_health")
    shown = app.dataframe[0].value
    assert set(shown["group_id"]) == set(verdicts["group_id"])
    assert len(app.get("plotly_chart")) >= 3  # verdict counts, group lag, lag per member
    # The explorer's controls are not part of this view.
    assert not _compares(app)


@pytest.mark.spark
def test_the_fleet_view_opens_a_group_in_the_explorer(
    monkeypatch: pytest.MonkeyPatch, pipeline_output: Path
) -> None:
    app = _view(_start(monkeypatch, pipeline_output), "Fleet")
    table = app.dataframe[0].value
    assert table["explorer"].str.startswith("?dataset=sample-history&").all()
    app.selectbox(key="fleet.group").set_value("group-00003")
    app.button(key="fleet.open").click().run()
    assert_no_exception(app)
    # Back in the explorer, with that group as the source.
    assert page_title(app) == "Assignment Explorer"
    assert "pipeline snapshot of group-00003" in app.markdown[0].value
    assert _compares(app)


@pytest.mark.spark
def test_a_fleet_link_opens_the_explorer_on_that_group(
    monkeypatch: pytest.MonkeyPatch, pipeline_output: Path
) -> None:
    rows: Any = pd.read_parquet(pipeline_output / "whatif" / "whatif")
    row = rows[rows["change"] == "current"].iloc[0]
    link = fleet_view.explorer_link(
        "sample-history", str(row["cluster"]), str(row["group_id"]), row["t"]
    )
    params = dict(part.split("=", 1) for part in link[1:].split("&"))
    from urllib.parse import unquote

    app = _start(monkeypatch, pipeline_output, **{k: unquote(v) for k, v in params.items()})
    assert f"pipeline snapshot of {row['group_id']}" in app.markdown[0].value
    assert page_title(app) == "Assignment Explorer"


@pytest.mark.spark
def test_the_history_and_fleet_addresses_carry_their_picks(
    monkeypatch: pytest.MonkeyPatch, pipeline_output: Path
) -> None:
    """The address bar holds the page's own picks (and the loaded sample): opened in a fresh
    session, the page shows the same group, filters and order."""
    app = _view(_start(monkeypatch, pipeline_output, sample="sticky-member-joins"), "History")
    groups = app.selectbox(key="history.group").options
    app.selectbox(key="history.group").set_value(groups[-1]).run()
    params = dict(app.query_params)
    assert params["sample"] == "sticky-member-joins"
    opened = _open(monkeypatch, pipeline_output, "History", params)
    assert opened.selectbox(key="history.group").value == app.selectbox(key="history.group").value
    assert dict(opened.query_params) == params

    app = _view(app, "Fleet")
    app.selectbox(key="fleet.sort").set_value("moved").run()
    app.selectbox(key="fleet.group").set_value("group-00003").run()
    params = dict(app.query_params)
    assert (params["fleet_sort"], params["fleet_group"]) == ("moved", "group-00003")
    opened = _open(monkeypatch, pipeline_output, "Fleet", params)
    for key in ("fleet.change", "fleet.strategy", "fleet.sort", "fleet.group"):
        assert opened.selectbox(key=key).value == app.selectbox(key=key).value, key
    assert dict(opened.query_params) == params


def _columns_shown(app: AppTest) -> dict[str, dict[str, Any]]:
    """The first table's columns as the browser is told to show them (label, number format)."""
    shown: dict[str, dict[str, Any]] = json.loads(app.dataframe[0].proto.columns)
    return shown


@pytest.mark.spark
def test_history_and_fleet_tables_show_words_and_formatted_numbers(
    monkeypatch: pytest.MonkeyPatch, pipeline_output: Path
) -> None:
    """Issue 17: the History and Fleet tables showed the pipeline's ``snake_case`` column names
    and bare numbers. The data keep the names; the headers are words, counts have thousands
    separators (in the viewer's locale) and fractions two decimals."""
    app = _view(_start(monkeypatch, pipeline_output), "History")
    history = _columns_shown(app)
    assert history["group_id"]["label"] == "group"
    assert history["lag_total"]["label"] == "lag total"
    assert history["lag_total"]["type_config"]["format"] == "localized"
    app = _view(app, "Fleet")
    app.selectbox(key="fleet.sort").set_value("pause_s").run()  # the grid shows its sort column
    fleet = _columns_shown(app)
    assert fleet["pause_s"]["label"] == "pause (s)"
    assert fleet["pause_s"]["type_config"]["format"] == "%,.2f"
    assert fleet["lag_total"]["type_config"]["format"] == "localized"
    assert fleet["explorer"]["type_config"]["type"] == "link"  # the view's own column kept
    # Every other figure of the picked group is in its details, in words.
    details = "\n".join(block.value for block in app.markdown)
    assert "| members to add to drain in an hour |" in details
    assert "extra_members" not in details
    for columns in (history, fleet):
        labels = [column["label"] for column in columns.values() if "label" in column]
        assert labels and not [label for label in labels if "_" in label]


def _compares(app: AppTest) -> bool:
    """Whether the explorer's comparison table is on the page."""
    return plotly_spec.comparison_text(app) is not None


@pytest.mark.spark
def test_the_fleet_grid_says_which_groups_never_drain(
    monkeypatch: pytest.MonkeyPatch, pipeline_output: Path
) -> None:
    """The grid's drain read "None" for the sample history's groups whose consumers fall behind
    (group-00003, group-00004). It reads "never", its header's help says what that and "—"
    mean, and worst first by drain puts those groups first."""
    app = _view(_start(monkeypatch, pipeline_output), "Fleet")
    app.selectbox(key="fleet.sort").set_value("drain_s").run()
    grid = app.dataframe[0].value
    drains = dict(zip(grid["group_id"], grid["drain_s"], strict=True))
    assert drains["group-00003"] == drains["group-00004"] == "never"
    assert not [cell for cell in grid["drain_s"] if cell in ("None", "nan", "")]
    assert list(grid["drain_s"])[:2] == ["never", "never"]
    column = _columns_shown(app)["drain_s"]
    assert column["label"] == "drain" and "“never”" in column["help"]

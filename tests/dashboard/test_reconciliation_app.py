"""The reconciliation view: a consumer group read mid-reconciliation (here from a saved
snapshot; ``tests/cluster/test_watch_live.py`` reads one live), as a table, a chart and the
epochs; the pure parts without Streamlit."""

from __future__ import annotations

import json
from typing import Any

from assignors import parse_scenario, reconciliation_progress
from dashboard.charts import reconciliation_charts
from dashboard.panels import reconciliation_panel
from tests.assignors.test_reconciliation import GROUP, STREAMS
from tests.dashboard import plotly_spec
from tests.dashboard.app_session import assert_no_exception, start_app


def _reconciliation_figure(app: Any) -> dict[str, Any]:
    for spec in plotly_spec.specs(app):
        if [trace.get("name") for trace in spec["data"]] == [
            "kept",
            "pending revocation",
            "pending assignment",
        ]:
            return spec
    raise AssertionError("no reconciliation figure on the page")


def test_the_table_names_who_revokes_who_waits_and_the_epochs() -> None:
    scenario, _ = parse_scenario(GROUP, path="")
    table = reconciliation_panel.reconciliation_frame(scenario)
    rows = {row["member"]: row for row in table.to_dict("records")}
    assert rows["a"]["state"] == "revoking"
    assert rows["a"]["member epoch"] == "8 (behind 9)"
    assert (rows["a"]["owns now"], rows["a"]["target"]) == ("3", "2")
    assert rows["a"]["pending revocation"] == "o[2]"
    assert rows["b"]["state"] == "at target" and rows["b"]["pending assignment"] == "—"
    assert rows["c"]["state"] == "waiting for partitions"
    assert rows["c"]["pending assignment"] == "o[2] (held by a)"
    progress = reconciliation_progress(scenario)
    assert reconciliation_panel.headline(scenario.reconciliation, progress).startswith(  # type: ignore[arg-type]
        "2 of 3 member(s) still reconciling toward the target computed at epoch 9"
    )


def test_the_figure_splits_each_member_in_kept_leaving_arriving() -> None:
    scenario, _ = parse_scenario(GROUP, path="")
    figure = reconciliation_charts.reconciliation_figure(reconciliation_progress(scenario))
    kept, leaving, arriving = (list(trace.x) for trace in figure.data)
    assert (kept, leaving, arriving) == ([2, 2, 1], [1, 0, 0], [0, 0, 1])
    assert [trace.marker.pattern.shape for trace in figure.data] == ["", "x", "/"]


def test_a_saved_snapshot_mid_reconciliation_shows_the_view() -> None:
    app = start_app()
    app.radio(key="source.kind").set_value("Upload").run()
    app.file_uploader(key="source.upload").upload(
        "live.json", json.dumps(GROUP).encode(), "application/json"
    ).run()
    assert_no_exception(app)
    assert any("Reconciliation" in h.value for h in app.subheader)
    metrics = {m.label: m.value for m in app.metric}
    assert metrics == {
        "Group epoch": "9",
        "Target assignment epoch": "9",
        "Members reconciling": "2 of 3",
    }
    assert any("2 of 3 member(s) still reconciling" in w.value for w in app.warning)
    figure = _reconciliation_figure(app)
    assert [trace["x"] for trace in figure["data"]] == [[2, 2, 1], [1, 0, 0], [0, 0, 1]]
    table = next(df.value for df in app.dataframe if "pending revocation" in df.value.columns)
    assert list(table["state"]) == ["revoking", "at target", "waiting for partitions"]
    # The rest of the page (the what-if) still works on the same scenario.
    assert app.multiselect(key="shape.remove_ids").options == ["a", "b", "c"]


def test_a_group_at_its_target_says_so_and_a_group_without_epochs_shows_no_view() -> None:
    settled = json.loads(json.dumps(GROUP))
    for entry in settled["reconciliation"]["members"]:
        entry.pop("current", None)
        entry["member_epoch"] = 9
    app = start_app()
    app.radio(key="source.kind").set_value("Upload").run()
    app.file_uploader(key="source.upload").upload(
        "settled.json", json.dumps(settled).encode(), "application/json"
    ).run()
    assert_no_exception(app)
    assert any("Every member holds its target" in s.value for s in app.success)
    classic = {key: value for key, value in GROUP.items() if key != "reconciliation"}
    app.file_uploader(key="source.upload").upload(
        "classic.json", json.dumps(classic).encode(), "application/json"
    ).run()
    assert_no_exception(app)
    assert not any("Reconciliation" in h.value for h in app.subheader)


def test_a_streams_snapshot_shows_each_members_tasks_now_and_its_target() -> None:
    app = start_app()
    app.radio(key="source.kind").set_value("Upload").run()
    app.file_uploader(key="source.upload").upload(
        "streams.json", json.dumps(STREAMS).encode(), "application/json"
    ).run()
    assert_no_exception(app)
    table = next(df.value for df in app.dataframe if "active now" in df.value.columns)
    rows = {row["member id"]: row for row in table.to_dict("records")}
    assert rows["m1"]["active now"] == "0_0, 0_1" and rows["m1"]["active target"] == "0_0"
    assert rows["m1"]["member epoch"] == "3 (behind 4)"
    assert rows["m2"]["active now"] == "—" and rows["m2"]["active target"] == "0_1"
    assert any("**2 of 2** member(s) still reconciling" in m.value for m in app.markdown)

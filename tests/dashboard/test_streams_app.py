"""The Kafka Streams view, driven like a user with AppTest on the shipped Streams sample.

The real app, the registry's ``streams-ha`` assignor and the probing-rebalance simulation run;
the expected figures come from :func:`assignors.streams.convergence.simulate_convergence` on the
same sample, so the page must show what the core computes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

import sample_data
from assignors import compare_task_strategies, registry
from assignors.streams.convergence import simulate_convergence
from dashboard.views import pages
from tests.dashboard import plotly_spec
from tests.dashboard.app_session import assert_no_exception, open_page, shown_text, start_app

STREAMS_SAMPLES = [info.key for info in sample_data.list_samples() if info.kind == "streams"]
SAMPLE = "streams-new-instance"


def _streams_figure(app: AppTest) -> dict[str, Any]:
    for spec in plotly_spec.specs(app):
        names = [trace.get("name") for trace in spec["data"]]
        if names == ["active", "standby", "warm-up"]:
            return spec
    raise AssertionError("no Streams tasks figure on the page")


def _counts(frame: dict[str, Any]) -> dict[str, int]:
    """Total active / standby / warm-up tasks over the clients in one frame."""
    return {trace["name"]: int(sum(plotly_spec.values(trace["y"]))) for trace in frame["data"]}


def test_there_is_a_streams_sample_to_show() -> None:
    assert SAMPLE in STREAMS_SAMPLES


def test_streams_samples_are_offered_in_the_picker() -> None:
    app = start_app()
    shown = app.selectbox(key="source.sample").options  # titles, as the user reads them
    titles = [info.name for info in sample_data.list_samples() if info.kind == "streams"]
    assert titles and all(any(label.startswith(t) for label in shown) for t in titles)


def test_the_streams_sample_shows_tasks_per_client_and_each_probing_rebalance() -> None:
    app = start_app(sample=SAMPLE)
    streams = sample_data.load_sample(SAMPLE).streams
    assert streams is not None
    expected = simulate_convergence(streams, 1_000.0)
    figure = _streams_figure(app)
    labels = [frame["name"] for frame in figure["frames"]]
    assert labels[:2] == ["before", "rebalance"]
    assert len(labels) == 2 + expected.probing_rebalances
    assert labels[2] == "probing 1 (+10 min)"
    # The first rebalance hands out warm-ups; once they caught up the last one has none.
    frames = figure["frames"]
    assert _counts(frames[1])["warm-up"] == expected.steps[0].assignment.warmup_count > 0
    assert _counts(frames[-1])["warm-up"] == 0
    every_task = len(streams.tasks)
    assert all(_counts(frame)["active"] == every_task for frame in frames[1:])
    successes = " ".join(s.value for s in app.success)
    assert f"after {expected.probing_rebalances} probing rebalance(s)" in successes
    # No consumer-group controls for a Streams application.
    assert not _compares(app)
    assert len(app.dataframe[0].value) == len(expected.steps)


def test_restore_speed_and_interval_change_the_sequence() -> None:
    app = start_app(sample=SAMPLE)
    before = len(_streams_figure(app)["frames"])
    app.number_input(key="streams.restore_speed").set_value(100.0).run()
    assert_no_exception(app)
    slower = _streams_figure(app)["frames"]
    assert len(slower) > before
    app.number_input(key="streams.interval_min").set_value(5.0).run()
    assert_no_exception(app)
    labels = [frame["name"] for frame in _streams_figure(app)["frames"]]
    assert labels[2] == "probing 1 (+5 min)"


def test_an_input_rate_above_the_restore_speed_never_converges() -> None:
    app = start_app(sample=SAMPLE)
    app.number_input(key="streams.restore_speed").set_value(500.0).run()
    app.number_input(key="streams.input_rate").set_value(600.0).run()
    assert_no_exception(app)
    warnings = " ".join(w.value for w in app.warning)
    assert "Not converged" in warnings and "never catches up" in warnings


def test_loading_a_streams_sample_from_the_picker_and_back() -> None:
    app = start_app()
    app.selectbox(key="source.sample").set_value(SAMPLE).run()
    assert_no_exception(app)
    assert _streams_figure(app)
    app.selectbox(key="source.sample").set_value(sample_data.DEFAULT_SAMPLE).run()
    assert_no_exception(app)
    assert _compares(app)


def test_an_uploaded_streams_file_is_shown_and_a_broken_one_is_refused() -> None:
    raw = json.loads((sample_data.SAMPLE_DIRECTORY / f"{SAMPLE}.json").read_text())
    raw["name"] = "Uploaded Streams app"
    app = start_app()
    app.radio(key="source.kind").set_value("Upload").run()
    app.file_uploader(key="source.upload").upload(
        "streams.json", json.dumps(raw).encode(), "application/json"
    ).run()
    assert_no_exception(app)
    assert "Uploaded Streams app" in app.markdown[0].value
    assert _streams_figure(app)

    broken = dict(raw, clients=[dict(raw["clients"][0], prev_active=["9_9"])])
    app.file_uploader(key="source.upload").upload(
        "broken.json", json.dumps(broken).encode(), "application/json"
    ).run()
    assert_no_exception(app)
    errors = shown_text(" ".join(e.value for e in app.error))
    assert "broken.json was not loaded" in errors and "9_9" in errors
    assert "Uploaded Streams app" in app.markdown[0].value


@pytest.mark.parametrize("key", STREAMS_SAMPLES)
def test_every_streams_sample_renders(key: str) -> None:
    app = start_app(sample=key)
    assert _streams_figure(app)["frames"]


def _compares(app: AppTest) -> bool:
    """Whether the explorer's comparison table is on the page."""
    return plotly_spec.comparison_text(app) is not None


def test_every_task_assignor_is_shown_on_the_same_application() -> None:
    app = start_app(sample=SAMPLE)
    assert_no_exception(app)
    streams = sample_data.load_sample(SAMPLE).streams
    assert streams is not None
    figures = [
        spec
        for spec in plotly_spec.specs(app)
        if [trace.get("name") for trace in spec["data"]] == ["active", "standby", "warm-up"]
    ]
    assert len(figures) == 2  # the probing sequence, then the comparison
    compared = figures[1]
    expected = compare_task_strategies(streams, registry.task_strategies())
    assert [frame["name"] for frame in compared["frames"]] == [
        "before", "streams-ha", "streams-sticky", "streams-group-sticky",
    ]  # fmt: skip
    for frame, result in zip(compared["frames"][1:], expected, strict=True):
        assert _counts(frame)["active"] == len(streams.tasks)
        assert _counts(frame)["warm-up"] == result.warmups
    table = app.dataframe[1].value
    assert list(table["assignor"]) == [r.strategy for r in expected]
    assert list(table["active tasks moved"]) == [r.moved_active for r in expected]
    assert "How an application chooses its assignor" in [e.label for e in app.expander]


def test_a_consumer_group_picked_on_the_streams_page_is_in_its_address_bar() -> None:
    """Found by the generated runs (issue 36): on the Kafka Streams page, a consumer-group
    sample picked in the sidebar stays on that page (which says where to find a Streams
    application); the address bar kept naming the sample loaded before, so its link opened
    another scenario than the sidebar showed."""
    app = open_page(start_app(), pages.STREAMS)
    app.selectbox(key="source.sample").set_value("failover-priorities").run()
    assert_no_exception(app)
    assert app.title[0].value == "Assignment Explorer · Kafka Streams"
    assert app.query_params["sample"] == "failover-priorities"
    again = open_page(start_app(**dict(app.query_params)), pages.STREAMS)
    assert again.session_state["ae.source"].key == "sample:failover-priorities"

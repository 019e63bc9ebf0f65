"""The address bar always holds the link of what is on screen (issue 36): on every page and for
every source, the query parameters a run leaves, opened in a fresh session on the same page,
restore the same page, scenario, strategies, edits and Kafka version.

Sources made as a user makes them (no cluster: a live group is a cluster source put in the
session, as the cluster panel leaves it): a sample with strategies, an edit and a Kafka version
picked; a walkthrough step; a Streams sample; an uploaded file; a pasted describe listing; a
pipeline group from a Fleet link. A source that cannot travel (an uploaded Streams application)
clears the address and the page says so.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

import sample_data
from assignors import with_current_ownership
from dashboard.model import sources
from dashboard.panels import layout, shape_panel, teach_panel
from dashboard.views import pages
from tests.dashboard.app_session import (
    APP,
    add_form,
    assert_no_exception,
    open_address,
    open_page,
    open_panel,
    page_title,
    start_app,
)

ROOT = Path(__file__).resolve().parents[2]
HISTORY = ROOT / "sample_data" / "history"
LISTING = (ROOT / "tests" / "assignors" / "listings" / "kafka-offsets.txt").read_text("utf-8")
UPLOADED = {
    "name": "Uploaded group",
    "topics": [{"name": "orders", "partitions": 4, "lags": [5, 0, 7, 1]}],
    "members": [{"member_id": "x", "topics": ["orders"]}, {"member_id": "y", "topics": ["orders"]}],
}


def _sample_with_choices() -> AppTest:
    app = start_app(sample="sticky-member-joins")
    app.multiselect(key="strategies.pick").set_value(["sticky", "uniform"]).run()
    app.selectbox(key="strategies.kafka_version").set_value("3.9").run()
    add_form(app, "add_id").input("joiner")
    add_form(app, "add_submit").click().run()
    return app


def _walkthrough_step() -> AppTest:
    app = open_panel(start_app(sample="sticky-member-joins"), teach_panel.PANEL)
    app.button(key="teach.next").click().run()
    app.button(key="teach.next").click().run()
    return app


def _streams_sample() -> AppTest:
    app = start_app()
    app.selectbox(key="source.sample").set_value("streams-new-instance").run()
    return app


def _upload(name: str, document: dict[str, Any]) -> AppTest:
    app = start_app()
    app.radio(key="source.kind").set_value("Upload").run()
    app.file_uploader(key="source.upload").upload(
        name, json.dumps(document).encode(), "application/json"
    ).run()
    return app


def _described() -> AppTest:
    app = start_app()
    app.radio(key="source.kind").set_value("Describe").run()
    app.text_area(key="source.describe_text").input(LISTING)
    app.text_input(key="source.describe_partitions").input("orders:4, payments:2")
    app.button(key="source.describe_read").click().run()
    return app


def _fleet_group() -> AppTest:
    app = start_app(dataset="sample-history", cluster="cluster-1", group="group-00001")
    app.multiselect(key="strategies.pick").set_value(["range", "cooperative-sticky"]).run()
    return app


def _live_group() -> AppTest:
    """A group read from a cluster, as the cluster panel leaves it in the session."""
    scenario = sample_data.load_sample("range-vs-roundrobin").scenario
    assert scenario is not None
    source = sources.source_for(
        with_current_ownership(scenario), (), "live-group", "broker:9092", "cluster:live@1"
    )
    app = AppTest.from_file(APP, default_timeout=120)
    app.session_state[shape_panel.PANEL] = True
    app.session_state["ae.source"] = source
    app.run()
    return app


SOURCES: dict[str, Callable[[], AppTest]] = {
    "sample with strategies, an edit and Kafka 3.9": _sample_with_choices,
    "walkthrough step": _walkthrough_step,
    "Streams sample": _streams_sample,
    "upload": lambda: _upload("mine.json", UPLOADED),
    "describe paste": _described,
    "pipeline group from a Fleet link": _fleet_group,
    "live cluster group": _live_group,
}


def _session(app: AppTest) -> dict[str, Any]:
    """What the page shows, as the session holds it (not where it came from: an upload comes
    back from a link as the scenario the link carried)."""
    source = app.session_state["ae.source"]
    return {
        "title": page_title(app),
        "scenario": source.scenario,
        "streams": source.streams,
        "sample": source.sample,
        "walkthrough step": source.walkthrough_step,
        "strategies": _kept(app, "ae.strategies", None),
        "edits": _kept(app, "ae.edits", []),
        "kafka": _kept(app, "ae.kafka_version", None),
    }


def _kept(app: AppTest, key: str, default: object) -> object:
    """A session value (AppTest's session state has no ``get``)."""
    try:
        return app.session_state[key]
    except KeyError:
        return default


def _navigate(app: AppTest, spec: pages.PageSpec) -> AppTest:
    """Open page ``spec`` from the menu as a browser does: Streamlit clears the query
    parameters on a change of page (AppTest's ``switch_page`` keeps them), so the page itself
    must write what it shows."""
    app.query_params.clear()
    return open_page(app, spec)


@pytest.fixture(autouse=True)
def _no_pipeline_output(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AE_PIPELINE_OUTPUT", str(tmp_path / "no-output"))
    monkeypatch.setenv("AE_PIPELINE_INPUT", str(HISTORY))


@pytest.mark.parametrize("spec", pages.PAGES, ids=lambda spec: spec.title)
@pytest.mark.parametrize("make", SOURCES.values(), ids=list(SOURCES))
def test_the_address_reopens_the_page_with_the_same_scenario(
    make: Callable[[], AppTest], spec: pages.PageSpec
) -> None:
    app = make()
    assert_no_exception(app)
    _navigate(app, spec)
    shown = _session(app)
    params = dict(app.query_params)
    assert params, "the address bar is empty"
    opened = open_address(spec, **params)
    assert _session(opened) == shown, params
    assert dict(opened.query_params) == params  # and it keeps the same address


def test_a_source_that_cannot_travel_clears_the_address_and_says_so() -> None:
    streams = json.loads((sample_data.SAMPLE_DIRECTORY / "streams-new-instance.json").read_text())
    app = _upload("streams.json", dict(streams, name="Uploaded Streams app"))
    assert_no_exception(app)
    assert page_title(app) == "Assignment Explorer · Kafka Streams"
    assert dict(app.query_params) == {}  # not the sample's link it was opened with
    assert layout.NO_LINK in [caption.value for caption in app.caption]


def test_picking_the_streams_sample_moves_the_address_to_it() -> None:
    """The original report: the address bar still said ``?sample=range-vs-roundrobin``."""
    app = start_app(sample="range-vs-roundrobin")
    app.selectbox(key="source.sample").set_value("streams-new-instance").run()
    assert page_title(app) == "Assignment Explorer · Kafka Streams"
    assert dict(app.query_params) == {"sample": "streams-new-instance"}


def test_switching_sample_on_the_deploy_page_moves_the_address_to_it() -> None:
    """The original report: after switching sample there, it still said ``large-group``."""
    app = open_page(start_app(sample="large-group"), pages.DEPLOY)
    assert dict(app.query_params)["sample"] == "large-group"
    app.selectbox(key="source.sample").set_value("range-vs-roundrobin").run()
    assert page_title(app) == "Assignment Explorer · Deploy"
    assert dict(app.query_params)["sample"] == "range-vs-roundrobin"

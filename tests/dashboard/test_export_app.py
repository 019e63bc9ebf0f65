"""Share and export, and the walkthrough buttons, driven like a user with AppTest.

Downloads are fetched the way Streamlit serves a click (:mod:`tests.dashboard.downloads`), so
these check the bytes a user gets. The expected figures come from the core on the same sample.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from typing import Any
from urllib.parse import parse_qs

import pytest
from streamlit.testing.v1 import AppTest

import sample_data
from assignors.io.scenario import parse_scenario
from assignors.simulate import metrics, rebalance
from dashboard.charts import figure_files, png_export
from dashboard.model import whatif
from dashboard.panels import export_panel, teach_panel
from dashboard.session import compute
from tests.dashboard import downloads, plotly_spec
from tests.dashboard.app_session import (
    add_form,
    assert_no_exception,
    open_panel,
    open_tab,
    shown_text,
    start_app,
)

SAMPLE = sample_data.DEFAULT_SAMPLE
STRATEGIES = ["range", "cooperative-sticky"]
EDITS = [{"op": "add_member", "member_id": "newcomer", "topics": None}]
SECRET = "s3cr3t-pa55word"


@pytest.fixture
def recording(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    with downloads.recording_media(monkeypatch):
        yield


def _with_a_change() -> AppTest:
    """The default sample, two strategies, one member added (through the form)."""
    app = start_app(sample=SAMPLE)
    app.multiselect(key="strategies.pick").set_value(STRATEGIES).run()
    add_form(app, "add_id").input("newcomer")
    add_form(app, "add_submit").click().run()
    assert_no_exception(app)
    return open_panel(app, export_panel.PANEL)


def test_the_closed_panel_builds_nothing_and_opening_it_shows_everything() -> None:
    app = start_app(sample=SAMPLE)
    assert downloads.labels(app) == []
    assert not [c for c in app.code if c.value.startswith("?sample=")]
    open_panel(app, export_panel.PANEL)
    assert {"Scenario (JSON)", "Assignments (CSV)", "Movement (CSV)"} <= set(downloads.labels(app))
    assert [c for c in app.code if c.value.startswith("?sample=")]


def _csv(content: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(content.decode("utf-8"))))


def _expected_plan() -> whatif.WhatIf:
    scenario = sample_data.load_sample(SAMPLE).scenario
    assert scenario is not None
    return whatif.plan(scenario, EDITS)


def test_the_scenario_download_is_the_edited_scenario_without_secrets(recording: None) -> None:
    app = _with_a_change()
    # A password typed for a cluster connection must never reach a download.
    app.radio(key="source.kind").set_value("Cluster").run()
    app.text_input(key="cluster.password").input(SECRET).run()
    app.radio(key="source.kind").set_value("Sample").run()
    assert_no_exception(app)
    name, content = downloads.download(app, "Scenario (JSON)")
    assert name.endswith("-edited.json")
    text = content.decode("utf-8")
    assert SECRET not in text and "password" not in text.lower()
    scenario, _ = parse_scenario(json.loads(text), path="")
    # The file carries the Kafka version the page answered as (a picked strategy, range,
    # answers by release line), so that loading it answers the same.
    shown = app.session_state
    picked = shown["ae.kafka_version"] if "ae.kafka_version" in shown else None  # noqa: SIM401
    assert scenario == replace(_expected_plan().after, kafka_version=picked)
    assert "newcomer" in [m.member_id for m in scenario.members]


def test_the_assignment_csv_lists_current_and_each_strategy(recording: None) -> None:
    app = _with_a_change()
    name, content = downloads.download(app, "Assignments (CSV)")
    assert name == "assignments.csv"
    rows = _csv(content)
    assert list(rows[0]) == ["strategy", "member", "topic", "partition"]
    plan = _expected_plan()
    assert Counter(r["strategy"] for r in rows) == {
        "current": sum(len(t) for t in plan.current.partitions.values()),
        **{
            name: sum(
                len(t)
                for t in rebalance.simulate(
                    plan.before, plan.after, name, previous=plan.current
                ).target.partitions.values()
            )
            for name in STRATEGIES
        },
    }
    range_rows = {
        (r["topic"], int(r["partition"])): r["member"] for r in rows if r["strategy"] == "range"
    }
    target = rebalance.simulate(plan.before, plan.after, "range", previous=plan.current).target
    assert range_rows == {(tp.topic, tp.partition): m for tp, m in target.owner_of().items()}


def test_the_movement_csv_is_what_the_core_says_moves(recording: None) -> None:
    app = _with_a_change()
    name, content = downloads.download(app, "Movement (CSV)")
    assert name == "movement.csv"
    rows = _csv(content)
    assert content.decode().splitlines()[0] == "strategy,topic,partition,from,to,kind"
    kinds = {"moved", "newly assigned", "dropped"}
    assert rows and all(r["kind"] in kinds for r in rows)
    plan = _expected_plan()
    for strategy in STRATEGIES:
        target = rebalance.simulate(plan.before, plan.after, strategy, previous=plan.current).target
        moved = metrics.movement(plan.current, target)
        expected = {
            (
                m.partition.topic,
                m.partition.partition,
                m.from_member or "(nobody)",
                m.to_member or "(nobody)",
            )
            for m in moved.moved + moved.newly_assigned + moved.dropped
        }
        got = {
            (r["topic"], int(r["partition"]), r["from"], r["to"])
            for r in rows
            if r["strategy"] == strategy
        }
        assert got == expected


def test_charts_download_as_html(recording: None) -> None:
    app = _with_a_change()
    assert "Lag per consumer (HTML)" in downloads.labels(app)
    assert f"Before → after ({STRATEGIES[0]}) (HTML)" in downloads.labels(app)
    name, content = downloads.download(app, "Lag per consumer (HTML)")
    assert name == "lag-per-consumer.html"
    html = content.decode("utf-8")
    # Plotly 7 opens the page with "<!doctype html>", Plotly 6 with "<html>".
    page = html.lstrip().lower().removeprefix("<!doctype html>").lstrip()
    assert page.startswith("<html") and "plotly" in html.lower()
    # Self-contained: Plotly's JavaScript is inlined, nothing is loaded from the internet.
    assert 'src="https://cdn.plot.ly' not in html and "<script src=" not in html
    assert len(html) > 1_000_000
    assert "newcomer" in html


def _builders() -> dict[str, Any]:
    """``export_panel.chart_builders`` on the plan ``_with_a_change`` shows, without a page."""
    plan = _expected_plan()
    key = "test_export_app"
    outcomes = compute.outcomes(key, STRATEGIES, plan)
    return export_panel.chart_builders(key, plan, compute.current(key, plan), outcomes, {}, [])


def test_every_chart_of_the_page_can_be_exported() -> None:
    """Issue 17: the matrix, drain and timeline charts could not be exported. Besides the lag
    and the before -> after charts, the matrices (current and each strategy's), the lag drain
    and the protocols of the first strategy are offered, and each builds a figure."""
    builders = _builders()
    first, second = STRATEGIES
    assert set(builders) == {
        "Lag per consumer",
        f"Before → after ({first})",
        f"Before → after ({second})",
        "Assignment matrix (current)",
        f"Assignment matrix ({first})",
        f"Assignment matrix ({second})",
        "Lag drain",
        f"Protocols ({first})",
    }
    for title, build in builders.items():
        assert build().data, title


def test_a_still_picture_of_the_animation_has_no_dead_buttons() -> None:
    """Issue 17: the PNG of the before -> after chart showed Play/Pause and a slider that do
    nothing in a picture. ``static_figure`` (what the PNG is drawn from) drops both, and keeps
    the tiles; the page's interactive figure keeps its controls."""
    animation = _builders()[f"Before → after ({STRATEGIES[0]})"]()
    assert animation.layout.updatemenus and animation.layout.sliders
    still = figure_files.static_figure(animation)
    assert not still.layout.updatemenus and not still.layout.sliders
    # issue 36: the still is the after frame, not the before one
    last = animation.frames[-1]
    for index, values in zip(last.traces or range(len(last.data)), last.data, strict=True):
        assert list(still.data[index].x) == list(values.x)
    assert animation.layout.updatemenus and animation.layout.sliders  # the original is intact


@pytest.mark.skipif(
    png_export.unavailable_reason() is not None,
    reason=f"PNG export not available here: {png_export.unavailable_reason()}",
)
def test_charts_download_as_png_rendered_by_chromium(recording: None) -> None:
    app = _with_a_change()
    assert "Lag per consumer (PNG)" in downloads.labels(app)
    name, content = downloads.download(app, "Lag per consumer (PNG)")
    assert name == "lag-per-consumer.png"
    assert content.startswith(b"\x89PNG\r\n\x1a\n") and len(content) > 5_000
    assert not any("PNG export on the server needs" in shown_text(c.value) for c in app.caption)


def test_without_a_browser_the_page_says_png_export_is_unavailable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BROWSER_PATH", "/nonexistent/chromium")
    app = open_panel(start_app(sample=SAMPLE), export_panel.PANEL)
    assert not [label for label in downloads.labels(app) if label.endswith("(PNG)")]
    captions = shown_text(" ".join(c.value for c in app.caption))
    assert "BROWSER_PATH points to /nonexistent/chromium" in captions
    assert "camera icon" in captions
    assert os.environ["BROWSER_PATH"] == "/nonexistent/chromium"


def test_a_share_link_restores_the_view_it_was_made_from() -> None:
    app = _with_a_change()
    query = next(c.value for c in app.code if c.value.startswith("?sample="))
    params = {key: values[0] for key, values in parse_qs(query[1:]).items()}
    restored = start_app(**params)
    assert restored.multiselect(key="strategies.pick").value == STRATEGIES
    assert "newcomer" in restored.multiselect(key="shape.remove_ids").options


# --- the walkthrough ------------------------------------------------------------------------

WALKTHROUGH = "member-leaves-roundrobin-vs-sticky"


def _step_title(app: AppTest) -> str:
    return next(m.value for m in app.markdown if m.value.startswith("**Step "))


def _keys(app: AppTest) -> list[str]:
    return [button.key for button in app.button]


def test_walkthrough_buttons_step_through_and_show_a_step() -> None:
    steps = sample_data.load_sample(WALKTHROUGH).walkthrough
    app = start_app(sample=WALKTHROUGH)
    # Closed, as on a first visit, the panel sends none of its steps; a click opens it.
    assert not any(m.value.startswith("**Step ") for m in app.markdown)
    assert "teach.next" not in _keys(app)
    open_panel(app, teach_panel.PANEL)
    assert _step_title(app) == f"**Step 1 of {len(steps)}: {steps[0].title}**"
    assert app.button(key="teach.back").disabled

    app.button(key="teach.next").click().run()
    assert_no_exception(app)
    assert _step_title(app) == f"**Step 2 of {len(steps)}: {steps[1].title}**"
    # Next shows step 2 (C2 leaves in the what-if, as the user would make it): there is
    # nothing left to show again, so no such button.
    assert "teach.apply" not in _keys(app)
    assert "remove member C2" in _markdown(open_tab(app, "Edits"))
    assert "C2" not in open_tab(app, "Members").multiselect(key="shape.remove_ids").options

    # Step 3: C2 comes back, one rebalance after it left (not in the same change).
    app.button(key="teach.next").click().run()
    assert_no_exception(app)
    assert not app.error, [shown_text(e.value) for e in app.error]
    assert f"walkthrough step 3 of {len(steps)}" in _markdown(app)
    assert "add member C2" in _markdown(open_tab(app, "Edits"))
    assert "C2" in open_tab(app, "Members").multiselect(key="shape.remove_ids").options
    # The "before" is the group without C2: the current assignment has no C2 column.
    assert "C2" not in plotly_spec.lag_panel(app, "current")
    assert "C2" in plotly_spec.lag_panel(app, "roundrobin")

    app.button(key="teach.next").click().run()
    assert_no_exception(app)
    assert _step_title(app) == f"**Step 4 of {len(steps)}: {steps[3].title}**"
    # Step 4 switches to sticky: showing it picks that strategy, C2 is back in the group.
    assert app.multiselect(key="strategies.pick").value == ["sticky"]
    assert "C2" in plotly_spec.lag_panel(app, "current")
    # The share link carries the step, so it restores this very view, panel open on it.
    open_panel(app, export_panel.PANEL)
    query = next(c.value for c in app.code if c.value.startswith("?sample="))
    params = {key: values[0] for key, values in parse_qs(query[1:]).items()}
    assert params["step"] == "3"
    restored = start_app(**params)
    assert f"walkthrough step 4 of {len(steps)}" in _markdown(restored)
    assert _step_title(restored) == f"**Step 4 of {len(steps)}: {steps[3].title}**"
    assert restored.multiselect(key="strategies.pick").value == ["sticky"]

    app.button(key="teach.back").click().run()
    assert _step_title(app) == f"**Step 3 of {len(steps)}: {steps[2].title}**"


def test_a_link_with_a_bad_step_says_so_and_shows_the_sample() -> None:
    app = start_app(sample=WALKTHROUGH, step="99")
    assert "walkthrough step was not restored" in " ".join(e.value for e in app.error)
    assert "walkthrough step" not in _markdown(app).replace("walkthrough step was not", "")


def _markdown(app: AppTest) -> str:
    return "\n".join(m.value for m in app.markdown)

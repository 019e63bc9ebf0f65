"""The lesson file from the *Share and export* panel, driven like a user with AppTest: the button
is there for a sample with a walkthrough, its file holds the whole walkthrough, and a step of the
file shows what the dashboard shows when that step is shown."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import plotly.io
import pytest

import sample_data
from dashboard.model import share
from dashboard.panels import export_panel, lesson_export, teach_panel
from tests.dashboard import downloads, plotly_spec
from tests.dashboard.app_session import open_panel, start_app
from tests.dashboard.test_lesson_file import expected_paragraphs, read

WALKTHROUGH = "member-leaves-roundrobin-vs-sticky"


@pytest.fixture
def recording(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    with downloads.recording_media(monkeypatch):
        yield


def test_the_export_panel_downloads_the_whole_walkthrough_as_one_file(recording: None) -> None:
    steps = sample_data.load_sample(WALKTHROUGH).walkthrough
    app = open_panel(start_app(sample=WALKTHROUGH), export_panel.PANEL)
    name, content = downloads.download(app, export_panel.LESSON_LABEL)
    assert name == f"lesson-{WALKTHROUGH}.html"
    reader = read(content.decode("utf-8"))
    assert [section.title for section in reader.sections] == [step.title for step in steps]
    assert all(section.figure_slots >= 1 for section in reader.sections)


def _frames(spec: dict[str, Any]) -> list[tuple[str, str]]:
    """(name, caption) of each frame of an animation's JSON."""
    return [(frame["name"], frame["layout"]["title"]["text"]) for frame in spec["frames"]]


def _lag_panels(spec: dict[str, Any]) -> dict[str, dict[str, float]]:
    """Panel title -> member -> lag, of a lag-per-consumer chart's JSON."""
    panels = {}
    for trace in spec["data"]:
        if trace.get("type") == "bar" and "hovertemplate" in trace:
            lags, members = plotly_spec.values(trace["x"]), plotly_spec.values(trace["y"])
            panels[trace["name"]] = dict(zip(members, lags, strict=True))
    return panels


def test_a_step_of_the_file_is_the_step_the_dashboard_shows() -> None:
    """Step 2 (C2 leaves, roundrobin): the file's animation has the frames and captions the
    Explorer draws for the step (opened from the step's link, as the walkthrough panel leaves
    the address), and its lag chart the same lag per member."""
    steps = sample_data.load_sample(WALKTHROUGH).walkthrough
    edits = teach_panel.step_edits(steps[1])
    app = start_app(**share.share_params(WALKTHROUGH, ["roundrobin"], edits, 1))
    shown = plotly_spec.spec(app, "view.animation.roundrobin")
    lesson = lesson_export.sample_lesson(WALKTHROUGH)
    animation, lag = (json.loads(plotly.io.to_json(f)) for f in lesson.steps[1].figures)
    assert _frames(animation) == _frames(shown)
    assert _lag_panels(lag)["current"] == plotly_spec.lag_panel(app, "current")
    assert _lag_panels(lag)["roundrobin"] == plotly_spec.lag_panel(app, "roundrobin")


STREAMS_LESSON = next(
    lesson.info.key for lesson in sample_data.list_lessons() if lesson.streams is not None
)


def test_the_streams_page_exports_its_lesson_as_one_file(recording: None) -> None:
    """The Kafka Streams page offers a Streams lesson's file: every step's title and narration
    (its figures filled, as the panel shows it) with the page's *Tasks per client* chart, whose
    frames are the page's own (what the clients held, then rebalance after rebalance)."""
    from dashboard.session import samples
    from dashboard.views import pages
    from tests.dashboard.app_session import open_address

    steps = sample_data.load_sample(STREAMS_LESSON).walkthrough
    app = open_panel(open_address(pages.STREAMS, sample=STREAMS_LESSON), "panel.streams_export")
    name, content = downloads.download(app, export_panel.LESSON_LABEL)
    assert name == f"lesson-{STREAMS_LESSON}.html"
    reader = read(content.decode("utf-8"))
    assert [section.title for section in reader.sections] == [step.title for step in steps]
    assert all(section.figure_slots == 1 for section in reader.sections)
    narrated = samples.narration(STREAMS_LESSON)
    for section, text in zip(reader.sections, narrated, strict=True):
        assert section.paragraphs == expected_paragraphs(text)
        assert len(section.notes) == 1  # how the chart's rebalances end, as the page says it
    shown = plotly_spec.spec(app, "streams.figure")
    lesson = lesson_export.sample_lesson(STREAMS_LESSON)
    (figure,) = lesson.steps[0].figures
    exported = json.loads(plotly.io.to_json(figure))
    assert [frame["name"] for frame in exported["frames"]] == [
        frame["name"] for frame in shown["frames"]
    ]

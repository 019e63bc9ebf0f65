"""A lesson file in a real browser (issue 37.5): opened from disk in Chromium with the network
off, stepped through with the keyboard and the buttons; every step shows its title, its counter
and a drawn Plotly figure, and the browser asks for nothing but the file itself.

No server runs here: the file is written by the same function the export panel's button calls.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import sample_data
from dashboard.charts import lesson_file
from dashboard.panels import lesson_export
from tests.browser import served_app
from tests.browser.served_app import CHROMIUM

SAMPLE = "member-leaves-roundrobin-vs-sticky"
STREAMS_LESSON = "streams-new-instance"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip(f"Chromium not found at {CHROMIUM}: apt-get install -y chromium")
    with served_app.chromium() as opened:
        yield opened


class Offline:
    """A tab with the network off in which every request but the file's own is refused and
    recorded, and every script error is kept."""

    def __init__(self, browser: Any, path: Path, width: int = 1280, height: int = 720) -> None:
        self.url = path.as_uri()
        self.requests: list[str] = []
        self.refused: list[str] = []
        self.errors: list[str] = []
        self.context = browser.new_context(viewport={"width": width, "height": height})
        self.context.set_offline(True)
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.set_default_timeout(30_000)
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def _route(self, route: Any) -> None:
        if route.request.url.split("#")[0] == self.url:
            route.continue_()
        else:
            self.refused.append(route.request.url)
            route.abort()

    def open(self, fragment: str = "") -> Any:
        self.page.goto(self.url + fragment)
        return self.page


def _shown(page: Any) -> Any:
    """The one step on screen (and check there is exactly one)."""
    assert page.locator("section.step:visible").count() == 1
    return page.locator("section.step:visible")


def _check_step(page: Any, number: int, count: int, title: str) -> None:
    """Step ``number`` is on screen: its title, the counter, a Plotly figure drawn in SVG."""
    shown = _shown(page)
    assert shown.locator("h2").inner_text() == title
    assert page.locator("#counter").inner_text() == f"Step {number} of {count}"
    plot = shown.locator(".js-plotly-plot").first
    plot.locator("svg.main-svg").first.wait_for()
    drawn = plot.evaluate("plot => plot.querySelectorAll('svg.main-svg path, svg text').length")
    assert drawn > 10, f"step {number}: the figure drew {drawn} SVG elements"
    assert page.locator("#previous").is_disabled() == (number == 1)
    assert page.locator("#next").is_disabled() == (number == count)
    assert page.evaluate("location.hash") == f"#step-{number}"


@pytest.mark.parametrize("sample", [SAMPLE, STREAMS_LESSON])
def test_a_lesson_steps_through_offline_with_the_keyboard_and_the_buttons(
    browser: Any, tmp_path: Path, sample: str
) -> None:
    """A consumer group's lesson and the Kafka Streams lesson (the Streams page's chart)."""
    steps = sample_data.load_sample(sample).walkthrough
    count = len(steps)
    path = tmp_path / lesson_export.file_name(sample)
    path.write_text(lesson_export.sample_lesson_html(sample), encoding="utf-8")
    tab = Offline(browser, path)
    page = tab.open()
    for number, step in enumerate(steps, 1):
        _check_step(page, number, count, step.title)
        page.keyboard.press("ArrowRight")
    _check_step(page, count, count, steps[-1].title)  # past the last: stays on it
    page.keyboard.press("Home")
    _check_step(page, 1, count, steps[0].title)
    page.keyboard.press("ArrowLeft")  # before the first: stays on it
    _check_step(page, 1, count, steps[0].title)
    page.keyboard.press("End")
    _check_step(page, count, count, steps[-1].title)
    page.keyboard.press("ArrowLeft")
    _check_step(page, count - 1, count, steps[-2].title)
    page.locator("#previous").click()
    _check_step(page, count - 2, count, steps[-3].title)
    page.locator("#next").click()
    _check_step(page, count - 1, count, steps[-2].title)
    # The address names the step: opened (or reloaded) with it, the file shows that step.
    page = tab.open("#step-3")
    _check_step(page, 3, count, steps[2].title)
    assert tab.errors == []
    assert tab.refused == []
    # Nothing but the file itself was asked for (twice: opened, then opened at step 3).
    assert {url.split("#")[0] for url in tab.requests} == {tab.url}
    tab.context.close()


def test_hostile_titles_and_narration_are_shown_as_text_and_never_run(
    browser: Any, tmp_path: Path
) -> None:
    title = '<img src=x onerror="window.pwned=1">'
    text = "</script><script>window.pwned=2</script>\n\n**not bold** <b>not bold</b>"
    figure = lesson_export.sample_lesson(SAMPLE).steps[0].figures[0]
    lesson = lesson_file.Lesson(
        "<script>window.pwned=3</script>",
        "</title><script>window.pwned=4</script>",
        (lesson_file.LessonStep(title, text, (figure,), ("<svg onload=window.pwned=5>",)),),
    )
    path = tmp_path / "hostile.html"
    path.write_text(lesson_file.lesson_html(lesson), encoding="utf-8")
    tab = Offline(browser, path, width=1920, height=1080)
    page = tab.open()
    _check_step(page, 1, 1, title)
    assert page.title() == lesson.title
    assert _shown(page).locator(".narration").inner_text().split("\n\n") == [
        "</script><script>window.pwned=2</script>",
        "**not bold** <b>not bold</b>",
    ]
    assert page.evaluate("typeof window.pwned") == "undefined"
    assert page.locator("section.step img, section.step b, header script").count() == 0
    assert tab.errors == [] and tab.refused == []
    tab.context.close()

"""Projector mode in a real browser, at 1280 x 720 and 1920 x 1080, light and dark: a link with
``projector=1`` opens a walkthrough with no sidebar and no control but ◀ Previous and Next ▶;
the arrow keys step it; every chart text is 18 px or more and reads on its background at AA;
headings are 28 px or more; the chart's caption fits inside the chart."""

from __future__ import annotations

import re
from typing import Any

import pytest

from dashboard.model import palette
from tests.browser import ui

pytestmark = pytest.mark.browser

SAMPLE = "member-leaves-roundrobin-vs-sticky"

#: Per visible SVG text of the first chart: its font size, fill, and whether it lies inside the
#: chart's box; the chart's background; per visible heading its font size.
_MEASURE = """() => {
  const chart = document.querySelector('[data-testid="stPlotlyChart"] .js-plotly-plot');
  const box = chart.getBoundingClientRect();
  const texts = [...chart.querySelectorAll('.main-svg text')]
    .filter(t => t.textContent.trim() && t.getBoundingClientRect().width > 0)
    .map(t => {
      const r = t.getBoundingClientRect();
      const style = getComputedStyle(t);
      return {text: t.textContent, size: parseFloat(style.fontSize), fill: style.fill,
              inside: r.left >= box.left - 1 && r.right <= box.right + 1
                && r.top >= box.top - 1 && r.bottom <= box.bottom + 1,
              onTile: !!t.closest(".textpoint"), dy: r.top - box.top, h: r.height};
    });
  const background = getComputedStyle(chart.querySelector('.main-svg rect.bg')
    || chart.querySelector('.main-svg')).fill;
  const paper = chart.querySelector('.main-svg').style.background;
  const main = '[data-testid="stMain"] ';
  const headings = [...document.querySelectorAll(main + 'h1, ' + main + 'h2, ' + main + 'h3')]
    .filter(h => h.getBoundingClientRect().height > 0)
    .map(h => parseFloat(getComputedStyle(h).fontSize));
  const title = [...chart.querySelectorAll('.gtitle')].map(t => t.textContent).join(' ');
  return {texts, background, paper, headings, title};
}"""


def _hex(css: str) -> str:
    """``rgb(r, g, b)`` -> ``#RRGGBB``."""
    parts = [int(float(p)) for p in css[css.index("(") + 1 : css.index(")")].split(",")[:3]]
    return "#" + "".join(f"{p:02X}" for p in parts)


def _visible_buttons(page: Any) -> list[str]:
    buttons = page.locator(f"{ui.MAIN} button:visible")
    return [buttons.nth(i).inner_text().strip() for i in range(buttons.count())]


def _step(page: Any) -> str:
    return str(page.locator(ui.MAIN).get_by_text(re.compile(r"Step \d+ of \d+")).first.inner_text())


@pytest.mark.parametrize(
    "page",
    [
        {"width": 1280, "height": 720, "color_scheme": "light"},
        {"width": 1920, "height": 1080, "color_scheme": "dark"},
    ],
    indirect=True,
    ids=["1280-light", "1920-dark"],
)
def test_projector_mode_shows_the_lesson_large_and_steps_with_the_arrow_keys(
    page: Any, app_url: str
) -> None:
    page.goto(f"{app_url}/?sample={SAMPLE}&projector=1")
    ui.settle(page)
    page.locator(".js-plotly-plot").first.wait_for()
    ui.check_page(page, "opening a projector link")
    assert not page.locator(ui.SIDEBAR).is_visible()
    assert _visible_buttons(page) == ["◀ Previous", "Next ▶"]
    assert "Step 1 of 5" in _step(page)
    page.keyboard.press("ArrowRight")
    ui.settle(page)
    assert ui.eventually(page, lambda: "Step 2 of 5" in _step(page)), _step(page)
    assert "projector=1" in page.url
    _last_phase_but_one(page)  # the longest caption: the group revokes and waits
    page.wait_for_timeout(800)
    measured = page.evaluate(_MEASURE)
    texts = measured["texts"]
    assert len(texts) > 10
    small = [(t["text"], t["size"]) for t in texts if t["size"] < 18]
    assert not small, small
    assert all(t["inside"] for t in texts), [
        (t["text"], t["dy"], t["h"]) for t in texts if not t["inside"]
    ]
    background = _hex(measured["paper"] or measured["background"])
    faint = [
        (t["text"], t["fill"])
        for t in texts
        if t["fill"].startswith("rgb")
        and palette.contrast_ratio(_hex(t["fill"]), background) < palette.LEAST_TEXT_CONTRAST
        # Tile labels are drawn on their tiles, not on the background: checked against each
        # fill in tests/dashboard/test_contrast.py; here the texts on the chart's background.
        and not t["onTile"]
    ]
    assert not faint, faint
    assert measured["headings"] and min(measured["headings"]) >= 28
    assert not measured["title"].startswith("Before"), measured["title"]  # a phase's caption
    page.keyboard.press("ArrowLeft")
    ui.settle(page)
    assert ui.eventually(page, lambda: "Step 1 of 5" in _step(page)), _step(page)


def _last_phase_but_one(page: Any) -> None:
    """Drag the animation's slider to its last phase but one (the rebalance under way), by a
    click on the rail above that phase's label."""
    labels = page.locator(".js-plotly-plot").first.locator(".slider-label")
    label = labels.nth(labels.count() - 2)
    label.scroll_into_view_if_needed()
    box = label.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] - 18)


@pytest.mark.parametrize(
    "page",
    [{"width": 1280, "height": 720, "color_scheme": "light"}],
    indirect=True,
    ids=["1280-light"],
)
def test_a_lesson_question_stays_on_the_projector(page: Any, app_url: str) -> None:
    """Projector mode hides the page's alerts, but not the walkthrough's question for the class
    (it hid it before: every alert was hidden)."""
    page.goto(f"{app_url}/?sample=lesson-eager-vs-cooperative&projector=1")
    ui.settle(page)
    page.locator(".js-plotly-plot").first.wait_for()
    page.get_by_role("button", name="Next ▶").click()  # the keys are the other test's
    ui.settle(page)
    assert ui.eventually(page, lambda: "Step 2 of 5" in _step(page)), _step(page)
    question = page.locator(ui.MAIN).get_by_text("Question for the class").first
    assert ui.eventually(page, question.is_visible)

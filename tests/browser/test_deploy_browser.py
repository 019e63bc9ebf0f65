"""The Deploy view in a real browser: open it on a sample, the animation, the lag over time and
the ranking appear; screenshots at 1280 and 1920 px wide (saved under the test's tmp folder, or
``AE_DEPLOY_SCREENSHOTS`` when set, to look at)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.browser import ui

pytestmark = pytest.mark.browser

PLOT_TITLES_JS = """
() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(plot => {
  const title = plot._fullLayout && plot._fullLayout.title && plot._fullLayout.title.text;
  const frames = plot._transitionData && plot._transitionData._frames || [];
  return [(title || '').replace(/<[^>]*>/g, ''), (plot._fullData || []).length, frames.length];
})
"""


def _open_deploy(page: Any) -> None:
    ui.open_page(page, "Deploy")
    main = page.locator(ui.MAIN)
    assert ui.eventually(page, lambda: "ranked on every cost" in main.inner_text(), 120)


@pytest.mark.parametrize("width", [1280, 1920])
def test_the_deploy_view_shows_the_animation_the_lag_and_the_ranking(
    page: Any, width: int, tmp_path: Path
) -> None:
    page.set_viewport_size({"width": width, "height": 2400})
    ui.pick_sample(page, "A member leaves: roundrobin vs sticky")
    _open_deploy(page)
    ui.check_page(page, "opening the Deploy view")
    assert ui.eventually(page, lambda: len(page.evaluate(PLOT_TITLES_JS)) >= 3)
    plots = page.evaluate(PLOT_TITLES_JS)
    titles = [title for title, _, _ in plots]
    assert any(title.startswith("Before the deploy") for title in titles), titles
    assert any(title.startswith("Backlog through the deploy") for title in titles), titles
    animation = next(p for p in plots if p[0].startswith("Before the deploy"))
    assert animation[2] > 3  # one frame per phase
    main = page.locator(ui.MAIN).inner_text()
    assert "(asked)" in main
    assert "Step by step" in main
    ui.play(page)
    folder = Path(os.environ.get("AE_DEPLOY_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"deploy-{width}.png"), full_page=True)


def test_a_scale_step_shows_what_it_buys(page: Any, tmp_path: Path) -> None:
    # Scale by +2 on the Deploy page: the page compares the step at other sizes and with each
    # strategy change, one row each, under the ranking; the table fits at 1280 px.
    page.set_viewport_size({"width": 1280, "height": 2400})
    ui.pick_sample(page, "A member leaves: roundrobin vs sticky")
    _open_deploy(page)
    main = page.locator(ui.MAIN)
    main.get_by_label("Scale by (±members)").fill("2")
    main.get_by_role("button", name="Simulate the deploy").click()
    assert ui.eventually(page, lambda: "What the scale step buys" in main.inner_text(), 120)
    ui.check_page(page, "simulating a scale step")
    table = main.locator("[data-testid='stTable']", has_text="+2 member(s) (asked)")
    text = table.inner_text()
    assert "and classic-to-consumer" in text and "backlog gone after" in text
    box = table.bounding_box()
    assert box is not None and box["x"] + box["width"] <= 1280
    folder = Path(os.environ.get("AE_DEPLOY_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    table.scroll_into_view_if_needed()
    page.screenshot(path=str(folder / "deploy-scale-1280.png"))

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

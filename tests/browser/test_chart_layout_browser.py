"""Charts that read at 1280 and 1920 px (issue 36): in Chromium, on the Explorer (six strategies,
a member added), its Lag drain view and the Deploy page (large-group sample), no two text boxes
of one chart overlap: titles, axis titles, tick labels, legends, annotations, Play and the slider.
Tables show every column (nothing scrolled out of sight). Screenshots go to the test's tmp folder,
or ``AE_LAYOUT_SCREENSHOTS`` when set, to look at.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.browser import ui

pytestmark = pytest.mark.browser

#: Pixels two boxes may share (anti-aliasing, a glyph's overhang).
TOLERANCE_PX = 2

#: Per chart, its text boxes: (kind, text, left, top, right, bottom), in page pixels.
TEXT_BOXES_JS = """
() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(plot => {
  const kinds = {
    'title': '.gtitle', 'axis title': '.g-xtitle text, .g-ytitle text, [class*="xtitle"],'
      + ' [class*="ytitle"]',
    'tick': '.xaxislayer-above text, .yaxislayer-above text',
    'legend': '.legend', 'menu': '.updatemenu-container', 'slider': '.slider-container',
    'annotation': '.annotation'};
  const seen = new Set();
  const boxes = [];
  for (const [kind, selector] of Object.entries(kinds)) {
    for (const node of plot.querySelectorAll(selector)) {
      if (seen.has(node)) continue;
      seen.add(node);
      const box = node.getBoundingClientRect();
      const style = getComputedStyle(node);
      if (box.width < 1 || box.height < 1 || style.visibility === 'hidden'
          || style.display === 'none' || style.opacity === '0') continue;
      boxes.push([kind, (node.textContent || '').slice(0, 40), box.left, box.top,
                  box.right, box.bottom]);
    }
  }
  const title = plot._fullLayout && plot._fullLayout.title && plot._fullLayout.title.text;
  return {title: (title || '').slice(0, 60), boxes: boxes};
})
"""

#: Tables whose content is wider than their box (columns scrolled out of sight).
CUT_TABLES_JS = """
() => Array.from(document.querySelectorAll('[data-testid="stTable"]'))
  .filter(table => table.scrollWidth > table.clientWidth + 2)
  .map(table => table.innerText.slice(0, 80))
"""


def _nested(a: list[Any], b: list[Any]) -> bool:
    """One box inside the other: a legend's own entries, a slider's own labels."""
    inside = a[2] <= b[2] and a[3] <= b[3] and a[4] >= b[4] and a[5] >= b[5]
    return inside or (b[2] <= a[2] and b[3] <= a[3] and b[4] >= a[4] and b[5] >= a[5])


def overlaps(page: Any) -> list[str]:
    """Every pair of text boxes of one chart that overlap, as sentences."""
    found = []
    for chart in page.evaluate(TEXT_BOXES_JS):
        boxes = chart["boxes"]
        for i, a in enumerate(boxes):
            for b in boxes[i + 1 :]:
                across = min(a[4], b[4]) - max(a[2], b[2])
                down = min(a[5], b[5]) - max(a[3], b[3])
                if across > TOLERANCE_PX and down > TOLERANCE_PX and not _nested(a, b):
                    found.append(
                        f"{chart['title']!r}: {a[0]} {a[1]!r} overlaps {b[0]} {b[1]!r}"
                        f" by {across:.0f} x {down:.0f} px"
                    )
    return found


def _shot(page: Any, name: str, tmp_path: Path) -> None:
    folder = Path(os.environ.get("AE_LAYOUT_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / name), full_page=True)


def _wait_for_charts(page: Any, least: int) -> None:
    count = "() => document.querySelectorAll('.js-plotly-plot .main-svg').length"
    assert ui.eventually(page, lambda: page.evaluate(count) >= least, 120)
    page.wait_for_timeout(1500)  # Plotly lays out text after the first draw


@pytest.mark.parametrize("width", [1280, 1920])
def test_explorer_charts_with_six_strategies_and_a_member_added(
    page: Any, width: int, tmp_path: Path
) -> None:
    page.set_viewport_size({"width": width, "height": 2600})
    ui.pick_sample(page, "A member leaves: roundrobin vs sticky")
    for name in ("range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "lag-aware"):
        if name not in ui.strategies_shown(page):
            ui.add_strategy(page, name)
    ui.add_member(page, "consumer-new-1")
    ui.check_page(page, "six strategies and a member added")
    _wait_for_charts(page, 2)
    _shot(page, f"explorer-{width}.png", tmp_path)
    assert overlaps(page) == []
    ui.more_view(page, "Lag drain")
    ui.check_page(page, "the Lag drain view")
    _wait_for_charts(page, 2)
    _shot(page, f"drain-{width}.png", tmp_path)
    assert overlaps(page) == []


@pytest.mark.parametrize("width", [1280, 1920])
def test_deploy_charts_and_tables_on_the_large_group(
    page: Any, app_url: str, width: int, tmp_path: Path
) -> None:
    page.set_viewport_size({"width": width, "height": 3000})
    page.goto(f"{app_url}/?sample=large-group")
    ui.settle(page)
    ui.open_page(page, "Deploy")
    main = page.locator(ui.MAIN)
    assert ui.eventually(page, lambda: "Cheaper ways to run it" in main.inner_text(), 180)
    ui.check_page(page, "the Deploy page on the large group")
    _wait_for_charts(page, 3)
    _shot(page, f"deploy-{width}.png", tmp_path)
    assert overlaps(page) == []
    assert page.evaluate(CUT_TABLES_JS) == []

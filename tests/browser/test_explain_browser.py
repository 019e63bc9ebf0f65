"""Why this partition, and the *Describe* paste box, in a real browser (Chromium, Playwright).

The dashboard is served by ``streamlit run`` (fixtures in ``conftest.py``). Screenshots of both
at 1280 and 1920 px go to the test's temporary folder, or to ``AE_SCREENSHOT_DIR`` when set.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from tests.browser import ui

pytestmark = pytest.mark.browser

LISTING = (
    Path(__file__).resolve().parents[1] / "assignors" / "listings" / "kafka-offsets.txt"
).read_text(encoding="utf-8")
VIEWPORTS = [{"width": 1280, "height": 1000}, {"width": 1920, "height": 1080}]


def _shot(page: Any, tmp_path: Path, name: str, anchor: Any) -> None:
    """Screenshots at each of :data:`VIEWPORTS`, ``anchor`` scrolled into view; the page then
    goes back to its first size."""
    folder = Path(os.environ.get("AE_SCREENSHOT_DIR") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    first = page.viewport_size
    for viewport in VIEWPORTS:
        page.set_viewport_size(viewport)
        page.wait_for_timeout(500)
        anchor.scroll_into_view_if_needed()
        page.screenshot(path=str(folder / f"{name}-{viewport['width']}.png"))
        assert (folder / f"{name}-{viewport['width']}.png").stat().st_size > 10_000
    page.set_viewport_size(first)


def _pick_matrix_strategy(page: Any, name: str) -> None:
    box = page.locator(ui.MAIN).locator('[data-testid="stSelectbox"]').filter(has_text="Assignment")
    box.first.click()
    page.locator('[role="option"]').filter(has_text=re.compile("^" + re.escape(name) + "$")).click()
    ui.settle(page)
    main = page.locator(ui.MAIN)
    assert ui.eventually(page, lambda: "Why this partition?" in main.inner_text())


def _click_row(page: Any, row: int) -> None:
    """Tick row ``row`` (0-based) of the partition table: its row-marker cell, left of the grid."""
    grid = page.locator(ui.MAIN).locator('[data-testid="stDataFrame"]').last
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + 14, box["y"] + 35 + 35 * row + 17)
    ui.settle(page)


def test_clicking_a_row_shows_why_the_partition_is_there(page: Any, tmp_path: Path) -> None:
    ui.more_view(page, "Assignment matrix")
    _pick_matrix_strategy(page, "range")
    _click_row(page, 2)  # t0-2: range's second consumer takes the last partition of t0
    trace = page.locator('[class*="st-key-view-why-trace"]')
    assert ui.eventually(page, lambda: trace.count() == 1 and "Why t0-2?" in trace.inner_text())
    text = trace.inner_text()
    assert "3 partitions over 2 consumers: 3 // 2 = 1 each, 3 % 2 = 1 extra" in text
    assert "step 1 range split" in text and "t0-2 goes to C1" in text
    ui.check_page(page, "clicking a row of the partition table")
    _shot(page, tmp_path, "why-this-partition", trace)


def _paste(page: Any, text: str, partitions: str) -> None:
    sidebar = page.locator(ui.SIDEBAR)
    sidebar.locator('[data-testid="stRadio"] label').filter(
        has_text=re.compile("^Describe$")
    ).click()
    ui.settle(page)
    area = sidebar.locator('[data-testid="stTextArea"] textarea')
    area.fill(text)
    area.press("Control+Enter")
    ui.settle(page)
    counts = sidebar.locator('[data-testid="stTextInput"] input').nth(1)
    counts.fill(partitions)
    counts.press("Enter")
    ui.settle(page)
    sidebar.get_by_role("button", name="Read the listing").click()
    ui.settle(page)


def test_a_pasted_listing_becomes_the_scenario_and_a_bad_line_is_named(
    page: Any, tmp_path: Path
) -> None:
    broken = LISTING + "billing orders 3 12 lots 1 consumer-1 /10.0.0.10 consumer-1\n"
    _paste(page, broken, "orders:4")
    line = len(LISTING.splitlines()) + 1
    error = page.locator('[data-testid="stAlertContentError"]')
    assert ui.eventually(page, lambda: f"pasted text:{line}:" in error.first.inner_text())
    area = page.locator(ui.SIDEBAR).locator('[data-testid="stTextArea"] textarea')
    assert area.input_value() == broken  # nothing typed is lost
    _shot(page, tmp_path, "describe-bad-line", error.first)

    area.fill(LISTING)
    area.press("Control+Enter")
    ui.settle(page)
    page.locator(ui.SIDEBAR).get_by_role("button", name="Read the listing").click()
    ui.settle(page)
    assert ui.eventually(page, lambda: "group “billing”" in ui.headline(page)), ui.headline(page)
    ui.check_page(page, "reading a pasted listing")
    _shot(page, tmp_path, "describe-read", page.locator(ui.MAIN).get_by_text("Group billing").first)

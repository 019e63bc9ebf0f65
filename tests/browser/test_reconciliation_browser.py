"""The reconciliation view in a real browser (Chromium, Playwright): a KIP-848 group read from
Apache Kafka mid-reconciliation (``kip848-mid-reconciliation.json``, a real snapshot: two members
held while revoking, a third waiting for what they give up), uploaded as a file.

Screenshots at 1280 and 1920 px go to the test's temporary folder, or to ``AE_SCREENSHOT_DIR``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.browser import served_app, ui

pytestmark = pytest.mark.browser

SNAPSHOT = Path(__file__).with_name("kip848-mid-reconciliation.json")
VIEWPORTS = [{"width": 1280, "height": 1000}, {"width": 1920, "height": 1080}]


def test_a_group_mid_reconciliation_reads_at_a_glance(page: Any, tmp_path: Path) -> None:
    served_app.upload(page, SNAPSHOT)
    ui.settle(page)
    main = page.locator(ui.MAIN)
    expected = (
        "Reconciliation, as the cluster reported it",
        "Target assignment epoch",
        "Members reconciling",
        "3 of 3 member(s) still reconciling",
        "checkout-2",
        "pending assignment",
    )
    # The page draws in several deltas; wait until all of the view has arrived.
    assert ui.eventually(
        page, lambda: all(part in main.inner_text() for part in expected), timeout_s=60
    ), main.inner_text()[:2000]
    ui.check_page(page, "uploading a snapshot mid-reconciliation")
    # The table (drawn on a canvas: its cells are not text) follows the chart.
    assert main.locator('[data-testid="stDataFrame"]').count() >= 1
    heading = main.get_by_text("Reconciliation, as the cluster reported it")
    figure = page.locator(".js-plotly-plot").filter(has_text="pending revocation").first
    assert ui.eventually(page, lambda: figure.count() == 1)
    legend = figure.locator(".legendtext").all_text_contents()
    assert legend == ["kept", "pending revocation", "pending assignment"]
    folder = Path(os.environ.get("AE_SCREENSHOT_DIR") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    for viewport in VIEWPORTS:
        page.set_viewport_size(viewport)
        page.wait_for_timeout(500)
        heading.scroll_into_view_if_needed()
        page.evaluate("window.scrollBy(0, -80)")
        shot = folder / f"reconciliation-{viewport['width']}.png"
        page.screenshot(path=str(shot))
        assert shot.stat().st_size > 10_000

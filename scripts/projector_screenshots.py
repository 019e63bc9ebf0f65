"""Screenshots of a walkthrough step in projector mode, as a class would see it: the step's text
and buttons, then the animation in the middle of its rebalance, at 1280 x 720 and 1920 x 1080,
in the light and the dark theme (docs/classroom-projector-*.png).

    python scripts/projector_screenshots.py [SAMPLE] [STEP] [OUTPUT_DIR]

STEP counts from 1 (default: the sample's last). Serves the dashboard from this checkout and
drives Debian's Chromium (as the browser tests do); about a minute on two cores.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.browser import ui  # noqa: E402
from tests.browser.served_app import launch, serve  # noqa: E402

SIZES = ((1280, 720), (1920, 1080))
THEMES = ("light", "dark")


def _to_step(page: Any, step: int | None) -> None:
    """Press Right until the walkthrough shows ``step`` (its last when ``None``)."""
    while True:
        nexts = page.get_by_role("button", name="Next ▶")
        shown = (ui.walkthrough_step(page) or (0, 0))[0]  # the panel is open in projector mode
        if shown == step or nexts.is_disabled():
            return
        page.keyboard.press("ArrowRight")
        ui.settle(page)


def _mid_rebalance(page: Any) -> None:
    """The animation's last phase but one (the rebalance under way), its chart at the top."""
    chart = page.locator(".js-plotly-plot").first
    chart.evaluate("element => element.scrollIntoView({block: 'start'})")
    labels = chart.locator(".slider-label")
    if labels.count() > 2:
        label = labels.nth(labels.count() - 2)
        label.scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        box = label.bounding_box()
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] - 18)
    page.wait_for_timeout(1200)
    chart.evaluate("element => element.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(400)


def shoot(url: str, browser: Any, sample: str, step: int | None, output: Path) -> list[Path]:
    """Both pictures at every size and theme; returns the files written."""
    written = []
    for (width, height), theme in ((size, theme) for size in SIZES for theme in THEMES):
        context = browser.new_context(
            viewport={"width": width, "height": height}, color_scheme=theme
        )
        page = context.new_page()
        page.goto(f"{url}/?sample={sample}&projector=1")
        ui.settle(page)
        _to_step(page, step)
        page.wait_for_timeout(800)
        for part in ("step", "chart"):
            if part == "chart":
                _mid_rebalance(page)
            path = output / f"classroom-projector-{part}-{width}-{theme}.png"
            page.screenshot(path=str(path))
            written.append(path)
        context.close()
    return written


def main(argv: list[str]) -> None:
    sample = argv[1] if len(argv) > 1 else "member-leaves-roundrobin-vs-sticky"
    step = int(argv[2]) if len(argv) > 2 else None
    output = Path(argv[3]) if len(argv) > 3 else ROOT / "docs"
    output.mkdir(parents=True, exist_ok=True)
    with serve(output / "projector-screenshots.log") as served, sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            for path in shoot(served.url, browser, sample, step, output):
                print(path)
        finally:
            browser.close()
    (output / "projector-screenshots.log").unlink(missing_ok=True)


if __name__ == "__main__":
    main(sys.argv)

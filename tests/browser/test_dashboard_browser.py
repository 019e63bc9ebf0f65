"""The dashboard in a real browser: Debian's Chromium driven by Playwright against the app served
on localhost by this test (``streamlit run`` on a free port).

Skipped, with the reason, when Chromium is not installed (``apt-get install -y chromium``; CI
installs it). Saves ``docs/screenshot.png`` for the README.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest

from dashboard import share

if TYPE_CHECKING:
    from playwright.sync_api import ViewportSize

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("AE_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
START_TIMEOUT_S = 60.0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


@pytest.fixture(scope="module")
def app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The dashboard served by ``streamlit run`` on a free loopback port."""
    if not CHROMIUM.exists():
        pytest.skip(f"Chromium not found at {CHROMIUM}: apt-get install -y chromium")
    port = _free_port()
    log = tmp_path_factory.mktemp("streamlit") / "streamlit.log"
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(ROOT / "dashboard" / "app.py"),
        f"--server.port={port}",
        "--server.address=127.0.0.1",
        "--server.headless=true",
        "--browser.gatherUsageStats=false",
        "--server.fileWatcherType=none",
    ]
    with open(log, "wb") as output:
        process = subprocess.Popen(
            command, cwd=ROOT, stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not _healthy(url):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"streamlit did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.3)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


#: The README screenshot's size: tall enough for the cards, the animation and the lag chart.
SCREENSHOT_VIEWPORT = {"width": 1440, "height": 1760}


@pytest.fixture()
def page(app_url: str, request: pytest.FixtureRequest) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    viewport = cast("ViewportSize", getattr(request, "param", {"width": 1400, "height": 1000}))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport=viewport)
            tab = context.new_page()
            tab.set_default_timeout(60_000)
            tab.goto(app_url)
            tab.get_by_text("Assignment Explorer").first.wait_for()
            tab.locator(".js-plotly-plot").first.wait_for()
            yield tab
        finally:
            with contextlib.suppress(Exception):
                browser.close()


LAG_MEMBERS_JS = """
() => {
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    const bars = (plot.data || []).filter(t => t.type === 'bar' && t.hovertemplate);
    if (bars.length) return bars.map(t => [t.name, Array.from(t.x)]);
  }
  return null;
}
"""


def _lag_members(page: Any) -> dict[str, list[str]]:
    panels = page.evaluate(LAG_MEMBERS_JS)
    assert panels, "the lag chart is on the page"
    return {name: members for name, members in panels}


def _add_member(page: Any, member_id: str) -> None:
    """Add a member through the what-if form and wait until the lag chart shows it."""
    page.get_by_text("Shape the what-if").click()
    page.get_by_label("Member id").fill(member_id)
    page.get_by_role("button", name="Add member").click()
    page.get_by_text("Edits (1)").wait_for()
    page.wait_for_function(
        LAG_MEMBERS_JS.replace(
            "return bars.map",
            f"return bars.some(t => Array.from(t.x).includes('{member_id}')) && bars.map",
        ),
    )
    # Fold the form away again so the charts move back up.
    page.get_by_text("Shape the what-if").click()


def test_loads_adds_a_member_and_the_lag_chart_changes(page: Any) -> None:
    page.locator(".js-plotly-plot").nth(1).wait_for()
    before = _lag_members(page)
    assert all("browser-new" not in members for members in before.values())
    _add_member(page, "browser-new")
    after = _lag_members(page)
    strategies = [name for name in after if name != "current"]
    assert strategies and all("browser-new" in after[name] for name in strategies)
    assert "browser-new" not in after["current"]


def test_the_animation_plays(page: Any, tmp_path: Path) -> None:
    plot = page.locator(".js-plotly-plot").first
    plot.scroll_into_view_if_needed()
    frames = page.evaluate(
        "() => document.querySelector('.js-plotly-plot')._transitionData._frames.length"
    )
    assert frames >= 2
    plot.locator(".updatemenu-button").first.click()
    page.wait_for_function(
        "() => document.querySelector('.js-plotly-plot')._fullLayout.sliders[0].active > 0",
        timeout=30_000,
    )
    page.screenshot(path=str(tmp_path / "animation.png"))
    assert (tmp_path / "animation.png").stat().st_size > 0


ANIMATION_AT_END_JS = """
() => {
  const plot = document.querySelector('.js-plotly-plot');
  const slider = plot && plot._fullLayout.sliders && plot._fullLayout.sliders[0];
  return Boolean(slider) && slider.active === slider.steps.length - 1;
}
"""


#: The README's view: three zones, a hot spot of lag, and a seventh member joining.
SCREENSHOT_QUERY = share.share_query(
    "rack-aware-three-zones",
    ["range", "cooperative-sticky"],
    [{"op": "skew_lag"}, {"op": "add_member", "member_id": "consumer-new"}],
)


@pytest.mark.parametrize("page", [SCREENSHOT_VIEWPORT], indirect=True)
def test_screenshot_for_the_readme(page: Any, app_url: str) -> None:
    """docs/screenshot.png: a member joins a skewed group; the animation has played; the lag
    chart below it; opened from a share link (so the link works in a browser too)."""
    page.goto(app_url + SCREENSHOT_QUERY)
    page.get_by_text("Edits (2)").wait_for(state="attached")
    page.wait_for_function(
        LAG_MEMBERS_JS.replace(
            "return bars.map",
            "return bars.some(t => Array.from(t.x).includes('consumer-new')) && bars.map",
        ),
    )
    # Animate the cooperative strategy: its rounds are the interesting part.
    animate = page.locator('[data-testid="stRadio"]').filter(has_text="Animate")
    animate.locator("label").filter(has_text="cooperative-sticky").first.click()
    page.wait_for_function(
        "() => (document.querySelector('.js-plotly-plot')._transitionData._frames || [])"
        ".some(f => f.name.startsWith('revoke'))"
    )
    page.locator(".js-plotly-plot").first.locator(".updatemenu-button").first.click()
    page.wait_for_function(ANIMATION_AT_END_JS, timeout=60_000)
    page.wait_for_timeout(1_500)  # let the last transition settle
    page.get_by_text("Assignment Explorer").first.scroll_into_view_if_needed()
    animation, lag_chart = (page.locator(".js-plotly-plot").nth(i).bounding_box() for i in (0, 1))
    assert animation is not None and lag_chart is not None
    assert animation["y"] >= 0, "the animation is in the screenshot"
    assert lag_chart["y"] + lag_chart["height"] <= SCREENSHOT_VIEWPORT["height"], (
        "the lag chart is in the screenshot"
    )
    (ROOT / "docs").mkdir(exist_ok=True)
    page.screenshot(path=str(ROOT / "docs" / "screenshot.png"), full_page=False)
    assert (ROOT / "docs" / "screenshot.png").stat().st_size > 50_000

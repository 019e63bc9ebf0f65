"""Fixtures of the real-browser tests: the dashboard served by ``streamlit run`` on a free
loopback port, and Debian's Chromium driven by Playwright (skipped, with the reason, when
Chromium is not installed: ``apt-get install -y chromium``; CI installs it)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

import pytest

from tests.browser import served_app
from tests.browser.served_app import CHROMIUM, serve

if TYPE_CHECKING:
    from playwright.sync_api import ViewportSize


@pytest.fixture(scope="module")
def app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The dashboard served by ``streamlit run`` on a free loopback port."""
    if not CHROMIUM.exists():
        pytest.skip(f"Chromium not found at {CHROMIUM}: apt-get install -y chromium")
    log = tmp_path_factory.mktemp("streamlit") / "streamlit.log"
    try:
        with serve(log) as served:
            yield served.url
    except RuntimeError as error:
        pytest.fail(str(error))


#: The README screenshot's size: tall enough for the cards, the animation and the lag chart.
SCREENSHOT_VIEWPORT = {"width": 1440, "height": 1840}  # the page menu at the top takes ~80 px


@pytest.fixture()
def page(app_url: str, request: pytest.FixtureRequest) -> Iterator[Any]:
    options = dict(getattr(request, "param", {"width": 1400, "height": 1000}))
    scheme = options.pop("color_scheme", "light")
    viewport = cast("ViewportSize", options)
    with served_app.chromium() as browser:
        context = browser.new_context(viewport=viewport, color_scheme=scheme)
        tab = context.new_page()
        tab.set_default_timeout(60_000)
        tab.goto(app_url)
        tab.get_by_text("Assignment Explorer").first.wait_for()
        tab.locator(".js-plotly-plot").first.wait_for()
        yield tab

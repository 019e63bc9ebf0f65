"""Fixtures of the real-browser tests: the dashboard served by ``streamlit run`` on a free
loopback port, and Debian's Chromium driven by Playwright (skipped, with the reason, when
Chromium is not installed: ``apt-get install -y chromium``; CI installs it)."""

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

if TYPE_CHECKING:
    from playwright.sync_api import ViewportSize

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

    options = dict(getattr(request, "param", {"width": 1400, "height": 1000}))
    scheme = options.pop("color_scheme", "light")
    viewport = cast("ViewportSize", options)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport=viewport, color_scheme=scheme)
            tab = context.new_page()
            tab.set_default_timeout(60_000)
            tab.goto(app_url)
            tab.get_by_text("Assignment Explorer").first.wait_for()
            tab.locator(".js-plotly-plot").first.wait_for()
            yield tab
        finally:
            with contextlib.suppress(Exception):
                browser.close()

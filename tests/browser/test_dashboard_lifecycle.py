"""Work ends with its session, in a real browser against the served app: a closed tab stops its
heavy computation (the worker process is gone), and SIGTERM ends the server and its workers.

Skipped, with the reason, when Chromium is not installed.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser import served_app

sys.path.append(str(served_app.ROOT / "benchmarks"))
import big_groups

pytestmark = pytest.mark.browser

#: Generous bounds for a shared, loaded machine: the behaviour is "it ends", not "it is quick"
#: (benchmarks/dashboard_lifecycle.py measures how quickly).
WORKER_START_S = 300.0
GONE_WITHIN_S = 60.0


@pytest.fixture(scope="module")
def heavy_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """1,000,000 partitions over 2,000 members: a worker busy for many seconds."""
    return big_groups.write("1m-x-2000", tmp_path_factory.mktemp("groups"))


@contextlib.contextmanager
def _tab(url: str) -> Iterator[tuple[object, object]]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = served_app.launch(playwright)
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            page = context.new_page()
            page.set_default_timeout(120_000)
            page.goto(url)
            page.locator(".js-plotly-plot").first.wait_for()
            yield context, page
        finally:
            with contextlib.suppress(Exception):
                browser.close()


def _wait_for_worker(server_pid: int) -> list[int]:
    deadline = time.monotonic() + WORKER_START_S
    while time.monotonic() < deadline:
        workers = served_app.children(server_pid)
        if workers:
            return workers
        time.sleep(0.2)
    pytest.fail("no worker process started for the big group")


def _gone(pids: list[int], within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not any(served_app.alive(pid) for pid in pids):
            return True
        time.sleep(0.2)
    return False


def _skip_without_chromium() -> None:
    if not served_app.CHROMIUM.exists():
        pytest.skip(f"Chromium not found at {served_app.CHROMIUM}: apt-get install -y chromium")


def test_closing_the_tab_stops_its_worker(heavy_file: Path, tmp_path: Path) -> None:
    _skip_without_chromium()
    with served_app.serve(tmp_path / "streamlit.log") as served:
        with _tab(served.url) as (context, page):
            served_app.upload(page, heavy_file)
            workers = _wait_for_worker(served.process.pid)
            context.close()  # type: ignore[attr-defined]
        assert _gone(workers, GONE_WITHIN_S), "the closed tab's worker still runs"
        assert served.process.poll() is None, "the server itself keeps serving"
        assert served_app.healthy(served.url)


def test_sigterm_ends_the_server_and_its_workers(heavy_file: Path, tmp_path: Path) -> None:
    _skip_without_chromium()
    with served_app.serve(tmp_path / "streamlit.log") as served:
        with _tab(served.url) as (_context, page):
            served_app.upload(page, heavy_file)
            workers = _wait_for_worker(served.process.pid)
            served.process.send_signal(signal.SIGTERM)
            try:
                served.process.wait(timeout=GONE_WITHIN_S)
            except subprocess.TimeoutExpired:
                pytest.fail("the server ignored SIGTERM while a worker ran")
        assert _gone(workers, GONE_WITHIN_S), "a worker outlived the server"

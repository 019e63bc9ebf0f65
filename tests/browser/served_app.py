"""The dashboard served for real (``streamlit run`` on a free loopback port) and Chromium to open
it, shared by the browser tests and the browser benchmarks; plus what a test reads of the
server's processes (children, resident memory) from ``/proc``."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.ports import free_port

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
START_TIMEOUT_S = 90.0
#: What the page shows while a script runs (Streamlit's "Running..." widget).
RUNNING = '[data-testid="stStatusWidget"]'


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


@dataclass(frozen=True)
class Served:
    url: str
    process: subprocess.Popen[bytes]
    log: Path


@contextlib.contextmanager
def serve(log: Path, env: Mapping[str, str] | None = None) -> Iterator[Served]:
    """``streamlit run dashboard/serve.py`` (``dashboard/app.py`` with its server settings) from
    the checkout (its .streamlit/ settings apply)."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(ROOT / "dashboard" / "serve.py"),
        f"--server.port={port}",
        "--server.address=127.0.0.1",
    ]
    with open(log, "wb") as output:
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            stdout=output,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env={**os.environ, **(env or {})},
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not healthy(url):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"streamlit did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.3)
        yield Served(url, process, log)
    finally:
        stop(process)


def stop(process: subprocess.Popen[bytes], timeout: float = 10) -> None:
    """SIGTERM, then SIGKILL after ``timeout``; reaped either way."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def children(pid: int) -> list[int]:
    """Process ids of ``pid``'s children (Linux ``/proc``)."""
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError):
                text = Path(f"/proc/{pid}/task/{task}/children").read_text()
                found.extend(int(child) for child in text.split())
    return found


def descendants(pid: int) -> list[int]:
    """Every process below ``pid``."""
    found = children(pid)
    for child in list(found):
        found.extend(descendants(child))
    return found


def rss_bytes(pid: int) -> int:
    """Resident memory of one process (0 when it has gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return 0
    return 0


def tree_memory_bytes(pid: int) -> int:
    """Memory of a server and its worker processes: the sum of their proportional set sizes.

    Summing resident set sizes would count twice every page a forked worker still shares with
    the server (a worker starts as a copy-on-write image of it: hundreds of MB with a big group
    loaded); proportional sizes count each page once.
    """
    from dashboard.runtime.jobs import pss_bytes

    return pss_bytes(pid) + sum(pss_bytes(child) for child in descendants(pid))


def alive(pid: int) -> bool:
    """Whether ``pid`` is a running (not zombie) process."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def launch(playwright: Any) -> Any:
    """Debian's Chromium, headless, as the tests run it."""
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """Playwright with :func:`launch`'s browser for a ``with`` block (a module's ``browser``
    fixture); the browser is closed after, even when the block failed."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            yield browser
        finally:
            with contextlib.suppress(Exception):
                browser.close()


def wait_idle(page: Any, timeout_ms: float = 600_000) -> None:
    """Until the page's script run has finished (no "Running..." widget for a moment)."""
    deadline = time.monotonic() + timeout_ms / 1000
    quiet_since: float | None = None
    while time.monotonic() < deadline:
        if page.locator(RUNNING).count() == 0:
            quiet_since = quiet_since or time.monotonic()
            if time.monotonic() - quiet_since > 0.3:
                return
        else:
            quiet_since = None
        page.wait_for_timeout(50)
    raise TimeoutError("the page kept running")


def upload(page: Any, path: Path) -> None:
    """Pick "Upload" in the sidebar and give it ``path``."""
    page.get_by_text("Upload", exact=True).first.click()
    page.locator('input[type="file"]').first.wait_for(state="attached")
    page.locator('input[type="file"]').first.set_input_files(str(path))

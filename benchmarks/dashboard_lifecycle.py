"""Work ends with its session (issue 21.3), measured in Chromium against the served dashboard.

1. Closed tab: a tab uploads the 1M x 2,000 group; once its worker runs, the tab closes;
   seconds until the worker process has gone.
2. New action: the same, but the tab switches back to the sample source instead of closing;
   seconds until the old worker has gone.
3. SIGTERM while a worker runs: seconds until the server process has exited.
4. Starvation: a light session's *Add member* rerun on the default sample (median of
   ``--repeat``), alone and while another session's big group is being worked out, with the
   server process's own CPU seconds (its threads, not the worker's) over each series, and over
   10 s of the heavy session alone (its script thread's share).

    .venv/bin/python benchmarks/dashboard_lifecycle.py [--repeat 5]

Targets: 1-2 within a few seconds, 3 within 5 s, 4 within a stated bound. Prints the load
average beside the timings.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path[:1]:
    sys.path.insert(0, str(ROOT))

import big_groups  # noqa: E402

from tests.browser import served_app  # noqa: E402


def _page(browser: Any, url: str) -> Any:
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.set_default_timeout(900_000)
    page.goto(url)
    page.locator(".js-plotly-plot").first.wait_for()
    served_app.wait_idle(page)
    return page


def _worker(pid: int) -> list[int]:
    while True:
        found = served_app.children(pid)
        if found:
            time.sleep(1.0)  # well into its work
            return found
        time.sleep(0.05)


def _seconds_until_gone(pids: list[int], started: float) -> float:
    while any(served_app.alive(pid) for pid in pids):
        time.sleep(0.02)
    return time.perf_counter() - started


def cancel_times(browser: Any, url: str, pid: int, heavy: Path) -> tuple[float, float]:
    page = _page(browser, url)
    served_app.upload(page, heavy)
    workers = _worker(pid)
    started = time.perf_counter()
    page.context.close()
    closed = _seconds_until_gone(workers, started)
    page = _page(browser, url)
    served_app.upload(page, heavy)
    workers = _worker(pid)
    started = time.perf_counter()
    page.get_by_text("Sample", exact=True).first.click()
    switched = _seconds_until_gone(workers, started)
    page.context.close()
    return closed, switched


def add_member_rerun(page: Any, name: str) -> float:
    if not page.get_by_label("Member id").is_visible():
        page.get_by_text("Shape the what-if").first.click()
    page.get_by_label("Member id").fill(name)
    started = time.perf_counter()
    page.get_by_role("button", name="Add member").click()
    page.wait_for_timeout(60)
    served_app.wait_idle(page)
    return time.perf_counter() - started - 0.3


def cpu_seconds(pid: int) -> float:
    """User plus system CPU seconds the process ``pid`` has used so far (its own threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Starvation:
    """A light session's reruns alone and while a heavy session works, and the server's CPU."""

    alone_s: float
    busy_s: float
    busy_max_s: float
    server_cpu_alone: float
    server_cpu_busy: float
    heavy_only_cpu: float
    heavy_only_s: float


def starvation(browser: Any, url: str, pid: int, heavy: Path, repeat: int) -> Starvation:
    light = _page(browser, url)
    cpu = cpu_seconds(pid)
    alone = [add_member_rerun(light, f"alone-{i}") for i in range(repeat)]
    cpu_alone = cpu_seconds(pid) - cpu
    heavy_page = _page(browser, url)
    served_app.upload(heavy_page, heavy)
    _worker(pid)
    cpu = cpu_seconds(pid)
    busy = [add_member_rerun(light, f"busy-{i}") for i in range(repeat)]
    cpu_busy = cpu_seconds(pid) - cpu
    # The heavy session alone for a while: the server's share of its work (the script thread).
    cpu, started = cpu_seconds(pid), time.perf_counter()
    time.sleep(10.0)
    heavy_only = cpu_seconds(pid) - cpu
    heavy_only_s = time.perf_counter() - started
    heavy_page.context.close()
    light.context.close()
    return Starvation(
        statistics.median(alone),
        statistics.median(busy),
        max(busy),
        cpu_alone,
        cpu_busy,
        heavy_only,
        heavy_only_s,
    )


def sigterm_time(folder: Path, heavy: Path) -> float:
    from playwright.sync_api import sync_playwright

    with served_app.serve(folder / "sigterm.log") as served, sync_playwright() as playwright:
        browser = served_app.launch(playwright)
        page = _page(browser, served.url)
        served_app.upload(page, heavy)
        _worker(served.process.pid)
        started = time.perf_counter()
        served.process.send_signal(signal.SIGTERM)
        served.process.wait(timeout=120)
        seconds = time.perf_counter() - started
        browser.close()
        return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp(prefix="ae-lifecycle-"))
    heavy = big_groups.write("1m-x-2000", folder)
    load = os.getloadavg()[0]
    with served_app.serve(folder / "streamlit.log") as served, sync_playwright() as playwright:
        browser = served_app.launch(playwright)
        closed, switched = cancel_times(browser, served.url, served.process.pid, heavy)
        starved = starvation(browser, served.url, served.process.pid, heavy, args.repeat)
        browser.close()
    sigterm = sigterm_time(folder, heavy)
    print(
        f"worker gone {closed:.2f} s after its tab closed, {switched:.2f} s after a new action; "
        f"server exited {sigterm:.2f} s after SIGTERM with a worker running (target < 5 s); "
        f"a light session's add-member rerun: median {starved.alone_s:.2f} s alone, "
        f"{starved.busy_s:.2f} s (max {starved.busy_max_s:.2f} s) while a 1M x 2,000 group is "
        f"worked out ({starved.busy_s / starved.alone_s:.1f}x); server CPU for the {args.repeat} "
        f"reruns {starved.server_cpu_alone:.2f} s alone, {starved.server_cpu_busy:.2f} s busy; "
        f"the heavy session alone costs the server {starved.heavy_only_cpu:.2f} CPU-s in "
        f"{starved.heavy_only_s:.1f} s; "
        f"load average {load:.1f} -> {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()

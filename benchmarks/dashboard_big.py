"""Big groups in the served dashboard, in Chromium, against the CLI on the same files (issue 21.2).

For each group of :mod:`big_groups` (the documented limits): the CLI's time and peak memory for
``python -m assignors assign`` under each compared strategy; then, in one warm server, a new tab
that uploads the file and waits for the first aggregate chart (time to first chart), then three
later reruns (typing in the member filter; time until the page is idle again), while the
server's and its workers' resident memory is sampled. Prints one line per group, and the load
average beside the timings (the machine is shared).

    .venv/bin/python benchmarks/dashboard_big.py [--groups 1m-x-2000,100k-members] [--out DIR]

Targets: 1M x 2,000 and 100k members each under 10 s to the first chart and under 1 s per later
rerun, peak memory under 1.5 GB per heavy session. Never part of the pass/fail suite.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path[:1]:
    sys.path.insert(0, str(ROOT))  # before benchmarks/, whose assignors.py would hide the package

import big_groups  # noqa: E402

from tests.browser import served_app  # noqa: E402

STRATEGIES = ("range", "cooperative-sticky")
RERUN_TIMEOUT_S = 120
#: Whether to time the later reruns (``--no-reruns``: the first chart only).
RERUNS = True
FIRST_CHART = '.js-plotly-plot:has-text("Partitions per member")'


@dataclass
class Peaks:
    """Peak resident bytes seen by :func:`sample_memory`."""

    server: int = 0
    worker: int = 0
    together: int = 0
    running: bool = True
    thread: threading.Thread | None = field(default=None, repr=False)


def sample_memory(pid: int, peaks: Peaks, every_s: float = 0.1) -> None:
    while peaks.running:
        server = served_app.rss_bytes(pid)
        workers = [served_app.rss_bytes(child) for child in served_app.descendants(pid)]
        peaks.server = max(peaks.server, server)
        peaks.worker = max(peaks.worker, max(workers, default=0))
        peaks.together = max(peaks.together, server + sum(workers))
        time.sleep(every_s)


def start_sampling(pid: int) -> Peaks:
    peaks = Peaks()
    peaks.thread = threading.Thread(target=sample_memory, args=(pid, peaks), daemon=True)
    peaks.thread.start()
    return peaks


def cli_run(path: Path, strategy: str) -> tuple[float, int]:
    """Seconds and peak resident bytes of ``python -m assignors assign``."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "assignors", "assign", "--strategy", strategy, str(path)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    peak = 0
    while process.poll() is None:
        peak = max(peak, served_app.rss_bytes(process.pid))
        time.sleep(0.05)
    return time.perf_counter() - started, peak


def filter_rerun(page: Any, text: str, field: str) -> float:
    """Type ``text`` in the ``field`` filter box and wait for the page: seconds.

    When the box cannot be typed in within 15 s, a plain rerun (Streamlit's ``r`` key on the
    page) is timed instead and reported as such: a rerun that changes nothing.
    """
    box = page.get_by_role("textbox", name=field).first
    try:
        try:
            box.fill(text, timeout=15_000)
            trigger = lambda: box.press("Enter")  # noqa: E731
        except Exception:
            print("  filter box not editable: timing a plain rerun (r)", file=sys.stderr)
            page.locator("body").click(position={"x": 5, "y": 5})
            trigger = lambda: page.keyboard.press("r")  # noqa: E731
        started = time.perf_counter()
        trigger()
        page.wait_for_timeout(60)
        served_app.wait_idle(page, RERUN_TIMEOUT_S * 1000)
    except Exception as error:  # reported as a missed rerun, the benchmark goes on
        print(f"  rerun failed: {type(error).__name__}: {error}"[:300], file=sys.stderr)
        return float("inf")
    return time.perf_counter() - started - 0.3  # wait_idle's quiet period


def dashboard_run(url: str, pid: int, path: Path) -> dict[str, float]:
    """Upload ``path`` in a new tab: time to first chart, later reruns, peak memory."""
    field = "Members to include: filter"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = served_app.launch(playwright)
        try:
            page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            page.set_default_timeout(900_000)
            page.goto(f"{url}/?strategies={','.join(STRATEGIES)}")
            page.locator(".js-plotly-plot").first.wait_for()
            served_app.wait_idle(page)
            peaks = start_sampling(pid)
            started = time.perf_counter()
            served_app.upload(page, path)
            page.locator(FIRST_CHART).first.wait_for()
            first = time.perf_counter() - started
            print(f"  {path.stem}: first chart after {first:.1f} s", file=sys.stderr, flush=True)
            served_app.wait_idle(page)
            page.get_by_text("Shape the what-if").first.click()
            if path.stem == "10k-topics":
                page.get_by_role("tab", name="Topics").click()
                field = "Topics to include: filter"
            # 5 topics x 100 members lists both in plain pickers: no filter box to type in.
            has_filter = path.stem != "5x1m" and RERUNS
            reruns = (
                [filter_rerun(page, text, field) for text in ("1", "2*", "zzz")]
                if has_filter
                else [float("nan")]
            )
            print(f"  {path.stem}: reruns {reruns}", file=sys.stderr, flush=True)
            peaks.running = False
            return {
                "first_chart_s": first,
                "rerun_s": statistics.median(reruns),
                "rerun_max_s": max(reruns),
                "server_mb": peaks.server / 2**20,
                "worker_mb": peaks.worker / 2**20,
                "together_mb": peaks.together / 2**20,
            }
        finally:
            browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", default=",".join(big_groups.GROUPS))
    parser.add_argument("--out", type=Path, default=None, help="folder for the group files")
    parser.add_argument("--no-cli", action="store_true", help="skip the CLI comparison")
    parser.add_argument("--no-reruns", action="store_true", help="time the first chart only")
    args = parser.parse_args()
    global RERUNS
    RERUNS = not args.no_reruns
    folder = args.out or Path(tempfile.mkdtemp(prefix="ae-big-"))
    folder.mkdir(parents=True, exist_ok=True)
    with served_app.serve(folder / "streamlit.log") as served:
        for name in args.groups.split(","):
            path = big_groups.write(name, folder)
            load = os.getloadavg()[0]
            shown = dashboard_run(served.url, served.process.pid, path)
            cli = {} if args.no_cli else {s: cli_run(path, s) for s in STRATEGIES}
            cli_s = sum(seconds for seconds, _ in cli.values()) or float("nan")
            cli_mb = max((peak for _, peak in cli.values()), default=0) / 2**20
            print(
                f"{name}: first chart {shown['first_chart_s']:.1f} s "
                f"(CLI {cli_s:.1f} s for {' + '.join(STRATEGIES)}, "
                f"{shown['first_chart_s'] / cli_s:.1f}x), later rerun median "
                f"{shown['rerun_s']:.2f} s (max {shown['rerun_max_s']:.2f} s), peak memory "
                f"server {shown['server_mb']:.0f} MB + worker {shown['worker_mb']:.0f} MB "
                f"(together {shown['together_mb']:.0f} MB; CLI {cli_mb:.0f} MB); "
                f"load average {load:.1f} -> {os.getloadavg()[0]:.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()

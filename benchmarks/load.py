"""Load (issue 21.5): concurrent browser sessions doing seeded random valid actions on the served
dashboard for several minutes; errors, latency percentiles and peak memory.

One Chromium, ``--sessions`` tabs (each its own browser context, so its own Streamlit session),
each drawing actions from its own ``random.Random(seed + index)``: add a member, undo, skew the
lag, switch the lower view, switch the animated strategy, load another sample, reload the page.
An action's latency is from the click to the page idle again (no "Running..." widget). An error
is an exception or an error box on the page after a valid action, a page error in the browser,
or an action that did not finish within ``--action-timeout``. The server's resident memory (with
any worker) is sampled throughout.

    .venv/bin/python benchmarks/load.py [--sessions 10] [--minutes 3] [--seed 21]

Target: 0 errors. Never part of the pass/fail suite.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path[:1]:
    sys.path.insert(0, str(ROOT))

from tests.browser import served_app  # noqa: E402

EXCEPTION = '[data-testid="stException"]'
ERROR_BOX = '[data-testid="stAlertContentError"]'
SIDEBAR = '[data-testid="stSidebar"]'
MAIN = '[data-testid="stMain"]'
SAMPLE_PICKS = 6
MORE_VIEWS = ("Members", "Assignment matrix", "Movement", "Lag drain", "Protocols")


@dataclass
class Tally:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    actions: int = 0


#: Whether the app is between runs (tests/browser/ui.py's ``settle`` reads the same attribute).
SCRIPT_IDLE_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  const run = app && app.getAttribute('data-test-script-state');
  return run !== 'running' && run !== 'rerunRequested';
}"""


async def idle(page: Any, timeout_s: float) -> None:
    """Until the app's run has ended and no "Running..." widget showed for 0.3 s."""
    deadline = time.monotonic() + timeout_s
    quiet: float | None = None
    while time.monotonic() < deadline:
        running = await page.locator(served_app.RUNNING).count() > 0
        if not running and await page.evaluate(SCRIPT_IDLE_JS):
            quiet = quiet or time.monotonic()
            if time.monotonic() - quiet > 0.3:
                return
        else:
            quiet = None
        await asyncio.sleep(0.05)
    raise TimeoutError("the page kept running")


async def open_shape_panel(page: Any) -> Any:
    """The *Shape the what-if* expander, opened if closed (tests/browser/ui.py's selectors)."""
    panel = page.locator('[data-testid="stExpander"]').filter(has_text="Shape the what-if").first
    details = panel.locator("details").first
    if await details.get_attribute("open") is None:
        await panel.locator("summary").first.click()
    # Built only while open: its tabs come with the rerun the click starts.
    await panel.get_by_role("tab", name="Members").wait_for()
    return panel


async def add_member(page: Any, rng: random.Random) -> None:
    panel = await open_shape_panel(page)
    await panel.get_by_role("tab", name="Members").click()
    # While Streamlit swaps in a new form (its keys carry the scenario), the old copy can
    # linger a moment: the last one is the current one (tests/browser/ui.py does the same).
    await panel.get_by_label("Member id").last.fill(f"load-{rng.randrange(10**9)}")
    await panel.get_by_role("button", name="Add member").last.click()


async def undo(page: Any, rng: random.Random) -> None:
    panel = await open_shape_panel(page)
    await panel.get_by_role("tab", name=re.compile(r"^Edits")).click()
    button = panel.get_by_role("button", name="Undo last edit").last
    if await button.count() and await button.is_enabled():
        await button.click()


async def skew(page: Any, rng: random.Random) -> None:
    panel = await open_shape_panel(page)
    await panel.get_by_role("tab", name="Lag & rates").click()
    await panel.get_by_role("button", name="Skew the lag").click()


async def more_view(page: Any, rng: random.Random) -> None:
    group = page.locator(MAIN).locator('[data-testid="stButtonGroup"]').first
    name = re.compile("^" + re.escape(rng.choice(MORE_VIEWS)) + "$")
    await group.locator("button").filter(has_text=name).click()


async def animate(page: Any, rng: random.Random) -> None:
    group = page.get_by_role("radiogroup", name="Animate")
    options = group.get_by_role("radio")
    count = await options.count()
    if count:
        await options.nth(rng.randrange(count)).click(force=True)


async def load_sample(page: Any, rng: random.Random) -> None:
    await page.locator(SIDEBAR).locator('[data-testid="stSelectbox"]').first.click()
    options = page.get_by_role("option")
    await options.first.wait_for()
    count = await options.count()
    await options.nth(rng.randrange(min(count, SAMPLE_PICKS))).click()
    button = page.get_by_role("button", name="Load sample")
    if await button.count():
        await button.click()


async def reload(page: Any, rng: random.Random) -> None:
    await page.reload()
    await page.locator(".js-plotly-plot").first.wait_for()


ACTIONS = {
    "add member": add_member,
    "undo": undo,
    "skew lag": skew,
    "lower view": more_view,
    "animate": animate,
    "load sample": load_sample,
    "reload": reload,
}
WEIGHTS = (5, 4, 1, 4, 3, 2, 1)


async def session(
    browser: Any,
    url: str,
    index: int,
    seed: int,
    until: float,
    timeout_s: float,
    tally: Tally,
    verbose: bool = False,
) -> None:
    rng = random.Random(seed + index)
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    page.set_default_timeout(timeout_s * 1000)
    page.on("pageerror", lambda error: tally.errors.append(f"session {index}: page error {error}"))
    await asyncio.sleep(index * 2.0)  # arrivals spread over the first seconds, as people come
    started = time.perf_counter()
    try:
        await page.goto(url)
        await page.locator(".js-plotly-plot").first.wait_for(timeout=timeout_s * 3000)
        await idle(page, timeout_s * 3)
    except Exception as error:  # counted: a session that never got its first page
        tally.errors.append(f"session {index}: first page: {type(error).__name__}: {error}")
        await context.close()
        return
    tally.latencies.setdefault("first page", []).append(time.perf_counter() - started)
    while time.monotonic() < until:
        name = rng.choices(list(ACTIONS), WEIGHTS)[0]
        if verbose:
            print(f"[{time.strftime('%H:%M:%S')}] session {index}: {name}", flush=True)
        started = time.perf_counter()
        try:
            await ACTIONS[name](page, rng)
            await page.wait_for_timeout(60)
            await idle(page, timeout_s)
        except Exception as error:  # every failure is a counted error
            tally.errors.append(f"session {index}: {name}: {type(error).__name__}: {error}")
            with contextlib.suppress(Exception):  # what the page showed, to look at afterwards
                shot = Path(tempfile.gettempdir()) / f"ae-load-s{index}-{tally.actions}.png"
                await page.screenshot(path=str(shot), full_page=True)
                print(f"session {index}: {name} failed; the page then: {shot}", file=sys.stderr)
            with contextlib.suppress(Exception):
                await page.goto(url)
            continue
        tally.latencies.setdefault(name, []).append(time.perf_counter() - started - 0.3)
        tally.actions += 1
        for selector, what in ((EXCEPTION, "exception"), (ERROR_BOX, "error box")):
            if await page.locator(selector).count():
                text = await page.locator(selector).first.inner_text()
                tally.errors.append(f"session {index}: {name}: {what} on the page: {text[:300]}")
                with contextlib.suppress(Exception):
                    await page.goto(url)
                break
    await context.close()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def drive(
    url: str, sessions: int, minutes: float, seed: int, timeout_s: float, verbose: bool = False
) -> Tally:
    from playwright.async_api import async_playwright

    tally = Tally()
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=str(served_app.CHROMIUM), args=served_app.CHROMIUM_ARGS
        )
        until = time.monotonic() + minutes * 60
        await asyncio.gather(
            *(
                session(browser, url, i, seed, until, timeout_s, tally, verbose)
                for i in range(sessions)
            )
        )
        await browser.close()
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--action-timeout", type=float, default=120.0)
    parser.add_argument("--verbose", action="store_true", help="print each action as it starts")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="ae-load-"))
    peak = [0]
    with served_app.serve(folder / "streamlit.log") as served:
        pid = served.process.pid
        running = [True]

        def sample() -> None:
            while running[0]:
                total = served_app.tree_memory_bytes(pid)
                peak[0] = max(peak[0], total)
                time.sleep(0.2)

        threading.Thread(target=sample, daemon=True).start()
        load_before = os.getloadavg()[0]
        tally = asyncio.run(
            drive(
                served.url,
                args.sessions,
                args.minutes,
                args.seed,
                args.action_timeout,
                args.verbose,
            )
        )
        running[0] = False
    every = [
        value
        for name, values in tally.latencies.items()
        if name != "first page"
        for value in values
    ] or [0.0]
    print(
        f"{args.sessions} sessions x {args.minutes:g} min, seed {args.seed}: {tally.actions} "
        f"actions, {len(tally.errors)} errors; latency p50 {percentile(every, 0.5):.2f} s, "
        f"p90 {percentile(every, 0.9):.2f} s, p99 {percentile(every, 0.99):.2f} s, "
        f"max {max(every):.2f} s; peak server memory {peak[0] / 2**20:.0f} MB; "
        f"load average {load_before:.1f} -> {os.getloadavg()[0]:.1f}"
    )
    for name, values in sorted(tally.latencies.items()):
        print(f"  {name}: {len(values)} x, median {statistics.median(values):.2f} s")
    for error in tally.errors[:20]:
        print(f"  ERROR {error}")


if __name__ == "__main__":
    main()

"""A big group's later reruns, timed server-side with Streamlit's AppTest (issue 21.2).

Uploads a group of :mod:`big_groups` (the first run works it out in the worker), then times
reruns that should find everything cached: a plain rerun, typing a member filter, clearing it.
Prints seconds per rerun with the load average. The browser's share (drawing) is not included:
``benchmarks/dashboard_big.py`` times the whole page.

    .venv/bin/python benchmarks/big_group_rerun.py [--group 100k-members]

Never part of the pass/fail suite.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path[:1]:
    sys.path.insert(0, str(ROOT))  # before benchmarks/, whose assignors.py would hide the package

import big_groups  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

APP = str(ROOT / "dashboard" / "app.py")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--group", default="100k-members")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="ae-rerun-"))
    path = big_groups.write(args.group, folder)
    app = AppTest.from_file(APP, default_timeout=1800)
    app.session_state["panel.shape"] = True  # the what-if panel, opened
    app.run()
    app.radio(key="source.kind").set_value("Upload").run()
    started = time.perf_counter()
    app.file_uploader(key="source.upload").upload(
        path.name, path.read_bytes(), "application/json"
    ).run()
    print(
        f"{args.group}: upload run {time.perf_counter() - started:.1f} s "
        f"(load {os.getloadavg()[0]:.1f})",
        flush=True,
    )
    steps = {
        "plain rerun": lambda: app.run(),
        "filter 'c0001*'": lambda: (
            app.text_input(key="shape.include_members.filter").input("c0001*").run()
        ),
        "filter cleared": lambda: (
            app.text_input(key="shape.include_members.filter").input("").run()
        ),
        "plain rerun again": lambda: app.run(),
    }
    for label, step in steps.items():
        started = time.perf_counter()
        step()
        problems = [str(error.value) for error in app.exception]
        print(
            f"{args.group}: {label} {time.perf_counter() - started:.2f} s "
            f"(load {os.getloadavg()[0]:.1f}){' ERROR ' + problems[0] if problems else ''}",
            flush=True,
        )


if __name__ == "__main__":
    main()

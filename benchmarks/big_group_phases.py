"""Where a big group's time goes in the dashboard, phase by phase, in one process (issue 21.2).

For each group of :mod:`big_groups`: the server thread's share (decode and parse the upload,
apply the edits for the shaping controls) and the worker's stream (the plan, then each summary
it sends, with the time it arrives), timed in this process with ``cProfile`` optional. The
load average is printed beside every figure, and the CPU seconds beside the wall-clock ones: on
a shared machine the CPU time is the steadier figure.

    .venv/bin/python benchmarks/big_group_phases.py [--groups 100k-members] [--profile]

Never part of the pass/fail suite.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path[:1]:
    sys.path.insert(0, str(ROOT))  # before benchmarks/, whose assignors.py would hide the package

import big_groups  # noqa: E402

from assignors import decode_scenario_text, parse_scenario  # noqa: E402
from dashboard.model import aggregates, whatif  # noqa: E402

T = TypeVar("T")
STRATEGIES = ("range", "cooperative-sticky")


def _load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def phase(group: str, label: str, build: Callable[[], T]) -> T:
    started, cpu = time.perf_counter(), time.process_time()
    result = build()
    print(
        f"{group} {label}: {time.perf_counter() - started:.2f} s "
        f"(CPU {time.process_time() - cpu:.2f} s, {_load()})",
        flush=True,
    )
    return result


def run(group: str, path: Path) -> None:
    data = path.read_bytes()
    document = phase(group, "server: decode", lambda: decode_scenario_text(data, source=group))
    scenario, _ = phase(
        group, "server: parse", lambda: parse_scenario(document, path="", json_checked=True)
    )
    phase(group, "server: outline", lambda: whatif.outline(scenario, ()))
    pieces = [(("current", group), "current")]
    pieces += [(("strategy", group, name), name) for name in STRATEGIES]
    started, cpu = time.perf_counter(), time.process_time()

    def arrived(item: tuple[Any, aggregates.Summary, bool]) -> None:
        _, summary, final = item
        print(
            f"{group} worker: {summary.name} {'final' if final else 'measured'} after "
            f"{time.perf_counter() - started:.2f} s (CPU {time.process_time() - cpu:.2f} s, "
            f"{_load()})",
            flush=True,
        )

    aggregates.work_out(arrived, scenario, (), pieces)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", default="100k-members,1m-x-2000")
    parser.add_argument("--out", type=Path, default=None, help="folder for the group files")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top functions")
    args = parser.parse_args()
    folder = args.out or Path(tempfile.mkdtemp(prefix="ae-phases-"))
    folder.mkdir(parents=True, exist_ok=True)
    profile = cProfile.Profile() if args.profile else None
    for name in args.groups.split(","):
        path = big_groups.write(name, folder)
        if profile is not None:
            profile.enable()
        run(name, path)
        if profile is not None:
            profile.disable()
    if profile is not None:
        pstats.Stats(profile).sort_stats("tottime").print_stats(30)


if __name__ == "__main__":
    main()

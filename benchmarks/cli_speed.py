"""Is ``python -m assignors assign`` as fast as its core? Whole process against the assign call.

Never part of the pass/fail suite. Run from the repository root (about a minute with the
defaults; each figure is the median of ``--runs``):

    .venv/bin/python benchmarks/cli_speed.py
    .venv/bin/python benchmarks/cli_speed.py --strategies range,sticky --runs 5 --verbose-inputs

Inputs, generated here (nothing is downloaded): 500 topics x 2,000 partitions (1,000,000) and
2,000 members subscribed to every topic, ``fresh`` (nobody owns anything) and ``rebalance``
(every tenth member has left; the others own what they held in a round-robin deal, generation
1: the shape of ``benchmarks/versus_java.py``'s large rebalance). Each is written in the compact
form (``docs/scenario-format.md``), and with ``--verbose-inputs`` also one partition at a time.
The size of both forms is printed: the compact one is what ``assign`` reads by default.

What is timed, per input and strategy:

* **assign only**: a fresh subprocess loads the scenario (untimed), then times
  ``strategy.assign(scenario, warnings)``: the call the command makes, nothing else.
* **whole process**: ``python -m assignors assign FILE --strategy S`` (table) and with ``--json``,
  stdout to a file, in a subprocess: CPU from the child's resource usage (user + system), wall
  from the parent's clock.
* **phases** (one line per input): start-up (importing the command), decoding, parsing, the
  assign call, the round line, and rendering the table or the JSON, each timed in one process.

The target (issue 40): whole process at most 2x the assign call. CPU seconds are the steady
figure on a shared machine, and the one judged; the load average is printed beside every
figure, and when it is above one per core the verdict is "not judged" rather than "met".
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from versus_java import SIZES, partition_scenario  # a sibling script: one group generator

REPO = Path(__file__).resolve().parent.parent
TOPICS, PER_TOPIC, MEMBERS = SIZES["large"]
TARGET = 2.0
ENV = {**os.environ, "PYTHONPATH": str(REPO)}

#: Runs in a fresh interpreter: load the file untimed, then time the assign call ``runs`` times.
ASSIGN_ONLY = """
import json, sys, time
from assignors import registry
from assignors.io.scenario import load_scenario_file
path, name, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
scenario, warnings = load_scenario_file(path)
strategy = registry.get(name)
figures = []
for _ in range(runs):
    cpu, wall = time.process_time(), time.perf_counter()
    strategy.assign(scenario, warnings)
    figures.append((time.process_time() - cpu, time.perf_counter() - wall))
print(json.dumps(figures))
"""

#: Runs in a fresh interpreter: the command's steps one after the other, each timed.
PHASES = """
import time
cpu, wall = time.process_time(), time.perf_counter()
import json, sys
from assignors import registry
from assignors.__main__ import main
from assignors.cli.formatting import answer_json, assignment_lines
from assignors.cli.rounds import pick_round, round_line
from assignors.io.json_safe import decode_json
from assignors.io.scenario import MAX_SCENARIO_FILE_BYTES, parse_scenario
from assignors.io.compact import use_compact
phases = {"start-up": time.process_time() - cpu}
def timed(label, work):
    started = time.process_time()
    result = work()
    phases[label] = time.process_time() - started
    return result
path, name = sys.argv[1], sys.argv[2]
data = timed("read", lambda: open(path, "rb").read())
raw = timed("decode", lambda: decode_json(data, path, max_bytes=MAX_SCENARIO_FILE_BYTES))
scenario, warnings = timed("parse", lambda: parse_scenario(raw, path="", json_checked=True))
strategy = registry.get(name)
first = timed("assign", lambda: strategy.assign(scenario, warnings))
shown = timed("round line", lambda: round_line(pick_round(strategy, scenario, first, None)))
names = tuple(t.name for t in scenario.topics)
every = names if use_compact("auto", sum(t.partitions for t in scenario.topics)) else None
timed("table", lambda: sum(map(len, assignment_lines(first, every))))
timed("json", lambda: len(json.dumps({"assignment": answer_json(first, every)})))
print(json.dumps(phases))
"""


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def scenario_document(kind: str) -> dict[str, Any]:
    """The 1,000,000-partition group, one partition at a time (the verbose form): the
    ``large`` group of ``benchmarks/versus_java.py``, made by its generator."""
    return {"name": f"1M partitions, {kind}", **partition_scenario("large", kind)}


def write_inputs(folder: Path, verbose: bool) -> dict[str, Path]:
    """The inputs as files (compact, and verbose when asked); prints both forms' sizes."""
    sys.path.insert(0, str(REPO))
    from assignors.io.scenario import parse_scenario, scenario_to_json

    files: dict[str, Path] = {}
    for kind in ("fresh", "rebalance"):
        document = scenario_document(kind)
        text = json.dumps(document, separators=(",", ":"))
        scenario, _ = parse_scenario(document, path="")
        compact = json.dumps(scenario_to_json(scenario, compact=True), separators=(",", ":"))
        files[kind] = folder / f"{kind}.json"
        files[kind].write_text(compact)
        print(
            f"{kind}: one by one {len(text) / 1e6:.1f} MB, compact {len(compact) / 1e6:.2f} MB"
            f" ({len(text) / len(compact):.0f}x smaller)",
            flush=True,
        )
        if verbose:
            files[f"{kind} (verbose file)"] = folder / f"{kind}-verbose.json"
            files[f"{kind} (verbose file)"].write_text(text)
    return files


def assign_only(path: Path, strategy: str, runs: int) -> tuple[float, float]:
    """Median (CPU s, wall s) of the assign call alone."""
    done = subprocess.run(
        [sys.executable, "-c", ASSIGN_ONLY, str(path), strategy, str(runs)],
        capture_output=True, text=True, check=True, cwd=REPO, env=ENV,
    )  # fmt: skip
    figures = json.loads(done.stdout)
    return statistics.median(f[0] for f in figures), statistics.median(f[1] for f in figures)


def whole_process(path: Path, strategy: str, as_json: bool, runs: int) -> tuple[float, float]:
    """Median (CPU s, wall s) of the command, start-up to exit, stdout to a file."""
    command = [sys.executable, "-m", "assignors", "assign", str(path), "--strategy", strategy]
    command += ["--json"] if as_json else []
    figures = []
    with tempfile.TemporaryFile() as out:
        for _ in range(runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            subprocess.run(command, stdout=out, check=True, cwd=REPO, env=ENV)
            wall = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            figures.append((cpu, wall))
    return statistics.median(f[0] for f in figures), statistics.median(f[1] for f in figures)


def phases(path: Path, strategy: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", PHASES, str(path), strategy],
        capture_output=True, text=True, check=True, cwd=REPO, env=ENV,
    )  # fmt: skip
    figures = json.loads(done.stdout)
    return ", ".join(f"{label} {seconds:.2f}" for label, seconds in figures.items())


def verdict(ratio: float, load_average: float) -> str:
    cores = os.cpu_count() or 1
    if load_average > cores * 1.1:
        return f"not judged (load {load_average:.1f} on {cores} cores)"
    return "met" if ratio <= TARGET else "missed"


def measure(files: dict[str, Path], strategies: list[str], runs: int) -> list[str]:
    """One table row per input, strategy and output; phases printed as they are measured."""
    rows = []
    for kind, path in files.items():
        for strategy in strategies:
            print(f"{kind} {strategy} phases (CPU s): {phases(path, strategy)} ({load()})")
            core_cpu, core_wall = assign_only(path, strategy, runs)
            core_load = os.getloadavg()[0]
            for output in ("table", "--json"):
                cpu, wall = whole_process(path, strategy, output == "--json", runs)
                now = os.getloadavg()[0]
                ratio = cpu / core_cpu
                judged = verdict(ratio, max(now, core_load))
                rows.append(
                    f"| {kind} | {strategy} | {output} | {core_cpu:.2f} ({core_wall:.2f})"
                    f" load {core_load:.1f} | {cpu:.2f} ({wall:.2f}) load {now:.1f} |"
                    f" {ratio:.2f}x ({wall / core_wall:.2f}x) | {judged} |"
                )
                print(rows[-1], flush=True)
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategies", default="range,sticky", help="comma-separated names")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per figure (median)")
    parser.add_argument(
        "--verbose-inputs", action="store_true", help="also time the one-by-one files"
    )
    args = parser.parse_args(argv)
    print(f"cli_speed: {os.cpu_count()} cores, {load()}, Python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as folder:
        files = write_inputs(Path(folder), args.verbose_inputs)
        header = [
            "| input | strategy | output | assign only: CPU s (wall s) | whole process: CPU s"
            " (wall s) | whole / assign: CPU (wall) | 2x target, judged on CPU |",
            "| --- | --- | --- | --- | --- | --- | --- |",
        ]
        print("\n".join(header), flush=True)
        rows = measure(files, args.strategies.split(","), args.runs)
    print("\nSummary (medians of", args.runs, "runs):")
    print("\n".join(header + rows))


if __name__ == "__main__":
    main()

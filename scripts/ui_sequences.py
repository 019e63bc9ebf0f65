"""Generated UI runs at scale (issue 36): the dashboard's user state machine, many sequences.

Usage: ``.venv/bin/python scripts/ui_sequences.py [--sequences N] [--steps S] [--minutes M]
[--batch B] [--no-shrink] [--pipeline-output DIR | --no-pipeline]`` (default 10,000 sequences of
up to 6 steps, no time bound). Runs :class:`tests.dashboard.test_generated_ui.UserSession` (the
rules and invariants of the CI test) in batches of B sequences, each batch with fresh random
choices, until N sequences have run or M minutes have passed (checked between batches). A failing
batch is shrunk to its shortest failing sequence (unless ``--no-shrink``), printed, and the run
goes on with the next batch.

The History and Fleet pages read the pipeline's tables: each sequence runs on a server without
them or with the tables in DIR (``python -m pipeline lag|whatif --output DIR/lag|whatif``); without
``--pipeline-output`` the script writes the sample history's tables first with a local Spark
session (about 40 s; ``--no-pipeline`` runs without tables).

Prints the figures: sequences run (those run while shrinking counted apart), actions taken,
distinct pages, samples, strategies and Kafka versions reached, how often each rule ran, the
failures, the wall-clock and CPU time. Exits 1 when a sequence failed.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hypothesis import Phase, settings
from hypothesis.reporting import with_reporter
from hypothesis.stateful import run_state_machine_as_test

from tests.dashboard import test_generated_ui as generated


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sequences", type=int, default=10_000)
    parser.add_argument("--steps", type=int, default=generated.CI_STEPS)
    parser.add_argument("--minutes", type=float, default=None, help="stop after this long")
    parser.add_argument("--batch", type=int, default=20, help="sequences per Hypothesis run")
    parser.add_argument("--no-shrink", action="store_true", help="report failures unshrunk")
    parser.add_argument("--pipeline-output", type=Path, help="the pipeline's tables (lag, whatif)")
    parser.add_argument("--no-pipeline", action="store_true", help="History and Fleet bare")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="ui-sequences-"))
    generated.PIPELINE_OUTPUTS[:] = [scratch / "no-pipeline-output"]
    if not args.no_pipeline:
        generated.PIPELINE_OUTPUTS.append(args.pipeline_output or _write_tables(scratch))
    os.environ["AE_PIPELINE_OUTPUT"] = str(generated.PIPELINE_OUTPUTS[0])
    phases = [Phase.generate] if args.no_shrink else [Phase.generate, Phase.shrink]
    started, cpu = time.monotonic(), _cpu_seconds()
    bound = None if args.minutes is None else started + args.minutes * 60
    totals = generated.REACHED["totals"]
    failures: list[str] = []
    shrinking = 0
    while totals["sequences"] - shrinking < args.sequences:
        if bound is not None and time.monotonic() >= bound:
            break
        batch = min(args.batch, args.sequences - (totals["sequences"] - shrinking))
        before = totals["sequences"]
        reports: list[object] = []
        try:
            with with_reporter(reports.append):
                run_state_machine_as_test(
                    generated.UserSession,
                    settings=settings(
                        generated.ui_settings(batch, args.steps), database=None, phases=phases
                    ),
                )
        except Exception as error:  # a failing sequence: kept, and the run goes on
            shrinking += max(0, totals["sequences"] - before - batch)
            failures.append(_failure(error, reports))
            print(f"FAILURE {len(failures)}:\n{failures[-1]}", flush=True)
        _progress(started)
    _summary(started, cpu, shrinking, failures)
    return 1 if failures else 0


def _write_tables(scratch: Path) -> Path:
    """The sample history's lag and what-if tables, written by a local Spark session."""
    from pipeline.session import get_session
    from tests.pipeline.sample_outputs import write_sample_outputs

    print("writing the pipeline's tables for the History and Fleet pages...", flush=True)
    spark = get_session("local[2]", app_name="ui-sequences", conf={"spark.ui.enabled": "false"})
    spark.sparkContext.setLogLevel("ERROR")
    try:
        write_sample_outputs(spark, scratch / "pipeline-output")
    finally:
        spark.stop()
    return scratch / "pipeline-output"


def _failure(error: Exception, reports: list[object]) -> str:
    """The error and the sequence that raised it, as Hypothesis reported it."""
    lines = traceback.format_exception_only(type(error), error)
    return "".join(lines) + "\n".join(str(report) for report in reports)


def _cpu_seconds() -> float:
    """CPU time of this process and of its reaped children (the deploy view's workers)."""
    usage = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    return sum(part.ru_utime + part.ru_stime for part in usage)


def _progress(started: float) -> None:
    totals = generated.REACHED["totals"]
    print(
        f"[{time.monotonic() - started:6.0f} s] {totals['sequences']:,} sequences, "
        f"{totals['actions']:,} actions",
        flush=True,
    )


def _summary(started: float, cpu: float, shrinking: int, failures: list[str]) -> None:
    reached = generated.REACHED
    totals = reached["totals"]
    print()
    print(f"sequences run: {totals['sequences'] - shrinking:,} (and {shrinking:,} while shrinking)")
    print(f"actions taken: {totals['actions']:,}")
    for name in ("pages", "samples", "strategies", "kafka"):
        print(f"distinct {name} reached: {len(reached[name])}: {', '.join(sorted(reached[name]))}")
    print("rules run: " + ", ".join(f"{k} {v:,}" for k, v in reached["actions"].most_common()))
    never = generated.missing(reached)
    print(f"never generated: {never or 'nothing'}")
    print(f"failures: {len(failures)}")
    wall, used = time.monotonic() - started, _cpu_seconds() - cpu
    print(f"time: {wall:,.0f} s wall clock, {used:,.0f} s CPU (this process and its workers)")


if __name__ == "__main__":
    sys.exit(main())

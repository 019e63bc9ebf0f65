"""Progress of a long job on the terminal: stages, tasks and groups done, and what is left.

:class:`Progress` polls Spark's status tracker from a daemon thread every ``interval_s``
seconds and prints one line to stderr when something changed, e.g.::

    [12:00:40] stage 7: 5/16 tasks; groups 3,120/10,000 (31%); 62 s so far, about 137 s left

Groups are counted by an accumulator that the per-group step adds to once per group
(:func:`pipeline.whatif.fleet_whatif`'s ``groups_done``); Spark merges a task's additions
when the task ends, so the count moves task by task. The estimate of what is left is
``elapsed * (total - done) / done`` over groups (tasks when no group is counted yet). Nothing
is collected: the tracker reads the driver's own bookkeeping.
"""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, TextIO


def progress_line(
    stages: list[tuple[int, int, int]],
    groups_done: int,
    groups_total: int | None,
    elapsed_s: float,
) -> str:
    """One progress line: ``stages`` as (stage id, tasks done, tasks in all), running ones."""
    parts = [f"stage {stage}: {done:,}/{tasks:,} tasks" for stage, done, tasks in stages]
    fraction = None
    if groups_total:
        share = min(groups_done / groups_total, 1.0)
        parts.append(f"groups {groups_done:,}/{groups_total:,} ({share:.0%})")
        fraction = share if groups_done else None
    if fraction is None and stages:
        done = sum(s[1] for s in stages)
        fraction = done / max(1, sum(s[2] for s in stages)) if done else None
    timing = f"{elapsed_s:.0f} s so far"
    if fraction:
        timing += f", about {elapsed_s * (1 - fraction) / fraction:.0f} s left"
    return "; ".join([*parts, timing]) if parts else timing


@dataclass
class Progress:
    """Prints :func:`progress_line` while a job runs; ``with Progress(spark, ...):``."""

    spark: Any
    groups_total: int | None = None
    interval_s: float = 5.0
    stream: TextIO = sys.stderr
    counter: Any = None
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _started: float = 0.0

    def __post_init__(self) -> None:
        self.counter = self.spark.sparkContext.accumulator(0)

    def __enter__(self) -> Progress:
        self._started = time.monotonic()
        self._thread = threading.Thread(target=self._run, name="progress", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def _snapshot(self) -> str:
        tracker = self.spark.sparkContext.statusTracker()
        stages = []
        for stage_id in sorted(tracker.getActiveStageIds()):
            info = tracker.getStageInfo(stage_id)
            if info is not None:
                stages.append((stage_id, info.numCompletedTasks, info.numTasks))
        elapsed = time.monotonic() - self._started
        return progress_line(stages, int(self.counter.value), self.groups_total, elapsed)

    def _run(self) -> None:
        last = ""
        while not self._stop.wait(self.interval_s):
            try:
                line = self._snapshot()
            except Exception:  # the context is stopping; progress is best effort
                return
            shown = line.rsplit("; ", 1)[0]
            if shown != last:
                stamp = time.strftime("%H:%M:%S")
                print(f"[{stamp}] {line}", file=self.stream, flush=True)
                last = shown

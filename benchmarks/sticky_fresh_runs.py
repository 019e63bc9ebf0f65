"""Runs or tuples for a fresh sticky group: what the call and one full read cost each way.

``sticky`` on a fresh group answers with :class:`~assignors.model.PartitionRuns` when the runs
hold at least ``_PARTITIONS_PER_RUN`` partitions on average (``assignors/client/sticky.py``).
This times both representations, forced, on 2,000 members and topics of ``2,000 p + 1``
partitions (every topic its own segment: each member gets one run of about ``p`` partitions per
topic), about 1,000,000 partitions for each ``p``: the call (``assign``) and one read of every
partition (a list of each member's, as ``versus_java.py``'s read column). Best of three, CPU
seconds (``time.process_time``). Run it in a quiet window: ``.venv/bin/python
benchmarks/sticky_fresh_runs.py``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from unittest.mock import patch

# The repository first: ``benchmarks/assignors.py`` would otherwise stand for the package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assignors.client import sticky
from assignors.model import Member, Scenario, Topic
from assignors.registry import get

MEMBERS = 2_000
#: Forced: runs whenever the group is fresh, or never.
ALWAYS, NEVER = 0, 10**12


def best_of_three(scenario: Scenario, partitions_per_run: int) -> tuple[float, float]:
    """CPU seconds (call, one full read), the run of the three with the smallest sum."""
    strategy = get("sticky")
    best: tuple[float, float] | None = None
    with patch.object(sticky, "_PARTITIONS_PER_RUN", partitions_per_run):
        for _ in range(3):
            start = time.process_time()
            answer = strategy.assign(scenario)
            called = time.process_time()
            lists = [list(partitions) for partitions in answer.partitions.values()]
            read = time.process_time()
            del lists
            figures = (called - start, read - called)
            best = figures if best is None or sum(figures) < sum(best) else best
    assert best is not None
    return best


def main() -> None:
    print("| partitions a run | runs: call | runs: one full read | tuples: call | tuples: read |")
    print("| --- | --- | --- | --- | --- |")
    for per_run in (4, 16, 64, 256):
        count = MEMBERS * per_run + 1
        topics = tuple(Topic(f"t{index:04d}", count) for index in range(max(1, 1_000_000 // count)))
        names = tuple(topic.name for topic in topics)
        members = tuple(Member(f"c{index:05d}", names) for index in range(MEMBERS))
        scenario = Scenario(topics, members)
        runs, tuples = best_of_three(scenario, ALWAYS), best_of_three(scenario, NEVER)
        cells = " | ".join(f"{seconds:.3f}" for seconds in (*runs, *tuples))
        print(f"| {per_run} | {cells} |")


if __name__ == "__main__":
    main()

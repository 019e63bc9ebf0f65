"""What an answer of a million partitions costs in CPython at the least, and where ``uniform``
spends its time above that floor.

Not part of the test suite. Run from the repository root:

    .venv/bin/python benchmarks/partition_floor.py            # 1M x 2,000 (about 30 s)
    .venv/bin/python benchmarks/partition_floor.py --size mid # 100k x 200

Prints CPU seconds (``time.process_time``, median of ``--repeat``; collector off, as the
strategies run) and the 1-minute load average:

* the floor: 1,000,000 ``TopicPartition`` objects made in C (``assignors.model.topic_partitions``,
  what every complete answer must hold), the same pairs as plain tuples (what a ``NamedTuple``
  subclass costs on top), and one read of every member's partitions as a list;
* ``uniform`` phase by phase on ``benchmarks/versus_java.py``'s groups (fresh and after 10 %
  leave): the group spec, the homogeneous builder, the sorted answer, the read.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from itertools import repeat
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def cpu_median(work: Callable[[], Any], repeat_count: int) -> float:
    """Median CPU seconds of ``work()`` (its result dropped after the clock stops)."""
    seconds = []
    for _ in range(repeat_count):
        start = time.process_time()
        result = work()
        seconds.append(time.process_time() - start)
        del result
    return statistics.median(seconds)


def floor(size: str, repeat_count: int) -> None:
    """The cost of holding every partition of the group, whatever the strategy."""
    from assignors.model import topic_partitions
    from benchmarks.versus_java import SIZES

    topics, per_topic, members = SIZES[size]
    names = [f"topic-{t:04d}" for t in range(topics)]
    numbers = list(range(per_topic))

    def named() -> list[Any]:
        made: list[Any] = []
        for name in names:
            made.extend(topic_partitions(name, numbers, per_topic))
        return made

    def plain() -> list[Any]:
        made: list[Any] = []
        for name in names:
            made.extend(zip(repeat(name, per_topic), numbers, strict=False))
        return made

    share = topics * per_topic // members
    made = named()
    answer = [tuple(made[m * share : (m + 1) * share]) for m in range(members)]
    figures = {
        f"{topics * per_topic:,} TopicPartition objects": cpu_median(named, repeat_count),
        f"{topics * per_topic:,} plain (topic, partition) tuples": cpu_median(plain, repeat_count),
        f"read: {members:,} members' partitions as lists": cpu_median(
            lambda: [list(partitions) for partitions in answer], repeat_count
        ),
    }
    for name, seconds in figures.items():
        print(f"floor  {name}: {seconds * 1000:.1f} ms CPU")


def uniform_phases(size: str, kind: str, repeat_count: int) -> None:
    """``uniform`` on ``versus_java``'s group, phase by phase."""
    from assignors.broker import uniform
    from assignors.io.scenario import parse_scenario
    from assignors.model import Assignment
    from benchmarks.versus_java import partition_scenario

    raw = json.loads(json.dumps(partition_scenario(size, kind)))
    scenario, _ = parse_scenario(raw, path="", json_checked=True)
    member_ids = [member.member_id for member in scenario.members]
    phases: dict[str, list[float]] = {"group spec": [], "homogeneous builder": [],
                                      "sorted answer": [], "read": []}  # fmt: skip
    for _ in range(repeat_count):
        marks = [time.process_time()]
        group = uniform.GroupSpec.of(scenario)
        marks.append(time.process_time())
        result = uniform.assign_homogeneous(group)
        marks.append(time.process_time())
        answer = Assignment.of(member_ids, result, ())
        marks.append(time.process_time())
        lists = [list(partitions) for partitions in answer.partitions.values()]
        marks.append(time.process_time())
        for phase, start, end in zip(phases, marks, marks[1:], strict=False):
            phases[phase].append(end - start)
        del group, result, answer, lists
    shown = ", ".join(f"{p} {statistics.median(s) * 1000:.1f}" for p, s in phases.items())
    total = sum(statistics.median(s) for s in phases.values())
    print(f"uniform {kind}: {shown} ms CPU; total {total * 1000:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=("check", "mid", "large"), default="large")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    gc.disable()
    print(f"size {args.size}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    floor(args.size, args.repeat)
    for kind in ("fresh", "rebalance"):
        uniform_phases(args.size, kind, args.repeat)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()

"""Time the lag-drain projection: 10,000 partitions x 200 members, 1 hour at 10 s steps.

Prints the time of :func:`assignors.simulate.drain.project_drain` alone (median of a few runs) for a
steady group and for a group coming out of an eager rebalance in which a member joined (every
partition paused, the new 200th member taking a share of them).
Run: ``.venv/bin/python -m benchmarks.drain``. Not part of the pass/fail suite.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable

from assignors.model import Assignment, Member, Scenario, Topic, TopicPartition
from assignors.simulate.drain import DrainProjection, project_drain
from assignors.simulate.rebalance import Timings, plan_rebalance

PARTITIONS = 10_000
MEMBERS = 200
TOPICS = 10
HORIZON_S = 3600.0
STEP_S = 10.0
RUNS = 5


def build(seed: int = 7) -> tuple[Scenario, Assignment, Assignment]:
    """A 200-member group, the assignment before member-199 joined, and round robin after it."""
    rng = random.Random(seed)
    per_topic = PARTITIONS // TOPICS
    topics = tuple(
        Topic(
            name=f"t{t}",
            partitions=per_topic,
            lags=tuple(rng.randrange(0, 200_000) for _ in range(per_topic)),
            produce_rates=tuple(rng.uniform(0.0, 30.0) for _ in range(per_topic)),
        )
        for t in range(TOPICS)
    )
    names = [f"member-{i:03d}" for i in range(MEMBERS)]
    members = tuple(
        Member(member_id=name, topics=tuple(t.name for t in topics), consume_rate=2000.0)
        for name in names
    )
    partitions = [TopicPartition(t.name, p) for t in topics for p in range(t.partitions)]
    before: dict[str, list[TopicPartition]] = {name: [] for name in names[:-1]}
    after: dict[str, list[TopicPartition]] = {name: [] for name in names}
    for index, tp in enumerate(partitions):
        before[names[index % (MEMBERS - 1)]].append(tp)
        after[names[index % MEMBERS]].append(tp)
    scenario = Scenario(topics=topics, members=members)
    return scenario, Assignment.of(names[:-1], before), Assignment.of(names, after)


def _time(run: Callable[[], DrainProjection]) -> tuple[list[float], DrainProjection]:
    runs = []
    projection = None
    for _ in range(RUNS):
        started = time.perf_counter()
        projection = run()
        runs.append(time.perf_counter() - started)
    assert projection is not None
    return runs, projection


def main() -> int:
    scenario, previous, target = build()
    simulation = plan_rebalance("eager", previous, target, timings=Timings())
    cases: list[tuple[str, Callable[[], DrainProjection]]] = [
        (
            "steady (no change)",
            lambda: project_drain(scenario, assignment=target, horizon_s=HORIZON_S, step_s=STEP_S),
        ),
        (
            "after an eager rebalance",
            lambda: project_drain(scenario, simulation, horizon_s=HORIZON_S, step_s=STEP_S),
        ),
    ]
    for label, run in cases:
        runs, projection = _time(run)
        print(
            f"{label}: {PARTITIONS} partitions x {len(projection.members)} members,"
            f" {len(projection.times_s)} grid points:"
            f" median {statistics.median(runs) * 1000:.0f} ms"
            f" (min {min(runs) * 1000:.0f}, max {max(runs) * 1000:.0f}) over {RUNS} runs"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

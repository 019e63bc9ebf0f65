"""CPU time of one strategy's answer through ``assignors.evaluate()`` against its parts by hand.

At 10,000 partitions x 200 members (the dashboard benchmark's group), a member joins; per
strategy, best of ``--repeat`` (CPU seconds, so a busy machine inflates the figures less):

* by hand: current assignment, change, ``rebalance.simulate``, ``metrics.assignment_metrics``
  and ``drain.project_drain`` (1 h at 15 s), as the shells did before ``evaluate()``;
* ``evaluate()``: the same answers asked of an :class:`assignors.Evaluation`;
* ``evaluate()``, target only: what a caller pays that needs only the target.

    .venv/bin/python benchmarks/evaluate.py [--partitions 10000] [--members 200] [--repeat 5]

Never part of the pass/fail suite.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path[:1]:
    sys.path.insert(0, str(ROOT))

from assignors import AddMember, Scenario, evaluate, parse_scenario  # noqa: E402
from assignors.simulate import changes, drain, metrics, rebalance  # noqa: E402
from benchmarks.dashboard import STRATEGIES, large_scenario  # noqa: E402


def by_hand(scenario: Scenario, name: str) -> None:
    current = changes.current_assignment(scenario)
    after = changes.apply_changes(scenario, [AddMember("x")], current)
    simulation = rebalance.simulate(scenario, after, name, previous=current)
    lags = metrics.lag_by_partition(after)
    metrics.assignment_metrics(after, simulation.target, current, lags=lags)
    drain.project_drain(after, simulation, horizon_s=3600, step_s=15, lags=lags)


def through_evaluate(scenario: Scenario, name: str) -> None:
    item = evaluate(scenario, [AddMember("x")], [name]).strategy(name)
    _ = (item.simulation, item.metrics, item.drain(3600, 15))


def target_only(scenario: Scenario, name: str) -> None:
    _ = evaluate(scenario, [AddMember("x")], [name]).strategy(name).target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--partitions", type=int, default=10_000)
    parser.add_argument("--members", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    scenario, _ = parse_scenario(large_scenario(args.partitions, args.members))
    ways: dict[str, Callable[[Scenario, str], None]] = {
        "by hand": by_hand,
        "evaluate()": through_evaluate,
        "evaluate(), target only": target_only,
    }
    for name in STRATEGIES:
        best = {label: float("inf") for label in ways}
        for _ in range(args.repeat):
            for label, way in ways.items():  # interleaved: load changes hit every way alike
                start = time.process_time()
                way(scenario, name)
                best[label] = min(best[label], time.process_time() - start)
        print(f"{name}: " + ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in best.items()))


if __name__ == "__main__":
    main()

"""How good are the deploy planner's predictions? Real rolling restarts against the planner.

Not part of the test suite (tests/assignors/test_deploy_real_kafka.py runs seven plans of these
once). Run from the repository root:

    .venv/bin/python benchmarks/deploy_accuracy.py                     # starts a cluster
    .venv/bin/python benchmarks/deploy_accuracy.py --runs 3 --bootstrap HOST:PORT,...

Each plan (tests/kafka_cluster/rolling_deploy.py) is played ``--runs`` times on fresh topics and
a fresh group of three kafka-python consumers, and compared with ``plan_deploy`` for the same
group, starting assignment, plan and timings. Printed: one Markdown table row per run, predicted
/ observed, as docs/prediction-accuracy.md shows it, and the load average when the run ended.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.kafka_cluster.cluster import KafkaCluster, start_cluster, stop_cluster
from tests.kafka_cluster.rolling_deploy import Comparison, RealPlan, compare, run_plan

PLANS = (
    RealPlan("range, dynamic, batches of 1", "range"),
    RealPlan("range, dynamic, batches of 2", "range", batch_size=2),
    RealPlan("range, static, batches of 1", "range", static=True),
    RealPlan("range, static, batches of 2", "range", batch_size=2, static=True),
    RealPlan("range, scale out by 2", "range", scale=2),
    RealPlan("cooperative-sticky, dynamic, batches of 1", "cooperative-sticky"),
    RealPlan("cooperative-sticky, dynamic, batches of 2", "cooperative-sticky", batch_size=2),
    RealPlan("cooperative-sticky, static, batches of 1", "cooperative-sticky", static=True),
    RealPlan(
        "cooperative-sticky, static, batches of 2", "cooperative-sticky", batch_size=2, static=True
    ),
    RealPlan("cooperative-sticky, scale out by 2", "cooperative-sticky", scale=2),
    RealPlan("uniform (KIP-848, Java), dynamic, batches of 1", "uniform"),
    RealPlan("uniform (KIP-848, Java), dynamic, batches of 2", "uniform", batch_size=2),
    RealPlan("uniform (KIP-848, Java), static, batches of 1", "uniform", static=True),
    RealPlan("uniform (KIP-848, Java), scale out by 2", "uniform", scale=2),
)
HEADER = (
    "| plan | rebalances | moved | duration s | unread partition-s | longest pause s |"
    " largest pause gap s | verdict |\n|---|---|---|---|---|---|---|---|"
)


def row(comparison: Comparison) -> str:
    """One table row: predicted / observed for each figure, and what disagrees."""
    gaps = comparison.pause_gaps().values()
    worst = max(gaps, key=abs)
    problems = comparison.problems()
    verdict = "agrees" if not problems else "; ".join(problems)
    return (
        f"| {comparison.plan.name}"
        f" | {comparison.predicted_rebalances} / {comparison.observed_rebalances}"
        f" | {comparison.predicted_moved} / {comparison.observed_moved}"
        f" | {comparison.predicted_duration_s:.1f} / {comparison.observed_duration_s:.1f}"
        f" | {comparison.total_pause(False):.1f} / {comparison.total_pause(True):.1f}"
        f" | {comparison.max_pause(False):.1f} / {comparison.max_pause(True):.1f}"
        f" | {worst:+.2f} | {verdict} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--bootstrap", help="a running cluster like the suite's (else start one)")
    parser.add_argument("--plans", nargs="*", help="plan names (default: all)")
    options = parser.parse_args()
    plans = [p for p in PLANS if not options.plans or p.name in options.plans]
    with tempfile.TemporaryDirectory(prefix="deploy-accuracy-") as folder:
        work = Path(folder)
        if options.bootstrap:
            cluster = KafkaCluster(options.bootstrap, "", work, None, work, {}, {})
        else:
            cluster = start_cluster(work)
        try:
            print(HEADER, flush=True)
            for plan in plans:
                for _ in range(options.runs):
                    try:
                        print(row(compare(run_plan(cluster, plan))), flush=True)
                    except AssertionError as error:  # a group that did not settle
                        print(f"| {plan.name} | did not settle: {str(error)[:160]} |", flush=True)
            print(f"\nload average at the end: {os.getloadavg()}", flush=True)
        finally:
            if not options.bootstrap:
                stop_cluster(cluster)
    os._exit(0)  # kafka-python's threads do not hold the exit up


if __name__ == "__main__":
    main()

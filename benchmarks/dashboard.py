"""Server-side rerun time of the dashboard at 10,000 partitions x 200 members.

Drives the real app script with Streamlit's AppTest (no browser): loads a generated scenario
through the upload control, picks three strategies, then clicks "Add member" and times the
rerun that follows (what the server spends before the page can update), cold (new scenario,
nothing cached) and warm (the same rerun again, e.g. a widget elsewhere touched). Prints the
figures; never part of the pass/fail suite.

    .venv/bin/python benchmarks/dashboard.py [--partitions 10000] [--members 200] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "dashboard" / "app.py")
STRATEGIES = ["range", "cooperative-sticky", "uniform"]


def large_scenario(
    partitions: int, members: int, topics: int = 4, seed: int = 7
) -> dict[str, object]:
    """A running group: ``topics`` topics sharing ``partitions``, owned round-robin, with lag."""
    rng = random.Random(seed)
    per_topic = partitions // topics
    names = [f"topic-{index}" for index in range(topics)]
    member_ids = [f"consumer-{index:03d}" for index in range(members)]
    owned: dict[str, list[list[object]]] = {member: [] for member in member_ids}
    slot = 0
    for name in names:
        for partition in range(per_topic):
            owned[member_ids[slot % members]].append([name, partition])
            slot += 1
    return {
        "name": f"Benchmark: {partitions:,} partitions x {members} members",
        "topics": [
            {
                "name": name,
                "partitions": per_topic,
                "lags": [int(rng.expovariate(1 / 2_000)) for _ in range(per_topic)],
            }
            for name in names
        ],
        "members": [
            {
                "member_id": member,
                "topics": names,
                "generation": 3,
                "owned_partitions": owned[member],
            }
            for member in member_ids
        ],
    }


def timed_run(app: AppTest) -> float:
    start = time.perf_counter()
    app.run()
    elapsed = time.perf_counter() - start
    if app.exception:
        raise SystemExit(f"the app failed: {app.exception[0].message}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--partitions", type=int, default=10_000)
    parser.add_argument("--members", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    text = json.dumps(large_scenario(args.partitions, args.members)).encode()

    cold: list[float] = []
    warm: list[float] = []
    for attempt in range(args.repeat):
        app = AppTest.from_file(APP, default_timeout=600)
        app.run()
        app.radio(key="source.kind").set_value("Upload").run()
        app.file_uploader(key="source.upload").upload("large.json", text, "application/json")
        load_s = timed_run(app)
        app.multiselect(key="strategies.pick").set_value(STRATEGIES)
        pick_s = timed_run(app)
        app.text_input(key="shape.add_id").input(f"new-member-{attempt}")
        app.button(key="shape.add_submit").click()
        cold.append(timed_run(app))
        warm.append(timed_run(app))
        print(
            f"run {attempt + 1}: load {load_s * 1000:,.0f} ms, pick 3 strategies "
            f"{pick_s * 1000:,.0f} ms, add member (cold) {cold[-1] * 1000:,.0f} ms, "
            f"same rerun (warm) {warm[-1] * 1000:,.0f} ms"
        )
    print(
        f"{args.partitions:,} partitions x {args.members} members, "
        f"strategies {', '.join(STRATEGIES)}:"
        f" rerun after add member median {statistics.median(cold) * 1000:,.0f} ms cold,"
        f" {statistics.median(warm) * 1000:,.0f} ms warm (target < 300 ms)"
    )


if __name__ == "__main__":
    main()

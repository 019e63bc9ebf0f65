"""Server-side rerun time of the dashboard at 10,000 partitions x 200 members.

Drives the real app script with Streamlit's AppTest (no browser): loads a generated scenario
through the upload control, picks three strategies, then clicks "Add member" and times the
rerun that follows (what the server spends before the page can update), cold (new scenario,
nothing cached) and warm (the same rerun again, e.g. a widget elsewhere touched). Prints the
figures; never part of the pass/fail suite.

    .venv/bin/python benchmarks/dashboard.py [--partitions 10000] [--members 200] [--repeat 3]

``--core`` also times the core calls one rerun makes per strategy (best of ``--repeat``), so a
slow rerun can be told apart from a slow core.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "dashboard" / "app.py")
# Run as a script, this file's folder comes first on the path, and benchmarks/assignors.py would
# hide the assignors package: put the checkout first.
if str(ROOT) not in sys.path[:1]:
    sys.path.insert(0, str(ROOT))
from tests.dashboard.app_session import add_form  # noqa: E402

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


def best_ms(call: Callable[[], object], repeat: int) -> float:
    """The fastest of ``repeat`` calls, in milliseconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def core_figures(raw: dict[str, object], repeat: int) -> None:
    """Time the core calls behind one "add member" rerun, per strategy."""
    from assignors import registry
    from assignors.io.scenario import parse_scenario
    from assignors.simulate import changes, drain, metrics, rebalance

    scenario, _ = parse_scenario(raw)
    current = changes.current_assignment(scenario)
    after = changes.apply_changes(scenario, [changes.AddMember("new-member")], current)
    group = {
        "current_assignment": best_ms(lambda: changes.current_assignment(scenario), repeat),
        "apply_changes": best_ms(
            lambda: changes.apply_changes(scenario, [changes.AddMember("x")], current), repeat
        ),
        "metrics of the current": best_ms(
            lambda: metrics.assignment_metrics(scenario, current, previous=current), repeat
        ),
    }
    print("core: " + ", ".join(f"{k} {v:.1f} ms" for k, v in group.items()))
    for name in STRATEGIES:
        strategy = registry.partition_strategies()[name]
        simulation = rebalance.simulate(scenario, after, strategy, previous=current)
        timings = {
            "strategy alone": best_ms(lambda: strategy.compute(after), repeat),  # noqa: B023
            "simulate (incl. strategy)": best_ms(
                lambda: rebalance.simulate(scenario, after, strategy, previous=current),  # noqa: B023
                repeat,
            ),
            "metrics": best_ms(
                lambda: metrics.assignment_metrics(after, simulation.target, previous=current),  # noqa: B023
                repeat,
            ),
            "drain 1 h at 15 s": best_ms(
                lambda: drain.project_drain(after, simulation, horizon_s=3600, step_s=15),  # noqa: B023
                repeat,
            ),
            "evaluate() all of it": best_ms(
                lambda: _evaluate_all(scenario, current, name),  # noqa: B023
                repeat,
            ),
        }
        print(f"core {name}: " + ", ".join(f"{k} {v:.1f} ms" for k, v in timings.items()))


def _evaluate_all(scenario: Any, current: Any, name: str) -> None:
    """What one strategy's column costs through the front door: target, rebalance, metrics and
    the drain (1 h at 15 s), as the dashboard asks :func:`assignors.evaluate`."""
    from assignors import AddMember, evaluate

    item = evaluate(scenario, [AddMember("new-member")], [name], previous=current).strategy(name)
    _ = (item.simulation, item.metrics, item.drain(3600, 15))


#: CPU seconds (every thread of this process) spent in the last :func:`timed_run`: on a busy
#: machine the wall time includes waiting for a core, the CPU time does not.
last_cpu_s = 0.0


def timed_run(app: AppTest) -> float:
    """Wall seconds of one rerun (its CPU seconds go to :data:`last_cpu_s`)."""
    global last_cpu_s
    start, start_cpu = time.perf_counter(), time.process_time()
    app.run()
    elapsed = time.perf_counter() - start
    last_cpu_s = time.process_time() - start_cpu
    if app.exception:
        raise SystemExit(f"the app failed: {app.exception[0].message}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--partitions", type=int, default=10_000)
    parser.add_argument("--members", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--core", action="store_true", help="also time the core calls")
    args = parser.parse_args()
    raw = large_scenario(args.partitions, args.members)
    if args.core:
        core_figures(raw, args.repeat)
    text = json.dumps(raw).encode()

    cold: list[float] = []
    warm: list[float] = []
    cold_cpu: list[float] = []
    warm_cpu: list[float] = []
    for attempt in range(args.repeat):
        app = AppTest.from_file(APP, default_timeout=600)
        app.session_state["panel.shape"] = True  # the what-if panel, opened
        app.run()
        app.radio(key="source.kind").set_value("Upload").run()
        app.file_uploader(key="source.upload").upload("large.json", text, "application/json")
        load_s = timed_run(app)
        app.multiselect(key="strategies.pick").set_value(STRATEGIES)
        pick_s = timed_run(app)
        add_form(app, "add_id").input(f"new-member-{attempt}")
        # Name the subscription: a form left at its default submits none, and the edit is
        # undone ("give at least one topic") instead of timing the rebalance.
        topics = [str(topic["name"]) for topic in raw["topics"]]  # type: ignore[attr-defined]
        add_form(app, "add_topics").set_value(topics)
        add_form(app, "add_submit").click()
        cold.append(timed_run(app))
        cold_cpu.append(last_cpu_s)
        if app.error:
            raise SystemExit(f"the edit was refused: {app.error[0].value}")
        warm.append(timed_run(app))
        warm_cpu.append(last_cpu_s)
        print(
            f"run {attempt + 1}: load {load_s * 1000:,.0f} ms, pick 3 strategies "
            f"{pick_s * 1000:,.0f} ms, add member (cold) {cold[-1] * 1000:,.0f} ms "
            f"(cpu {cold_cpu[-1] * 1000:,.0f} ms), same rerun (warm) {warm[-1] * 1000:,.0f} ms "
            f"(cpu {warm_cpu[-1] * 1000:,.0f} ms)"
        )
    print(
        f"{args.partitions:,} partitions x {args.members} members, "
        f"strategies {', '.join(STRATEGIES)}:"
        f" rerun after add member median {statistics.median(cold) * 1000:,.0f} ms cold"
        f" (cpu {statistics.median(cold_cpu) * 1000:,.0f} ms),"
        f" {statistics.median(warm) * 1000:,.0f} ms warm"
        f" (cpu {statistics.median(warm_cpu) * 1000:,.0f} ms) (target < 300 ms)"
    )


if __name__ == "__main__":
    main()

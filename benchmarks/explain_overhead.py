"""Does the optional decision trace slow the normal answer? Before/after timing, interleaved.

Not part of the test suite. Run from the repository root, naming a checkout without the trace
(for example the main branch's worktree) as the "before":

    .venv/bin/python benchmarks/explain_overhead.py --before /work/main
    .venv/bin/python benchmarks/explain_overhead.py --before /work/main --only sticky uniform

Groups: 10 topics x 1,000 partitions over 500 members, three kinds: ``fresh`` (nobody owns
anything, equal subscriptions), ``rebalance`` (every tenth member left, the rest own a balanced
previous assignment with generation 1) and ``mixed`` (as ``rebalance``, but every third member
subscribes to the first five topics only: the sticky assignors' general algorithm and uniform's
heterogeneous builder). Each (checkout, strategy, kind) runs in a fresh subprocess that times
``strategy.assign(scenario)`` (trace off, the normal path) best of three, in CPU time of the
process (so other work on the machine counts less); the before and after subprocesses alternate
``--rounds`` times and the table shows the median of each side. ``explain`` is the after
checkout's ``strategy.explain(scenario)`` (trace on), for scale.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
KINDS = ("fresh", "rebalance", "mixed")
TOPICS, PARTITIONS, MEMBERS = 10, 1_000, 500


def build(kind: str) -> dict[str, object]:
    """The scenario object (the file format) for ``kind`` (see the module docstring)."""
    topics = [{"name": f"topic-{t:02d}", "partitions": PARTITIONS} for t in range(TOPICS)]
    names = [topic["name"] for topic in topics]
    members: list[dict[str, object]] = []
    for m in range(MEMBERS):
        if kind != "fresh" and m % 10 == 0:
            continue  # a tenth of the group left
        subscription = names[:5] if kind == "mixed" and m % 3 == 0 else names
        member: dict[str, object] = {"member_id": f"member-{m:04d}", "topics": subscription}
        if kind != "fresh":
            owned = [
                [name, p]
                for t, name in enumerate(names)
                for p in range(PARTITIONS)
                if (t * PARTITIONS + p) % MEMBERS == m and name in subscription
            ]
            member.update(owned_partitions=owned, generation=1)
        members.append(member)
    return {"topics": topics, "members": members}


def worker(root: str, strategy_name: str, kind: str, explain: bool) -> None:
    sys.path.insert(0, root)
    from assignors import parse_scenario, registry

    scenario, _ = parse_scenario(build(kind))
    strategy = registry.get(strategy_name)
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        if explain:
            strategy.explain(scenario)  # type: ignore[union-attr]
        else:
            strategy.assign(scenario)  # type: ignore[union-attr]
        best = min(best, time.process_time() - started)
    print(json.dumps(best))


def run(root: str, strategy: str, kind: str, explain: bool = False) -> float:
    command = [sys.executable, __file__, "--worker", root, strategy, kind]
    if explain:
        command.append("--explain")
    out = subprocess.run(command, check=True, capture_output=True, text=True, cwd="/")
    return float(json.loads(out.stdout))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="a checkout without the trace (required)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--explain", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.worker:
        worker(*options.worker, options.explain)
        return
    if not options.before:
        parser.error("--before DIR is required")
    sys.path.insert(0, str(HERE))
    from assignors import registry

    names = options.only or list(registry.partition_strategies())
    print(
        f"{'strategy':18} {'group':9} {'before s':>9} {'after s':>9} {'change':>8} {'explain':>8}"
    )
    for name in names:
        for kind in KINDS:
            before: list[float] = []
            after: list[float] = []
            for _ in range(options.rounds):
                before.append(run(options.before, name, kind))
                after.append(run(str(HERE), name, kind))
            b, a = statistics.median(before), statistics.median(after)
            explained = run(str(HERE), name, kind, explain=True)
            print(
                f"{name:18} {kind:9} {b:9.4f} {a:9.4f} {100 * (a - b) / b:+7.1f}% {explained:8.4f}",
                flush=True,
            )


if __name__ == "__main__":
    main()

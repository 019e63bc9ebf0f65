"""Our Kafka strategies side by side with Kafka's own Java assignors, same inputs, one run.

Not part of the test suite. Run from the repository root (Java 17 and Maven on the path):

    .venv/bin/python benchmarks/versus_java.py                  # check size, then 1M x 2,000
    .venv/bin/python benchmarks/versus_java.py --only sticky --sizes large
    .venv/bin/python benchmarks/versus_java.py --sizes check    # the equality check only

Every strategy the oracle covers (``oracle/``: Kafka 4.4.0) runs at two sizes, each ``fresh``
and ``rebalance`` (every tenth member has left; the rest own what they held in a balanced
previous assignment, generation 1; the sticky strategies read it as owned partitions, the broker
strategies as the current target, share-simple as the current assignment):

* ``check``: 10 topics x 1,000 partitions, 500 members (tasks: 10 subtopologies x 100
  partitions over 100 clients). Both answers are compared (``tests/differential/compare.py``):
  a difference stops the run, since then the two sides did not see the same input. With
  ``--check-answers`` the answers are compared at every size (a side that failed, e.g. Java out
  of memory, is listed under the table instead).
* ``large``: 500 topics x 2,000 partitions, 2,000 members, everyone subscribed to everything.
  Streams strategies: 200,000 tasks (100 subtopologies x 2,000 partitions; our Streams model
  takes at most 200,000, and Kafka's HA assignor needed 60 s for 1,000,000 on this machine)
  over 2,000 clients of one thread (``streams-group-sticky``: one member each); subtopology 0 is
  stateful (2,000 tasks, one standby replica; Streams needs every client's lag for every stateful
  task). ``rebalance``: task ``k`` ran on client ``k mod clients`` (active, lag -2) and its standby
  on the next one (lag 500); other lags 10,000,000.

How it measures: the request (``{"id", "strategy", "scenario"}``, the batch contract) is written
once to a file; both sides read that same line. Java: one JVM (``oracle.Bench``, ``-Xmx`` from
``--java-heap``) runs ``--warmup`` untimed and ``--runs`` timed ``assign`` calls, each on inputs
built afresh from the parsed request, garbage collected before the call. Ours: one subprocess per
(strategy, size, kind) parses the request (untimed), then times ``--warmup`` + ``--runs`` calls
of the strategy (``assign``, building the sorted ``Assignment``; tasks: ``compute``) with
``time.perf_counter``. What our timed call builds: a complete ``Assignment`` any consumer can
read; for most strategies that holds every ``TopicPartition`` object, while ``server-range``
and, on a fresh group, ``sticky`` and ``cooperative-sticky`` answer with ``PartitionRuns`` (each
member's ranges: ``len`` and ``in`` in O(runs), the partition objects made when read). So the
column "read every partition" times, once after the timed calls, making a list of every member's
partitions (collector on): for runs that is the deferred work, for the others a walk over
objects already made.
Figures: best and median of the timed runs; ratio = our median / Java's
median (target: at most 1), and the same for CPU time (Java: the whole JVM's process CPU, the
collector's and compiler's threads included; ours: ``time.process_time``), steadier than the wall
clock on a shared machine. Sides run one after the other, never at once. Output, rewritten after
every row (a stopped run keeps its rows): ``benchmarks/results/versus_java.json`` and
``benchmarks/results/versus_java.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

RESULTS_JSON = REPO / "benchmarks" / "results" / "versus_java.json"

KINDS = ("fresh", "rebalance")
#: (topics or subtopologies, partitions each, members or clients) per size.
SIZES = {"check": (10, 1_000, 500), "large": (500, 2_000, 2_000)}
#: Streams: our model takes at most 200,000 tasks (``assignors.streams.model.MAX_TASKS``).
TASK_SIZES = {"check": (10, 100, 100), "large": (100, 2_000, 2_000)}
SIZE_LABELS = {"check": "10k x 500", "large": "1M x 2,000"}
STREAMS = ("streams-ha", "streams-sticky")
STREAMS_GROUP = ("streams-group-sticky",)


# --- the inputs (one request line per strategy, size and kind) ----------------------------------


def member_id(index: int) -> str:
    """Shaped like a real client member id (client id, dash, UUID); deterministic."""
    return f"consumer-bench-{index}-{uuid.UUID(int=random.Random(index).getrandbits(128))}"


def gone(index: int) -> bool:
    """Whether member (client) ``index`` left before the rebalance: every tenth."""
    return index % 10 == 9


def partition_scenario(size: str, kind: str) -> dict[str, Any]:
    topics, per_topic, members = SIZES[size]
    names = [f"topic-{t:04d}" for t in range(topics)]
    owned: list[list[list[Any]]] = [[] for _ in range(members)]
    if kind == "rebalance":
        k = 0
        for name in names:
            for partition in range(per_topic):
                owned[k % members].append([name, partition])
                k += 1
    listed = []
    for index in range(members):
        if kind == "rebalance" and gone(index):
            continue
        member: dict[str, Any] = {"member_id": member_id(index), "topics": names}
        if kind == "rebalance":
            member["owned_partitions"] = owned[index]
            member["generation"] = 1
        listed.append(member)
    return {
        "topics": [{"name": name, "partitions": per_topic} for name in names],
        "members": listed,
    }


def streams_scenario(size: str, kind: str, group: bool) -> dict[str, Any]:
    subtopologies, per_subtopology, clients = TASK_SIZES[size]
    tasks = [f"{s}_{p}" for s in range(subtopologies) for p in range(per_subtopology)]
    stateful = tasks[:per_subtopology]  # subtopology 0
    actives: list[list[str]] = [[] for _ in range(clients)]
    standbys: list[list[str]] = [[] for _ in range(clients)]
    if kind == "rebalance":
        for i, task in enumerate(tasks):
            actives[i % clients].append(task)
        for i, task in enumerate(stateful):
            standbys[(i + 1) % clients].append(task)
    listed = []
    for c in range(clients):
        if kind == "rebalance" and gone(c):
            continue
        active, standby = actives[c], standbys[c]
        lags = dict.fromkeys(stateful, 10_000_000)
        lags.update(dict.fromkeys(standby, 500))
        lags.update({t: -2 for t in active if t in lags})
        client: dict[str, Any] = {
            "process_id": str(uuid.UUID(int=random.Random(-c - 1).getrandbits(128))),
            "capacity": 1,
            "task_lags": lags,
        }
        history = {"prev_active": active, "prev_standby": standby}
        if group:
            client["members"] = [{"member_id": member_id(c), **history}]
        else:
            client.update(history)
        listed.append(client)
    config: dict[str, Any] = {"num_standby_replicas": 1}
    if not group:
        config.update(
            acceptable_recovery_lag=10_000,
            max_warmup_replicas=2,
            probing_rebalance_interval_ms=600_000,
        )
    return {
        "tasks": [{"id": t, "stateful": t in lags} for t in tasks],
        "clients": listed,
        "config": config,
    }


def request_line(strategy: str, size: str, kind: str) -> str:
    if strategy in STREAMS or strategy in STREAMS_GROUP:
        scenario = streams_scenario(size, kind, group=strategy in STREAMS_GROUP)
    else:
        scenario = partition_scenario(size, kind)
    request = {"id": f"{strategy}:{size}:{kind}", "strategy": strategy, "scenario": scenario}
    return json.dumps(request, separators=(",", ":"))


# --- ours: one subprocess per measurement -------------------------------------------------------


def run_worker(path: Path, warmup: int, runs: int, answer: bool) -> dict[str, Any]:
    """Parse the request in ``path`` (untimed), then time ``warmup + runs`` calls of ours."""
    from assignors import registry
    from assignors.io.scenario import parse_scenario
    from assignors.strategy import PartitionStrategy

    request = json.loads(path.read_bytes())
    strategy = registry.get(request["strategy"])
    if isinstance(strategy, PartitionStrategy):
        scenario, _ = parse_scenario(request["scenario"], path="", json_checked=True)

        def call() -> Any:
            return strategy.assign(scenario)

        def to_json(result: Any) -> Any:
            return result.to_json()
    else:
        parsed = strategy.parse(request["scenario"])

        def call() -> Any:
            return strategy.compute(parsed)

        def to_json(result: Any) -> Any:
            return strategy.to_json(result)

    del request
    import gc

    seconds, cpu_seconds = [], []
    result: Any = None
    for _ in range(warmup + runs):
        result = None
        gc.collect()
        cpu_start, start = time.process_time(), time.perf_counter()
        result = call()
        seconds.append(time.perf_counter() - start)
        cpu_seconds.append(time.process_time() - cpu_start)
    figures: dict[str, Any] = {
        "warmup_s": seconds[:warmup],
        "seconds": seconds[warmup:],
        "cpu_s": cpu_seconds[warmup:],
    }
    if isinstance(strategy, PartitionStrategy):
        figures["read_s"], figures["read_cpu_s"] = read_all(result)
    if answer:
        figures["assignment"] = to_json(result)
    return figures


def read_all(assignment: Any) -> tuple[float, float]:
    """Seconds (wall, CPU) to read every partition of ``assignment`` once, as a consumer that
    wants the objects would: a list of each member's ``TopicPartition`` objects, all kept until
    the clock stops. For a tuple answer that walks objects ``assign`` already made; for
    ``PartitionRuns`` (``server-range``; ``sticky`` and ``cooperative-sticky`` fresh) it makes
    them (``assign`` deferred that)."""
    cpu_start, start = time.process_time(), time.perf_counter()
    lists = [list(partitions) for partitions in assignment.partitions.values()]
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    assert sum(map(len, lists)) == sum(map(len, assignment.partitions.values()))
    return seconds, cpu_seconds


def measure_ours(path: Path, args: argparse.Namespace, answer: bool) -> dict[str, Any]:
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", str(path),
               "--warmup", str(args.warmup), "--runs", str(args.runs)]  # fmt: skip
    if answer:
        command.append("--answer")
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=args.timeout, cwd=REPO, check=False
        )
    except subprocess.TimeoutExpired:
        return {"error": f"stopped after {args.timeout:.0f} s"}
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["no output"])[-1][:200]}
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


# --- Java: one JVM for the whole run ------------------------------------------------------------


class JavaBench:
    """One ``oracle.Bench`` JVM; :meth:`time` sends one request file and reads its answer."""

    def __init__(self, heap: str) -> None:
        from tests.oracle import build, build_dir

        target = build()
        classpath = (build_dir() / "oracle.classpath").read_text(encoding="utf-8").strip()
        command = ["java", f"-Xmx{heap}", "-Xss16m", "-cp",
                   f"{target / 'oracle.jar'}:{classpath}", "oracle.Bench"]  # fmt: skip
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )

    def time(self, path: Path, warmup: int, runs: int, answer: bool) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        extra = json.dumps({"warmup": warmup, "runs": runs, "answer": answer})
        line = path.read_bytes().rstrip(b"\n")
        # The request's closing brace gives way to the timing fields (one JSON object).
        self.process.stdin.write(line[:-1] + b"," + extra[1:].encode() + b"\n")
        self.process.stdin.flush()
        reply = self.process.stdout.readline()
        if not reply:
            stderr = self.process.stderr.read().decode() if self.process.stderr else ""
            return {"error": "the JVM ended: " + stderr.strip()[-300:]}
        answer_object: dict[str, Any] = json.loads(reply)
        for field, name in (("java_ns", "seconds"), ("warmup_ns", "warmup_s"), ("cpu_ns", "cpu_s"),
                            ("thread_cpu_ns", "thread_cpu_s")):  # fmt: skip
            if field in answer_object:
                answer_object[name] = [ns / 1e9 for ns in answer_object.pop(field)]
        return answer_object

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=60)


# --- one strategy, size and kind; the table -----------------------------------------------------


def summary(figures: dict[str, Any]) -> dict[str, Any]:
    if "error" in figures:
        return {"error": figures["error"]}
    runs = figures["seconds"]
    result = {
        "best_s": round(min(runs), 4),
        "median_s": round(statistics.median(runs), 4),
        "cpu_median_s": round(statistics.median(figures["cpu_s"]), 4),
        "runs_s": [round(s, 4) for s in runs],
        "cpu_s": [round(s, 4) for s in figures["cpu_s"]],
        "warmup_s": [round(s, 4) for s in figures["warmup_s"]],
    }
    if "thread_cpu_s" in figures:
        result["thread_cpu_s"] = [round(s, 4) for s in figures["thread_cpu_s"]]
    if "read_s" in figures:
        result["read_s"] = round(figures["read_s"], 4)
        result["read_cpu_s"] = round(figures["read_cpu_s"], 4)
    return result


def compare(strategy: str, ours: dict[str, Any], java: dict[str, Any]) -> str:
    """Empty when both answers are the same assignment; else what differs."""
    from tests.differential.compare import differ

    return differ(strategy, {"assignment": ours["assignment"]}, {"assignment": java["assignment"]})


def run_one(
    strategy: str, size: str, kind: str, java: JavaBench, args: argparse.Namespace
) -> dict[str, Any]:
    answer = size == "check" or args.check_answers
    with tempfile.TemporaryDirectory(prefix="versus-java-") as folder:
        path = Path(folder) / "request.json"
        path.write_text(request_line(strategy, size, kind) + "\n", encoding="utf-8")
        request_mb = path.stat().st_size / 1e6
        java_figures = java.time(path, args.warmup, args.runs, answer)
        our_figures = measure_ours(path, args, answer)
    result: dict[str, Any] = {
        "strategy": strategy,
        "size": size,
        "kind": kind,
        "request_mb": round(request_mb, 1),
        "java": summary(java_figures),
        "ours": summary(our_figures),
    }
    # A side that failed (Java out of memory, ours past --timeout) is listed under the table,
    # not counted as a different answer.
    if answer and "error" not in our_figures and "error" not in java_figures:
        result["difference"] = compare(strategy, our_figures, java_figures)
    for figure, name in (("median_s", "ratio"), ("cpu_median_s", "cpu_ratio")):
        java_figure, our_figure = result["java"].get(figure), result["ours"].get(figure)
        if java_figure and our_figure is not None:
            result[name] = round(our_figure / java_figure, 2)
    return result


def cells(result: dict[str, Any]) -> list[str]:
    def side(figures: dict[str, Any]) -> list[str]:
        if "error" in figures:
            return ["error", ""]
        wall = f"{figures['median_s']:.3f} ({figures['best_s']:.3f})"
        return [wall, f"{figures['cpu_median_s']:.3f}"]

    read = result["ours"].get("read_s")
    read_cell = "" if read is None else f"{read:.3f} ({result['ours']['read_cpu_s']:.3f})"

    def shown(ratio: float | None) -> str:
        return "" if ratio is None else f"{ratio:.2f}"

    ratio, cpu_ratio = result.get("ratio"), result.get("cpu_ratio")
    verdict = ""
    if ratio is not None and cpu_ratio is not None and result["size"] == "large":
        verdict = "met" if ratio <= 1 and cpu_ratio <= 1 else "missed"
    check = {None: "", "": "equal"}.get(result.get("difference"), "DIFFER")
    return [result["strategy"], size_label(result["strategy"], result["size"]), result["kind"],
            *side(result["java"]), *side(result["ours"]), read_cell,
            shown(ratio), shown(cpu_ratio), verdict, check]  # fmt: skip


def size_label(strategy: str, size: str) -> str:
    """``1M x 2,000`` (partitions x members), or ``200k tasks x 2,000`` (tasks x clients)."""
    if strategy in STREAMS or strategy in STREAMS_GROUP:
        subtopologies, per_subtopology, clients = TASK_SIZES[size]
        return f"{subtopologies * per_subtopology // 1000}k tasks x {clients:,}"
    return SIZE_LABELS[size]


HEADER = ["strategy", "size", "kind", "Java s median (best)", "Java CPU s", "ours s median (best)",
          "ours CPU s", "ours: read every partition s (CPU)", "ours / Java", "ours / Java CPU",
          "ours no slower", "answers"]  # fmt: skip


def markdown(results: list[dict[str, Any]], machine: str) -> str:
    lines = ["# Ours beside Kafka's Java assignors", "", machine, "",
             "| " + " | ".join(HEADER) + " |", "|" + " --- |" * len(HEADER)]  # fmt: skip
    lines += ["| " + " | ".join(cells(result)) + " |" for result in results]
    errors = [r for r in results if "error" in r["java"] or "error" in r["ours"]]
    lines += [""] + [
        f"- {r['strategy']} {r['size']} {r['kind']}: java {r['java'].get('error', 'ok')}; "
        f"ours {r['ours'].get('error', 'ok')}"
        for r in errors
    ]
    return "\n".join(lines).rstrip() + "\n"


def plan(args: argparse.Namespace) -> Iterator[tuple[str, str, str]]:
    from tests.differential.core import KAFKA_STRATEGIES

    for size in args.sizes:
        for strategy in KAFKA_STRATEGIES:
            if args.only and strategy not in args.only:
                continue
            for kind in KINDS:
                yield strategy, size, kind


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", metavar="STRATEGY", help="these strategies only")
    parser.add_argument("--sizes", nargs="+", choices=tuple(SIZES), default=list(SIZES))
    parser.add_argument("--warmup", type=int, default=2, help="untimed calls first (each side)")
    parser.add_argument("--runs", type=int, default=3, help="timed calls (each side)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per run of ours")
    parser.add_argument("--java-heap", default="6g")
    parser.add_argument(
        "--check-answers",
        action="store_true",
        help="compare both answers at every size (always done at the check size)",
    )
    parser.add_argument("--output", type=Path, default=RESULTS_JSON)
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--answer", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(run_worker(args.worker, args.warmup, args.runs, args.answer)))
        return

    results: list[dict[str, Any]] = []
    load_at_start = os.getloadavg()[0]
    java = JavaBench(args.java_heap)
    try:
        for strategy, size, kind in plan(args):
            result = run_one(strategy, size, kind, java, args)
            results.append(result)
            print("  ".join(cells(result)), file=sys.stderr, flush=True)
            # Saved after every row: a run stopped part-way keeps what it measured.
            save(args, results, load_at_start)
            if result.get("difference"):
                sys.exit(f"{strategy} {size} {kind}: answers differ: {result['difference']}")
    finally:
        java.close()
    print(args.output.with_suffix(".md").read_text(encoding="utf-8"))


def save(args: argparse.Namespace, results: list[dict[str, Any]], load_at_start: float) -> None:
    """Write this run's rows (merged into earlier ones) to the JSON file and its table."""
    java_version = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr
    machine = (
        f"Generated {datetime.now(UTC).isoformat(timespec='seconds')} by "
        f"`benchmarks/versus_java.py` (warm-up {args.warmup}, timed runs {args.runs}); "
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs, load average "
        f"{load_at_start:.1f} at the start and {os.getloadavg()[0]:.1f} at the last row; "
        f"Kafka 4.4.0 on {java_version.splitlines()[0]}."
    )
    args.output.parent.mkdir(parents=True, exist_ok=True)
    document: dict[str, Any] = {"machine": machine, "results": merged(args.output, results)}
    args.output.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    table = markdown(document["results"], machine)
    args.output.with_suffix(".md").write_text(table, encoding="utf-8")


def merged(path: Path, results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Earlier results in ``path`` updated with this run's (keyed by strategy, size and kind)."""
    table: dict[tuple[str, str, str], dict[str, Any]] = {}
    if path.exists():
        for result in json.loads(path.read_text(encoding="utf-8")).get("results", []):
            table[(result["strategy"], result["size"], result["kind"])] = result
    for result in results:
        table[(result["strategy"], result["size"], result["kind"])] = result
    from tests.differential.core import KAFKA_STRATEGIES

    def key(result: dict[str, Any]) -> tuple[int, int, int]:
        return (list(SIZES).index(result["size"]), KAFKA_STRATEGIES.index(result["strategy"]),
                KINDS.index(result["kind"]))  # fmt: skip

    return sorted(table.values(), key=key)


if __name__ == "__main__":
    main()

"""Our Kafka strategies side by side with Kafka's own Java assignors, like for like, one run.

Not part of the test suite. Run from the repository root (Java 17 and Maven on the path):

    .venv/bin/python benchmarks/versus_java.py                  # check + mid sizes (~10 min)
    .venv/bin/python benchmarks/versus_java.py --full --readme  # check + 1M x 2,000 (quiet machine)
    .venv/bin/python benchmarks/versus_java.py --only uniform --sizes mid
    .venv/bin/python benchmarks/versus_java.py --sizes check    # the equality check only

Every strategy the oracle covers (``oracle/``: Kafka 4.4.0) runs ``fresh`` and ``rebalance``
(every tenth member has left; the rest own what they held in a balanced previous assignment,
generation 1; the sticky strategies read it as owned partitions, the broker strategies as the
current target, share-simple as the current assignment), at these sizes:

* ``check``: 10 topics x 1,000 partitions, 500 members (tasks: 10 subtopologies x 100
  partitions over 100 clients). Both answers are compared (``tests/differential/compare.py``):
  a difference stops the run, since then the two sides did not see the same input. With
  ``--check-answers`` the answers are compared at every size.
* ``mid``: 100 topics x 1,000 partitions, 200 members (tasks: 20,000 over 200 clients); a size
  to develop at on a busy machine.
* ``large`` (``--full``): 500 topics x 2,000 partitions, 2,000 members, everyone subscribed to
  everything. Streams strategies: 200,000 tasks (100 subtopologies x 2,000 partitions) over
  2,000 clients of one thread; subtopology 0 is stateful (one standby replica). ``rebalance``:
  task ``k`` ran on client ``k mod clients`` (active, lag -2) and its standby on the next one
  (lag 500); other lags 10,000,000.

Like for like. Each side is timed until it holds the answer in the form Kafka's assignor gives:

* ``like-for-like lazy`` (``server-range``): Kafka's group-coordinator ``RangeAssignor``
  answers with ``RangeSet``s, so ours is timed answering with ``PartitionRuns`` (ranges whose
  ``TopicPartition`` objects are made when read).
* ``answer read`` (the other consumer-group strategies): Kafka's answer is complete collections,
  so ours is timed for the call *plus* one full read of every member's partitions as a list
  (for a lazy answer, such as the runs of a fresh ``sticky`` group, that makes every object).
* ``answer complete`` (Streams strategies): both answers are complete task sets; the call.

Runs are interleaved: one JVM (``oracle.Bench``) serves the whole run and one worker process of
ours per row (it parses the request once, untimed); both warm up (``--warmup`` calls each),
then each timed run is Java's call, then ours, ``--runs`` times, the 1-minute load average
read beside every run. Java's inputs are built afresh and garbage is collected before each of
its calls;
ours collects garbage before each. Figures per row: medians of the timed runs, wall clock and
CPU. Java CPU is given twice: the whole JVM (collector and compiler threads included) and the
calling thread alone. Ours: ``time.process_time`` (one thread). The verdict compares ours with
Java's whole-JVM CPU (steadier than the wall clock on a shared machine): ``met`` when ours is at
or under it, ``behind`` when not, and ``not judged: load X`` when the highest 1-minute load
average of the row's runs was above one per core (a loaded machine inflates both sides
unevenly), or Java's whole-JVM CPU was under 0.05 s (the JVM counts it in 10 ms steps).
Check-size rows are not judged (milliseconds). Output, rewritten after every row (a stopped run
keeps its rows): ``benchmarks/results/versus_java.json`` and ``versus_java.md``; ``--readme``
also re-makes the table in ``benchmarks/results/README.md`` from that file.
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
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from functools import partial
from operator import methodcaller
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

RESULTS_JSON = REPO / "benchmarks" / "results" / "versus_java.json"

KINDS = ("fresh", "rebalance")
#: (topics or subtopologies, partitions each, members or clients) per size.
SIZES = {"check": (10, 1_000, 500), "mid": (100, 1_000, 200), "large": (500, 2_000, 2_000)}
#: Streams: our model takes at most 200,000 tasks (``assignors.streams.model.MAX_TASKS``).
TASK_SIZES = {"check": (10, 100, 100), "mid": (10, 2_000, 200), "large": (100, 2_000, 2_000)}
SIZE_LABELS = {"check": "10k x 500", "mid": "100k x 200", "large": "1M x 2,000"}
#: How each strategy's timed answer compares with Kafka's (see the module docstring).
LAZY_LIKE_KAFKA = frozenset({"server-range"})
#: A row is judged only when the highest 1-minute load average of its runs is at most this
#: many per core.
MAX_LOAD_PER_CORE = 1.0
#: The JVM reports its process CPU time in 10 ms steps (Linux clock ticks): a row is judged
#: only when Java's whole-JVM CPU median is at least five steps.
MIN_JAVA_CPU_S = 0.05
#: For the estimate printed before a run: seconds per call of each side at the large size
#: (Java, ours with the answer read; from the runs of 2026-11-27/28), and per row the cost of
#: making, parsing and sending the request.
LARGE_CALL_S = {
    "range": (1.6, 0.7), "roundrobin": (4.0, 0.8), "sticky": (3.0, 0.6),
    "cooperative-sticky": (3.0, 0.7), "uniform": (0.6, 0.8), "server-range": (0.05, 0.1),
    "share-simple": (4.0, 2.5), "streams-ha": (50.0, 2.5), "streams-sticky": (80.0, 2.0),
    "streams-group-sticky": (0.7, 1.9),
}  # fmt: skip
LARGE_ROW_OVERHEAD_S = 45.0
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


# --- ours: one worker process per row ----------------------------------------------------------


def comparison(strategy: str) -> str:
    """How the timed answer of ours compares with Kafka's (module docstring)."""
    if strategy in STREAMS or strategy in STREAMS_GROUP:
        return "answer complete"
    return "like-for-like lazy" if strategy in LAZY_LIKE_KAFKA else "answer read"


def run_worker(path: Path) -> None:
    """Parse the request in ``path`` (untimed), print ``ready``, then answer commands from stdin,
    one JSON line each: ``run`` (one timed call: the figures), ``answer`` (the last answer)."""
    from assignors import registry
    from assignors.io.scenario import parse_scenario
    from assignors.strategy import PartitionStrategy

    request = json.loads(path.read_bytes())
    strategy = registry.get(request["strategy"])
    read = comparison(request["strategy"]) == "answer read"
    call: Callable[[], Any]
    to_json: Callable[[Any], Any]
    if isinstance(strategy, PartitionStrategy):
        scenario, _ = parse_scenario(request["scenario"], path="", json_checked=True)
        call, to_json = partial(strategy.assign, scenario), methodcaller("to_json")
    else:
        call, to_json = (
            partial(strategy.compute, strategy.parse(request["scenario"])),
            strategy.to_json,
        )
    del request
    print(json.dumps({"ready": True}), flush=True)
    result: Any = None
    for command in sys.stdin:
        if command.strip() == "run":
            result = None
            figures, result = timed_call(call, read)
            print(json.dumps(figures), flush=True)
        elif command.strip() == "answer":
            print(json.dumps({"assignment": to_json(result)}), flush=True)


def timed_call(call: Callable[[], Any], read: bool) -> tuple[dict[str, float], Any]:
    """One call of ours after a collection: wall and CPU seconds of the call, and of one read of
    every member's partitions as lists when ``read`` (kept until the clock stops)."""
    import gc

    gc.collect()
    cpu_start, start = time.process_time(), time.perf_counter()
    result = call()
    call_s, call_cpu_s = time.perf_counter() - start, time.process_time() - cpu_start
    read_s = read_cpu_s = 0.0
    if read:
        cpu_start, start = time.process_time(), time.perf_counter()
        lists = [list(partitions) for partitions in result.partitions.values()]
        read_s, read_cpu_s = time.perf_counter() - start, time.process_time() - cpu_start
        del lists
    figures = {"wall": call_s + read_s, "cpu": call_cpu_s + read_cpu_s, "read": read_s,
               "read_cpu": read_cpu_s}  # fmt: skip
    return figures, result


class OurWorker:
    """One worker process of ours for one request file (parsed once, untimed)."""

    def __init__(self, path: Path, timeout: float) -> None:
        command = [sys.executable, str(Path(__file__).resolve()), "--worker", str(path)]
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
        )
        self.timeout = timeout
        self.ask(None)

    def ask(self, command: str | None) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        if command is not None:
            self.process.stdin.write(command + "\n")
            self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            stderr = self.process.stderr.read() if self.process.stderr else ""
            raise RuntimeError((stderr.strip().splitlines() or ["no output"])[-1][:200])
        answer: dict[str, Any] = json.loads(line)
        return answer

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()


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


# --- one strategy, size and kind: interleaved runs ---------------------------------------------


def interleaved(
    path: Path, java: JavaBench, args: argparse.Namespace, answer: bool
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Both sides warmed up, then ``args.runs`` times Java's call followed by ours; the figures
    of each side (lists in run order, ``load`` the 1-minute load average after each pair) and
    the answers when ``answer``. A side that failed gives ``{"error": ...}``."""
    java_runs: dict[str, Any] = {"seconds": [], "cpu_s": [], "thread_cpu_s": []}
    our_runs: dict[str, Any] = {"seconds": [], "cpu_s": [], "read_s": [], "read_cpu_s": []}
    loads: list[float] = []
    try:
        worker = OurWorker(path, args.timeout)
    except RuntimeError as error:
        return java.time(path, args.warmup, args.runs, answer), {"error": str(error)}
    try:
        java_failed = java.time(path, args.warmup, 0, False).get("error")
        for _ in range(args.warmup):
            worker.ask("run")
        for run in range(args.runs):
            last = run == args.runs - 1
            if not java_failed:
                figures = java.time(path, 0, 1, answer and last)
                java_failed = figures.get("error")
                for name in java_runs:
                    java_runs[name] += figures.get(name, [])
                if "assignment" in figures:
                    java_runs["assignment"] = figures["assignment"]
            ours = worker.ask("run")
            for name, field in (("seconds", "wall"), ("cpu_s", "cpu"), ("read_s", "read"),
                                ("read_cpu_s", "read_cpu")):  # fmt: skip
                our_runs[name].append(ours[field])
            loads.append(os.getloadavg()[0])
        if answer:
            our_runs["assignment"] = worker.ask("answer")["assignment"]
    except RuntimeError as error:
        return ({"error": java_failed} if java_failed else java_runs), {"error": str(error)}
    finally:
        worker.close()
    our_runs["load"] = java_runs["load"] = loads
    return ({"error": java_failed} if java_failed else java_runs), our_runs


def summary(figures: dict[str, Any]) -> dict[str, Any]:
    """Medians (and the run lists) of one side's figures."""
    if "error" in figures:
        return {"error": figures["error"]}
    result: dict[str, Any] = {}
    for name in ("seconds", "cpu_s", "thread_cpu_s", "read_s", "read_cpu_s"):
        if figures.get(name):
            result[name.replace("seconds", "wall_s") + "_median"] = round(
                statistics.median(figures[name]), 4
            )
            result[name.replace("seconds", "wall_s") + "_runs"] = [
                round(v, 4) for v in figures[name]
            ]
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
        java_figures, our_figures = interleaved(path, java, args, answer)
    result: dict[str, Any] = {
        "strategy": strategy, "size": size, "kind": kind, "comparison": comparison(strategy),
        "request_mb": round(request_mb, 1), "load_1min": our_figures.get("load", []),
        "java": summary(java_figures), "ours": summary(our_figures),
    }  # fmt: skip
    if answer and "error" not in our_figures and "error" not in java_figures:
        result["difference"] = compare(strategy, our_figures, java_figures)
    ours, java_side = result["ours"], result["java"]
    for name, java_figure in (("ratio_wall", "wall_s_median"), ("ratio_cpu", "cpu_s_median"),
                              ("ratio_thread_cpu", "thread_cpu_s_median")):  # fmt: skip
        mine = ours.get("wall_s_median" if name == "ratio_wall" else "cpu_s_median")
        if java_side.get(java_figure) and mine is not None:
            result[name] = round(mine / java_side[java_figure], 2)
    result["verdict"] = verdict(result)
    return result


def verdict(result: dict[str, Any]) -> str:
    """``met`` / ``behind`` against Java's whole-JVM CPU, unless the machine was too busy."""
    if result["size"] == "check" or "error" in result["java"] or "error" in result["ours"]:
        return ""
    load = max(result["load_1min"], default=0.0)
    if load > MAX_LOAD_PER_CORE * (os.cpu_count() or 1):
        return f"not judged: load {load:.1f}"
    java_cpu = result["java"].get("cpu_s_median", 0.0)
    if java_cpu < MIN_JAVA_CPU_S:
        return f"not judged: Java CPU {java_cpu:.3f} s, too few steps of its 10 ms clock"
    return "met" if result["ratio_cpu"] <= 1 else "behind"


# --- the table ---------------------------------------------------------------------------------


HEADER = ["strategy", "size", "kind", "comparison", "Java s", "Java CPU s (JVM / thread)",
          "ours s", "ours CPU s (of which read)", "ours / Java CPU (JVM)",
          "ours / Java CPU (thread)", "ours / Java wall", "load (1 min)", "verdict",
          "answers"]  # fmt: skip


def cells(result: dict[str, Any]) -> list[str]:
    """One table row: medians, ratios, the load beside the row and the verdict."""
    java, ours = result["java"], result["ours"]

    def figure(side: dict[str, Any], name: str) -> str:
        value = side.get(name)
        return "" if value is None else f"{value:.3f}"

    java_cpu = (
        "error"
        if "error" in java
        else (f"{figure(java, 'cpu_s_median')} / {figure(java, 'thread_cpu_s_median')}")
    )
    our_cpu = (
        "error"
        if "error" in ours
        else figure(ours, "cpu_s_median")
        + (
            f" ({figure(ours, 'read_cpu_s_median')})"
            if result.get("comparison") == "answer read"
            else ""
        )
    )
    loads = result.get("load_1min") or []
    load = f"{min(loads):.1f}-{max(loads):.1f}" if loads else ""
    check = {None: "", "": "equal"}.get(result.get("difference"), "DIFFER")
    ratios = [f"{result[r]:.2f}" if r in result else "" for r in
              ("ratio_cpu", "ratio_thread_cpu", "ratio_wall")]  # fmt: skip
    return [result["strategy"], size_label(result["strategy"], result["size"]), result["kind"],
            result.get("comparison", ""), figure(java, "wall_s_median"), java_cpu,
            figure(ours, "wall_s_median"), our_cpu, *ratios, load, verdict(result),
            check]  # fmt: skip


def size_label(strategy: str, size: str) -> str:
    """``1M x 2,000`` (partitions x members), or ``200k tasks x 2,000`` (tasks x clients)."""
    if strategy in STREAMS or strategy in STREAMS_GROUP:
        subtopologies, per_subtopology, clients = TASK_SIZES[size]
        return f"{subtopologies * per_subtopology // 1000}k tasks x {clients:,}"
    return SIZE_LABELS[size]


def table(results: list[dict[str, Any]]) -> list[str]:
    """The Markdown table of ``results`` (rows measured by this script's current form only)."""
    lines = ["| " + " | ".join(HEADER) + " |", "|" + " --- |" * len(HEADER)]
    lines += ["| " + " | ".join(cells(r)) + " |" for r in results if "comparison" in r]
    errors = [r for r in results if "error" in r["java"] or "error" in r["ours"]]
    lines += [""] + [
        f"- {r['strategy']} {r['size']} {r['kind']}: java {r['java'].get('error', 'ok')}; "
        f"ours {r['ours'].get('error', 'ok')}"
        for r in errors
    ]
    return lines


def markdown(results: list[dict[str, Any]], machine: str) -> str:
    lines = ["# Ours beside Kafka's Java assignors", "", machine, "", *table(results)]
    return "\n".join(lines).rstrip() + "\n"


def plan(args: argparse.Namespace) -> Iterator[tuple[str, str, str]]:
    from tests.differential.core import KAFKA_STRATEGIES

    for size in args.sizes:
        for strategy in KAFKA_STRATEGIES:
            if args.only and strategy not in args.only:
                continue
            for kind in KINDS:
                yield strategy, size, kind


def expected_seconds(args: argparse.Namespace) -> float:
    """A rough length of the planned run: calls of both sides plus each row's set-up, scaled
    from the large size by partitions (tasks for Streams)."""
    total = 0.0
    for strategy, size, _ in plan(args):
        table_of_sizes = TASK_SIZES if strategy in STREAMS or strategy in STREAMS_GROUP else SIZES
        groups, each, _members = table_of_sizes[size]
        large_groups, large_each, _ = table_of_sizes["large"]
        scale = groups * each / (large_groups * large_each)
        java_s, ours_s = LARGE_CALL_S.get(strategy, (5.0, 2.0))
        total += scale * ((args.warmup + args.runs) * (java_s + ours_s) + LARGE_ROW_OVERHEAD_S)
    return total


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", metavar="STRATEGY", help="these strategies only")
    parser.add_argument("--sizes", nargs="+", choices=tuple(SIZES), default=["check", "mid"])
    parser.add_argument(
        "--full",
        action="store_true",
        help="the full run: check and 1M x 2,000 (run it on a quiet machine)",
    )
    parser.add_argument("--warmup", type=int, default=2, help="untimed calls first (each side)")
    parser.add_argument("--runs", type=int, default=3, help="timed calls (each side)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="(kept for scripts)")
    parser.add_argument("--java-heap", default="6g")
    parser.add_argument(
        "--check-answers",
        action="store_true",
        help="compare both answers at every size (always at the check size)",
    )
    parser.add_argument(
        "--readme",
        action="store_true",
        help="re-make the table in benchmarks/results/README.md from the output",
    )
    parser.add_argument("--output", type=Path, default=RESULTS_JSON)
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        run_worker(args.worker)
        return
    if args.full:
        args.sizes = ["check", "large"]
    print(
        f"expected duration on a quiet machine: about {expected_seconds(args) / 60:.0f} min (sizes "
        f"{', '.join(args.sizes)}; load average now {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} cores; a busy one takes longer)",
        file=sys.stderr,
        flush=True,
    )
    run_all(args)
    print(args.output.with_suffix(".md").read_text(encoding="utf-8"))
    if args.readme:
        update_readme(args.output)


def run_all(args: argparse.Namespace) -> None:
    """Every planned row, saved as it comes; stops at an answer that differs."""
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


def save(args: argparse.Namespace, results: list[dict[str, Any]], load_at_start: float) -> None:
    """Write this run's rows (merged into earlier ones) to the JSON file and its table."""
    java_version = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr
    machine = (
        f"Generated {datetime.now(UTC).isoformat(timespec='seconds')} by "
        f"`benchmarks/versus_java.py` (warm-up {args.warmup}, timed runs {args.runs}, "
        f"interleaved); Python {platform.python_version()}, {os.cpu_count()} CPUs, load average "
        f"{load_at_start:.1f} at the start and {os.getloadavg()[0]:.1f} at the last row; "
        f"Kafka 4.4.0 on {java_version.splitlines()[0]}."
    )
    args.output.parent.mkdir(parents=True, exist_ok=True)
    document: dict[str, Any] = {"machine": machine, "results": merged(args.output, results)}
    args.output.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    args.output.with_suffix(".md").write_text(
        markdown(document["results"], machine), encoding="utf-8"
    )


README = REPO / "benchmarks" / "results" / "README.md"
TABLE_START = "<!-- versus_java table: made by benchmarks/versus_java.py --readme -->"
TABLE_END = "<!-- end of versus_java table -->"


def update_readme(output: Path) -> None:
    """Replace the table between the markers in the results README with ``output``'s rows
    (every size but the check size) and the line that says how they were made."""
    document = json.loads(output.read_text(encoding="utf-8"))
    rows = [r for r in document["results"] if r["size"] != "check"]
    block = [TABLE_START, "", document["machine"], "", *table(rows), TABLE_END]
    text = README.read_text(encoding="utf-8")
    before, rest = text.split(TABLE_START, 1)
    after = rest.split(TABLE_END, 1)[1]
    README.write_text(before + "\n".join(block).replace("\n\n\n", "\n\n") + after, encoding="utf-8")


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
        return (
            list(SIZES).index(result["size"]),
            KAFKA_STRATEGIES.index(result["strategy"]),
            KINDS.index(result["kind"]),
        )

    return sorted(table.values(), key=key)


if __name__ == "__main__":
    main()

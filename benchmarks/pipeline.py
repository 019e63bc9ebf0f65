"""Pipeline benchmark: Spark (local mode) against the same work single-process with pandas.

    .venv/bin/python benchmarks/pipeline.py [--sizes 100,1000,10000,100000]
        [--pandas-up-to 10000] [--lag-groups 100] [--master local[2]] [--skip-whatif]
        [--skip-lag] [--lag-runs 2] [--no-drain-search]

1. Fleet what-if: for each size N, a synthetic fleet (``pipeline.synth``: 4 to 1,024 partitions,
   1 to 64 members, two samples a minute apart), then every group x 4 strategies (range,
   roundrobin, sticky, cooperative-sticky) x change ``none``, plus the current row and the
   extra-members-to-drain search. Spark: :func:`pipeline.whatif.fleet_whatif` written to
   Parquet. pandas: read the same Parquet, rates with ``groupby().diff()``, then
   :func:`pipeline.scenarios.whatif_rows` per group in one process, written to Parquet. Both
   outputs are compared row by row (the parity count).
2. Lag history: 100 groups of 4 to 64 partitions over 24 h at 30 s (2,881 samples). Spark: the
   job of ``python -m pipeline lag`` (:func:`pipeline.lag_history.write_lag_history`: partition,
   member and group lag, partition and group health).
   pandas: the same five tables single-process; the group verdicts are compared.

Wall times exclude generating the input and Spark's start-up (reported once); the first Spark
job after start-up runs a tiny warm-up so Python workers exist. Beside each time: the 1-minute
load average before/after (the machine may be shared). ``Spark CPU s``: CPU time (user +
system) of this process, Spark's JVM and its Python workers during the Spark run: against the
wall time it shows how much of the 2 cores Spark used; in brackets the JVM's own share
(planning, the JIT compiler, reading, shuffling, handing rows to Python as Arrow). The driver's
peak memory is the peak resident memory of this Python process plus Spark's JVM during the
Spark run (Linux ``VmHWM``, reset before each run). ``fit``: least squares ``seconds = fixed +
per-group cost x groups`` over the sizes. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipeline import lag_frames, lag_history, scenarios, tables, whatif
from pipeline.scenarios import ChangeSpec
from pipeline.synth import SynthConfig, write_history

STRATEGIES = ["range", "roundrobin", "sticky", "cooperative-sticky"]
WORK = Path("/tmp/ae-bench-pipeline")


def _plain(frame: pd.DataFrame) -> pd.DataFrame:
    for column in frame.columns:
        if isinstance(frame[column].dtype, pd.CategoricalDtype):
            frame[column] = frame[column].astype(object)
    frame["t"] = frame["time"].astype("int64") // 10**6
    return frame


def pandas_whatif(
    folder: Path, out: Path, drain_target_s: float | None, groups: list[str] | None = None
) -> int:
    """The fleet what-if in one process; ``groups``: only those groups' rows are read."""
    where = None if groups is None else [("group_id", "in", groups)]
    offsets = _plain(pd.read_parquet(folder / "offsets", filters=where))
    members = _plain(pd.read_parquet(folder / "members", filters=where))
    keys = ["cluster", "group_id", "topic", "partition"]
    offsets = offsets.sort_values([*keys, "t"])
    offsets["problem"] = None
    offsets["lag"] = np.where(
        offsets["committed"].notna(), (offsets["log_end"] - offsets["committed"]).clip(lower=0), 0
    )
    step = offsets.groupby(keys, sort=False)
    seconds = step["t"].diff()
    offsets["produce_rate"] = step["log_end"].diff() / seconds
    offsets["consume_rate"] = step["committed"].diff() / seconds
    latest = offsets.groupby(["cluster", "group_id"])["t"].transform("max")
    current = offsets[offsets["t"] == latest]
    member_latest = members.groupby(["cluster", "group_id"])["t"].transform("max")
    current_members = members[members["t"] == member_latest]
    by_group = dict(iter(current_members.groupby(["cluster", "group_id"])))
    rows: list[dict[str, Any]] = []
    for key, group in current.groupby(["cluster", "group_id"], sort=False):
        rows += scenarios.whatif_rows(
            group,
            by_group.get(key, current_members.iloc[0:0]),
            strategies=STRATEGIES,
            change_specs=[ChangeSpec("none")],
            drain_target_s=drain_target_s,
        )
    frame = whatif.rows_frame(rows, scenarios.WHATIF_COLUMNS)
    frame.to_parquet(out)
    return len(frame)


def pandas_lag(folder: Path, out: Path, window_s: int = 600) -> pd.DataFrame:
    offsets = _plain(pd.read_parquet(folder / "offsets"))
    keys = ["cluster", "group_id", "topic", "partition"]
    offsets = offsets.sort_values([*keys, "t"], kind="stable")
    offsets["lag"] = np.where(
        offsets["committed"].notna(), (offsets["log_end"] - offsets["committed"]).clip(lower=0), 0
    )
    step = offsets.groupby(keys, sort=False, observed=True)
    seconds = step["t"].diff()
    offsets["produce_rate"] = step["log_end"].diff() / seconds
    offsets["consume_rate"] = step["committed"].diff() / seconds
    offsets.to_parquet(out / "partition_lag.parquet")
    offsets["member_id"] = offsets["member_id"].fillna(lag_frames.UNOWNED)
    member = (
        offsets.groupby(["cluster", "group_id", "t", "member_id"], sort=False)
        .agg(lag=("lag", "sum"), partitions=("lag", "size"), consume_rate=("consume_rate", "sum"))
        .reset_index()
    )
    member.to_parquet(out / "member_lag.parquet")
    ordered = member.sort_values(["lag", "member_id"])
    group = ordered.groupby(["cluster", "group_id", "t"], sort=False).agg(
        lag_total=("lag", "sum"),
        members=("lag", "size"),
        worst_member=("member_id", "last"),
        worst_member_lag=("lag", "last"),
    )
    group.reset_index().to_parquet(out / "group_lag.parquet")
    at = int(offsets["t"].max())
    inside = offsets[(offsets["t"] > at - window_s) & (offsets["t"] <= at)].copy()
    step = inside.groupby(keys, sort=False)
    inside["committed_step"] = step["committed"].diff()
    inside["lag_step"] = step["lag"].diff()
    summary = inside.groupby(keys, sort=False).agg(
        samples=("lag", "count"),
        min_lag=("lag", "min"),
        rewinds=("committed_step", lambda s: int((s < 0).sum())),
        moves=("committed_step", lambda s: int((s != 0).sum() - s.isna().sum())),
        lag_drops=("lag_step", lambda s: int((s < 0).sum())),
        first_lag=("lag", "first"),
        last_lag=("lag", "last"),
        owner=("member_id", "last"),
    )
    still = (summary["moves"] == 0) & (summary["min_lag"] > 0)
    unowned = summary["owner"] == lag_frames.UNOWNED
    summary["status"] = np.select(
        [
            summary["samples"] < 2,
            summary["rewinds"] > 0,
            summary["min_lag"] == 0,
            still & unowned,
            still,
            (summary["lag_drops"] == 0) & (summary["last_lag"] > summary["first_lag"]),
        ],
        ["NOTFOUND", "REWIND", "OK", "STOP", "STALL", "WARN"],
        "OK",
    )
    statuses = summary.reset_index()
    statuses.to_parquet(out / "partition_health.parquet")
    verdict = statuses.groupby(["cluster", "group_id"])["status"].agg(
        lambda s: (
            "ERR"
            if s.isin(["STOP", "STALL"]).any()
            else "WARN"
            if s.isin(["WARN", "REWIND"]).any()
            else "NOTFOUND"
            if (s == "NOTFOUND").all()
            else "OK"
        )
    )
    verdict.reset_index().to_parquet(out / "group_health.parquet")
    return verdict.reset_index()


def spark_whatif(
    spark: Any, folder: Path, out: Path, drain_target_s: float | None, groups: int
) -> None:
    """The Spark side's timed work: read, the what-if, write Parquet (as the pandas side).
    ``groups``: the fleet's size, known here from its generation as ``python -m pipeline
    whatif`` knows it from the count it shows progress against."""
    offsets = tables.prepare_offsets(tables.read_table(spark, str(folder / "offsets"), "offsets"))
    members = tables.prepare_members(tables.read_table(spark, str(folder / "members"), "members"))
    result = whatif.fleet_whatif(
        offsets,
        members,
        strategies=STRATEGIES,
        change_specs=[ChangeSpec("none")],
        drain_target_s=drain_target_s,
        groups=groups,
    )
    result.write.mode("overwrite").parquet(str(out))


def spark_lag(spark: Any, folder: Path, out: Path) -> Any:
    """The job of ``python -m pipeline lag`` (:func:`pipeline.lag_history.write_lag_history`)."""
    offsets = tables.prepare_offsets(tables.read_table(spark, str(folder / "offsets"), "offsets"))
    lag_history.write_lag_history(offsets, out)
    return spark.read.parquet(str(out / "group_health")).select("group_id", "status").toPandas()


def _same_rows(spark_rows: pd.DataFrame, pandas_rows: pd.DataFrame) -> tuple[int, int]:
    """(rows equal, rows) of the two what-if outputs, matched by group, strategy and change."""
    left = spark_rows.sort_values(["group_id", "strategy", "change"])
    right = pandas_rows.sort_values(["group_id", "strategy", "change"])
    left = left[list(scenarios.WHATIF_COLUMNS)].reset_index(drop=True)
    right = right[list(scenarios.WHATIF_COLUMNS)].reset_index(drop=True)
    if len(left) != len(right):
        return 0, max(len(left), len(right))
    same = 0
    for a, b in zip(left.itertuples(index=False), right.itertuples(index=False), strict=True):
        equal = all(
            (pd.isna(x) and pd.isna(y))
            or x == y
            or (
                isinstance(x, float)
                and isinstance(y, float)
                and abs(x - y) <= 1e-9 * max(1, abs(x))
            )
            for x, y in zip(a, b, strict=True)
        )
        same += equal
    return same, len(left)


def _load() -> str:
    """The 1-minute load average now (the machine is shared: say how busy it was)."""
    return f"{os.getloadavg()[0]:.1f}"


def _reset_peak(pid: int) -> None:
    """Reset a process's peak resident memory (Linux ``clear_refs``; ignored elsewhere)."""
    with contextlib.suppress(OSError):
        Path(f"/proc/{pid}/clear_refs").write_text("5")


def _status_mb(pid: int, field: str) -> float:
    """A ``/proc/PID/status`` memory field (``VmHWM``: peak resident since the last reset,
    ``VmRSS``: resident now) in MB; 0 when unknown."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _peak_mb(pid: int) -> float:
    return _status_mb(pid, "VmHWM")


def _resident_mb(pid: int) -> float:
    return _status_mb(pid, "VmRSS")


def _process_table() -> dict[int, list[str]]:
    """Every process's ``/proc/PID/stat`` fields after its name (Linux)."""
    table: dict[int, list[str]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                table[int(entry.name)] = (entry / "stat").read_text().rsplit(")", 1)[1].split()
    return table


def _tree(root: int, table: dict[int, list[str]]) -> set[int]:
    """``root`` and its descendants in ``table``."""
    tree, grew = {root}, True
    while grew:
        more = {pid for pid, fields in table.items() if int(fields[1]) in tree} - tree
        tree |= more
        grew = bool(more)
    return tree


def _tree_cpu_s(root: int) -> float:
    """CPU seconds (user + system, reaped children's included) of ``root`` and its descendants:
    for this process, the Spark JVM it started and the JVM's Python workers (Linux ``/proc``)."""
    table = _process_table()
    tree = _tree(root, table)
    ticks = sum(sum(int(x) for x in table[pid][11:15]) for pid in tree if pid in table)
    return ticks / os.sysconf("SC_CLK_TCK")


def _own_cpu_s(pid: int) -> float:
    """CPU seconds (user + system) of one process itself, e.g. Spark's JVM (Linux ``/proc``)."""
    fields = _process_table().get(pid)
    return sum(int(x) for x in fields[11:13]) / os.sysconf("SC_CLK_TCK") if fields else 0.0


def _spark_cpu_s() -> float:
    """CPU seconds of this process, the Spark JVM it started and the JVM's Python workers."""
    return _tree_cpu_s(os.getpid())


def _timed(
    label: str, action: Any, pids: tuple[int, ...] = (), clock: Any = _spark_cpu_s
) -> tuple[float, Any, str, float, float]:
    """(seconds, value, load average before/after, peak MB of ``pids`` together, CPU seconds
    by ``clock``: the Spark runs' process tree by default; the pandas runs, which run in this
    process alone, pass :func:`time.process_time` (the tree would lose the ticks of Spark's
    idle Python workers that exit meanwhile, and the pandas run's CPU came out as ~34 s of a
    310 s run))."""
    for pid in pids:
        _reset_peak(pid)
    print(f"  {label} ...", file=sys.stderr, flush=True)
    before = _load()
    cpu_before = clock()
    started = time.perf_counter()
    value = action()
    elapsed = time.perf_counter() - started
    cpu = clock() - cpu_before
    peak = sum(_peak_mb(pid) for pid in pids)
    print(
        f"  {label}: {elapsed:.1f} s, CPU {cpu:.1f} s, peak {peak:.0f} MB",
        file=sys.stderr,
        flush=True,
    )
    return elapsed, value, f"{before}/{_load()}", peak, cpu


def fit_per_group(points: list[tuple[int, float]]) -> tuple[float, float]:
    """Least-squares ``seconds = fixed + per_group * groups``: (fixed s, per-group ms)."""
    if len(points) < 2:
        groups, seconds = points[0]
        return 0.0, 1000 * seconds / groups
    sizes = np.array([p[0] for p in points], dtype=float)
    times = np.array([p[1] for p in points], dtype=float)
    slope, intercept = np.polyfit(sizes, times, 1)
    return float(intercept), float(1000 * slope)


def _whatif_config(size: int) -> SynthConfig:
    return SynthConfig(
        groups=size,
        hours=1 / 60,
        interval_s=60,
        seed=1,
        min_partitions=4,
        max_partitions=1024,
        min_members=1,
        max_members=64,
    )


def _input(size: int) -> tuple[Path, int]:
    """The synthetic fleet of ``size`` groups, generated once: a run that measures one engine
    reuses the input an earlier run wrote (its row count is kept beside it)."""
    folder = WORK / f"whatif-{size}"
    done = folder / "rows.txt"
    if done.exists():
        return folder, int(done.read_text())
    shutil.rmtree(folder, ignore_errors=True)
    rows_in, _ = write_history(_whatif_config(size), folder)
    done.write_text(str(rows_in))
    return folder, rows_in


def _sample_groups(folder: Path, count: int) -> list[str]:
    """``count`` group ids spread evenly over the fleet (sorted ids, every k-th)."""
    ids = sorted(pd.read_parquet(folder / "members", columns=["group_id"])["group_id"].unique())
    step = max(1, len(ids) // count)
    return [str(group) for group in ids[::step][:count]]


def _sampled_parity(folder: Path, spark_out: Path, drain_target: float | None) -> str:
    """Parity where pandas cannot hold the fleet: the pandas baseline on up to 1,000 groups
    (each group's rows depend on that group alone) against Spark's rows for them."""
    sample = _sample_groups(folder, 1000)
    pandas_whatif(folder, WORK / "out-pandas-sample.parquet", drain_target, sample)
    spark_rows = pd.read_parquet(spark_out, filters=[("group_id", "in", sample)])
    same, total = _same_rows(spark_rows, pd.read_parquet(WORK / "out-pandas-sample.parquet"))
    return f"{same}/{total} rows of {len(sample):,} sampled groups equal"


class _Sampler:
    """Calls :meth:`sample` every ``interval_s`` on a thread while the ``with`` block runs."""

    interval_s = 0.5

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> _Sampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.sample()

    def sample(self) -> None:
        raise NotImplementedError


class MemoryCap(_Sampler):
    """Stops this process when its resident memory passes ``cap_mb`` during the pandas run, and
    says so: a single process that cannot hold the fleet is a result, not a crash to wait for
    (the machine would swap or the kernel kill something else first)."""

    interval_s = 0.25

    def __init__(self, cap_mb: float, line: Any) -> None:
        super().__init__()
        self.cap_mb, self.line, self.started = cap_mb, line, time.perf_counter()

    def sample(self) -> None:
        resident = _resident_mb(os.getpid())
        if resident > self.cap_mb:
            print(self.line(resident, time.perf_counter() - self.started), flush=True)
            os._exit(3)


def _stopped_line(head: str, spark_cells: list[str], cap_mb: float) -> Any:
    """The table line for a pandas run stopped at the memory cap."""

    def line(resident: float, seconds: float) -> str:
        return (
            f"{head}{' | '.join(spark_cells[1:3])} | did not fit: stopped after {seconds:.0f} s"
            f" (cap {cap_mb:,.0f} MB) | - | {spark_cells[3]} | {resident:,.0f} | - |"
        )

    return line


class WorkerWatch(_Sampler):
    """The largest resident memory any one of Spark's Python workers (the JVM's descendants)
    reached while the block ran: the driver's figure leaves them out, and a worker that kept
    every group's garbage grew to 10 GB unseen."""

    def __init__(self, jvm: int) -> None:
        super().__init__()
        self.jvm, self.largest_mb = jvm, 0.0

    def sample(self) -> None:
        for pid in _tree(self.jvm, _process_table()) - {self.jvm}:
            self.largest_mb = max(self.largest_mb, _resident_mb(pid))


def _spark_cells(spark: Any, folder: Path, size: int, drain_target: float | None) -> list[str]:
    driver = (os.getpid(), spark.sparkContext._gateway.proc.pid)
    workers = WorkerWatch(driver[1])
    jvm_before = _own_cpu_s(driver[1])
    with workers:
        spark_s, _, load, peak, cpu = _timed(
            "spark what-if",
            lambda: spark_whatif(spark, folder, WORK / f"out-spark-{size}", drain_target, size),
            driver,
        )
    jvm = _own_cpu_s(driver[1]) - jvm_before
    print(f"  largest Python worker: {workers.largest_mb:,.0f} MB", file=sys.stderr, flush=True)
    # Counting the written rows reads the output again: after the clock, as the pandas side
    # (its rows are in memory) does not read its output again either.
    started = time.perf_counter()
    written = spark.read.parquet(str(WORK / f"out-spark-{size}")).count()
    print(
        f"  rows written: {written:,} (counted in {time.perf_counter() - started:.1f} s,"
        " outside the timed run)",
        file=sys.stderr,
        flush=True,
    )
    return [
        f"{spark_s:.1f} ({load})",
        f"{cpu:.0f} (JVM {jvm:.0f})",
        f"{1000 * spark_s / size:.1f}",
        f"{peak:,.0f} (worker {workers.largest_mb:,.0f})",
    ]


def run_whatif_sizes(
    spark: Any | None,
    sizes: list[int],
    drain_target: float | None,
    pandas_up_to: int,
    cap_mb: float,
) -> tuple[list[str], list[tuple[int, float]], list[tuple[int, float]]]:
    """One table line per size, and the (groups, seconds) points of Spark and pandas.

    ``spark`` None: pandas only. Sizes past ``pandas_up_to`` get no pandas run; a pandas run
    whose memory passes ``cap_mb`` ends the process with a line saying so. Parity: every row
    when both ran, else 1,000 sampled groups against pandas."""
    lines: list[str] = []
    spark_points: list[tuple[int, float]] = []
    pandas_points: list[tuple[int, float]] = []
    for size in sizes:
        folder, rows_in = _input(size)
        print(f"what-if {size} groups: {rows_in:,} offsets rows", file=sys.stderr)
        spark_cells = ["not run"] * 4
        if spark is not None:
            spark_cells = _spark_cells(spark, folder, size, drain_target)
            spark_points.append((size, float(spark_cells[0].split()[0])))
        pandas_cells, ratio, parity = ["not run", "-"], "-", "-"
        head = f"| what-if x4 strategies | {size:,} | {rows_in:,} | {spark_cells[0]} | "
        if size <= pandas_up_to:
            out = WORK / f"out-pandas-{size}.parquet"
            with MemoryCap(cap_mb, _stopped_line(head, spark_cells, cap_mb)):
                pandas_s, _, load, pandas_peak, _ = _timed(
                    "pandas what-if",
                    lambda f=folder, o=out: pandas_whatif(f, o, drain_target),
                    (os.getpid(),),
                    time.process_time,
                )
            pandas_points.append((size, pandas_s))
            pandas_cells = [f"{pandas_s:.1f} ({load})", f"{pandas_peak:.0f}"]
            if spark is not None:
                same, total = _same_rows(
                    pd.read_parquet(WORK / f"out-spark-{size}"), pd.read_parquet(out)
                )
                ratio = f"{pandas_s / float(spark_cells[0].split()[0]):.2f}"
                parity = f"{same}/{total} rows equal"
        elif spark is not None:
            parity = _sampled_parity(folder, WORK / f"out-spark-{size}", drain_target)
        lines.append(
            f"{head}{' | '.join(spark_cells[1:3])} | {pandas_cells[0]} | {ratio}"
            f" | {spark_cells[3]} | {pandas_cells[1]} | {parity} |"
        )
        print(lines[-1], file=sys.stderr)
    return lines, spark_points, pandas_points


def run_lag(spark: Any, groups: int, runs: int = 2) -> list[str]:
    """Rows of the table for the lag history: the Spark job ``runs`` times in this session
    (the first run of a fresh session also pays the JVM's compilation of Spark's code; later
    runs show a warm session's cost), each against the one pandas run."""
    folder = WORK / f"lag-{groups}"
    shutil.rmtree(folder, ignore_errors=True)
    config = SynthConfig(
        groups=groups,
        hours=24,
        interval_s=30,
        seed=2,
        min_partitions=4,
        max_partitions=64,
        min_members=1,
        max_members=16,
    )
    rows_in, _ = write_history(config, folder)
    print(f"lag history: {rows_in:,} offsets rows", file=sys.stderr)
    out = WORK / "lag-spark"
    driver = (os.getpid(), spark.sparkContext._gateway.proc.pid)
    spark_runs, jvm_cpu = [], []
    for run in range(1, runs + 1):
        jvm_before = _own_cpu_s(driver[1])
        spark_runs.append(
            _timed(f"spark lag, run {run}", lambda: spark_lag(spark, folder, out), driver)
        )
        jvm_cpu.append(_own_cpu_s(driver[1]) - jvm_before)
    (WORK / "lag-pandas").mkdir(parents=True, exist_ok=True)
    pandas_s, pandas_verdicts, pandas_load, pandas_peak, _ = _timed(
        "pandas lag",
        lambda: pandas_lag(folder, WORK / "lag-pandas"),
        (os.getpid(),),
        time.process_time,
    )
    lines = []
    for run, (spark_s, spark_verdicts, spark_load, peak, spark_cpu) in enumerate(spark_runs, 1):
        merged = spark_verdicts.merge(pandas_verdicts, on="group_id", suffixes=("_s", "_p"))
        agree = int((merged["status_s"] == merged["status_p"]).sum())
        lines.append(
            f"| lag history 24 h @ 30 s, Spark run {run} | {groups:,} | {rows_in:,}"
            f" | {spark_s:.1f} ({spark_load}) | {spark_cpu:.0f} (JVM {jvm_cpu[run - 1]:.0f})"
            f" | {1000 * spark_s / groups:.0f}"
            f" | {pandas_s:.1f} ({pandas_load}) | {pandas_s / spark_s:.2f} | {peak:.0f}"
            f" | {pandas_peak:.0f} | {agree}/{len(merged)} verdicts equal |"
        )
    return lines


def _available_mb() -> float:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) / 1024
    return 8192.0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--pandas-up-to", type=int, default=10_000, help="largest pandas size")
    parser.add_argument("--lag-groups", type=int, default=100)
    parser.add_argument(
        "--lag-runs", type=int, default=2, help="Spark lag runs in the session (first = cold JVM)"
    )
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--skip-whatif", action="store_true")
    parser.add_argument("--skip-lag", action="store_true")
    parser.add_argument("--no-drain-search", action="store_true")
    parser.add_argument(
        "--engines", default="spark,pandas", help="spark,pandas (both), spark or pandas"
    )
    parser.add_argument(
        "--pandas-cap-mb",
        type=float,
        default=0.8 * _available_mb(),
        help="stop the pandas run past this resident memory (default: 80%% of what is free)",
    )
    options = parser.parse_args()
    drain_target = None if options.no_drain_search else 3600.0
    engines = set(options.engines.split(","))
    spark = None
    lines = []
    if "spark" in engines:
        from pipeline.session import get_session

        started = time.perf_counter()
        spark = get_session(options.master, conf={"spark.ui.showConsoleProgress": "false"})
        spark.sparkContext.setLogLevel("ERROR")
        spark.range(4).mapInPandas(lambda it: it, "id long").count()  # start Python workers
        startup = time.perf_counter() - started
        lines.append(
            f"Spark {spark.version}, master {options.master}, {os.cpu_count()} cores,"
            f" start-up {startup:.1f} s (excluded); (x/y) = 1-minute load average before/after"
        )
    pandas_up_to = options.pandas_up_to if "pandas" in engines else 0
    lines += [
        "",
        "| job | groups | input rows | Spark s (load) | Spark CPU s | Spark ms/group"
        " | pandas s (load) | pandas / Spark | driver peak MB (Python + JVM; largest worker)"
        " | pandas peak MB | parity |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    print("\n".join(lines), flush=True)
    if not options.skip_whatif:
        sizes = [int(s) for s in options.sizes.split(",")]
        table, spark_points, pandas_points = run_whatif_sizes(
            spark, sizes, drain_target, pandas_up_to, options.pandas_cap_mb
        )
        lines += table
        fits = [("Spark", spark_points), ("pandas", pandas_points)]
        for name, points in fits:
            if points:
                fixed, per_group = fit_per_group(points)
                lines.append(f"fit {name}: {fixed:.1f} s + {per_group:.2f} ms per group")
    if not options.skip_lag and spark is not None:
        lines.extend(run_lag(spark, options.lag_groups, options.lag_runs))
    if spark is not None:
        spark.stop()
    print("\n".join(lines))


if __name__ == "__main__":
    main()

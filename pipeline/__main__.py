"""``python -m pipeline lag|whatif|replay|synth|package``: the pipeline's one entry point.

    python -m pipeline synth  --groups 1000 --hours 24 --output history/
    python -m pipeline lag    --input history/ --output out/lag/
    python -m pipeline whatif --input history/ --output out/whatif/ --strategy range \\
                              --strategy cooperative-sticky --change none --change add:1
    python -m pipeline replay --input history/ --output out/replay/ --window 604800
    python -m pipeline package --output dist/assignment_explorer.zip   # + dist/pipeline_job.py

On a cluster: ``--master spark://HOST:7077`` (the packages are shipped to the executors), or
``spark-submit --master spark://HOST:7077 --py-files dist/assignment_explorer.zip
dist/pipeline_job.py whatif ...`` (nothing but the zip and the job file needed).

``--input DIR`` holds ``offsets/`` and ``members/`` (or name them with ``--offsets`` and
``--members``); outputs are Parquet directories under ``--output``; a short summary goes to
stdout, progress to stderr (:mod:`pipeline.progress`: stages, tasks and groups done, time
left, every few seconds while a job runs). ``--master`` (default: Spark configuration, else
``local[*]``) and ``--conf key=value`` configure Spark. Bad input prints ``error: ...`` and exits 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assignors import AssignmentExplorerError
from pipeline.progress import Progress

EXIT_FAILURE = 2


def _progress(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _timestamp(text: str | None) -> int | None:
    if text is None:
        return None
    if text.lstrip("-").isdigit():
        return int(text)
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"--at {text!r}: use ISO 8601 (2026-01-05T12:00:00Z) or epoch seconds"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp())


def _parser() -> argparse.ArgumentParser:
    spark = argparse.ArgumentParser(add_help=False)
    spark.add_argument("--master", help="Spark master (default: Spark config, else local[*])")
    spark.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE")
    spark.add_argument("--input", help="directory with offsets/ and members/")
    spark.add_argument("--offsets", help="the offsets table (Parquet or JSON lines)")
    spark.add_argument("--members", help="the members table (Parquet or JSON lines)")
    spark.add_argument("--output", required=True, help="directory for the Parquet results")
    spark.add_argument("--group", action="append", default=[], help="only these groups")
    spark.add_argument("--at", help="evaluation time (ISO 8601 or epoch s; default latest)")
    spark.add_argument(
        "--auto-offset-reset",
        choices=("latest", "earliest", "none"),
        default="latest",
        help="where a group without a commit starts reading (lag rule; default latest)",
    )
    parser = argparse.ArgumentParser(prog="python -m pipeline", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    lag = commands.add_parser("lag", parents=[spark], help="lag history and health verdicts")
    lag.add_argument("--window", type=int, default=600, help="health window in s (600)")
    lag.add_argument("--min-samples", type=int, default=2)
    strategies = argparse.ArgumentParser(add_help=False)
    strategies.add_argument("--strategy", action="append", default=[], help="repeatable")
    whatif = commands.add_parser(
        "whatif", parents=[spark, strategies], help="every group x strategy x change"
    )
    whatif.add_argument(
        "--change",
        action="append",
        default=[],
        help="none | remove | a change in the text form: add:N, remove:ID, restart:ID,"
        " partitions:topic=N, skew, ... (repeatable)",
    )
    whatif.add_argument("--horizon", type=float, default=3600.0)
    whatif.add_argument("--step", type=float, default=10.0)
    whatif.add_argument(
        "--drain-target",
        type=float,
        default=3600.0,
        help="extra members needed to drain within this many s (0: skip)",
    )
    whatif.add_argument("--default-consume-rate", type=float, default=1000.0)
    replay = commands.add_parser("replay", parents=[spark, strategies], help="strategies replayed")
    replay.add_argument("--window", type=int, default=7 * 24 * 3600, help="seconds (7 days)")
    package = commands.add_parser(
        "package", help="zip assignors and pipeline for spark-submit --py-files"
    )
    package.add_argument(
        "--output", default="dist/assignment_explorer.zip", help="the zip (pipeline_job.py beside)"
    )
    synth = commands.add_parser("synth", help="write a seeded synthetic history")
    synth.add_argument("--output", required=True)
    synth.add_argument("--groups", type=int, default=100)
    synth.add_argument("--hours", type=float, default=24.0)
    synth.add_argument("--interval", type=int, default=60, help="seconds between samples")
    synth.add_argument("--seed", type=int, default=7)
    synth.add_argument("--clusters", type=int, default=1)
    synth.add_argument("--min-partitions", type=int, default=4)
    synth.add_argument("--max-partitions", type=int, default=64)
    synth.add_argument("--min-members", type=int, default=1)
    synth.add_argument("--max-members", type=int, default=16)
    synth.add_argument(
        "--every-incident",
        action="store_true",
        help="group i gets incident i %% 6 for sure (churn, stuck, hot, stop, rewind)",
    )
    return parser


def _inputs(options: argparse.Namespace) -> tuple[str, str]:
    offsets, members = options.offsets, options.members
    if options.input:
        offsets = offsets or str(Path(options.input) / "offsets")
        members = members or str(Path(options.input) / "members")
    if not offsets or not members:
        raise ValueError("give --input DIR (with offsets/ and members/) or --offsets and --members")
    return offsets, members


def _load(spark: Any, options: argparse.Namespace) -> tuple[Any, Any]:
    from pyspark.sql import functions as F

    from pipeline import tables

    offsets_path, members_path = _inputs(options)
    _progress(f"reading {offsets_path} and {members_path}")
    offsets = tables.prepare_offsets(
        tables.read_table(spark, offsets_path, "offsets"), options.auto_offset_reset
    )
    members = tables.prepare_members(tables.read_table(spark, members_path, "members"))
    tables.require_groups(offsets, members, options.group)
    if options.group:
        offsets = offsets.where(F.col("group_id").isin(options.group))
        members = members.where(F.col("group_id").isin(options.group))
    return offsets, members


def _write(frame: Any, path: Path) -> None:
    _progress(f"writing {path}")
    frame.write.mode("overwrite").parquet(str(path))


def _groups_in(offsets: Any, members: Any) -> int:
    keys = ["cluster", "group_id"]
    return int(offsets.select(*keys).union(members.select(*keys)).distinct().count())


def run_lag(spark: Any, options: argparse.Namespace) -> None:
    from pyspark.sql import functions as F

    from pipeline import lag_history

    offsets, members = _load(spark, options)
    out = Path(options.output)
    with Progress(spark):
        lag_history.write_lag_history(
            offsets,
            out,
            at=_timestamp(options.at),
            window_s=options.window,
            min_samples=options.min_samples,
        )
    partitions = spark.read.parquet(str(out / "partition_lag"))
    verdicts = spark.read.parquet(str(out / "group_health"))
    rows_in = partitions.count()
    flagged = partitions.where(F.col("problem").isNotNull()).count()
    groups = _groups_in(offsets, members)
    print(f"offsets rows: {rows_in:,} in, {rows_in:,} out ({flagged:,} flagged with a problem)")
    counts = {r["status"]: r["count"] for r in verdicts.groupBy("status").count().collect()}
    print(
        f"groups: {groups:,} in, {verdicts.count():,} verdicts: "
        + ", ".join(f"{k} {counts.get(k, 0)}" for k in ("OK", "WARN", "ERR", "NOTFOUND"))
    )
    rank = F.when(F.col("status") == "ERR", 0).when(F.col("status") == "WARN", 1).otherwise(2)
    worst = (
        verdicts.where(F.col("status") != "OK")
        .orderBy(rank, F.desc_nulls_last("lag_total"))
        .limit(10)
        .collect()
    )
    for row in worst:
        print(
            f"  {row['status']:<4} {row['group_id']} lag {row['lag_total'] or 0:,}: {row['rule']}"
        )


def _fmt(value: Any, digits: int = 2) -> str:
    if value is None:
        return "-"
    return f"{value:,.{digits}f}" if isinstance(value, float) else f"{value:,}"


def run_whatif(spark: Any, options: argparse.Namespace) -> None:
    from pyspark.sql import functions as F

    from pipeline import whatif
    from pipeline.scenarios import ChangeSpec

    offsets, members = _load(spark, options)
    specs = [ChangeSpec.parse(text) for text in options.change or ["none"]]
    names = options.strategy or list(whatif.DEFAULT_STRATEGIES)
    from assignors import registry

    for name in names:
        registry.get(name)  # unknown names fail here, before any work
    groups = _groups_in(offsets, members)
    progress = Progress(spark, groups_total=groups)
    result = whatif.fleet_whatif(
        offsets,
        members,
        strategies=names,
        change_specs=specs,
        at=_timestamp(options.at),
        horizon_s=options.horizon,
        step_s=options.step,
        default_consume_rate=options.default_consume_rate,
        drain_target_s=options.drain_target or None,
        groups_done=progress.counter,
        groups=groups,
    )
    _progress(f"running {len(names)} strategies x {len(specs)} change(s) on {groups:,} groups")
    path = Path(options.output) / "whatif"
    with progress:
        _write(result.withColumn("time", F.timestamp_seconds("t")), path)
    table = spark.read.parquet(str(path))
    summarise_whatif(table, groups)


def summarise_whatif(table: Any, groups_in: int) -> None:
    """The whatif stdout summary (groups accounted, unbalanced, moves, extra members)."""
    from pyspark.sql import functions as F

    ok = table.where(F.col("error").isNull())
    computed = ok.select("cluster", "group_id").distinct().count()
    flagged = table.where(F.col("error").isNotNull()).select("cluster", "group_id").distinct()
    print(f"groups: {groups_in:,} in = {computed:,} computed + {flagged.count():,} flagged")
    for row in table.where(F.col("error").isNotNull()).limit(5).collect():
        print(f"  flagged {row['group_id']}: {row['error']}")
    current = ok.where(F.col("change") == "current")
    print("most unbalanced by lag now (lag CV = stddev / mean over members):")
    for row in (
        current.where(F.col("lag_total") > 0)
        .orderBy(F.desc_nulls_last("lag_cv"))
        .limit(10)
        .collect()
    ):
        print(
            f"  {row['group_id']:<24} {row['strategy']:<20} cv {_fmt(row['lag_cv'])}"
            f"  worst {row['worst_member']} lag {_fmt(row['worst_member_lag'])}"
            f" of {_fmt(row['lag_total'])}"
        )
    moves = ok.where((F.col("strategy") == "cooperative-sticky") & (F.col("change") != "current"))
    if moves.where(F.col("change") != "none").limit(1).count():
        moves = moves.where(F.col("change") != "none")  # a real change says more than none
    if moves.limit(1).count():
        print("fewest partitions moved under cooperative-sticky (per change):")
        for row in moves.orderBy("moved", "group_id").limit(10).collect():
            print(f"  {row['group_id']:<24} {row['change']:<12} moved {row['moved']}")
    lagging = current.where(
        F.col("extra_members_to_drain").isNull() | (F.col("extra_members_to_drain") > 0)
    )
    print(f"groups that do not drain within the target as they are: {lagging.count():,}")
    for row in lagging.orderBy(F.desc("lag_total")).limit(10).collect():
        extra = row["extra_members_to_drain"]
        need = "cannot" if extra is None else f"+{extra}"
        print(
            f"  {row['group_id']:<24} lag {_fmt(row['lag_total'])} members {row['members']}"
            f" needs {need} ({row['extra_members_note']})"
        )


def run_replay(spark: Any, options: argparse.Namespace) -> None:
    from pyspark.sql import functions as F

    from pipeline import whatif

    offsets, members = _load(spark, options)
    names = options.strategy or list(whatif.DEFAULT_STRATEGIES)
    groups = _groups_in(offsets, members)
    progress = Progress(spark, groups_total=groups)
    carried, worst, summary = whatif.replay(
        offsets,
        members,
        strategies=names,
        at=_timestamp(options.at),
        window_s=options.window,
        groups_done=progress.counter,
    )
    out = Path(options.output)
    _progress(f"replaying {len(names)} strategies on {groups:,} groups")
    with progress:
        _write(carried.withColumn("time", F.timestamp_seconds("t")), out / "replay_members")
    carried_read = spark.read.parquet(str(out / "replay_members"))
    _, worst, summary = whatif.replay_tables(carried_read)
    _write(worst, out / "replay_worst")
    _write(summary, out / "replay_summary")
    table = spark.read.parquet(str(out / "replay_summary"))
    flagged = table.where(F.col("strategy").isNull()).count()
    computed = table.where(F.col("strategy").isNotNull()).select("group_id").distinct().count()
    print(f"groups: {groups:,} in = {computed:,} replayed + {flagged:,} flagged")
    print("strategy            groups won  fleet peak worst-member lag  mean of group peaks")
    stats = (
        table.where(F.col("strategy").isNotNull())
        .groupBy("strategy")
        .agg(
            F.sum(F.col("best").cast("int")).alias("won"),
            F.max("peak_worst_lag").alias("peak"),
            F.avg("peak_worst_lag").alias("mean_peak"),
        )
        .orderBy("peak")
        .collect()
    )
    for row in stats:
        print(
            f"  {row['strategy']:<20} {row['won']:>8}  {_fmt(row['peak']):>26}"
            f"  {_fmt(row['mean_peak'], 0):>19}"
        )


def run_synth(options: argparse.Namespace) -> None:
    from pipeline.synth import SynthConfig, write_history

    config = SynthConfig(
        groups=options.groups,
        hours=options.hours,
        interval_s=options.interval,
        seed=options.seed,
        clusters=options.clusters,
        min_partitions=options.min_partitions,
        max_partitions=options.max_partitions,
        min_members=options.min_members,
        max_members=options.max_members,
        every_incident=options.every_incident,
    )
    if min(config.groups, config.interval_s, config.min_partitions, config.min_members) < 1:
        raise ValueError("--groups, --interval, --min-partitions and --min-members must be >= 1")
    started = time.perf_counter()
    offsets, members = write_history(config, Path(options.output), _progress)
    print(
        f"wrote {offsets:,} offsets rows and {members:,} members rows for {config.groups:,}"
        f" groups, {config.steps:,} samples, to {options.output}"
        f" in {time.perf_counter() - started:.1f} s"
    )


def main(argv: Sequence[str] | None = None) -> int:
    options = _parser().parse_args(argv)
    try:
        if options.command == "synth":
            run_synth(options)
            return 0
        if options.command == "package":
            from pipeline.session import job_script, package_zip

            archive = package_zip(Path(options.output))
            print(archive)
            print(job_script(archive.parent / "pipeline_job.py"))
            return 0
        from pipeline.session import get_session

        conf = dict(item.split("=", 1) for item in options.conf if "=" in item)
        _progress("starting Spark")
        spark = get_session(options.master, conf=conf)
        spark.sparkContext.setLogLevel("WARN")
        runner = {"lag": run_lag, "whatif": run_whatif, "replay": run_replay}[options.command]
        started = time.perf_counter()
        runner(spark, options)
        _progress(f"done in {time.perf_counter() - started:.1f} s")
        return 0
    except (AssignmentExplorerError, ValueError, OSError) as error:
        message = str(error)
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # Spark's AnalysisException and friends: a message, not a trace
        message = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
    print(f"error: {message}", file=sys.stderr)
    return EXIT_FAILURE


if __name__ == "__main__":
    raise SystemExit(main())

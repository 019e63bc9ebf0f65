"""Lag history: offsets snapshots -> lag and rates over time, and a health verdict per group.

All functions are DataFrame -> DataFrame on prepared offsets
(:func:`pipeline.tables.prepare_offsets`) and use only Spark's built-in column functions (no
Python workers), so they scale with the cluster. :func:`write_lag_history` runs the whole job.

0. :func:`by_group`: the job's one shuffle of whole rows: each group's rows in one Spark
   partition, sorted by partition and time, so step 1's window neither shuffles nor sorts
   again (and is smaller than a shuffle by partition: 188 against 255 MB on 6M rows), and
   each written file holds whole groups (later steps shuffle only partial sums).
1. :func:`partition_history`: per (cluster, group, topic, partition, time) the lag, and the
   produce and consume rates in records/s since the previous sample of that partition:
   ``(log_end - previous log_end) / seconds`` and ``(committed - previous committed) / seconds``
   (null on the first sample; a negative consume rate is a rewind).
2. :func:`member_history`: per (cluster, group, member, time) the summed lag and partition count
   (``(unowned)`` for partitions nobody owns).
3. :func:`group_history`: per (cluster, group, time) total lag, worst member and its lag.
4. :func:`health`: per partition, over the samples in ``(at - window_s, at]``, the first rule
   that holds (in this order) gives the status (in the spirit of Burrow's evaluation, with
   snapshots instead of commit events, so "not committing" is read from the offsets):

   a. ``NOTFOUND``: fewer than ``min_samples`` samples with a lag in the window.
   b. ``REWIND``: the committed offset went back between two samples.
   c. ``OK``: the lag was 0 at some sample (the consumer caught up).
   d. ``STOP``: the committed offset never moved (or there is none) while lag stayed above 0, and
      no member owns the partition at the last sample: nobody is consuming.
   e. ``STALL``: as STOP, but a member owns it: the consumer is alive and stuck.
   f. ``WARN``: the lag never fell and ended higher than it started: falling behind.
   g. ``OK``: consuming; the lag fell at least once.

   The group's status: ``ERR`` when a partition is STOP or STALL; ``WARN`` when one is WARN or
   REWIND; ``NOTFOUND`` when the group has no sample in the window (or every partition is
   NOTFOUND); else ``OK``. ``rule`` says which partition and rule decided it.

5. :func:`write_lag_history`: the five tables of :data:`LAG_TABLES` as Parquet: step 1 on the
   layout of step 0 is written, then steps 2-4 read it back (Parquet's columns, only those they
   need) rather than recompute it. Persisting step 1 in memory instead cost more CPU (building
   the cache, and spilling with the default 1 GB driver) than reading it back (measured on
   6M rows, ``benchmarks/pipeline.py``).

Invariant: every group in the input gets exactly one verdict row.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

UNOWNED = "(unowned)"
PARTITION_KEYS = ("cluster", "group_id", "topic", "partition")
#: Status -> severity used to pick a group's worst partition.
SEVERITY = {"OK": 0, "NOTFOUND": 1, "WARN": 2, "REWIND": 3, "STALL": 4, "STOP": 5}
#: The job's outputs (Parquet directories under its output directory), in the order written.
LAG_TABLES = ("partition_lag", "member_lag", "group_lag", "partition_health", "group_health")
#: Step 1's columns before the rates (``partition_lag`` adds ``produce_rate``, ``consume_rate``).
HISTORY_COLUMNS = (
    *PARTITION_KEYS,
    "time",
    "t",
    "log_start",
    "log_end",
    "committed",
    "member_id",
    "problem",
    "lag",
)


def by_group(offsets: Any) -> Any:
    """Step 0: rows hash-partitioned by group, each partition sorted by partition and time."""
    return offsets.repartition("cluster", "group_id").sortWithinPartitions(*PARTITION_KEYS, "t")


def with_rates(frame: Any, keys: Sequence[str] = PARTITION_KEYS) -> Any:
    """``frame`` with ``produce_rate`` and ``consume_rate`` (step 1) per ``keys``, by ``t``.

    Each previous value is one window function (``lag`` of ``t``, ``log_end``, ``committed``),
    however often the rates use it. Rows without ``log_end``/``committed`` get null rates.
    """
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    order = Window.partitionBy(*keys).orderBy("t")
    previous = frame.select(
        "*",
        F.lag("t").over(order).alias("_previous_t"),
        F.lag("log_end").over(order).alias("_previous_log_end"),
        F.lag("committed").over(order).alias("_previous_committed"),
    )
    seconds = F.col("t") - F.col("_previous_t")
    produce = (F.col("log_end") - F.col("_previous_log_end")) / seconds
    consume = (F.col("committed") - F.col("_previous_committed")) / seconds
    return previous.select(
        *frame.columns,
        F.when(seconds > 0, produce).alias("produce_rate"),
        F.when(seconds > 0, consume).alias("consume_rate"),
    )


def partition_history(offsets: Any) -> Any:
    """Step 1: lag with produce and consume rates per partition and sample."""
    return with_rates(offsets.select(*HISTORY_COLUMNS))


def member_history(partitions: Any) -> Any:
    """Step 2: lag per member and sample."""
    from pyspark.sql import functions as F

    return (
        partitions.withColumn("member_id", F.coalesce(F.col("member_id"), F.lit(UNOWNED)))
        .groupBy("cluster", "group_id", "time", "t", "member_id")
        .agg(
            F.sum("lag").cast("bigint").alias("lag"),
            F.count(F.lit(1)).cast("int").alias("partitions"),
            F.sum("consume_rate").alias("consume_rate"),
        )
    )


def group_history(members: Any) -> Any:
    """Step 3: total lag, worst member and its lag per group and sample."""
    from pyspark.sql import functions as F

    worst = F.max(F.struct(F.col("lag"), F.col("member_id")))
    return (
        members.groupBy("cluster", "group_id", "time", "t")
        .agg(
            F.sum("lag").cast("bigint").alias("lag_total"),
            worst.alias("worst"),
            F.count(F.lit(1)).cast("int").alias("members"),
        )
        .select(
            "cluster",
            "group_id",
            "time",
            "t",
            "lag_total",
            "members",
            F.col("worst.member_id").alias("worst_member"),
            F.col("worst.lag").alias("worst_member_lag"),
        )
    )


def evaluation_time(offsets: Any) -> int:
    """The latest sample time in ``offsets`` (epoch seconds); 0 when empty."""
    from pyspark.sql import functions as F

    value = offsets.agg(F.max("t")).first()[0]
    return int(value or 0)


def partition_health(partitions: Any, *, at: int, window_s: int = 600, min_samples: int = 2) -> Any:
    """Step 4 per partition: ``status`` and ``rule`` over the window ending at ``at``."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    inside = partitions.where((F.col("t") > at - window_s) & (F.col("t") <= at))
    order = Window.partitionBy(*PARTITION_KEYS).orderBy("t")
    steps = inside.withColumn(
        "committed_step", F.col("committed") - F.lag("committed").over(order)
    ).withColumn("lag_step", F.col("lag") - F.lag("lag").over(order))
    summary = steps.groupBy(*PARTITION_KEYS).agg(
        F.count("lag").alias("samples"),
        F.min("lag").alias("min_lag"),
        F.sum(F.when(F.col("committed_step") < 0, 1).otherwise(0)).alias("rewinds"),
        F.sum(F.when(F.col("committed_step") != 0, 1).otherwise(0)).alias("moves"),
        F.count("committed").alias("commits"),
        F.sum(F.when(F.col("lag_step") < 0, 1).otherwise(0)).alias("lag_drops"),
        F.min_by("lag", "t").alias("first_lag"),
        F.max_by("lag", "t").alias("last_lag"),
        F.max_by("member_id", "t").alias("owner"),
        F.max_by("problem", "t").alias("problem"),
        F.min("t").alias("first_t"),
        F.max("t").alias("last_t"),
    )
    still = (F.col("moves") == 0) & (F.col("min_lag") > 0)
    span = (F.col("last_t") - F.col("first_t")).cast("string")
    status = (
        F.when(F.col("samples") < min_samples, "NOTFOUND")
        .when(F.col("rewinds") > 0, "REWIND")
        .when(F.col("min_lag") == 0, "OK")
        .when(still & F.col("owner").isNull(), "STOP")
        .when(still, "STALL")
        .when((F.col("lag_drops") == 0) & (F.col("last_lag") > F.col("first_lag")), "WARN")
        .otherwise("OK")
    )
    rule = (
        F.when(
            F.col("samples") < min_samples,
            F.format_string(
                "%d sample(s) with a lag in the window, need %d", "samples", F.lit(min_samples)
            ),
        )
        .when(F.col("rewinds") > 0, F.lit("committed offset went back"))
        .when(F.col("min_lag") == 0, F.lit("lag reached 0 in the window"))
        .when(
            still & F.col("owner").isNull(),
            F.concat(F.lit("no owner; offset unchanged for "), span, F.lit(" s with lag > 0")),
        )
        .when(
            still,
            F.concat(
                F.lit("owned by "),
                F.col("owner"),
                F.lit("; offset unchanged for "),
                span,
                F.lit(" s with lag > 0"),
            ),
        )
        .when(
            (F.col("lag_drops") == 0) & (F.col("last_lag") > F.col("first_lag")),
            F.format_string("lag grew at every sample, %d -> %d", "first_lag", "last_lag"),
        )
        .otherwise(F.lit("consuming; lag fell at least once"))
    )
    return summary.select(
        *PARTITION_KEYS,
        status.alias("status"),
        rule.alias("rule"),
        F.col("last_lag").alias("lag"),
        "owner",
        "samples",
        "problem",
    )


def group_health(partition_status: Any, groups: Any, *, at: int, window_s: int = 600) -> Any:
    """Step 4 per group; ``groups`` (cluster, group_id, last_t) lists every group in the input."""
    from pyspark.sql import functions as F

    severity = F.create_map(*[F.lit(x) for pair in SEVERITY.items() for x in pair])
    ranked = partition_status.withColumn("severity", severity[F.col("status")])
    worst = F.max(
        F.struct(
            F.col("severity"),
            F.coalesce(F.col("lag"), F.lit(-1)).alias("lag"),
            F.col("topic"),
            F.col("partition"),
            F.col("status"),
            F.col("rule"),
        )
    )
    counts = [
        F.sum(F.when(F.col("status") == name, 1).otherwise(0)).cast("int").alias(name.lower())
        for name in SEVERITY
    ]
    per_group = ranked.groupBy("cluster", "group_id").agg(
        worst.alias("worst"),
        F.sum("lag").cast("bigint").alias("lag_total"),
        F.count(F.lit(1)).cast("int").alias("partitions"),
        F.sum(F.when(F.col("problem").isNotNull(), 1).otherwise(0)).cast("int").alias("flagged"),
        *counts,
    )
    joined = groups.join(per_group, ["cluster", "group_id"], "left")
    worst_status = F.col("worst.status")
    all_missing = F.col("partitions").isNull() | (F.col("notfound") == F.col("partitions"))
    verdict = (
        F.when(all_missing, "NOTFOUND")
        .when(worst_status.isin("STOP", "STALL"), "ERR")
        .when(worst_status.isin("WARN", "REWIND"), "WARN")
        .otherwise("OK")
    )
    rule = F.when(
        F.col("partitions").isNull(),
        F.format_string(
            "no sample in the window (last seen %s)",
            F.date_format(F.timestamp_seconds("last_t"), "yyyy-MM-dd HH:mm:ss'Z'"),
        ),
    ).otherwise(
        F.format_string(
            "%s-%d %s: %s", "worst.topic", "worst.partition", "worst.status", "worst.rule"
        )
    )
    return joined.select(
        "cluster",
        "group_id",
        F.timestamp_seconds(F.lit(at)).alias("at"),
        F.lit(window_s).alias("window_s"),
        verdict.alias("status"),
        rule.alias("rule"),
        "lag_total",
        "partitions",
        "flagged",
        *[name.lower() for name in SEVERITY],
    )


def health(
    partitions: Any, *, at: int | None = None, window_s: int = 600, min_samples: int = 2
) -> tuple[Any, Any]:
    """Step 4: (partition statuses, group verdicts) at ``at`` (default: the latest sample)."""
    from pyspark.sql import functions as F

    when = evaluation_time(partitions) if at is None else at
    statuses = partition_health(partitions, at=when, window_s=window_s, min_samples=min_samples)
    groups = (
        partitions.where(F.col("t") <= when)
        .groupBy("cluster", "group_id")
        .agg(F.max("t").alias("last_t"))
    )
    return statuses, group_health(statuses, groups, at=when, window_s=window_s)


def _write_parquet(frame: Any, path: Path) -> None:
    frame.write.mode("overwrite").parquet(str(path))


def write_lag_history(
    offsets: Any,
    output: Path,
    *,
    at: int | None = None,
    window_s: int = 600,
    min_samples: int = 2,
    write: Callable[[Any, Path], None] = _write_parquet,
) -> None:
    """Step 5: every table of :data:`LAG_TABLES` written (by ``write``) under ``output``."""
    from pyspark import StorageLevel

    spark = offsets.sparkSession
    write(partition_history(by_group(offsets)), output / "partition_lag")
    partitions = spark.read.parquet(str(output / "partition_lag"))
    write(member_history(partitions), output / "member_lag")
    write(group_history(spark.read.parquet(str(output / "member_lag"))), output / "group_lag")
    statuses, verdicts = health(partitions, at=at, window_s=window_s, min_samples=min_samples)
    statuses = statuses.persist(StorageLevel.MEMORY_AND_DISK)  # one row per partition
    try:
        write(statuses, output / "partition_health")
        write(verdicts, output / "group_health")
    finally:
        statuses.unpersist()

"""Lag history: offsets snapshots -> lag and rates over time, and a health verdict per group.

The steps are :mod:`pipeline.lag_frames` (Arrow tables of whole groups in, Arrow tables out);
this module is the Spark shell that runs them over a fleet. :func:`write_lag_history`:

0. One pass over the input for the latest sample time (``at`` unless given) and the row count.
1. The job's one shuffle: rows hash-partitioned by (cluster, group), so each task holds whole
   groups; at least :data:`ROWS_PER_TASK` rows per task on average decides the task count when
   that is above ``spark.sql.shuffle.partitions`` (a task's rows are one Arrow table in its
   Python worker).
2. ``mapInArrow``: each task turns its rows into one Arrow table, runs
   :func:`pipeline.lag_frames.lag_tables` on it (vectorised, no Python per row) and writes each
   of the five tables of :data:`LAG_TABLES` as one Parquet file ``part-NNNNN.parquet`` (the
   task's partition number) under the output directory, through Arrow's file systems (a local
   path or any URI Arrow reads, e.g. ``hdfs://`` or ``s3://``, that every executor reaches, as
   for Spark's own writer). A file is written under a hidden name and then renamed, so a
   retried or speculative task replaces its own file and a failed one leaves nothing a reader
   sees. Only (table, rows written) goes back to Spark.
3. The driver clears the five tables before the job and, after it, gives a table no task wrote
   (an empty input or window) one empty file with its schema, so every table reads back.

Measured on 6M offsets rows (100 groups x 24 h at 30 s, ``benchmarks/pipeline.py``): the same
steps as Spark SQL (window functions, aggregations, Spark's Parquet writer) used about 60 s of
JVM CPU, mostly sorting rows by string keys, the rate window and Spark's row-based Parquet
writer; here the JVM reads, shuffles and hands Arrow batches over, and Arrow's C++ kernels
sort, aggregate and write.

Invariant: every group in the input with a sample at or before ``at`` gets exactly one verdict
row; ``partition_lag`` has exactly the input's rows.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa

from assignors import AssignmentExplorerError
from pipeline import lag_frames
from pipeline.lag_frames import HISTORY_COLUMNS, LAG_TABLES, SCHEMAS

#: Rows a task holds on average at least before the job uses more tasks than the session's
#: shuffle partitions (the task's Python worker holds them as one Arrow table, ~100 B a row).
ROWS_PER_TASK = 2_000_000
#: Rows per Arrow batch from the JVM to the lag tasks (Spark's default, 10,000, costs a batch's
#: overhead 600 times on 6M rows; each task joins its batches into one table anyway).
ROWS_PER_BATCH = 100_000
#: What each task reports back: rows written per table.
WRITTEN = "`table` string, `rows` bigint"


def latest_and_rows(offsets: Any) -> tuple[int, int]:
    """Step 0: (the latest sample time in epoch seconds, 0 when empty; the number of rows)."""
    from pyspark.sql import functions as F

    latest, rows = offsets.agg(F.max("t"), F.count(F.lit(1))).first()
    return int(latest or 0), int(rows)


class OutputLocationError(AssignmentExplorerError, ValueError):
    """An output location the lag job cannot write to; the message says what to give."""


def _file_system(output: str) -> tuple[Any, str]:
    """Arrow's file system for ``output`` (a local path, made absolute, or a URI) and the path
    inside it."""
    from pyarrow import fs

    if "://" not in output:
        output = str(Path(output).resolve())
    try:
        file_system, path = fs.FileSystem.from_uri(output)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as error:
        raise OutputLocationError(
            f"the lag job cannot write to {output!r} ({error}): its tasks write through Arrow's"
            " file systems, so give a local path every executor shares or an hdfs://, s3://,"
            " gs:// or abfs:// URI (Hadoop's s3a:// is s3:// there)"
        ) from error
    return file_system, str(path)


def _write_file(table: pa.Table, file_system: Any, directory: str, name: str) -> None:
    """``table`` as ``directory/name``, written under a hidden name first, then renamed."""
    import pyarrow.parquet as pq

    hidden = f"{directory}/.{name}.{uuid.uuid4().hex}.tmp"
    pq.write_table(table, hidden, filesystem=file_system)
    file_system.move(hidden, f"{directory}/{name}")


def write_task(
    batches: Iterator[pa.RecordBatch],
    output: str,
    *,
    part: int,
    at: int,
    window_s: int,
    min_samples: int,
) -> Iterator[pa.RecordBatch]:
    """Step 2 for one task: its rows' five tables written as ``part-<part>.parquet``."""
    rows = list(batches)
    if not rows or not any(batch.num_rows for batch in rows):
        return
    tables = lag_frames.lag_tables(
        pa.Table.from_batches(rows), at=at, window_s=window_s, min_samples=min_samples
    )
    file_system, root = _file_system(output)
    for name, table in tables.items():
        _write_file(table, file_system, f"{root}/{name}", f"part-{part:05d}.parquet")
        yield pa.RecordBatch.from_pydict(
            {"table": [name], "rows": [table.num_rows]},
            schema=pa.schema([("table", pa.string()), ("rows", pa.int64())]),
        )


def _clear(output: str) -> None:
    """Step 3, before the job: each output table an empty directory."""
    file_system, root = _file_system(output)
    for name in LAG_TABLES:
        file_system.create_dir(f"{root}/{name}", recursive=True)
        file_system.delete_dir_contents(f"{root}/{name}")


def _fill_empty(output: str) -> None:
    """Step 3, after the job: a table no task wrote gets one empty file with its schema."""
    from pyarrow import fs

    file_system, root = _file_system(output)
    for name in LAG_TABLES:
        found = file_system.get_file_info(fs.FileSelector(f"{root}/{name}"))
        if not any(info.base_name.endswith(".parquet") for info in found):
            empty = SCHEMAS[name].empty_table()
            _write_file(empty, file_system, f"{root}/{name}", "part-00000.parquet")


def write_lag_history(
    offsets: Any,
    output: Path | str,
    *,
    at: int | None = None,
    window_s: int = 600,
    min_samples: int = 2,
) -> dict[str, int]:
    """Steps 0-3: every table of :data:`LAG_TABLES` written under ``output``; returns the rows
    written per table."""
    target = str(output)
    _clear(target)  # first: a location Arrow cannot write to fails before any Spark work
    latest, rows = latest_and_rows(offsets)
    when = latest if at is None else at
    spark = offsets.sparkSession
    tasks = max(
        int(spark.conf.get("spark.sql.shuffle.partitions")), math.ceil(rows / ROWS_PER_TASK)
    )

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from pyspark import TaskContext

        context = TaskContext.get()
        part = context.partitionId() if context else 0
        return write_task(
            batches, target, part=part, at=when, window_s=window_s, min_samples=min_samples
        )

    laid_out = offsets.select(*HISTORY_COLUMNS).repartition(tasks, "cluster", "group_id")
    batch_key = "spark.sql.execution.arrow.maxRecordsPerBatch"
    batch_rows = spark.conf.get(batch_key, None)
    spark.conf.set(batch_key, str(ROWS_PER_BATCH))
    try:
        written = laid_out.mapInArrow(run, WRITTEN).groupBy("table").sum("rows").collect()
    finally:
        if batch_rows is None:
            spark.conf.unset(batch_key)
        else:
            spark.conf.set(batch_key, batch_rows)
    _fill_empty(target)
    counts = {row["table"]: int(row[1]) for row in written}
    return {name: counts.get(name, 0) for name in LAG_TABLES}

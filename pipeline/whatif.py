"""Fleet what-if and replay: every group's Scenario through the core, on the executors.

:func:`fleet_whatif` (DataFrame -> DataFrame):

1. Per group, the latest sample time ``<= at`` (over both tables) and the sample before it
   (:func:`sample_times`: one row per group, joined in step 3; broadcast while Spark's
   broadcast threshold holds them, shuffled by group beyond: :func:`joinable`).
2. Rates from those two samples (:func:`with_rates`, the formula of
   :func:`pipeline.lag_frames.partition_lag`), computed after the
   shuffle of step 3 on its layout (:func:`current_by_group`: the job's one shuffle of rows,
   two when the times are too many to broadcast; it used to take three, for the join with the
   times, the rates window and the layout by group).
3. The group's offsets rows and members rows at the latest time, in one frame partitioned by
   group into tapering partitions (:func:`tapered_shares`) and sorted by group
   (:func:`current_by_group`), go through ``mapInArrow``: each Arrow batch
   becomes Python lists once, each group a slice of them (:func:`groups_of`), and one call per
   group rebuilds the Scenario and runs every requested strategy and change through the core
   (:func:`pipeline.scenarios.whatif_rows`; no pandas per group); result rows go back as Arrow
   batches of :data:`ROWS_PER_BATCH` rows. One row per (group,
   strategy, change) plus the group's ``current`` row, with metrics, rebalance cost, drain
   projection and the extra members needed to drain within the target. A group whose data
   cannot form a scenario yields one row with ``error``: nothing is dropped.

:func:`replay` (DataFrame -> DataFrames): for the samples in ``(at - window_s, at]``, per group
and strategy, the lag each member would have carried (:func:`pipeline.scenarios.replay_rows`),
then per (group, strategy, time) the worst member's lag, and per (group, strategy) its peak
and mean; ``best`` marks the strategies with the lowest peak (ties: the lower mean; strategies
still tied are all best), never the ``(observed)`` baseline.

Shipping code: the per-group functions import :mod:`assignors` and :mod:`pipeline` on the
executors; :func:`pipeline.session.get_session` ships them to a real cluster in one place.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Iterator, Sequence
from typing import Any

import pandas as pd
import pyarrow as pa

from pipeline import internals
from pipeline.lag_frames import HISTORY_COLUMNS, PARTITION_KEYS
from pipeline.scenarios import (
    REPLAY_COLUMNS,
    WHATIF_COLUMNS,
    ChangeSpec,
    GroupRows,
    replay_rows,
    whatif_rows,
)
from pipeline.schema import arrow_schema, ddl

GROUP_KEYS = ("cluster", "group_id")
#: Column of :func:`current_by_group`'s frame naming the table a row came from.
TABLE = "_table"
#: Column of :func:`current_by_group`'s frame: the index of the partition holding the group.
PART = "_part"
#: Levels of :func:`tapered_shares`' tail: the smallest partition holds 1/2**TAPER_LEVELS of a
#: regular one's share.
TAPER_LEVELS = 6
#: Groups are placed by ``pmod(xxhash64(cluster, group_id), HASH_SPACE)`` in ``[0, HASH_SPACE)``.
HASH_SPACE = 1 << 30
#: Result rows gathered before one Arrow batch goes back to Spark.
ROWS_PER_BATCH = 2048
DEFAULT_STRATEGIES = ("range", "roundrobin", "sticky", "cooperative-sticky")

_PANDAS_TYPES = {"bigint": "Int64", "int": "Int64", "double": "Float64", "string": "object"}


def rows_frame(rows: list[dict[str, Any]], columns: dict[str, str]) -> pd.DataFrame:
    """Result rows as a frame with every column of ``columns`` in a nullable dtype."""
    frame = pd.DataFrame(rows, columns=list(columns))
    for name, kind in columns.items():
        frame[name] = frame[name].astype(_PANDAS_TYPES[kind])
    return frame


def sample_times(offsets: Any, members: Any, at: int | None) -> Any:
    """Step 1: per group, ``_latest_t`` (the latest sample time ``<= at`` over both tables) and
    ``_previous_t`` (the one before it; null when there is none), one row per group.

    The group's distinct times ranked by a window, the two latest folded into one row (the
    window's layout by group serves the fold too), so one broadcast frame serves the offsets
    and members rows alike.
    """
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    times = offsets.select(*GROUP_KEYS, "t").union(members.select(*GROUP_KEYS, "t")).distinct()
    if at is not None:
        times = times.where(F.col("t") <= at)
    newest_first = Window.partitionBy(*GROUP_KEYS).orderBy(F.desc("t"))
    return (
        times.withColumn("_rank", F.row_number().over(newest_first))
        .where(F.col("_rank") <= 2)
        .groupBy(*GROUP_KEYS)
        .agg(
            F.max("t").alias("_latest_t"),
            F.when(F.count("t") == 2, F.min("t")).alias("_previous_t"),
        )
    )


def fleet_whatif(
    offsets: Any,
    members: Any,
    *,
    strategies: Sequence[str] = DEFAULT_STRATEGIES,
    change_specs: Sequence[ChangeSpec] = (ChangeSpec("none"),),
    at: int | None = None,
    horizon_s: float = 3600.0,
    step_s: float = 10.0,
    default_consume_rate: float = 1000.0,
    drain_target_s: float | None = 3600.0,
    groups_done: Any = None,
    groups: int | None = None,
) -> Any:
    """Steps 1-3 on prepared offsets and members (:mod:`pipeline.tables`).

    ``groups_done``: an accumulator the per-group step adds 1 to per group (progress).
    ``groups``: the number of groups in the input (or more), when the caller knows it: it
    decides whether the sample times are broadcast without a job of their own (:func:`joinable`).
    """
    names = list(strategies)
    specs = list(change_specs)
    schema = arrow_schema(WHATIF_COLUMNS)

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        rows: list[dict[str, Any]] = []
        for offsets_rows, members_rows in groups_of(batches):
            rows += whatif_rows(
                offsets_rows,
                members_rows,
                strategies=names,
                change_specs=specs,
                horizon_s=horizon_s,
                step_s=step_s,
                default_consume_rate=default_consume_rate,
                drain_target_s=drain_target_s,
            )
            if groups_done is not None:
                groups_done.add(1)
            if len(rows) >= ROWS_PER_BATCH:
                yield pa.RecordBatch.from_pylist(rows, schema=schema)
                rows = []
        if rows:
            yield pa.RecordBatch.from_pylist(rows, schema=schema)

    current, cached = current_and_cached(offsets, members, at, groups=groups)
    return holding(current.mapInArrow(run, ddl(WHATIF_COLUMNS)), cached)


def tapered_shares(partitions: int, cores: int) -> tuple[float, ...]:
    """Each partition's share of the groups in the per-group stage, in partition order (Spark
    launches a stage's tasks in that order, each on the first core free).

    ``partitions - per_level`` regular partitions of equal share (``partitions``: the session's
    ``spark.sql.shuffle.partitions``), then a tail of :data:`TAPER_LEVELS` levels of
    ``per_level = max(1, cores // 2)`` partitions each, whose share halves per level from half a
    regular partition's down to 1/64 of it. With equal partitions all cores finish their last
    task at once only by chance, and one core idles while another runs out its last task (2.6-4.4
    s of 8 tasks of 34-39 s measured on 2 cores); with the tail the last tasks are small, so
    the cores' finishing times even out to within about one of them. Each partition costs the
    JVM about 0.1 CPU s (a shuffle read, a Python runner, a Parquet writer), so the tail is
    ``5 * per_level`` partitions more than ``partitions`` (13 instead of 8 on ``local[2]``), not a
    fine split of everything.

    Invariants: the shares are positive, non-increasing and sum to 1; there are
    ``max(1, partitions - per_level) + TAPER_LEVELS * per_level`` of them.
    """
    per_level = max(1, cores // 2)
    weights = [1.0] * max(1, partitions - per_level) + [
        0.5**level for level in range(1, TAPER_LEVELS + 1) for _ in range(per_level)
    ]
    total = sum(weights)
    return tuple(weight / total for weight in weights)


def partition_index(shares: Sequence[float]) -> Any:
    """Column: the partition of the row's group, ``i`` for a hash of the group keys in
    ``[HASH_SPACE * sum(shares[:i]), HASH_SPACE * sum(shares[:i + 1]))``; a function of the
    group keys only, so a group's rows all go to one partition. One SQL expression (one call to
    the JVM, not one per branch)."""
    from pyspark.sql import functions as F

    hashed = f"pmod(xxhash64({', '.join(GROUP_KEYS)}), {HASH_SPACE})"
    bounds = [round(bound * HASH_SPACE) for bound in itertools.accumulate(shares[:-1])]
    if not bounds:
        return F.lit(0)
    branches = " ".join(f"WHEN {hashed} < {bound} THEN {i}" for i, bound in enumerate(bounds))
    return F.expr(f"CAST(CASE {branches} ELSE {len(shares) - 1} END AS INT)")


def group_layout(spark: Any) -> tuple[float, ...]:
    """:func:`tapered_shares` for ``spark``: its shuffle partitions and its cores (the default
    parallelism: local mode's thread count, a cluster's executor cores)."""
    partitions = int(spark.conf.get("spark.sql.shuffle.partitions"))
    return tapered_shares(partitions, spark.sparkContext.defaultParallelism)


def current_by_group(
    offsets: Any,
    members: Any,
    at: int | None,
    shares: Sequence[float] | None = None,
    groups: int | None = None,
) -> Any:
    """Steps 1-2 and step 3's input, with one shuffle of rows (two when the join with the
    sample times cannot be a broadcast, :func:`joinable`): each group's offsets rows at its two
    latest samples and members rows at the latest (joined with the times of
    :func:`sample_times`) in one frame, partitioned by group into the partitions of
    :func:`group_layout` (the partition index is computed once per group, in the times frame,
    and passed through by ``repartitionById``) and sorted by group, table (offsets first),
    topic, partition and time; the rates window runs on that order (no other
    shuffle or sort: the window's keys include the partition index, a function of the group);
    then only the latest sample's rows are kept (a flag set at the join, ``_latest``, dropped
    after). Each group's rows are contiguous in one task. Column ``_table``: 0 for offsets
    rows, 1 for members rows. ``shares``: the partitions' shares instead of
    :func:`group_layout`'s (the rows are the same whatever the layout). ``groups``: as for
    :func:`fleet_whatif`."""
    return holding(*current_and_cached(offsets, members, at, shares, groups))


def current_and_cached(
    offsets: Any,
    members: Any,
    at: int | None,
    shares: Sequence[float] | None = None,
    groups: int | None = None,
) -> tuple[Any, Any]:
    """(:func:`current_by_group`'s frame, the sample times it holds cached: :func:`joinable`)."""
    from pyspark.sql import functions as F

    rows = offsets.select(
        *(c for c in HISTORY_COLUMNS if c != "time"), F.lit(0).alias(TABLE)
    ).unionByName(members.drop("time").withColumn(TABLE, F.lit(1)), allowMissingColumns=True)
    latest = F.col("t") == F.col("_latest_t")
    previous = (F.col(TABLE) == 0) & (F.col("t") == F.col("_previous_t"))
    # The previous sample's rows serve the rates window only (``t``, ``log_end``, ``committed``);
    # their other values would be shuffled, sorted and windowed for nothing: nulls instead.
    spare = {"log_start", "member_id", "problem", "lag"}
    shares = group_layout(offsets.sparkSession) if shares is None else shares
    times = sample_times(offsets, members, at).withColumn(PART, partition_index(shares))
    times, cached = joinable(times, groups)
    both = (
        rows.join(times, list(GROUP_KEYS))
        .where(latest | previous)
        .select(
            *(F.when(latest, F.col(c)).alias(c) if c in spare else c for c in rows.columns),
            PART,
            latest.alias("_latest"),
        )
    )
    # PART last among the keys: a function of the group, it never orders two rows of a group.
    keys = (*GROUP_KEYS, TABLE, "topic", "partition", PART)
    laid_out = both.repartitionById(len(shares), PART).sortWithinPartitions(*keys, "t")
    return with_rates(laid_out, keys).where(F.col("_latest")).drop("_latest", PART), cached


def joinable(times: Any, groups: int | None = None) -> tuple[Any, Any]:
    """(``times`` ready to join, the frame persisted for it, or None).

    ``times`` holds one row per group. It is marked for broadcast when its size is within the
    session's ``spark.sql.autoBroadcastJoinThreshold`` (10 MB by default: about 150,000
    groups), else the join shuffles both sides by group. A broadcast passes through the
    driver, so the driver never holds more of it than that threshold, however large the
    fleet. The size: ``groups`` (the number of groups, or more) times Spark's own estimate of a
    row of ``times`` (8 bytes + its schema's default size), when the caller knows it; else
    ``times`` is persisted and computed once (one job of its own) and Spark measures it. The
    mark is set here, not left to the planner at run time, so the plan does not change if the
    cache is dropped before the job runs (the times are then computed again).

    Spark's estimates are read through PySpark's private handles (the entry
    ``whatif.joinable`` in :mod:`pipeline.internals`); when it is off, ``times`` is returned
    unmarked and the planner decides at run time.
    """
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    if not internals.applies("whatif.joinable"):
        return times, None
    cached = None
    if groups is not None:
        size = groups * (8 + int(times._jdf.schema().defaultSize()))
    else:
        times = cached = times.persist(StorageLevel.MEMORY_AND_DISK)
        cached.count()
        size = int(cached._jdf.queryExecution().optimizedPlan().stats().sizeInBytes())
    session = times.sparkSession._jsparkSession
    limit = int(session.sessionState().conf().autoBroadcastJoinThreshold())
    return (F.broadcast(times) if 0 <= size <= limit else times), cached


def holding(frame: Any, cached: Any) -> Any:
    """``frame``, with ``cached`` (None: nothing) unpersisted once ``frame`` is garbage (Python
    drops the last reference to it); nothing to release once the session has stopped. When the
    entry ``whatif.holding`` (:mod:`pipeline.internals`) is off, ``cached`` stays cached until
    the session stops."""
    if cached is None or not internals.applies("whatif.holding"):
        return frame

    def release(held: Any) -> None:
        from pyspark import SparkContext

        if SparkContext._active_spark_context is not None:
            held.unpersist(blocking=False)

    weakref.finalize(frame, release, cached).atexit = False
    return frame


def with_rates(frame: Any, keys: Sequence[str] = PARTITION_KEYS) -> Any:
    """``frame`` with ``produce_rate`` and ``consume_rate`` per ``keys``, by ``t``: the rates
    of :func:`pipeline.lag_frames.partition_lag` as Spark columns (null on a partition's first
    sample, when a value is missing or when no time passed).

    Each previous value is one window function (``lag`` of ``t``, ``log_end``, ``committed``),
    however often the rates use it.
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


def groups_of(batches: Iterator[pa.RecordBatch]) -> Iterator[tuple[GroupRows, GroupRows]]:
    """``(offsets rows, members rows)`` of each group in batches laid out by
    :func:`current_by_group`.

    Each batch becomes Python lists once (``to_pydict``); a group is a slice of them, and may
    run on into the next batch. Where the group changes is found by Arrow over the key columns
    (:func:`_runs`), not row by row in Python. Memory: one batch plus one group.
    """
    key: tuple[Any, Any] | None = None
    pending: dict[str, list[Any]] = {}
    for batch in batches:
        data = batch.to_pydict()
        clusters, ids = data[GROUP_KEYS[0]], data[GROUP_KEYS[1]]
        for start, stop in _runs(batch):
            if (clusters[start], ids[start]) != key and pending:
                yield _split(pending)
                pending = {}
            key = (clusters[start], ids[start])
            for name, values in data.items():
                pending.setdefault(name, []).extend(values[start:stop])
    if pending:
        yield _split(pending)


def _runs(batch: pa.RecordBatch) -> list[tuple[int, int]]:
    """``(start, stop)`` of the runs of rows with the same group keys, in order, covering the
    batch. A key that is null on either side of a boundary also starts a run; the caller
    compares the keys themselves, so such a run only splits a group's slice in two."""
    import pyarrow.compute as pc

    rows = batch.num_rows
    if rows < 2:
        return [(0, rows)] if rows else []
    changed = None
    for name in GROUP_KEYS:
        column = batch.column(name)
        step = pc.fill_null(pc.not_equal(column.slice(1), column.slice(0, rows - 1)), True)
        changed = step if changed is None else pc.or_(changed, step)
    starts = [0, *(i + 1 for i in pc.indices_nonzero(changed).to_pylist())]
    return list(zip(starts, [*starts[1:], rows], strict=True))


def _split(columns: dict[str, list[Any]]) -> tuple[GroupRows, GroupRows]:
    tables = columns.pop(TABLE)
    first_member = next((i for i, table in enumerate(tables) if table == 1), len(tables))
    offsets = {name: values[:first_member] for name, values in columns.items()}
    members = {name: values[first_member:] for name, values in columns.items()}
    return GroupRows(offsets, first_member), GroupRows(members, len(tables) - first_member)


def replay(
    offsets: Any,
    members: Any,
    *,
    strategies: Sequence[str] = DEFAULT_STRATEGIES,
    at: int | None = None,
    window_s: int = 7 * 24 * 3600,
    groups_done: Any = None,
) -> tuple[Any, Any, Any]:
    """(member rows, worst member per time, summary per group and strategy)."""
    carried = replay_carried(
        offsets, members, strategies=strategies, at=at, window_s=window_s, groups_done=groups_done
    )
    return replay_tables(carried)


def replay_carried(
    offsets: Any,
    members: Any,
    *,
    strategies: Sequence[str] = DEFAULT_STRATEGIES,
    at: int | None = None,
    window_s: int = 7 * 24 * 3600,
    groups_done: Any = None,
) -> Any:
    """Per group, strategy, time and member: the lag carried (rows of ``REPLAY_COLUMNS``)."""
    from pyspark.sql import functions as F

    if at is None:
        at = int(offsets.agg(F.max("t")).first()[0] or 0)
    window = (F.col("t") > at - window_s) & (F.col("t") <= at)
    names = list(strategies)
    offsets_in = offsets.where(window).select(
        *GROUP_KEYS,
        "t",
        "topic",
        "partition",
        "log_start",
        "log_end",
        "committed",
        "member_id",
        "lag",
        "problem",
    )
    members_in = members.where(window)

    def run(left: pd.DataFrame, right: pd.DataFrame) -> pd.DataFrame:
        if groups_done is not None:
            groups_done.add(1)
        return _text_as_objects(replay_rows(left, right, strategies=names))

    carried = (
        offsets_in.groupBy(*GROUP_KEYS)
        .cogroup(members_in.groupBy(*GROUP_KEYS))
        .applyInPandas(run, schema=ddl(REPLAY_COLUMNS))
    )
    return carried


def _text_as_objects(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its text columns (pandas 3's default ``str`` dtype) as Python objects.

    PySpark 4.3 hands a pandas UDF's result to Arrow column by column and builds one
    ``RecordBatch``: a ``str`` column that ``pd.concat`` joined is a multi-chunk Arrow array,
    comes back as a ``ChunkedArray``, and the batch raises ``TypeError: Cannot convert
    pyarrow.lib.ChunkedArray to pyarrow.lib.Array`` (SPARK-58625, fixed after 4.3.0). An object
    column converts to one array. On pandas 2 the text columns are objects already.
    """
    text = [name for name, dtype in frame.dtypes.items() if isinstance(dtype, pd.StringDtype)]
    return frame.astype(dict.fromkeys(text, object)) if text else frame


def replay_tables(carried: Any) -> tuple[Any, Any, Any]:
    """(carried, worst member per group/strategy/time, summary per group and strategy)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    ok = carried.where(F.col("error").isNull())
    worst = (
        ok.groupBy(*GROUP_KEYS, "strategy", "t")
        .agg(
            F.max(F.struct("lag", "member_id")).alias("worst"),
            F.sum("lag").cast("bigint").alias("lag_total"),
        )
        .select(
            *GROUP_KEYS,
            "strategy",
            "t",
            F.timestamp_seconds("t").alias("time"),
            F.col("worst.member_id").alias("worst_member"),
            F.col("worst.lag").alias("worst_member_lag"),
            "lag_total",
        )
    )
    per_strategy = worst.groupBy(*GROUP_KEYS, "strategy").agg(
        F.max("worst_member_lag").alias("peak_worst_lag"),
        F.avg("worst_member_lag").alias("mean_worst_lag"),
        F.count(F.lit(1)).cast("int").alias("samples"),
    )
    ranking = Window.partitionBy(*GROUP_KEYS).orderBy(
        F.col("observed").asc(), "peak_worst_lag", "mean_worst_lag"
    )
    summary = (
        per_strategy.withColumn("observed", F.col("strategy").startswith("("))
        .withColumn("best", (F.rank().over(ranking) == 1) & ~F.col("observed"))
        .drop("observed")
    )
    failed = carried.where(F.col("error").isNotNull()).select(*GROUP_KEYS, "error")
    summary = summary.unionByName(
        failed.withColumn("strategy", F.lit(None).cast("string"))
        .withColumn("peak_worst_lag", F.lit(None).cast("bigint"))
        .withColumn("mean_worst_lag", F.lit(None).cast("double"))
        .withColumn("samples", F.lit(0))
        .withColumn("best", F.lit(False)),
        allowMissingColumns=True,
    )
    return carried, worst, summary

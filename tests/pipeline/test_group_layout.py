"""The what-if's layout by group: tapering partitions, one shuffle, the same rows as any layout."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline import whatif
from pipeline.whatif import GROUP_KEYS, PART, TABLE, current_by_group, tapered_shares
from tests.pipeline.frames import T0, member, members_rows, offsets_rows, partition

SORT_KEYS = (*GROUP_KEYS, TABLE, "topic", "partition", "t")


def test_tapered_shares_on_two_cores_a_worked_example() -> None:
    # local[2]: 8 shuffle partitions -> 7 regular ones, then 6 levels of one partition each,
    # halving from half a regular partition's share down to 1/64 of it.
    shares = tapered_shares(8, 2)
    regular = 1 / (7 + sum(0.5**level for level in range(1, 7)))
    assert len(shares) == 13
    assert all(math.isclose(s, regular) for s in shares[:7])
    assert [round(s / regular, 6) for s in shares[7:]] == [
        0.5,
        0.25,
        0.125,
        0.0625,
        0.03125,
        0.015625,
    ]


def test_tapered_shares_give_each_level_half_the_cores() -> None:
    shares = tapered_shares(32, 8)  # 4 partitions per level
    assert len(shares) == 28 + 6 * 4
    assert len(set(shares[28:32])) == 1 and math.isclose(shares[32] * 2, shares[28])


@given(st.integers(min_value=1, max_value=400), st.integers(min_value=1, max_value=256))
def test_tapered_shares_are_positive_non_increasing_and_sum_to_one(
    partitions: int, cores: int
) -> None:
    shares = tapered_shares(partitions, cores)
    per_level = max(1, cores // 2)
    assert len(shares) == max(1, partitions - per_level) + whatif.TAPER_LEVELS * per_level
    assert all(s > 0 for s in shares)
    assert all(a >= b for a, b in itertools.pairwise(shares))
    assert math.isclose(sum(shares), 1.0)
    assert math.isclose(shares[-1] * 2**whatif.TAPER_LEVELS, shares[0])


def _fleet(groups: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``groups`` groups over two clusters, 1-4 topics of 1-3 partitions, two samples a minute
    apart (some groups have one), members at the latest sample."""
    offsets, members = [], []
    for g in range(groups):
        cluster, group = f"c{g % 2}", f"group-{g:04d}"
        samples = (T0,) if g % 7 == 0 else (T0, T0 + 60)
        for i, t in enumerate(samples):
            for topic in range(1 + g % 4):
                for p in range(1 + (g + topic) % 3):
                    end = 1000 + 10 * g + 100 * i + p
                    owner = f"m{p % 2}"
                    offsets.append(
                        partition(
                            t, group, f"t{topic}", p, end, end - 5 * p, owner, cluster=cluster
                        )
                    )
        members += [member(samples[-1], group, f"m{m}", ["t0"], cluster=cluster) for m in (0, 1)]
    return offsets, members


@pytest.fixture(scope="module")
def fleet(spark: Any) -> tuple[Any, Any]:
    offsets, members = _fleet(240)
    return offsets_rows(spark, offsets), members_rows(spark, members)


def _with_task(frame: Any) -> list[dict[str, Any]]:
    from pyspark.sql import functions as F

    return [r.asDict() for r in frame.withColumn("_task", F.spark_partition_id()).collect()]


@pytest.mark.spark
def test_partition_index_places_each_group_by_its_hash(spark: Any) -> None:
    from pyspark.sql import functions as F

    shares = tapered_shares(8, 2)
    groups = spark.range(20_000).select(
        F.lit("c").alias("cluster"), F.format_string("group-%05d", "id").alias("group_id")
    )
    placed = groups.select(
        whatif.partition_index(shares).alias("index"),
        F.pmod(F.xxhash64(*GROUP_KEYS), F.lit(whatif.HASH_SPACE)).alias("hash"),
    ).collect()
    bounds = [0.0]
    for share in shares:
        bounds.append(bounds[-1] + share)
    for row in placed:
        low, high = bounds[row["index"]], bounds[row["index"] + 1]
        assert low * whatif.HASH_SPACE - 1 <= row["hash"] < high * whatif.HASH_SPACE + 1
    counts = [sum(1 for r in placed if r["index"] == i) for i in range(len(shares))]
    # 20,000 hashed groups follow the shares: each partition within 5 standard deviations.
    for count, share in zip(counts, shares, strict=True):
        expected = 20_000 * share
        assert abs(count - expected) <= 5 * math.sqrt(expected), (counts, shares)


@pytest.mark.spark
def test_each_group_is_whole_in_its_partition_and_sorted(fleet: tuple[Any, Any]) -> None:
    shares = tapered_shares(8, 2)
    frame = current_by_group(*fleet, None, shares)
    assert frame.rdd.getNumPartitions() == len(shares)
    rows = _with_task(frame)
    tasks: dict[tuple[str, str], set[int]] = {}
    for row in rows:
        tasks.setdefault((row["cluster"], row["group_id"]), set()).add(row["_task"])
    assert len(tasks) == 240 and all(len(t) == 1 for t in tasks.values())
    # Spark's partition of a group is the index partition_index computes from its keys.
    indices = {
        (r["cluster"], r["group_id"]): r["index"]
        for r in fleet[0]
        .select(*GROUP_KEYS, whatif.partition_index(shares).alias("index"))
        .distinct()
        .collect()
    }
    assert {key: task.pop() for key, task in tasks.items()} == indices
    # Within a task, rows come group by group in the sort order (offsets before members).
    by_task: dict[int, list[tuple[Any, ...]]] = {}
    for row in rows:
        by_task.setdefault(row["_task"], []).append(
            tuple((row[k] is not None, row[k]) for k in SORT_KEYS)
        )
    assert all(keys == sorted(keys) for keys in by_task.values())
    assert PART not in frame.columns


@pytest.mark.spark
@pytest.mark.parametrize(
    "shares", [(1.0,), (0.25, 0.25, 0.25, 0.25), tapered_shares(2, 2), tapered_shares(16, 4)]
)
def test_rows_are_the_same_whatever_the_layout(fleet: tuple[Any, Any], shares: Any) -> None:
    def rows(layout: Any) -> list[tuple[Any, ...]]:
        frame = current_by_group(*fleet, None, layout)
        return sorted((tuple((v is not None, v) for v in row) for row in frame.collect()), key=repr)

    laid_out = rows(shares)
    assert laid_out == rows((1.0,))
    assert len(laid_out) > 240


@pytest.mark.spark
def test_the_layout_is_the_one_shuffle_of_rows(fleet: tuple[Any, Any]) -> None:
    # The rates window needs no exchange of its own: the nearest exchange under the window is
    # the layout's (the sample times' exchanges lie further down, under the broadcast).
    plan = current_by_group(*fleet, None)._jdf.queryExecution().executedPlan().toString()
    exchanges = [line for line in plan.splitlines() if "Exchange " in line]
    assert "shufflepartitionidpassthrough" in exchanges[0]
    assert sum("shufflepartitionidpassthrough" in line for line in exchanges) == 1
    assert not any("hashpartitioning(cluster" in line for line in exchanges[:1])


def _joins(frame: Any) -> tuple[bool, bool]:
    """(broadcast join in the plan, sort-merge join in the plan)."""
    plan = frame._jdf.queryExecution().executedPlan().toString()
    return "BroadcastHashJoin" in plan, "SortMergeJoin" in plan


@contextmanager
def _broadcast_threshold(spark: Any, size: int) -> Iterator[None]:
    """The session's ``spark.sql.autoBroadcastJoinThreshold`` at ``size`` bytes, meanwhile."""
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", str(size))
    try:
        yield
    finally:
        spark.conf.unset("spark.sql.autoBroadcastJoinThreshold")


def _sorted_rows(frame: Any) -> list[tuple[Any, ...]]:
    return sorted((tuple((v is not None, v) for v in row) for row in frame.collect()), key=repr)


@pytest.mark.spark
@pytest.mark.parametrize("groups", [None, 240])
def test_the_sample_times_are_broadcast_only_within_spark_s_threshold(
    spark: Any, fleet: tuple[Any, Any], groups: int | None
) -> None:
    # 240 groups of times are a few kB: broadcast under the default 10 MB. With a threshold
    # below that (here 1 kB), the driver holds none of them: both sides are shuffled by group
    # instead, and the rows are the same.
    broadcast = current_by_group(*fleet, None, groups=groups)
    assert _joins(broadcast) == (True, False)
    with _broadcast_threshold(spark, 1024):
        shuffled = current_by_group(*fleet, None, groups=groups)
        assert _joins(shuffled) == (False, True)
        assert _sorted_rows(shuffled) == _sorted_rows(broadcast)


@pytest.mark.spark
def test_the_size_of_the_times_is_spark_s_row_estimate_times_the_groups(
    spark: Any, fleet: tuple[Any, Any]
) -> None:
    # A row of the times: two strings (20 bytes each by Spark's default), two times (8 each), the
    # partition index (4), and 8 bytes of row: 68 bytes. 15 groups fit in 1,020 bytes; 16 do not.
    with _broadcast_threshold(spark, 1020):
        assert _joins(current_by_group(*fleet, None, groups=15)) == (True, False)
        assert _joins(current_by_group(*fleet, None, groups=16)) == (False, True)


@pytest.mark.spark
def test_the_times_measured_by_a_job_are_cached_until_the_frame_is_dropped(
    spark: Any, fleet: tuple[Any, Any]
) -> None:
    import gc

    def cached_in_spark(frame: Any) -> bool:
        cache = spark._jsparkSession.sharedState().cacheManager()
        return bool(cache.lookupCachedData(frame._jdf).isDefined())

    # Groups unknown: the times are computed and cached, and the job reads them from the cache.
    frame, cached = whatif.current_and_cached(*fleet, None)
    assert cached_in_spark(cached)
    frame = whatif.holding(frame, cached)
    assert len(_sorted_rows(frame)) > 240
    assert cached_in_spark(cached)
    del frame
    gc.collect()
    assert not cached_in_spark(cached)
    # Groups known: nothing is cached.
    assert whatif.current_and_cached(*fleet, None, groups=240)[1] is None

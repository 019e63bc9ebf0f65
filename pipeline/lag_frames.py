"""The lag history's steps on Arrow tables: what each Spark task of :mod:`pipeline.lag_history`
runs on the groups it holds, and what a test runs on a whole input at once.

Every function takes and returns ``pyarrow.Table`` objects holding whole groups (any number of
them; a group's rows are never split between calls) and computes with Arrow's and NumPy's
column kernels, never a Python loop over rows (the health steps loop over partitions and groups
of the evaluation window only). Spark SQL's semantics are kept: a missing value is null, an
aggregate over nothing but nulls is null, a comparison with null is false, null keys form one
group, and a partition's "first" and "last" samples are its rows with the smallest and largest
``t`` whatever their values.

1. :func:`partition_lag`: the rows sorted by partition and ``t``, with ``produce_rate`` and
   ``consume_rate`` in records/s since the previous sample of the partition:
   ``(log_end - previous log_end) / seconds`` and ``(committed - previous committed) / seconds``
   (null on the first sample, when a value is missing or when no time passed; a negative consume
   rate is a rewind). One row per input row.
2. :func:`member_lag`: per (cluster, group, time, member) the summed lag, partition count and
   summed consume rate (``(unowned)`` for partitions nobody owns).
3. :func:`group_lag`: per (cluster, group, time) total lag, member count, and the member with the
   largest lag (ties: the largest member id; a null lag ranks lowest) and its lag.
4. :func:`partition_health` and :func:`group_health`: per partition, over the samples in
   ``(at - window_s, at]``, the first rule that holds (in this order) gives the status (in the
   spirit of Burrow's evaluation, with snapshots instead of commit events, so "not committing"
   is read from the offsets):

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
   NOTFOUND); else ``OK``. ``rule`` says which partition and rule decided it (the worst by
   severity, then lag, topic, partition). Exactly one row per group with a sample ``<= at``.

:func:`lag_tables` runs the five steps and returns the tables of :data:`LAG_TABLES`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.schema import arrow_schema

UNOWNED = "(unowned)"
PARTITION_KEYS = ("cluster", "group_id", "topic", "partition")
GROUP_KEYS = ("cluster", "group_id")
#: Status -> severity used to pick a group's worst partition.
SEVERITY = {"OK": 0, "NOTFOUND": 1, "WARN": 2, "REWIND": 3, "STALL": 4, "STOP": 5}
#: Step 1's input columns (prepared offsets, :func:`pipeline.tables.prepare_offsets`).
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
_HISTORY_TYPES = {
    "time": "timestamp",
    "t": "bigint",
    "log_start": "bigint",
    "log_end": "bigint",
    "committed": "bigint",
    "member_id": "string",
    "problem": "string",
    "lag": "bigint",
}
#: The job's outputs: table -> column -> Spark SQL type, in the order written.
LAG_TABLES: dict[str, dict[str, str]] = {
    "partition_lag": {
        "cluster": "string",
        "group_id": "string",
        "topic": "string",
        "partition": "int",
        **_HISTORY_TYPES,
        "produce_rate": "double",
        "consume_rate": "double",
    },
    "member_lag": {
        "cluster": "string",
        "group_id": "string",
        "time": "timestamp",
        "t": "bigint",
        "member_id": "string",
        "lag": "bigint",
        "partitions": "int",
        "consume_rate": "double",
    },
    "group_lag": {
        "cluster": "string",
        "group_id": "string",
        "time": "timestamp",
        "t": "bigint",
        "lag_total": "bigint",
        "members": "int",
        "worst_member": "string",
        "worst_member_lag": "bigint",
    },
    "partition_health": {
        "cluster": "string",
        "group_id": "string",
        "topic": "string",
        "partition": "int",
        "status": "string",
        "rule": "string",
        "lag": "bigint",
        "owner": "string",
        "samples": "bigint",
        "problem": "string",
    },
    "group_health": {
        "cluster": "string",
        "group_id": "string",
        "at": "timestamp",
        "window_s": "int",
        "status": "string",
        "rule": "string",
        "lag_total": "bigint",
        "partitions": "int",
        "flagged": "int",
        **{name.lower(): "int" for name in SEVERITY},
    },
}
SCHEMAS: dict[str, pa.Schema] = {name: arrow_schema(cols) for name, cols in LAG_TABLES.items()}


def _sorted(table: pa.Table, keys: Sequence[str]) -> pa.Table:
    return table.sort_by([(key, "ascending", "at_start") for key in keys])


def run_starts(table: pa.Table, keys: Sequence[str]) -> np.ndarray:
    """True where a row's ``keys`` differ from the previous row's (null equals null)."""
    n = table.num_rows
    starts = np.zeros(n, dtype=bool)
    starts[:1] = True
    if n < 2:
        return starts
    for key in keys:
        column = table[key].combine_chunks()
        here, before = column.slice(1), column.slice(0, n - 1)
        one_null = pc.xor(pc.is_null(here), pc.is_null(before))
        differ = pc.fill_null(pc.not_equal(here, before), one_null)
        starts[1:] |= differ.to_numpy(zero_copy_only=False)
    return starts


def _codes(column: Any) -> np.ndarray:
    """Integer codes of a column's values (equal values, null included, share a code); the
    codes' order is not the values' order."""
    encoded = pc.dictionary_encode(column.combine_chunks(), null_encoding="encode")
    return np.asarray(encoded.indices.to_numpy(zero_copy_only=False), dtype=np.int64)


def _floats(column: Any) -> np.ndarray:
    """A numeric column as float64 with NaN for null (exact below 2**53)."""
    return np.asarray(pc.cast(column, pa.float64()).to_numpy(zero_copy_only=False), dtype=float)


def _previous(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Each row's previous value within its run, NaN on a run's first row."""
    previous = np.empty_like(values)
    previous[:1] = np.nan
    previous[1:] = values[:-1]
    previous[starts] = np.nan
    return previous


def _nullable(values: np.ndarray) -> pa.Array:
    return pa.array(values, mask=np.isnan(values), type=pa.float64())


def _series_order(rows: pa.Table) -> tuple[np.ndarray, np.ndarray]:
    """(the row order by partition, then ``t`` with nulls first; True where a partition starts
    in that order). The partition keys' codes combine into one integer (mixed radix) and, when
    it fits, ``t`` too, so the order is one stable integer sort."""
    n = rows.num_rows
    series, radix = np.zeros(n, dtype=np.int64), 1
    for key in PARTITION_KEYS:
        codes = _codes(rows[key])
        size = int(codes.max()) + 1 if n else 1
        if radix * size >= 2**62:  # renumber the combined codes densely before going on
            series = np.unique(series, return_inverse=True)[1].astype(np.int64)
            radix = int(series.max()) + 1
        series, radix = series * size + codes, radix * size
    t = rows["t"]
    low = (pc.min(t).as_py() or 0) - 1
    times = np.asarray(pc.fill_null(t, low).to_numpy(zero_copy_only=False), dtype=np.int64) - low
    span = int(times.max()) + 1 if n else 1
    if radix * span < 2**62:
        order = np.argsort(series * span + times, kind="stable")
    else:
        order = np.lexsort((times, series))
    ranked = series[order]
    starts = np.ones(n, dtype=bool)
    starts[1:] = ranked[1:] != ranked[:-1]
    return order, starts


def partition_lag(rows: pa.Table) -> pa.Table:
    """Step 1 (see the module's docstring); rows stay in their input order.

    Only the three columns the rates need are put in series order (:func:`_series_order`) and
    the rates scattered back, so the other columns are never copied."""
    rows = rows.select(list(HISTORY_COLUMNS))
    order, starts = _series_order(rows)
    t = _floats(rows["t"])[order]
    seconds = t - _previous(t, starts)
    moving = seconds > 0
    rates = []
    for column in ("log_end", "committed"):
        values = _floats(rows[column])[order]
        rate = np.full(rows.num_rows, np.nan)
        with np.errstate(invalid="ignore", divide="ignore"):
            rate[order] = np.where(moving, (values - _previous(values, starts)) / seconds, np.nan)
        rates.append(_nullable(rate))
    table = rows.append_column("produce_rate", rates[0]).append_column("consume_rate", rates[1])
    return table.cast(SCHEMAS["partition_lag"])


def member_lag(partitions: pa.Table) -> pa.Table:
    """Step 2 (see the module's docstring)."""
    keys = ["cluster", "group_id", "time", "t", "member_id"]
    table = partitions.select([*keys, "lag", "consume_rate"])
    owner = table.schema.get_field_index("member_id")
    table = table.set_column(owner, "member_id", pc.fill_null(table["member_id"], UNOWNED))
    sums = table.group_by(keys, use_threads=False).aggregate(
        [("lag", "sum"), ([], "count_all"), ("consume_rate", "sum")]
    )
    named = {"lag_sum": "lag", "count_all": "partitions", "consume_rate_sum": "consume_rate"}
    out = sums.rename_columns([named.get(name, name) for name in sums.column_names])
    return out.select(list(LAG_TABLES["member_lag"])).cast(SCHEMAS["member_lag"])


def _run_bounds(starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first row, last row) of each run."""
    first = np.flatnonzero(starts)
    last = np.append(first[1:], len(starts)) - 1
    return first, last


def group_lag(members: pa.Table) -> pa.Table:
    """Step 3 (see the module's docstring)."""
    keys = ["cluster", "group_id", "time", "t"]
    if members.num_rows == 0:
        return SCHEMAS["group_lag"].empty_table()
    ranked = _sorted(members, [*keys, "lag", "member_id"])
    first, last = _run_bounds(run_starts(ranked, keys))
    lag = ranked["lag"]
    valid = pc.is_valid(lag).to_numpy(zero_copy_only=False).astype(np.int64)
    values = pc.fill_null(lag, 0).to_numpy(zero_copy_only=False)
    total = np.add.reduceat(values, first)
    any_valid = np.add.reduceat(valid, first) > 0
    tops = pa.array(last)
    columns = {key: ranked[key].take(tops) for key in keys}
    columns["lag_total"] = pa.array(total, mask=~any_valid, type=pa.int64())
    columns["members"] = pa.array(last - first + 1, type=pa.int32())
    columns["worst_member"] = ranked["member_id"].take(tops)
    columns["worst_member_lag"] = lag.take(tops)
    return pa.table(columns).cast(SCHEMAS["group_lag"])


def _window(partitions: pa.Table, at: int, window_s: int) -> pd.DataFrame:
    """Step 1's rows in ``(at - window_s, at]``, sorted by partition and ``t`` (pandas: the
    window is a few samples per partition), with ``committed``'s and ``lag``'s steps since the
    previous row of the partition in the window."""
    t = partitions["t"]
    inside = partitions.filter(pc.and_(pc.greater(t, at - window_s), pc.less_equal(t, at)))
    inside = _sorted(inside, [*PARTITION_KEYS, "t"])
    starts = run_starts(inside, PARTITION_KEYS)
    frame = inside.select([*PARTITION_KEYS, "t", "member_id", "problem"]).to_pandas()
    for column in ("committed", "lag"):
        values = _floats(inside[column])
        frame[column] = values
        frame[f"{column}_step"] = values - _previous(values, starts)
    return frame


def _summary(inside: pd.DataFrame) -> pd.DataFrame:
    """Per partition of the window: counts, extremes, and the first and last rows' values."""
    keys = list(PARTITION_KEYS)
    step, lag_step = inside["committed_step"], inside["lag_step"]
    counted = inside.assign(
        rewinds=(step < 0).astype("int64"),
        moves=((step != 0) & step.notna()).astype("int64"),
        lag_drops=(lag_step < 0).astype("int64"),
    )
    grouped = counted.groupby(keys, sort=False, dropna=False)
    summary = grouped[["rewinds", "moves", "lag_drops"]].sum()
    summary["samples"] = grouped["lag"].count()
    summary["min_lag"] = grouped["lag"].min()
    first, last = grouped.head(1).set_index(keys), grouped.tail(1).set_index(keys)
    summary["first_lag"], summary["first_t"] = first["lag"], first["t"]
    summary["last_lag"], summary["last_t"] = last["lag"], last["t"]
    summary["owner"], summary["problem"] = last["member_id"], last["problem"]
    return summary.reset_index()


def _whole(values: pd.Series) -> pd.Series:
    """Whole numbers as text (Spark's ``%d`` and ``cast(bigint as string)``); null as "null"."""
    text = values.astype("Int64").astype("string")
    return text.fillna("null").astype(object)


def _statuses(summary: pd.DataFrame, min_samples: int) -> tuple[np.ndarray, pd.Series]:
    """Step 4's first rule that holds, per partition of the window: (status, rule)."""
    still = (summary["moves"] == 0) & (summary["min_lag"] > 0)
    unowned = summary["owner"].isna()
    span = _whole(summary["last_t"] - summary["first_t"])
    grew = (summary["lag_drops"] == 0) & (summary["last_lag"] > summary["first_lag"])
    rules = [
        (
            summary["samples"] < min_samples,
            "NOTFOUND",
            _whole(summary["samples"]) + f" sample(s) with a lag in the window, need {min_samples}",
        ),
        (summary["rewinds"] > 0, "REWIND", "committed offset went back"),
        (summary["min_lag"] == 0, "OK", "lag reached 0 in the window"),
        (still & unowned, "STOP", "no owner; offset unchanged for " + span + " s with lag > 0"),
        (
            still,
            "STALL",
            "owned by "
            + summary["owner"].fillna("").astype(object)
            + "; offset unchanged for "
            + span
            + " s with lag > 0",
        ),
        (
            grew,
            "WARN",
            "lag grew at every sample, "
            + _whole(summary["first_lag"])
            + " -> "
            + _whole(summary["last_lag"]),
        ),
    ]
    status = np.full(len(summary), "OK", dtype=object)
    rule = pd.Series("consuming; lag fell at least once", index=summary.index, dtype=object)
    decided = np.zeros(len(summary), dtype=bool)
    for holds, name, text in rules:
        first = holds.to_numpy(dtype=bool) & ~decided
        status[first] = name
        rule[first] = text[first] if isinstance(text, pd.Series) else text
        decided |= first
    return status, rule


def _health_frame(partitions: pa.Table, at: int, window_s: int, min_samples: int) -> pd.DataFrame:
    summary = _summary(_window(partitions, at, window_s))
    summary["status"], summary["rule"] = _statuses(summary, min_samples)
    summary["lag"] = summary["last_lag"]
    return summary.loc[:, list(LAG_TABLES["partition_health"])]


def _to_arrow(frame: pd.DataFrame, table: str) -> pa.Table:
    schema = SCHEMAS[table]
    if frame.empty:
        return schema.empty_table()
    return pa.Table.from_pandas(frame.loc[:, schema.names], schema=schema, preserve_index=False)


def partition_health(
    partitions: pa.Table, *, at: int, window_s: int = 600, min_samples: int = 2
) -> pa.Table:
    """Step 4 per partition with a sample in the window (see the module's docstring)."""
    return _to_arrow(_health_frame(partitions, at, window_s, min_samples), "partition_health")


def _group_sums(statuses: pd.DataFrame) -> pd.DataFrame:
    """Per group with partitions in the window: counts, sums, and the worst partition (by
    severity, then lag with null as -1, topic, partition, status, rule: the largest)."""
    keys = list(GROUP_KEYS)
    frame = statuses.assign(
        severity=statuses["status"].map(SEVERITY), ranked_lag=statuses["lag"].fillna(-1)
    )
    order = [*keys, "severity", "ranked_lag", "topic", "partition", "status", "rule"]
    worst = frame.sort_values(order).groupby(keys, dropna=False).tail(1).set_index(keys)
    grouped = frame.groupby(keys, dropna=False)
    sums = pd.DataFrame(
        {
            "lag_total": grouped["lag"].sum(min_count=1),
            "partitions": grouped.size(),
            "flagged": grouped["problem"].count(),
        }
    )
    counts = frame.groupby([*keys, "status"], dropna=False).size().unstack(fill_value=0)
    for name in SEVERITY:
        sums[name.lower()] = counts.get(name, 0)
    status = worst["status"]
    sums["status"] = np.select(
        [
            sums["notfound"] == sums["partitions"],
            status.isin(["STOP", "STALL"]),
            status.isin(["WARN", "REWIND"]),
        ],
        ["NOTFOUND", "ERR", "WARN"],
        "OK",
    )
    sums["rule"] = (
        worst["topic"].astype(str)
        + "-"
        + _whole(worst["partition"])
        + " "
        + status
        + ": "
        + worst["rule"]
    )
    return sums


def group_health(
    statuses: pa.Table, partitions: pa.Table, *, at: int, window_s: int = 600
) -> pa.Table:
    """Step 4 per group (see the module's docstring): ``statuses`` from
    :func:`partition_health`, ``partitions`` step 1's rows (for the groups' last samples)."""
    seen = partitions.filter(pc.less_equal(partitions["t"], at))
    last = seen.group_by(list(GROUP_KEYS), use_threads=False).aggregate([("t", "max")])
    groups = last.to_pandas().set_index(list(GROUP_KEYS))
    frame = groups.join(_group_sums(statuses.to_pandas()), how="left")
    missing = frame["partitions"].isna()
    seen_at = pd.to_datetime(frame["t_max"], unit="s", utc=True).dt.strftime("%Y-%m-%d %H:%M:%S")
    frame["status"] = frame["status"].where(~missing, "NOTFOUND")
    frame["rule"] = frame["rule"].where(
        ~missing, "no sample in the window (last seen " + seen_at + "Z)"
    )
    frame["at"] = pd.Timestamp(at, unit="s", tz="UTC")
    frame["window_s"] = window_s
    return _to_arrow(frame.reset_index(), "group_health")


def lag_tables(
    offsets: pa.Table, *, at: int, window_s: int = 600, min_samples: int = 2
) -> dict[str, pa.Table]:
    """Steps 1-4 on prepared offsets rows of whole groups: the tables of :data:`LAG_TABLES`."""
    partitions = partition_lag(offsets)
    members = member_lag(partitions)
    statuses = partition_health(partitions, at=at, window_s=window_s, min_samples=min_samples)
    return {
        "partition_lag": partitions,
        "member_lag": members,
        "group_lag": group_lag(members),
        "partition_health": statuses,
        "group_health": group_health(statuses, partitions, at=at, window_s=window_s),
    }

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

import datetime as dt
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


def _whole(value: Any) -> str:
    return "null" if pd.isna(value) else str(int(value))


def _status_and_rule(row: dict[str, Any], min_samples: int) -> tuple[str, str]:
    """Step 4's first rule that holds for one partition's window summary."""
    still = row["moves"] == 0 and row["min_lag"] > 0
    span = _whole(row["last_t"] - row["first_t"])
    if row["samples"] < min_samples:
        few = f"{row['samples']} sample(s) with a lag in the window, need {min_samples}"
        return "NOTFOUND", few
    if row["rewinds"] > 0:
        return "REWIND", "committed offset went back"
    if row["min_lag"] == 0:
        return "OK", "lag reached 0 in the window"
    if still and pd.isna(row["owner"]):
        return "STOP", f"no owner; offset unchanged for {span} s with lag > 0"
    if still:
        return "STALL", f"owned by {row['owner']}; offset unchanged for {span} s with lag > 0"
    if row["lag_drops"] == 0 and row["last_lag"] > row["first_lag"]:
        grew = f"{_whole(row['first_lag'])} -> {_whole(row['last_lag'])}"
        return "WARN", f"lag grew at every sample, {grew}"
    return "OK", "consuming; lag fell at least once"


def _health_frame(partitions: pa.Table, at: int, window_s: int, min_samples: int) -> pd.DataFrame:
    summary = _summary(_window(partitions, at, window_s))
    decided = [_status_and_rule(row, min_samples) for row in summary.to_dict("records")]
    summary["status"] = [status for status, _ in decided]
    summary["rule"] = [rule for _, rule in decided]
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


def _verdict(statuses: pd.DataFrame) -> tuple[str, str]:
    """A group's status and rule from its partitions' statuses (at least one)."""
    worst = max(
        (
            SEVERITY[r.status],
            -1 if pd.isna(r.lag) else r.lag,
            *(r.topic, r.partition, r.status, r.rule),
        )
        for r in statuses.itertuples()
    )
    status = worst[4]
    if (statuses["status"] == "NOTFOUND").all():
        verdict = "NOTFOUND"
    elif status in ("STOP", "STALL"):
        verdict = "ERR"
    elif status in ("WARN", "REWIND"):
        verdict = "WARN"
    else:
        verdict = "OK"
    return verdict, f"{worst[2]}-{worst[3]} {status}: {worst[5]}"


def _group_row(statuses: pd.DataFrame, last_t: int) -> dict[str, Any]:
    if statuses.empty:
        moment = dt.datetime.fromtimestamp(last_t, tz=dt.UTC)
        rule = f"no sample in the window (last seen {moment:%Y-%m-%d %H:%M:%S}Z)"
        return {"status": "NOTFOUND", "rule": rule}
    status, rule = _verdict(statuses)
    counts = statuses["status"].value_counts()
    return {
        "status": status,
        "rule": rule,
        "lag_total": statuses["lag"].sum(min_count=1),
        "partitions": len(statuses),
        "flagged": int(statuses["problem"].notna().sum()),
        **{name.lower(): int(counts.get(name, 0)) for name in SEVERITY},
    }


def group_health(
    statuses: pa.Table, partitions: pa.Table, *, at: int, window_s: int = 600
) -> pa.Table:
    """Step 4 per group (see the module's docstring): ``statuses`` from
    :func:`partition_health`, ``partitions`` step 1's rows (for the groups' last samples)."""
    seen = partitions.filter(pc.less_equal(partitions["t"], at))
    last = seen.group_by(list(GROUP_KEYS), use_threads=False).aggregate([("t", "max")])
    by_group = dict(list(statuses.to_pandas().groupby(list(GROUP_KEYS), dropna=False)))
    empty = pd.DataFrame(columns=list(LAG_TABLES["partition_health"]))
    rows = [
        {
            "cluster": cluster,
            "group_id": group_id,
            "at": pd.Timestamp(at, unit="s", tz="UTC"),
            "window_s": window_s,
            **_group_row(by_group.get((cluster, group_id), empty), last_t),
        }
        for cluster, group_id, last_t in zip(
            last["cluster"].to_pylist(),
            last["group_id"].to_pylist(),
            last["t_max"].to_pylist(),
            strict=True,
        )
    ]
    return _to_arrow(pd.DataFrame(rows, columns=list(LAG_TABLES["group_health"])), "group_health")


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

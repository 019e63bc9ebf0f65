"""Reading the input tables: the Parquet schema read on the driver is Spark's own, or none."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline import schema, tables

UTC_MICROS = pa.timestamp("us", tz="UTC")

#: Column types the driver reads itself (every one Spark infers the same way).
PLAIN = pa.table(
    {
        "time": pa.array([1_700_000_000_000_000, None], UTC_MICROS),
        "millis": pa.array([1_700_000_000_000, 5], pa.timestamp("ms", tz="UTC")),
        "cluster": pa.array(["c", "c"]).dictionary_encode(),
        "group_id": pa.array(["g", None], pa.large_string()),
        "partition": pa.array([0, 1], pa.int32()),
        "log_end": pa.array([10, None], pa.int64()),
        "rate": pa.array([1.5, None], pa.float64()),
        "flag": pa.array([True, None]),
        "topics": pa.array([["a", "b"], None], pa.list_(pa.string())),
    }
)

#: One column each whose Spark type the driver does not decide: Spark infers these itself.
LEFT_TO_SPARK = {
    "naive timestamp": pa.array([1, 2], pa.timestamp("us")),
    "nanoseconds": pa.array([1, 2], pa.timestamp("ns", tz="UTC")),
    "unsigned": pa.array([1, 2], pa.uint32()),
    "float32": pa.array([1.0, 2.0], pa.float32()),
    "int16": pa.array([1, 2], pa.int16()),
    "binary": pa.array([b"a", b"b"]),
    "date": pa.array([1, 2], pa.date32()),
    "struct": pa.array([{"x": 1}, {"x": 2}]),
}


def _write(folder: Path, *parts: pa.Table) -> str:
    folder.mkdir(parents=True)
    for number, part in enumerate(parts):
        pq.write_table(part, folder / f"part-{number:05d}.parquet")
    return str(folder)


def test_plain_files_get_the_schema_spark_infers(spark: Any, tmp_path: Path) -> None:
    one_file = _write(tmp_path / "one", PLAIN)
    two_files = _write(tmp_path / "two", PLAIN, PLAIN.slice(1))
    for path in (one_file, two_files, str(Path(one_file) / "part-00000.parquet")):
        assert tables.footer_schema(path) == spark.read.parquet(path).schema


def _synthetic_tables(folder: Path, seed: int) -> dict[str, str]:
    """The benchmarks' input: a small synthetic history, table name -> its Parquet folder."""
    from pipeline.synth import SynthConfig, write_history

    write_history(SynthConfig(groups=3, hours=1 / 60, interval_s=60, seed=seed), folder)
    return {table: str(folder / table) for table in ("offsets", "members")}


def test_the_input_tables_of_the_benchmarks_are_read_on_the_driver(
    spark: Any, tmp_path: Path
) -> None:
    for path in _synthetic_tables(tmp_path, seed=1).values():
        schema = tables.footer_schema(path)
        assert schema is not None
        assert schema == spark.read.parquet(path).schema


@pytest.mark.parametrize("kind", sorted(LEFT_TO_SPARK))
def test_other_column_types_are_left_to_spark(kind: str, tmp_path: Path) -> None:
    path = _write(tmp_path / "t", PLAIN.slice(0, 2).append_column(kind, LEFT_TO_SPARK[kind]))
    assert tables.footer_schema(path) is None


def test_files_that_differ_or_sit_in_partition_folders_are_left_to_spark(tmp_path: Path) -> None:
    differing = _write(tmp_path / "differing", PLAIN, PLAIN.drop_columns(["rate"]))
    nested = tmp_path / "nested"
    _write(nested / "cluster=c", PLAIN.drop_columns(["cluster"]))
    empty = tmp_path / "empty"
    empty.mkdir()
    for path in (differing, str(nested), str(empty)):
        assert tables.footer_schema(path) is None


def test_read_table_gives_the_same_rows_as_spark_inferring_the_schema(
    spark: Any, tmp_path: Path
) -> None:
    for table, path in _synthetic_tables(tmp_path, seed=2).items():
        read = tables.read_table(spark, path, table)
        inferred = tables.conform(spark.read.parquet(path), table, path)
        assert read.schema == inferred.schema
        assert sorted(read.collect()) == sorted(inferred.collect())


def test_conform_types_every_column_fills_absent_ones_and_keeps_any_other_by_name(
    spark: Any,
) -> None:
    """The offsets columns in their order and types (an absent optional one null), then the
    file's other columns unchanged, whatever characters their names hold."""
    from pipeline.schema import OFFSET_COLUMNS

    frame = spark.createDataFrame(
        [("2026-01-05 00:00:00", "c", "g", "t", "3", 7, 5, "m", "x", 1.5)],
        "time string, cluster string, group_id string, topic string, partition string,"
        " log_end int, committed long, member_id string, `note``s` string, `a.b` double",
    )
    conformed = tables.conform(frame, "offsets")
    assert conformed.columns == [*OFFSET_COLUMNS, "note`s", "a.b"]
    types = dict(conformed.dtypes)
    assert {name: types[name] for name in OFFSET_COLUMNS} == OFFSET_COLUMNS
    row = conformed.first()
    assert (row["partition"], row["log_end"], row["log_start"], row["host"]) == (3, 7, None, None)
    assert (row["note`s"], row["a.b"], str(row["time"])) == ("x", 1.5, "2026-01-05 00:00:00")


def test_quoted_names_are_sql_identifiers() -> None:
    assert schema.quoted("plain") == "`plain`"
    assert schema.quoted("a`b") == "`a``b`"
    assert schema.quoted("a.b c") == "`a.b c`"

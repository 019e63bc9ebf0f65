"""Lag history: the lag column, rates, member sums and the health verdicts, on small frames."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assignors.simulate.lag import partition_lag
from pipeline import lag_frames, lag_history, tables
from pipeline.lag_frames import HISTORY_COLUMNS
from pipeline.schema import arrow_schema
from pipeline.synth import SynthConfig, write_history
from tests.pipeline.compare import OUTPUTS, assert_same_tables
from tests.pipeline.frames import T0, offsets_rows, partition

pytestmark = pytest.mark.spark


@pytest.mark.parametrize(
    ("end", "committed", "start", "reset", "lag"),
    [
        (100, 40, 0, "latest", 60),
        (100, None, 10, "latest", 0),
        (100, None, 10, "earliest", 90),
        (100, None, None, "earliest", 0),
        (100, 150, 0, "latest", 0),  # truncated log: flagged, lag 0
        (100, 5, 50, "none", 95),  # below the log start: counts from the commit
    ],
)
def test_lag_column_worked_examples(
    spark: Any, end: int, committed: int | None, start: int | None, reset: str, lag: int
) -> None:
    row = partition(T0, "g", "t", 0, end, committed, None, start=start)  # type: ignore[arg-type]
    frame = offsets_rows(spark, [row], auto_offset_reset=reset)
    assert frame.select("lag").first()[0] == lag


offsets = st.tuples(
    st.integers(0, 10**12), st.one_of(st.none(), st.integers(0, 10**12)), st.booleans()
)


@settings(max_examples=5, deadline=None)
@given(st.lists(offsets, min_size=1, max_size=40), st.sampled_from(["latest", "earliest"]))
def test_lag_column_equals_the_core_rule(
    spark: Any, cases: list[tuple[int, int | None, bool]], reset: str
) -> None:
    rows = []
    expected = []
    for p, (end, committed, known_start) in enumerate(cases):
        start = end // 3 if known_start else None
        rows.append(partition(T0, "g", "t", p, end, committed, None, start=start))  # type: ignore[arg-type]
        expected.append(partition_lag(end, committed, start, reset))
    frame = offsets_rows(spark, rows, auto_offset_reset=reset)
    got = [r["lag"] for r in frame.orderBy("partition").select("lag").collect()]
    assert got == expected


def _history(spark: Any, rows: list[dict[str, Any]]) -> pa.Table:
    """Step 1 on prepared offsets ``rows``, in ``t`` order."""
    table = lag_frames.partition_lag(offsets_rows(spark, rows).toArrow())
    return table.sort_by([("topic", "ascending"), ("partition", "ascending"), ("t", "ascending")])


def test_rates_are_per_second_since_the_previous_sample(spark: Any) -> None:
    rows = [
        partition(T0 + 120, "g", "t", 0, 1200, 900, "m1"),
        partition(T0, "g", "t", 0, 0, 0, "m1"),
        partition(T0 + 60, "g", "t", 0, 600, 300, "m1"),
        partition(T0 + 60, "g", "t", 1, 50, None, None),
        partition(T0 + 60, "g", "t", 1, 80, None, None),  # no time passed: no rate
    ]
    history = _history(spark, rows).to_pydict()
    assert history["produce_rate"] == [None, 10.0, 10.0, None, None]
    assert history["consume_rate"] == [None, 5.0, 10.0, None, None]
    assert history["lag"] == [0, 300, 300, 0, 0]


def test_rates_never_mix_two_partitions_or_groups(spark: Any) -> None:
    rows = [
        partition(T0 + 60 * i, group, topic, p, 100 * i + p, 10 * i, "m")
        for i in range(3)
        for group in ("g1", "g2")
        for topic in ("a", "b")
        for p in (0, 1)
    ]
    history = lag_frames.partition_lag(offsets_rows(spark, rows).toArrow()).to_pylist()
    assert len(history) == len(rows)
    for row in history:
        first = row["t"] == T0
        assert (row["produce_rate"] is None) == first, row
        assert first or (row["produce_rate"], row["consume_rate"]) == (100 / 60, 10 / 60), row


def test_member_and_group_history_sum_partitions(spark: Any) -> None:
    rows = [
        partition(T0, "g", "t", 0, 100, 90, "a"),
        partition(T0, "g", "t", 1, 100, 50, "a"),
        partition(T0, "g", "t", 2, 100, 70, "b"),
        partition(T0, "g", "t", 3, 100, 100, None),
        partition(T0, "h", "t", 0, 100, 70, "x"),
        partition(T0, "h", "t", 1, 100, 70, "y"),  # a tie: the larger member id is the worst
    ]
    members = lag_frames.member_lag(_history(spark, rows))
    got = {
        (r["group_id"], r["member_id"]): (r["lag"], r["partitions"]) for r in members.to_pylist()
    }
    assert got == {
        ("g", "a"): (60, 2),
        ("g", "b"): (30, 1),
        ("g", lag_frames.UNOWNED): (0, 1),
        ("h", "x"): (30, 1),
        ("h", "y"): (30, 1),
    }
    groups = {r["group_id"]: r for r in lag_frames.group_lag(members).to_pylist()}
    worst = {
        g: (r["lag_total"], r["worst_member"], r["worst_member_lag"]) for g, r in groups.items()
    }
    assert worst == {"g": (90, "a", 60), "h": (60, "y", 30)}


def _series(
    group: str, ends: list[int], commits: list[int | None], owner: str | None, start_t: int = T0
) -> list[dict[str, Any]]:
    return [
        partition(start_t + 60 * i, group, "t", 0, end, committed, owner)
        for i, (end, committed) in enumerate(zip(ends, commits, strict=True))
    ]


STEADY = [1000 + 100 * i for i in range(10)]

#: group -> (rows, partition status, group status, words in the rule)
HEALTH_CASES: dict[str, tuple[list[dict[str, Any]], str, str, str]] = {
    "caught-up": (
        _series("caught-up", STEADY, [*STEADY[:5], *[s - 30 for s in STEADY[5:]]], "m"),
        "OK",
        "OK",
        "lag reached 0",
    ),
    "behind": (
        _series("behind", STEADY, [990 + 50 * i for i in range(10)], "m"),
        "WARN",
        "WARN",
        "grew at every sample",
    ),
    "stuck": (_series("stuck", STEADY, [900] * 10, "m"), "STALL", "ERR", "owned by m"),
    "stopped": (_series("stopped", STEADY, [900] * 10, None), "STOP", "ERR", "no owner"),
    "rewound": (
        _series("rewound", STEADY, [990, 1080, 1050, *[1100 + 100 * i for i in range(7)]], "m"),
        "REWIND",
        "WARN",
        "went back",
    ),
    "busy": (
        _series(
            "busy",
            STEADY,
            [
                s - lag
                for s, lag in zip(STEADY, [50, 40, 60, 30, 70, 20, 80, 10, 90, 5], strict=True)
            ],
            "m",
        ),
        "OK",
        "OK",
        "fell at least once",
    ),
    "sparse": (
        _series("sparse", [5000], [4000], "m", start_t=T0 + 540),
        "NOTFOUND",
        "NOTFOUND",
        "1 sample(s)",
    ),
}


def test_health_verdicts_follow_the_documented_rules(spark: Any) -> None:
    rows = [row for case in HEALTH_CASES.values() for row in case[0]]
    rows.append(partition(T0 - 3600, "gone", "t", 0, 10, 5, "m"))
    partitions = _history(spark, rows)
    at = max(partitions["t"].to_pylist())
    statuses = lag_frames.partition_health(partitions, at=at, window_s=600)
    verdicts = lag_frames.group_health(statuses, partitions, at=at, window_s=600)
    by_partition = {r["group_id"]: r for r in statuses.to_pylist()}
    by_group = {r["group_id"]: r for r in verdicts.to_pylist()}
    for group, (_, partition_status, group_status, words) in HEALTH_CASES.items():
        assert by_partition[group]["status"] == partition_status, (group, by_partition[group])
        assert words in by_partition[group]["rule"], (group, by_partition[group]["rule"])
        assert by_group[group]["status"] == group_status, (group, by_group[group])
    assert by_group["gone"]["status"] == "NOTFOUND"
    assert by_group["gone"]["rule"] == "no sample in the window (last seen 2026-01-04 23:00:00Z)"
    assert by_group["gone"]["partitions"] is None
    assert set(by_group) == {*HEALTH_CASES, "gone"}  # every input group has one verdict
    assert (
        by_group["stuck"]["rule"]
        == "t-0 STALL: owned by m; offset unchanged for 540 s with lag > 0"
    )


def _job_input(spark: Any, root: Path, seed: int) -> Any:
    write_history(
        SynthConfig(
            groups=8, hours=1, interval_s=60, seed=seed, max_partitions=24, every_incident=True
        ),
        root / "history",
    )
    return tables.prepare_offsets(
        tables.read_table(spark, str(root / "history" / "offsets"), "offsets")
    )


def test_the_job_writes_what_the_steps_compute_on_the_whole_input(
    spark: Any, tmp_path: Path
) -> None:
    """write_lag_history (groups spread over tasks, each task's tables written by the task)
    writes the rows of the steps applied to the whole input at once, for every table."""
    offsets = _job_input(spark, tmp_path, seed=16)
    written = lag_history.write_lag_history(offsets, tmp_path / "job")
    steps = lag_frames.lag_tables(
        offsets.toArrow(), at=lag_history.latest_and_rows(offsets)[0], window_s=600
    )
    assert tuple(steps) == tuple(lag_frames.LAG_TABLES) == tuple(written)
    assert written == {name: table.num_rows for name, table in steps.items()}
    assert written["partition_lag"] == offsets.count()
    for name, table in steps.items():
        (tmp_path / "steps" / name).mkdir(parents=True)
        pq.write_table(table, tmp_path / "steps" / name / "all.parquet")
    assert assert_same_tables("lag", tmp_path / "steps", tmp_path / "job") > 0
    parts = list((tmp_path / "job" / "partition_lag").glob("part-*.parquet"))
    assert len(parts) > 1  # the groups really were spread over several tasks
    spark_rows = spark.read.parquet(str(tmp_path / "job" / "group_health")).count()
    assert spark_rows == 8  # and Spark reads what the tasks wrote


def test_the_job_replaces_an_earlier_output_and_writes_empty_tables(
    spark: Any, tmp_path: Path
) -> None:
    offsets = _job_input(spark, tmp_path, seed=3)
    lag_history.write_lag_history(offsets, tmp_path / "job")
    empty = lag_history.write_lag_history(offsets.limit(0), tmp_path / "job")
    assert set(empty.values()) == {0}
    for name in lag_frames.LAG_TABLES:
        frame = spark.read.parquet(str(tmp_path / "job" / name))
        assert frame.count() == 0 and frame.columns == list(lag_frames.LAG_TABLES[name]), name


@settings(max_examples=10, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=8, max_size=8), st.sampled_from([120, 600, 3600]))
def test_steps_on_groups_split_anyhow_equal_the_steps_on_all(
    spark: Any, tasks: list[int], window_s: int
) -> None:
    """Each group's rows depend on that group alone: the steps on any split of the groups into
    tasks, stacked, equal the steps on every group at once."""
    offsets = _sample_offsets(spark)
    at = max(offsets["t"].to_pylist())
    whole = lag_frames.lag_tables(offsets, at=at, window_s=window_s)
    groups = sorted(set(offsets["group_id"].to_pylist()))
    pieces: dict[str, list[pa.Table]] = {name: [] for name in whole}
    for task in set(tasks):
        mine = pa.array([g for g, t in zip(groups, tasks, strict=False) if t == task], pa.string())
        part = offsets.filter(pc.is_in(offsets["group_id"], mine))
        for name, table in lag_frames.lag_tables(part, at=at, window_s=window_s).items():
            pieces[name].append(table)
    for name, table in whole.items():
        stacked = pa.concat_tables(pieces[name])
        keys = [(key, "ascending") for key in OUTPUTS["lag"][name]]
        assert stacked.sort_by(keys).equals(table.sort_by(keys)), name


_SAMPLE: list[pa.Table] = []


def _sample_offsets(spark: Any) -> pa.Table:
    """The repository's sample offset history, prepared, as one Arrow table (read once)."""
    if not _SAMPLE:
        path = Path(__file__).resolve().parents[2] / "sample_data" / "history" / "offsets"
        _SAMPLE.append(
            tables.prepare_offsets(tables.read_table(spark, str(path), "offsets")).toArrow()
        )
    return _SAMPLE[0]


def test_steps_on_no_rows_give_empty_tables_with_their_schemas() -> None:
    columns = {name: lag_frames.LAG_TABLES["partition_lag"][name] for name in HISTORY_COLUMNS}
    tables_out = lag_frames.lag_tables(arrow_schema(columns).empty_table(), at=T0)
    for name, table in tables_out.items():
        assert table.num_rows == 0 and table.schema == lag_frames.SCHEMAS[name], name


def test_an_output_arrow_cannot_write_to_is_refused_with_what_to_give(spark: Any) -> None:
    offsets = offsets_rows(spark, [partition(T0, "g", "t", 0, 10, 5, "m")])
    with pytest.raises(lag_history.OutputLocationError, match="s3a:// is s3://"):
        lag_history.write_lag_history(offsets, "s3a://bucket/out")

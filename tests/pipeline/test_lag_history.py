"""Lag history: the lag column, rates, member sums and the health verdicts, on small frames."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assignors.simulate.lag import partition_lag
from pipeline import lag_history, tables
from pipeline.synth import SynthConfig, write_history
from tests.pipeline.compare import assert_same_tables
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


def test_rates_are_per_second_since_the_previous_sample(spark: Any) -> None:
    rows = [
        partition(T0, "g", "t", 0, 0, 0, "m1"),
        partition(T0 + 60, "g", "t", 0, 600, 300, "m1"),
        partition(T0 + 120, "g", "t", 0, 1200, 900, "m1"),
    ]
    history = lag_history.partition_history(offsets_rows(spark, rows)).orderBy("t").collect()
    assert [r["produce_rate"] for r in history] == [None, 10.0, 10.0]
    assert [r["consume_rate"] for r in history] == [None, 5.0, 10.0]
    assert [r["lag"] for r in history] == [0, 300, 300]


def test_member_and_group_history_sum_partitions(spark: Any) -> None:
    rows = [
        partition(T0, "g", "t", 0, 100, 90, "a"),
        partition(T0, "g", "t", 1, 100, 50, "a"),
        partition(T0, "g", "t", 2, 100, 70, "b"),
        partition(T0, "g", "t", 3, 100, 100, None),
    ]
    members = lag_history.member_history(lag_history.partition_history(offsets_rows(spark, rows)))
    got = {r["member_id"]: (r["lag"], r["partitions"]) for r in members.collect()}
    assert got == {"a": (60, 2), "b": (30, 1), lag_history.UNOWNED: (0, 1)}
    group = lag_history.group_history(members).first()
    assert (group["lag_total"], group["worst_member"], group["worst_member_lag"]) == (90, "a", 60)


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
    statuses, verdicts = lag_history.health(offsets_rows(spark, rows), window_s=600)
    by_partition = {r["group_id"]: r for r in statuses.collect()}
    by_group = {r["group_id"]: r for r in verdicts.collect()}
    for group, (_, partition_status, group_status, words) in HEALTH_CASES.items():
        assert by_partition[group]["status"] == partition_status, (group, by_partition[group])
        assert words in by_partition[group]["rule"], (group, by_partition[group]["rule"])
        assert by_group[group]["status"] == group_status, (group, by_group[group])
    assert by_group["gone"]["status"] == "NOTFOUND"
    assert "no sample in the window" in by_group["gone"]["rule"]
    assert set(by_group) == {*HEALTH_CASES, "gone"}  # every input group has one verdict


def test_the_job_writes_what_the_steps_compute(spark: Any, tmp_path: Path) -> None:
    """write_lag_history (rows laid out by group, steps 2-4 from the written step 1) writes
    the rows of the steps applied one by one to the input as it comes, for every table."""
    write_history(
        SynthConfig(
            groups=8, hours=1, interval_s=60, seed=16, max_partitions=24, every_incident=True
        ),
        tmp_path / "history",
    )
    offsets = tables.prepare_offsets(
        tables.read_table(spark, str(tmp_path / "history" / "offsets"), "offsets")
    )
    lag_history.write_lag_history(offsets, tmp_path / "job")
    partitions = lag_history.partition_history(offsets)
    members = lag_history.member_history(partitions)
    statuses, verdicts = lag_history.health(partitions)
    steps = {
        "partition_lag": partitions,
        "member_lag": members,
        "group_lag": lag_history.group_history(members),
        "partition_health": statuses,
        "group_health": verdicts,
    }
    assert tuple(steps) == lag_history.LAG_TABLES
    for table, frame in steps.items():
        frame.write.parquet(str(tmp_path / "steps" / table))
    assert assert_same_tables("lag", tmp_path / "steps", tmp_path / "job") > 0

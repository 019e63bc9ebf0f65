"""Fleet what-if: the pipeline's rows equal the core run directly; bad input is flagged."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from assignors.cli import compare
from assignors.io.scenario import parse_scenario
from assignors.simulate import changes, metrics
from pipeline import scenarios, tables, whatif
from pipeline.__main__ import main
from pipeline.scenarios import ChangeSpec, extra_members_to_drain
from pipeline.schema import SnapshotFormatError
from tests.pipeline.frames import T0, member, members_rows, offsets_rows, partition

pytestmark = pytest.mark.spark

STRATEGIES = ["range", "roundrobin", "cooperative-sticky"]
TOPICS = ["audit", "orders"]

# Two samples a minute apart. orders: produce 10, 5, 0, 0 records/s; audit: 1, 0.
OWNERS = {
    ("orders", 0): "a",
    ("orders", 1): "a",
    ("audit", 0): "a",
    ("orders", 2): "b",
    ("orders", 3): "b",
    ("audit", 1): "b",
}
ENDS = {
    ("orders", 0): (1000, 1600),
    ("orders", 1): (1000, 1300),
    ("orders", 2): (1000, 1000),
    ("orders", 3): (1000, 1000),
    ("audit", 0): (500, 560),
    ("audit", 1): (500, 500),
}
COMMITS = {
    ("orders", 0): (400, 700),
    ("orders", 1): (900, 1200),
    ("orders", 2): (1000, 1000),
    ("orders", 3): (1000, 1000),
    ("audit", 0): (500, 500),
    ("audit", 1): (200, 200),
}


def _group_rows(group: str = "g1") -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    offsets = [
        partition(
            T0 + 60 * i, group, topic, p, ENDS[topic, p][i], COMMITS[topic, p][i], OWNERS[topic, p]
        )
        for i in (0, 1)
        for topic, p in ENDS
    ]
    members = [member(T0 + 60 * i, group, m, TOPICS) for i in (0, 1) for m in ("a", "b", "c")]
    return offsets, members


def direct_scenario() -> Any:
    """The same group at T0 + 60 written by hand as a scenario file.

    Capacities: a had lag and read 5 + 5 + 0 records/s -> 10; b had lag and read nothing -> 0;
    c owns nothing -> the median of the busy members, 5.
    """
    raw = {
        "group_id": "g1",
        "assignor": "range",
        "topics": [
            {
                "name": "audit",
                "partitions": 2,
                "log_start_offsets": [0, 0],
                "log_end_offsets": [560, 500],
                "committed_offsets": [500, 200],
                "produce_rates": [1.0, 0.0],
            },
            {
                "name": "orders",
                "partitions": 4,
                "log_start_offsets": [0, 0, 0, 0],
                "log_end_offsets": [1600, 1300, 1000, 1000],
                "committed_offsets": [700, 1200, 1000, 1000],
                "produce_rates": [10.0, 5.0, 0.0, 0.0],
            },
        ],
        "members": [
            {
                "member_id": "a",
                "topics": TOPICS,
                "consume_rate": 10.0,
                "owned_partitions": [["audit", 0], ["orders", 0], ["orders", 1]],
            },
            {
                "member_id": "b",
                "topics": TOPICS,
                "consume_rate": 0.0,
                "owned_partitions": [["audit", 1], ["orders", 2], ["orders", 3]],
            },
            {"member_id": "c", "topics": TOPICS, "consume_rate": 5.0},
        ],
    }
    scenario, _ = parse_scenario(raw, path="")
    return scenario


def _close(left: Any, right: Any) -> bool:
    if isinstance(left, float) or isinstance(right, float):
        if left is None or right is None:
            return left is right
        return math.isclose(left, right, rel_tol=1e-9, abs_tol=1e-9)
    return bool(left == right)


def test_pipeline_rows_equal_the_core_run_directly(spark: Any) -> None:
    offsets, members = _group_rows()
    specs = [ChangeSpec("none"), ChangeSpec.parse("add:1")]
    rows = whatif.fleet_whatif(
        offsets_rows(spark, offsets),
        members_rows(spark, members),
        strategies=STRATEGIES,
        change_specs=specs,
    ).collect()
    got = {(r["strategy"], r["change"]): r.asDict() for r in rows}
    assert len(rows) == 1 + len(STRATEGIES) * len(specs)
    assert all(r["error"] is None for r in rows)

    scenario = direct_scenario()
    for spec, core_changes in [
        ("none", []),
        ("add:1", [changes.AddMember("new-1", consume_rate=5.0)]),
    ]:
        report = compare.compare(scenario, STRATEGIES, core_changes)
        for entry in report["strategies"]:
            row = got[entry["strategy"], spec]
            by_member = entry["lag"]["by_member"]
            expected = {
                "lag_total": entry["lag"]["total"],
                "worst_member_lag": max(by_member.values()),
                "lag_cv": entry["lag"]["cv"],
                "lag_max_min_ratio": entry["lag"]["max_min_ratio"],
                "moved": entry["moved"],
                "kept": entry["kept"],
                "revoked": entry["revoked"],
                "rounds": entry["rounds"],
                "pause_s": entry["pause_s"],
                "drain_s": entry["drain_s"],
                "drain_deficit": entry["drain_deficit"],
                "members": len(by_member),
            }
            for key, value in expected.items():
                assert _close(row[key], value), (entry["strategy"], spec, key, row[key], value)

    current = got["range", "current"]
    measured = metrics.assignment_metrics(scenario, changes.current_assignment(scenario))
    assert current["lag_total"] == measured.lag_total == 1360
    assert current["worst_member"] == "a" and current["worst_member_lag"] == 1060
    assert _close(current["lag_cv"], measured.lag_cv)
    extra, note = extra_members_to_drain(scenario, capacity=5.0)
    assert (current["extra_members_to_drain"], current["extra_members_note"]) == (extra, note)


def test_pandas_path_gives_the_same_rows_as_spark(spark: Any) -> None:
    offsets, members = _group_rows()
    spark_rows = whatif.fleet_whatif(
        offsets_rows(spark, offsets), members_rows(spark, members), strategies=["sticky"]
    ).toPandas()
    from pipeline.lag_frames import partition_lag

    history = partition_lag(offsets_rows(spark, offsets).toArrow()).to_pandas()
    latest = history[history["t"] == T0 + 60].reset_index(drop=True)
    group_members = members_rows(spark, members).where(f"t = {T0 + 60}").toPandas()
    local = whatif.rows_frame(
        scenarios.whatif_rows(
            latest, group_members, strategies=["sticky"], change_specs=[ChangeSpec("none")]
        ),
        scenarios.WHATIF_COLUMNS,
    )
    spark_sorted = spark_rows.sort_values(["strategy", "change"]).reset_index(drop=True)
    local_sorted = local.sort_values(["strategy", "change"]).reset_index(drop=True)
    assert spark_sorted.astype(object).where(spark_sorted.notna(), None).to_dict(
        "records"
    ) == local_sorted.astype(object).where(local_sorted.notna(), None).to_dict("records")


def test_bad_groups_are_flagged_never_dropped(spark: Any) -> None:
    good, good_members = _group_rows("good")
    negative = [partition(T0, "negative", "t", 0, 100, -5, "m")]
    truncated = [partition(T0, "truncated", "t", 0, 100, 150, "m")]
    gap = [partition(T0, "gap", "t", 0, 100, 50, "m"), partition(T0, "gap", "t", 2, 100, 50, "m")]
    stranger = [partition(T0, "stranger", "t", 0, 100, 50, "ghost")]
    members = (
        good_members
        + [member(T0, g, "m", ["t"]) for g in ("negative", "truncated", "gap", "stranger")]
        + [member(T0, "members-only", "m", ["t"])]
    )
    offsets = offsets_rows(spark, good + negative + truncated + gap + stranger)
    rows = whatif.fleet_whatif(
        offsets, members_rows(spark, members), strategies=["range"]
    ).collect()
    errors = {r["group_id"]: r["error"] for r in rows if r["error"] is not None}
    computed = {r["group_id"] for r in rows if r["error"] is None}
    assert computed == {"good", "truncated", "members-only"}
    assert set(errors) == {"negative", "gap", "stranger"}
    assert "negative offset" in errors["negative"]
    assert "partitions [1] have no offsets row" in errors["gap"]
    assert "ghost" in errors["stranger"]
    truncated_row = next(r for r in rows if r["group_id"] == "truncated")
    assert truncated_row["lag_total"] == 0 and "beyond the log-end" in (
        truncated_row["warnings"] or ""
    )
    flagged = {r["problem"] for r in offsets.collect() if r["problem"]}
    assert any(p.startswith("negative") for p in flagged)
    assert any(p.startswith("committed beyond") for p in flagged)


def test_missing_column_and_unknown_group_are_clear_errors(spark: Any) -> None:
    frame = spark.createDataFrame([(1, "g")], "partition int, group_id string")
    with pytest.raises(SnapshotFormatError, match=r"lacks the column.*time.*cluster"):
        tables.conform(frame, "offsets")
    offsets, members = _group_rows()
    with pytest.raises(SnapshotFormatError, match=r"unknown group.*nope"):
        tables.require_groups(offsets_rows(spark, offsets), members_rows(spark, members), ["nope"])


def test_change_specs_parse_or_say_what_is_wrong() -> None:
    assert ChangeSpec.parse("add:3") == ChangeSpec("add", count=3)
    assert ChangeSpec.parse("remove:c1").label == "remove:c1"
    with pytest.raises(ValueError, match="add needs a count"):
        ChangeSpec.parse("add:zero")
    with pytest.raises(ValueError, match="unknown change"):
        ChangeSpec.parse("explode")


SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "history"


def test_cli_runs_on_the_sample_history(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "whatif",
            "--input",
            str(SAMPLE),
            "--output",
            str(tmp_path),
            "--master",
            "local[2]",
            "--strategy",
            "cooperative-sticky",
            "--change",
            "add:1",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "groups: 6 in = 6 computed + 0 flagged" in out
    assert (tmp_path / "whatif").is_dir()


def test_cli_reports_bad_input_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "in"
    (broken / "offsets").mkdir(parents=True)
    (broken / "members").mkdir()
    (broken / "offsets" / "a.jsonl").write_text('{"time": "2026-01-05T00:00:00Z", "topic": "t"}\n')
    (broken / "members" / "a.jsonl").write_text('{"time": "2026-01-05T00:00:00Z"}\n')
    code = main(["lag", "--input", str(broken), "--output", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2
    assert "error: the offsets table" in err and "lacks the column(s) cluster" in err
    assert main(["lag", "--input", str(tmp_path / "missing"), "--output", str(tmp_path)]) == 2
    assert "no such input" in capsys.readouterr().err


def test_json_lines_input_gives_the_same_rows(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    offsets, members = _group_rows()
    for name, rows in (("offsets.jsonl", offsets), ("members.jsonl", members)):
        with (tmp_path / name).open("w") as file:
            for row in rows:
                record = {k: v for k, v in row.items() if k != "t" and v is not None}
                record["time"] = f"{pd.Timestamp(row['t'], unit='s', tz='UTC').isoformat()}"
                file.write(json.dumps(record) + "\n")
    code = main(
        [
            "whatif",
            "--offsets",
            str(tmp_path / "offsets.jsonl"),
            "--members",
            str(tmp_path / "members.jsonl"),
            "--output",
            str(tmp_path / "out"),
            "--strategy",
            "range",
        ]
    )
    assert code == 0, capsys.readouterr().err
    got = pd.read_parquet(tmp_path / "out" / "whatif").set_index("change")
    assert got.loc["current", "lag_total"] == 1360 and got.loc["none", "strategy"] == "range"


def test_packages_for_a_real_cluster_are_zipped_in_one_place(spark: Any) -> None:
    import zipfile

    from pipeline.session import ship_packages

    archive = ship_packages(spark)
    names = set(zipfile.ZipFile(archive).namelist())
    assert {
        "assignors/model.py",
        "assignors/io/scenario.schema.json",
        "pipeline/scenarios.py",
    } <= names
    assert not any("__pycache__" in name for name in names)


def test_a_group_gives_the_same_rows_whatever_order_its_rows_arrive_in() -> None:
    # One member reads exactly what arrives (per partition consume = produce) with a constant
    # backlog: its capacity (summed by the pipeline) equals the produce rate (summed by the core)
    # only if neither sum depends on the row order. Issue 16: 1.9e8 years, or "3 s" vs "never".
    rates = (0.1, 0.2, 0.3, 1e-3, 7.0 / 3.0, 1e3 / 7.0, 0.7, 5.0 / 9.0)
    offsets = pd.DataFrame(
        {
            "cluster": "c1",
            "group_id": "g1",
            "t": T0,
            "topic": "orders",
            "partition": range(len(rates)),
            "log_start": 0,
            "log_end": 10_000,
            "committed": [9_500] + [10_000] * (len(rates) - 1),
            "member_id": "a",
            "lag": [500] + [0] * (len(rates) - 1),
            "produce_rate": rates,
            "consume_rate": rates,
            "problem": None,
        }
    )
    members = pd.DataFrame(
        [{"cluster": "c1", "group_id": "g1", "t": T0, "member_id": "a", "topics": ["orders"]}]
    )
    answers = []
    for seed in range(8):
        shuffled = offsets.sample(frac=1, random_state=seed) if seed else offsets
        rows = scenarios.whatif_rows(
            shuffled, members, strategies=STRATEGIES, change_specs=[ChangeSpec("none")]
        )
        assert all(row["drain_s"] is None for row in rows), rows  # never drains, never absurd
        answers.append(rows)
    assert all(rows == answers[0] for rows in answers)


def _laid_out(counts: list[tuple[int, int]]) -> list[dict[str, Any]]:
    """Rows as :func:`pipeline.whatif.current_by_group` lays them out: group after group
    (neighbours may share a group id in another cluster), offsets rows before members rows."""
    return [
        {"cluster": f"c{i % 2}", "group_id": f"g{i // 2}", "_table": table, "row": row}
        for i, (offsets, members) in enumerate(counts)
        for table, count in ((0, offsets), (1, members))
        for row in range(count)
    ]


@given(
    counts=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 3)), min_size=1, max_size=8),
    cuts=st.lists(st.integers(1, 6), min_size=1, max_size=6),
)
def test_groups_of_yields_each_group_whole_whatever_the_batch_cuts(
    counts: list[tuple[int, int]], cuts: list[int]
) -> None:
    rows = _laid_out(counts)
    table = pa.Table.from_pylist(rows)
    batches, start, turn = [], 0, 0
    while start < len(rows):
        batches.append(table.slice(start, cuts[turn % len(cuts)]).to_batches()[0])
        start, turn = start + cuts[turn % len(cuts)], turn + 1
    expected = []
    for i, (offsets, members) in enumerate(counts):
        if offsets + members:
            key = {"cluster": [f"c{i % 2}"], "group_id": [f"g{i // 2}"]}
            expected.append(
                tuple(
                    scenarios.GroupRows(
                        {name: values * count for name, values in key.items()}
                        | {"row": list(range(count))},
                        count,
                    )
                    for count in (offsets, members)
                )
            )
    assert list(whatif.groups_of(iter(batches))) == expected


def test_groups_of_a_worked_example() -> None:
    # Batch 1 ends inside group (c1, g0); (c0, g1) follows with no offsets rows.
    rows = _laid_out([(0, 0), (2, 1), (0, 1)])
    table = pa.Table.from_pylist(rows)
    batches = [*table.slice(0, 2).to_batches(), *table.slice(2).to_batches()]
    (first_offsets, first_members), (second_offsets, second_members) = whatif.groups_of(
        iter(batches)
    )
    assert first_offsets.columns == {"cluster": ["c1"] * 2, "group_id": ["g0"] * 2, "row": [0, 1]}
    assert (first_members.length, first_members.columns["row"]) == (1, [0])
    assert second_offsets.length == 0 and second_members.columns["group_id"] == ["g1"]

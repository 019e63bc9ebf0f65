"""``python -m assignors compare``: figures worked out by hand, table and JSON, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from assignors.cli import compare

ROOT = Path(__file__).resolve().parents[2]

# The strategy tour (design document 001): A and B with two partitions each, C1-C3, roundrobin.
TOUR = {
    "assignor": "roundrobin",
    "topics": [{"name": "A", "partitions": 2}, {"name": "B", "partitions": 2}],
    "members": [{"member_id": m, "topics": ["A", "B"]} for m in ("C1", "C2", "C3")],
}

# Two members each owning one partition with 6,000 records, reading 1,000/s.
BACKLOG = {
    "name": "backlog",
    "topics": [{"name": "t", "partitions": 2, "lags": [6000, 6000]}],
    "members": [
        {"member_id": "A", "topics": ["t"], "consume_rate": 1000, "owned_partitions": [["t", 0]],
         "generation": 1},
        {"member_id": "B", "topics": ["t"], "consume_rate": 1000, "owned_partitions": [["t", 1]],
         "generation": 1, "group_instance_id": "host-b"},
    ],
}  # fmt: skip


def write(tmp_path: Path, scenario: dict[str, Any]) -> str:
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(scenario))
    return str(path)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = compare.main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def by_strategy(out: str) -> dict[str, dict[str, Any]]:
    report = json.loads(out)
    return {entry["strategy"]: entry for entry in report["strategies"]}


def test_a_consumer_leaves_the_tour_group(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = write(tmp_path, TOUR)
    strategies = ["roundrobin", "sticky", "range", "cooperative-sticky"]
    argv = [file, *(f"--strategy={s}" for s in strategies), "--remove-member", "C2", "--json"]
    code, out, err = run(argv, capsys)
    assert (code, err) == (0, "")
    entries = by_strategy(out)
    figures = {s: (e["moved"], e["kept"], e["rounds"], e["pause_s"]) for s, e in entries.items()}
    assert figures == {
        # roundrobin: A-1, B-0, B-1 change owner; A-1 waits 3 s, stops 1 s, warms 2 s.
        "roundrobin": (3, 1, 1, 6.0),
        # sticky: only A-1 moves (to C3), same eager pause.
        "sticky": (1, 3, 1, 6.0),
        # range: C1 A-0 B-0, C3 A-1 B-1: only A-0 stays where roundrobin had put it.
        "range": (3, 1, 1, 6.0),
        # cooperative-sticky: A-1 was C2's, so it is handed out in round 1: 3 s + 2 s warm-up.
        "cooperative-sticky": (1, 3, 1, 5.0),
    }
    assert entries["roundrobin"]["stopped_members"] == ["C1", "C3"]
    assert entries["cooperative-sticky"]["stopped_members"] == []
    report = json.loads(out)
    assert report["changes"] == ["remove member C2"]
    assert report["current"] == {
        "C1": [["A", 0], ["B", 1]],
        "C2": [["A", 1]],
        "C3": [["B", 0]],
    }


def test_drain_after_a_member_joins(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dynamic = json.loads(json.dumps(BACKLOG))
    del dynamic["members"][1]["group_instance_id"]  # a static B would come first in range
    file = write(tmp_path, dynamic)
    argv = [file, "--strategy", "range", "--strategy", "cooperative-sticky", "--strategy",
            "uniform", "--add-member", "C", "--json"]  # fmt: skip
    code, out, _ = run(argv, capsys)
    assert code == 0
    entries = by_strategy(out)
    for entry in entries.values():
        assert (entry["moved"], entry["kept"], entry["idle_members"]) == (0, 2, ["C"])
        assert entry["lag"]["total"] == 12_000
        assert entry["lag"]["by_member"] == {"A": 6000, "B": 6000, "C": 0}
    # range (eager): 3 s reading (3,000 left each), 1 s stopped, settled at 4 s, 3 s to clear.
    assert (entries["range"]["rounds"], entries["range"]["pause_s"]) == (1, 1.0)
    assert entries["range"]["drain_s"] == pytest.approx(7.0)
    # cooperative and consumer protocols: nothing moves, nobody stops; 6 s to clear.
    for name in ("cooperative-sticky", "uniform"):
        assert (entries[name]["rounds"], entries[name]["pause_s"]) == (1, 0.0)
        assert entries[name]["drain_s"] == pytest.approx(6.0)
    members = {m["member_id"]: m for m in entries["range"]["drain"]["members"]}
    assert members["C"]["rate_is_default"] is True
    assert members["A"]["peak_lag"] == 6000


def test_a_static_restart_costs_only_the_restarting_member(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = write(tmp_path, BACKLOG)
    code, out, _ = run([file, "--strategy", "range", "--restart-member", "B", "--json"], capsys)
    assert code == 0
    entry = by_strategy(out)["range"]
    # No rebalance; B is down 30 s (its 6,000 records wait), then needs 6 s; A needs 6 s.
    assert (entry["rounds"], entry["moved"], entry["partition_pauses"]) == (0, 0, 1)
    assert entry["pause_s"] == 30.0
    assert entry["drain_s"] == pytest.approx(36.0)


def test_the_default_output_is_a_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = write(tmp_path, TOUR)
    argv = [file, "--strategy", "roundrobin", "--strategy", "sticky", "--remove-member", "C2"]
    code, out, _ = run(argv, capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "scenario: remove member C2"
    assert lines[1].split() == ["roundrobin", "sticky"]
    moved = next(line for line in lines if line.startswith("partitions moved"))
    assert moved.split()[-2:] == ["3", "1"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--strategy", "range", "--remove-member", "C9"], "no member 'C9'"),
        (["--strategy", "nope"], "unknown strategy 'nope'"),
        (["--strategy", "streams-ha"], "Kafka Streams tasks"),
        (["--strategy", "range", "--partitions", "A:1"], "cannot shrink"),
        (["--strategy", "range", "--partitions", "A"], "expected topic:N"),
        (["--strategy", "range", "--subscribe", "C1"], "expected ID:topic,topic"),
        (["--strategy", "range", "--subscribe", "C1:"], "expected topic,topic"),
        (["--strategy", "range", "--add-member", "C1"], "already in the group"),
        (["--strategy", "range", "--restart-member", "C1"], "no group_instance_id"),
        (["--strategy", "range", "--step", "0"], "step must be a positive"),
        (["--strategy", "range", "--revoke", "-1"], "--revoke must be a number of seconds"),
        (["--strategy", "range", "--warmup", "inf"], "--warmup must be a number of seconds"),
        (["--strategy", "range", "--strategy", "range"], "'range' is given twice"),
        (["--remove-member", "C1"], "--strategy"),
        (["--strategy", "range", "--bogus"], "unrecognized arguments"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    code, out, err = run([write(tmp_path, TOUR), *extra], capsys)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and message in err
    assert "Traceback" not in err


@pytest.mark.parametrize("content", [None, "{not json", '{"topics": []}'])
def test_bad_files_are_one_line_and_exit_code_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None
) -> None:
    path = tmp_path / "scenario.json"
    if content is not None:
        path.write_text(content)
    code, _, err = run([str(path), "--strategy", "range"], capsys)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("error: ")


def test_the_command_line_entry_point(tmp_path: Path) -> None:
    file = write(tmp_path, TOUR)
    command = [sys.executable, "-m", "assignors", "compare", file, "--strategy", "sticky",
               "--add-member", "C4:A", "--json"]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=False)
    assert result.returncode == 0, result.stderr
    (entry,) = json.loads(result.stdout)["strategies"]
    assert {"moved", "kept", "lag", "rounds", "pause_s", "drain_s"} <= set(entry)
    bad = subprocess.run(
        [*command[:5], "--strategy", "sticky", "--remove-member", "ghost"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert bad.returncode == 2
    assert bad.stderr.strip() == "error: no member 'ghost' in the group (members: C1, C2, C3)"

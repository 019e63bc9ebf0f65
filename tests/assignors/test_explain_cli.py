"""``python -m assignors assign FILE --strategy NAME --explain TOPIC:PARTITION``.

The trace printed is the strategy's own record; bad ``--explain`` values end with exit code 2
and one line naming what exists. One real subprocess checks the command as users run it.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from assignors.__main__ import main
from tests.garbage import one_line_of_ours

SAMPLES = Path(__file__).resolve().parents[2] / "sample_data"
RANGE_SAMPLE = str(SAMPLES / "range-vs-roundrobin.json")


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_explain_prints_the_split_of_range() -> None:
    code, out, err = _run(["assign", RANGE_SAMPLE, "--strategy", "range", "--explain", "t0:2"])
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "strategy range",
        "",
        "Why t0-2 is where it is:",
        "  member order (static members by group.instance.id, then the rest by member id): C0, C1",
        "  consumers of t0 in member order: C0, C1",
        "  3 partitions over 2 consumers: 3 // 2 = 1 each, 3 % 2 = 1 extra, one each for the "
        "first 1 consumer(s)",
        "  [1 range split] -> C1: consumer #2 of 2 in member order takes partitions 2..2 (1)",
        "  => t0-2 goes to C1",
    ]


def test_explain_repeats_and_json_carry_every_partition() -> None:
    argv = ["assign", RANGE_SAMPLE, "--strategy", "roundrobin", "--json"]
    code, out, _ = _run([*argv, "--explain", "t0:0", "--explain", "t1:2", "--explain", "t0:0"])
    assert code == 0
    answer = json.loads(out)
    assert [item["partition"] for item in answer["explain"]] == [["t0", 0], ["t1", 2]]
    assert answer["explain"][1]["members"] == ["C1"]
    assert answer["explain"][1]["decisions"][0]["member"] == "C1"
    assert answer["assignment"]["C1"] == [["t0", 1], ["t1", 0], ["t1", 2]]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            "orders:1",
            "error: --explain: topic 'orders' is not in the scenario (its topics: t0, t1)",
        ),
        ("t0:3", "error: --explain: topic 't0' has partitions 0..2, not partition 3"),
        ("t0", "error: --explain: expected TOPIC:PARTITION, got 't0'"),
        ("t0:-1", "error: --explain: expected TOPIC:PARTITION, got 't0:-1'"),
        ("t0:٣", "error: --explain: expected TOPIC:PARTITION, got 't0:٣'"),
        (":1", "error: --explain: expected TOPIC:PARTITION, got ':1'"),
    ],
)
def test_bad_explain_values_name_what_exists(value: str, message: str) -> None:
    code, out, err = _run(["assign", RANGE_SAMPLE, "--strategy", "range", "--explain", value])
    assert (code, out) == (2, "")
    assert err == message + "\n"
    assert one_line_of_ours(err)


def test_explain_refuses_a_streams_task_strategy() -> None:
    sample = str(SAMPLES / "streams-new-instance.json")
    code, _, err = _run(["assign", sample, "--strategy", "streams-ha", "--explain", "t:0"])
    assert code == 2
    assert "--explain traces partition strategies; 'streams-ha' assigns Kafka Streams tasks" in err


def test_explain_as_users_run_it() -> None:
    sample = str(SAMPLES / "failover-priorities.json")
    process = subprocess.run(
        [
            *(sys.executable, "-m", "assignors", "assign", sample, "--strategy", "failover"),
            "--explain",
            "ledger-corrections:1",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert process.returncode == 0, process.stderr
    assert process.stdout.splitlines()[-1] == "  => ledger-corrections-1 goes to primary"
    assert "primary (priority 10), secondary (priority 5), tertiary (priority 1)" in process.stdout

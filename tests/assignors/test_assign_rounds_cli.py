"""``python -m assignors assign`` says which round of the rebalance protocol it prints (issue 36).

A cooperative strategy hands a rebalance out in rounds: round 1 withholds what a member gives up,
a second round hands it to its new owner. ``assign`` prints round 1 unless ``--round`` asks for
another, and says so: in the table's first line and in ``--json`` (``round``, ``rounds``,
``protocol``, added beside ``assignment`` and ``warnings``).

The worked example is KAFKA-12464's (``sample_data/sticky-member-joins.json``): C0 and C1 own
t1-0..4 and t1-5..9; C2 joins. cooperative-sticky's round 1 keeps C0 on t1-0..3 and C1 on
t1-5..7 and gives C2 nothing (t1-4, t1-8 and t1-9 are revoked); round 2 gives C2 those three.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from assignors.__main__ import main

SAMPLES = Path(__file__).resolve().parents[2] / "sample_data"
JOINS = str(SAMPLES / "sticky-member-joins.json")
RANGE_SAMPLE = str(SAMPLES / "range-vs-roundrobin.json")

ROUND_1 = {
    "C0": [["t1", 0], ["t1", 1], ["t1", 2], ["t1", 3]],
    "C1": [["t1", 5], ["t1", 6], ["t1", 7]],
    "C2": [],
}
FINAL = dict(ROUND_1, C2=[["t1", 4], ["t1", 8], ["t1", 9]])


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["assign", *argv])
        except SystemExit as stop:  # argparse's usage errors
            code = int(stop.code or 0)
    return code, out.getvalue(), err.getvalue()


def test_the_table_says_it_shows_round_1_of_2() -> None:
    code, out, err = _run(JOINS, "--strategy", "cooperative-sticky")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == (
        "cooperative-sticky: round 1 of 2 (cooperative protocol): 7 of 10 partitions handed out;"
        " 3 are revoked in this round and handed out in round 2 (--round final)"
    )
    assert lines[1:] == [
        "member  count  partitions",
        "------  -----  ----------",
        "C0          4  t1[0-3]",
        "C1          3  t1[5-7]",
        "C2          0  -",
    ]


@pytest.mark.parametrize("asked", ["final", "2"])
def test_the_final_round_gives_the_newcomer_what_round_1_withheld(asked: str) -> None:
    code, out, err = _run(JOINS, "--strategy", "cooperative-sticky", "--round", asked)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == (
        "cooperative-sticky: round 2 of 2 (cooperative protocol): 10 of 10 partitions handed out;"
        " the final round"
    )
    assert lines[-1] == "C2          3  t1[4,8-9]"


def test_json_adds_the_round_and_keeps_its_fields() -> None:
    code, out, _ = _run(JOINS, "--strategy", "cooperative-sticky", "--json")
    assert code == 0
    assert json.loads(out) == {
        "assignment": ROUND_1,
        "warnings": [],
        "round": 1,
        "rounds": 2,
        "protocol": "cooperative",
    }
    code, out, _ = _run(JOINS, "--strategy", "cooperative-sticky", "--json", "--round", "final")
    assert code == 0
    answer = json.loads(out)
    assert (answer["assignment"], answer["round"], answer["rounds"]) == (FINAL, 2, 2)


def test_an_eager_strategy_takes_one_round_and_says_it_is_final() -> None:
    code, out, _ = _run(RANGE_SAMPLE, "--strategy", "range")
    assert code == 0
    assert out.splitlines()[0] == (
        "range: round 1 of 1 (eager protocol): 6 of 6 partitions handed out; the final round"
    )
    code, out, _ = _run(RANGE_SAMPLE, "--strategy", "range", "--json", "--round", "final")
    answer = json.loads(out)
    assert (answer["round"], answer["rounds"], answer["protocol"]) == (1, 1, "eager")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            [JOINS, "--strategy", "cooperative-sticky", "--round", "3"],
            "error: --round 3: cooperative-sticky takes 2 rounds on this group (1 to 2, or final)",
        ),
        (
            [JOINS, "--strategy", "cooperative-sticky", "--round", "0"],
            "python -m assignors assign: argument --round: expected final or a round number from 1,"
            " got '0'",
        ),
        (
            [JOINS, "--strategy", "cooperative-sticky", "--round", "last"],
            "python -m assignors assign: argument --round: expected final or a round number from 1,"
            " got 'last'",
        ),
        (
            [JOINS, "--strategy", "cooperative-sticky", "--round", "2", "--explain", "t1:4"],
            "error: --explain traces round 1 (the assignor's own answer); leave out --round 2",
        ),
    ],
)
def test_a_round_that_does_not_exist_is_refused_in_one_line(argv: list[str], message: str) -> None:
    code, out, err = _run(*argv)
    assert (code, out, err) == (2, "", message + "\n")

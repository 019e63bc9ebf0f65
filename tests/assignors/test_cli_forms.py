"""``--form`` of ``assign`` and ``compare``: answers one partition at a time or as runs.

``auto`` (the default) writes the compact form (``docs/scenario-format.md``) for a group of
``COMPACT_FROM_PARTITIONS`` partitions or more and pairs below; ``compact`` and ``verbose`` force
either. Whatever the form, the answer read back by the scenario loader (as owned partitions) is
the same assignment.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from assignors.__main__ import main
from assignors.io.compact import COMPACT_FROM_PARTITIONS
from assignors.io.scenario import parse_scenario


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def _group(tmp_path: Path, partitions: int, topics: int = 2) -> str:
    names = [f"t{index}" for index in range(topics)]
    raw = {
        "topics": [{"name": name, "partitions": partitions} for name in names],
        "members": [{"member_id": member, "topics": names} for member in ("a", "b")],
    }
    path = tmp_path / "group.json"
    path.write_text(json.dumps(raw))
    return str(path)


def _claims_read_back(file: str, answer: dict[str, list[Any]]) -> dict[str, tuple[Any, ...]]:
    """Each member's answer read by the loader as its owned partitions."""
    raw = json.loads(Path(file).read_text())
    for member in raw["members"]:
        member["owned_partitions"] = answer[member["member_id"]]
    scenario, _ = parse_scenario(raw, path="")
    return {member.member_id: member.owned_partitions for member in scenario.members}


def test_a_small_group_is_answered_in_pairs_a_forced_compact_one_in_runs(tmp_path: Path) -> None:
    file = _group(tmp_path, 4)
    pairs = json.loads(_run("assign", file, "--strategy", "range", "--json")[1])["assignment"]
    runs = json.loads(
        _run("assign", file, "--strategy", "range", "--json", "--form", "compact")[1]
    )["assignment"]
    assert pairs["a"] == [["t0", 0], ["t0", 1], ["t1", 0], ["t1", 1]]
    assert runs["a"] == [{"topics": "*", "partitions": "0-1"}]
    assert _claims_read_back(file, pairs) == _claims_read_back(file, runs)


def test_the_table_in_either_form(tmp_path: Path) -> None:
    file = _group(tmp_path, 4)
    compact = _run("assign", file, "--strategy", "range", "--form", "compact")[1].splitlines()
    verbose = _run("assign", file, "--strategy", "range", "--form", "verbose")[1].splitlines()
    assert compact[3:] == ["a           4  *[0-1]", "b           4  *[2-3]"]
    assert verbose[3:] == ["a           4  t0[0-1] t1[0-1]", "b           4  t0[2-3] t1[2-3]"]


@pytest.mark.parametrize(
    ("partitions", "compact"),
    [(COMPACT_FROM_PARTITIONS - 1, False), (COMPACT_FROM_PARTITIONS, True)],
)
def test_auto_is_compact_from_the_threshold(tmp_path: Path, partitions: int, compact: bool) -> None:
    file = _group(tmp_path, partitions, topics=1)
    answer = json.loads(_run("assign", file, "--strategy", "roundrobin", "--json")[1])
    first = answer["assignment"]["a"][0]
    assert isinstance(first[1], str) is compact  # ["t0", "0-9998/2"] or ["t0", 0]


def test_compare_prints_current_and_targets_in_the_form_asked(tmp_path: Path) -> None:
    file = _group(tmp_path, 4)
    argv = ["compare", file, "--strategy", "range", "--change", "add:c", "--json"]
    report = json.loads(_run(*argv, "--form", "compact")[1])
    assert report["current"]["a"] == [{"topics": "*", "partitions": "0-1"}]
    assert report["strategies"][0]["assignment"] == {  # range: c joins, b gives up 3
        "a": [{"topics": "*", "partitions": "0-1"}],
        "b": [{"topics": "*", "partitions": "2"}],
        "c": [{"topics": "*", "partitions": "3"}],
    }
    verbose = json.loads(_run(*argv, "--form", "verbose")[1])
    assert verbose["current"]["a"] == [["t0", 0], ["t0", 1], ["t1", 0], ["t1", 1]]


def test_an_unknown_form_is_a_usage_error(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    with (
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        pytest.raises(SystemExit) as stop,
    ):
        main(["assign", _group(tmp_path, 4), "--strategy", "range", "--form", "short"])
    assert stop.value.code == 2
    assert "--form: invalid choice: 'short'" in err.getvalue()

"""``python -m assignors deploy`` on the samples: table, JSON, bad input (one line, exit 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from assignors import registry
from assignors.__main__ import main
from assignors.kafka_versions import KAFKA_VERSIONS, NEWEST_KAFKA_VERSION
from tests.assignors.test_kafka_versions import HOMOGENEOUS, REJOINED, answer
from tests.garbage import one_line_of_ours

SAMPLES = Path(__file__).resolve().parents[2] / "sample_data"
RANGE = str(SAMPLES / "range-vs-roundrobin.json")
LEAVES = str(SAMPLES / "member-leaves-roundrobin-vs-sticky.json")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["deploy", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def as_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code, out, err = run([*argv, "--json"], capsys)
    assert code == 0, err
    answer: dict[str, Any] = json.loads(out)
    return answer


def test_the_table_shows_steps_totals_and_the_ranking(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run([LEAVES, "--strategy", "sticky", "--restart-s", "20"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("The group keeps up: it reads ")
    assert lines[1].startswith("A member leaves: roundrobin vs sticky (sticky): restart all")
    assert lines[2].split()[:3] == ["step", "action", "members"]
    assert [line.split()[:3] for line in lines[3:6]] == [
        ["1", "restart", "C1"],
        ["2", "restart", "C2"],
        ["3", "restart", "C3"],
    ]
    assert "6 rebalance(s)" in out
    assert "alternatives, ranked on every cost (weights: added_lag 1, peak_lag 1," in out
    assert "(asked)" in out and "[front]" in out
    ranked = [
        line for line in lines if line.startswith("     above ") or line.startswith("     below ")
    ]
    assert ranked and ranked[0].startswith("     above ")  # every plan says why, the first too


def test_an_underprovisioned_group_is_named_first(capsys: pytest.CaptureFixture[str]) -> None:
    # large-group: 212,802 records/s produced, 28 members read 122,653 (numbers worked out by
    # the core: assignors.simulate.capacity); the warning is the table's first line.
    large = str(SAMPLES / "large-group.json")
    code, out, _ = run([large, "--strategy", "range", "--no-alternatives"], capsys)
    assert code == 0
    assert out.splitlines()[0].startswith("WARNING: The group cannot keep up: ")
    answer = as_json([large, "--strategy", "range", "--no-alternatives"], capsys)
    capacity = answer["capacity"]
    assert capacity["keeps_up"] is False
    assert capacity["deficit"] == pytest.approx(capacity["produce_rate"] - capacity["read_rate"])
    assert capacity["members_needed"] > capacity["members"]
    assert f"at least {capacity['members_needed']:,} members" in capacity["sentence"]


def test_weights_reorder_the_ranking(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [LEAVES, "--strategy", "sticky", "--restart-s", "20"]
    plain = as_json(argv, capsys)["alternatives"]
    on_moves = as_json([*argv, "--weights", "added_lag=0,peak_lag=0,pause_s=0,deploy_s=0,"
                        "recover_s=0,partition_pauses=0,rebalances=0,moved=1"], capsys)  # fmt: skip
    moves = [a["costs"]["moved"] for a in on_moves["alternatives"]["alternatives"]]
    assert moves == sorted(moves)
    assert on_moves["alternatives"]["weights"]["moved"] == 1
    assert {a["label"] for a in plain["alternatives"]} == {
        a["label"] for a in on_moves["alternatives"]["alternatives"]
    }


def test_static_restarts_in_json_run_no_rebalance(capsys: pytest.CaptureFixture[str]) -> None:
    answer = as_json([LEAVES, "--strategy", "sticky", "--static", "--restart-s", "20"], capsys)
    deploy = answer["deploy"]
    assert deploy["rebalances"] == 0
    assert deploy["moved"] == 0
    assert [step["rebalances"] for step in deploy["steps"]] == [0, 0, 0]
    assert deploy["plan"]["settings"]["static_membership"] is True
    assert len(deploy["lag_over_time"]["times_s"]) == len(deploy["lag_over_time"]["group_lag"])
    labels = [a["label"] for a in answer["alternatives"]["alternatives"]]
    assert "batches of 1, static membership" in labels


def test_the_two_bounce_upgrade(capsys: pytest.CaptureFixture[str]) -> None:
    answer = as_json(
        [RANGE, "--strategy", "range", "--upgrade", "eager-to-cooperative", "--no-alternatives"],
        capsys,
    )
    steps = answer["deploy"]["steps"]
    assert [s["action"] for s in steps] == ["bounce 1"] * 2 + ["bounce 2"] * 2
    assert steps[-1]["protocol"] == "cooperative"
    assert answer["deploy"]["final_strategy"] == "cooperative-sticky"
    assert answer["alternatives"] is None


def test_scale_out_alone_restarts_nobody(capsys: pytest.CaptureFixture[str]) -> None:
    answer = as_json([LEAVES, "--strategy", "sticky", "--scale", "+2", "--no-alternatives"], capsys)
    steps = answer["deploy"]["steps"]
    assert [(s["action"], s["members"]) for s in steps] == [("scale out", ["new-1", "new-2"])]
    scaled_in = as_json(
        [LEAVES, "--strategy", "sticky", "--scale", "-1", "--batch", "2", "--members", "C1,C2"],
        capsys,
    )
    assert [s["action"] for s in scaled_in["deploy"]["steps"]] == ["scale in", "restart"]


CONSUMER_GROUP_SAMPLES = sorted(
    p.name for p in SAMPLES.glob("*.json") if "tasks" not in json.loads(p.read_text())
)


@pytest.mark.parametrize("name", CONSUMER_GROUP_SAMPLES)
def test_every_consumer_group_sample_deploys(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    scenario = json.loads((SAMPLES / name).read_text())
    strategy = scenario.get("assignor") or "range"
    argv = [str(SAMPLES / name), "--strategy", strategy, "--batch", "7", "--no-alternatives"]
    deploy = as_json(argv, capsys)["deploy"]
    members = len(scenario["members"])
    assert len(deploy["steps"]) == -(-members // 7)
    assert deploy["peak_lag"] >= deploy["initial_lag"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([str(SAMPLES / "missing.json"), "--strategy", "range"], "missing.json"),
        ([RANGE, "--strategy", "nope"], "nope"),
        ([str(SAMPLES / "streams-new-instance.json"), "--strategy", "range"], "error:"),
        ([RANGE, "--strategy", "streams-ha"], "Kafka Streams tasks"),
        ([RANGE, "--strategy", "range", "--batch", "0"], "batch size"),
        ([RANGE, "--strategy", "range", "--batch", "x"], "--batch: expected a whole number"),
        ([RANGE, "--strategy", "range", "--batch", "9" * 5000], "--batch: expected a whole"),
        ([RANGE, "--strategy", "range", "--restart-s", "nan"], "--restart-s: expected seconds"),
        ([RANGE, "--strategy", "range", "--restart-s=-1"], "--restart-s: expected seconds"),
        ([RANGE, "--strategy", "range", "--restart-s", "1e400"], "--restart-s: expected seconds"),
        ([RANGE, "--strategy", "range", "--scale", "5x"], "--scale: expected a whole number"),
        ([RANGE, "--strategy", "range", "--scale", "-2"], "at least one must stay"),
        ([RANGE, "--strategy", "range", "--members", "Z"], "no member 'Z'"),
        ([RANGE, "--strategy", "range", "--members", "C0,,C1"], "--members: expected ID,ID"),
        ([RANGE, "--strategy", "range", "--upgrade", "sideways"], "unknown upgrade"),
        ([RANGE, "--strategy", "cooperative-sticky", "--upgrade", "eager-to-cooperative"],
         "already rebalances"),
        ([RANGE, "--strategy", "range", "--upgrade", "assignor:uniform"], "classic-to-consumer"),
        ([RANGE, "--strategy", "range", "--upgrade", "assignor:range"], "already uses"),
        ([RANGE, "--strategy", "range", "--static", "--dynamic"], "not allowed with"),
        ([RANGE, "--strategy", "range", "--members", "C0", "--upgrade", "classic-to-consumer"],
         "restarts every member"),
        ([RANGE, "--strategy", "range", "--session-timeout", "inf"], "--session-timeout"),
        ([RANGE, "--strategy", "range", "--default-consume-rate", "-5"], "records/s"),
        ([RANGE, "--strategy", "range", "--scale", "+200000"], "--scale: at most 100,000"),
        ([RANGE, "--strategy", "range", "--weights", "moved=x"], "--weights: expected COST=NUMBER"),
        ([RANGE, "--strategy", "range", "--weights", "moved"], "--weights: expected COST=NUMBER"),
        ([RANGE, "--strategy", "range", "--weights", "speed=1"], "unknown cost 'speed'"),
        ([RANGE, "--strategy", "range", "--weights", "moved=-1"], "must be a number >= 0"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(argv, capsys)
    assert code == 2, (out, err)
    assert one_line_of_ours(err), err
    assert message in err
    assert out == ""


def test_as_users_run_it() -> None:
    process = subprocess.run(
        [sys.executable, "-m", "assignors", "deploy", RANGE, "--strategy", "range", "--static"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert process.returncode == 0, process.stderr
    assert "static restart" not in process.stdout  # the table names actions, not phases
    assert "0 rebalance(s)" in process.stdout


def _owners(assignment: dict[str, Any]) -> dict[tuple[str, int], str]:
    return {(topic, p): member for member, tps in assignment.items() for topic, p in tps}


def _deploy(file: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "assignors", "deploy", str(file), "--strategy", "uniform"]
    return subprocess.run(
        [*command, "--no-alternatives", *flags], capture_output=True, text=True, timeout=300
    )


def _plan(file: Path, *flags: str) -> dict[str, Any]:
    process = _deploy(file, "--json", *flags)
    assert process.returncode == 0, process.stderr
    deploy: dict[str, Any] = json.loads(process.stdout)["deploy"]
    return deploy


def test_kafka_version_flag_plays_that_releases_rebalances(tmp_path: Path) -> None:
    """Restarting A (dynamic) first: A leaves, B takes all three partitions, A rejoins owning
    nothing (``REJOINED``). That rebalance is uniform's answer for the Kafka release asked for
    (Kafka 3.9.2 and 4.4.0 answer it differently: ``tests/differential``), so the plans differ;
    without the flag the scenario's ``kafka_version`` counts, else the newest."""
    group, old_group = tmp_path / "group.json", tmp_path / "group-3.9.json"
    group.write_text(json.dumps(HOMOGENEOUS), encoding="utf-8")
    old_group.write_text(json.dumps({**HOMOGENEOUS, "kafka_version": "3.9"}), encoding="utf-8")
    lines = registry.get("uniform").kafka_lines.accepted
    plans = {version: _plan(group, "--kafka-version", version) for version in lines}
    held = _owners({m["member_id"]: m.get("owned_partitions", []) for m in REJOINED["members"]})
    for version, plan in plans.items():
        first = plan["steps"][0]
        expected = answer("uniform", REJOINED, version)["assignment"]
        assert (first["members"], first["rebalances"]) == (["A"], 2)
        assert first["assignment"] == expected
        assert first["moved"] == sum(held[tp] != m for tp, m in _owners(expected).items())
    assert plans["3.9"]["steps"] != plans["4.4"]["steps"]
    assert _plan(group)["steps"] == plans[NEWEST_KAFKA_VERSION]["steps"]
    assert _plan(old_group)["steps"] == plans["3.9"]["steps"]
    assert _plan(old_group, "--kafka-version", "4.4")["steps"] == plans["4.4"]["steps"]


def test_unknown_kafka_version_is_refused_as_compare_refuses_it(tmp_path: Path) -> None:
    group = tmp_path / "group.json"
    group.write_text(json.dumps(HOMOGENEOUS), encoding="utf-8")
    refused = _deploy(group, "--kafka-version", "2.8")
    assert (refused.returncode, refused.stdout) == (2, "")
    compare = subprocess.run(
        [sys.executable, "-m", "assignors", "compare", str(group), "--strategy", "uniform",
         "--kafka-version", "2.8"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert compare.returncode == 2
    assert one_line_of_ours(refused.stderr), refused.stderr
    assert refused.stderr.startswith("deploy: argument --kafka-version: Kafka version '2.8'")
    assert f"{KAFKA_VERSIONS[0]} to {NEWEST_KAFKA_VERSION}" in refused.stderr
    assert refused.stderr.removeprefix("deploy") == compare.stderr.removeprefix("compare")
    # A line the strategy does not answer: refused by the strategy, naming the lines it answers.
    early_access = _deploy(group, "--kafka-version", "3.7")
    assert early_access.returncode != 0 and early_access.stdout == ""
    assert "uniform as Kafka 3.7 is not reproduced" in early_access.stderr
    assert "the lines it answers for are 3.8, 3.9, 4.0" in early_access.stderr

"""The batch contract of ``python -m assignors batch``, through a real subprocess.

One JSON line out per line in, in order; bad lines get an error answer naming what is wrong and
where; the batch goes on; no traceback; exit code 0.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from assignors.cli.batch import answer_line, read_lines
from tests.conformance_cases import load_cases

GOOD_SCENARIO = {
    "topics": [{"name": "orders", "partitions": 4}],
    "members": [
        {"member_id": "c1", "topics": ["orders"]},
        {"member_id": "c2", "topics": ["orders"]},
    ],
}


def run_batch(lines: list[str], timeout: float = 120) -> tuple[list[dict[str, object]], str, int]:
    process = subprocess.run(
        [sys.executable, "-m", "assignors", "batch"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    answers = [json.loads(line) for line in process.stdout.splitlines()]
    return answers, process.stderr, process.returncode


def request(strategy: str, scenario: object, case_id: object = "x") -> str:
    return json.dumps({"id": case_id, "strategy": strategy, "scenario": scenario})


def test_answers_every_line_in_order_and_goes_on_after_bad_lines() -> None:
    lines = [
        request("range", GOOD_SCENARIO, case_id=1),
        "this is not json",
        "[1, 2]",
        "",
        json.dumps({"id": 5, "scenario": GOOD_SCENARIO}),
        request("no-such-strategy", GOOD_SCENARIO, case_id=6),
        request("range", {"topics": 3, "members": []}, case_id=7),
        request("roundrobin", GOOD_SCENARIO, case_id=8),
    ]
    answers, stderr, code = run_batch(lines)
    assert code == 0
    assert "Traceback" not in stderr
    assert [a.get("id") for a in answers] == [1, None, None, None, 5, 6, 7, 8]
    assert answers[0]["assignment"] == {
        "c1": [["orders", 0], ["orders", 1]],
        "c2": [["orders", 2], ["orders", 3]],
    }
    assert answers[1]["error"] == "line 2: not valid JSON: Expecting value at line 1 column 1"
    assert answers[2]["error"] == "line 3: expected a JSON object (a request), got a list"
    assert answers[3]["error"] == "line 4: empty line; expected a JSON object"
    assert "strategy: missing" in str(answers[4]["error"])
    assert "unknown strategy 'no-such-strategy'; known strategies: range" in str(
        answers[5]["error"]
    )
    assert answers[6]["error"] == "topics: expected a list of topics, got an integer"
    assert set(answers[7]["assignment"]) == {"c1", "c2"}  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("scenario", "message"),
    [
        (
            {"topics": [{"name": "t", "partitions": 10**12}], "members": []},
            "topics[0].partitions: 1,000,000,000,000 partitions; expected 0 to 1,000,000 per topic",
        ),
        (
            {
                "topics": [{"name": "t", "partitions": 1}],
                "members": [
                    {"member_id": "a", "topics": ["t"]},
                    {"member_id": "a", "topics": ["t"]},
                ],
            },
            'members[1].member_id: duplicate member "a" (also members[0])',
        ),
        (
            {
                "topics": [{"name": "t", "partitions": 1}, {"name": "t", "partitions": 2}],
                "members": [],
            },
            'topics[1].name: duplicate topic "t" (also topics[0])',
        ),
        (
            {"topics": [], "members": [{"member_id": "a", "topics": "t"}]},
            'members[0].topics: expected a list of topic names (or "*": every topic), got a string',
        ),
        (
            {
                "topics": [{"name": "t", "partitions": 1}],
                "members": [{"member_id": "a", "topics": ["t"], "owned_partitions": [["t", "x"]]}],
            },
            "members[0].owned_partitions[0]: 'x' is not a partition number or run; write numbers"
            ' and runs such as "7", "0-499" or "0-98/2" (every 2nd), comma-separated',
        ),
        ("not an object", "expected a JSON object, got a string"),
    ],
)
def test_bad_scenarios_get_a_message_naming_where(scenario: object, message: str) -> None:
    answer = answer_line(request("range", scenario).encode(), 1)
    assert message in str(answer["error"])
    assert "assignment" not in answer


def test_claims_on_partitions_that_do_not_exist_are_ignored_with_a_warning() -> None:
    scenario = {
        "topics": [{"name": "orders", "partitions": 2}],
        "members": [
            {
                "member_id": "a",
                "topics": ["orders"],
                "generation": 1,
                "owned_partitions": [["orders", 7], ["gone", 0]],
            },
        ],
    }
    answer = answer_line(request("range", scenario).encode(), 1)
    assert answer["assignment"] == {"a": [["orders", 0], ["orders", 1]]}
    assert answer["warnings"] == [
        'members[0].owned_partitions[0]: partition 7 does not exist in topic "orders" '
        "(2 partitions); Kafka ignores this claim",
        'members[0].owned_partitions[1]: topic "gone" does not exist; Kafka ignores this claim',
    ]


def test_an_over_long_line_is_refused_without_holding_it() -> None:
    stream = io.BytesIO(b"x" * 5000 + b"\n" + b'{"id": 1}\n')
    lines = list(read_lines(stream, max_bytes=1000))
    assert lines == [None, b'{"id": 1}']
    assert "longer than" in str(answer_line(None, 1)["error"])


def test_conformance_cases_through_the_cli_match_kafka() -> None:
    """A slice of every conformance file, fed as-is (the ``expected`` key is ignored)."""
    cases = [
        case
        for name in (
            "client.jsonl",
            "server.jsonl",
            "streams.jsonl",
            "lag-aware.jsonl",
            "failover.jsonl",
            "stream-join-sticky.jsonl",
        )
        for case in load_cases(name)[:10]
    ]
    lines = [
        json.dumps(
            {"id": c.id, "strategy": c.strategy, "scenario": c.scenario, "expected": c.expected}
        )
        for c in cases
    ]
    answers, stderr, code = run_batch(lines)
    assert code == 0 and "Traceback" not in stderr
    assert len(answers) == len(cases)
    for case, answer in zip(cases, answers, strict=True):
        assert answer["id"] == case.id
        assert "assignment" in answer, answer.get("error")
        got = answer["assignment"]
        if case.strategy == "streams-ha":
            assert isinstance(got, dict)
            assert got["probing_rebalance_needed"] == case.expected["probing_rebalance_needed"]
            for client, want in case.expected["clients"].items():
                for key in ("active", "standby", "warmup"):
                    assert set(got["clients"][client][key]) == set(want[key]), case.id
        else:
            assert isinstance(got, dict)
            assert {m: {tuple(p) for p in ps} for m, ps in got.items()} == {
                m: {tuple(p) for p in ps} for m, ps in case.expected.items()
            }, case.id


def test_every_sample_answers_in_the_batch_cli_under_every_strategy() -> None:
    """Issue promise: each shipped sample, fed as-is, gets an assignment from each strategy."""
    from assignors import registry
    from sample_data import list_samples

    lines: list[str] = []
    expected_members: list[set[str]] = []
    for sample in list_samples():
        raw = json.loads(sample.path.read_text(encoding="utf-8"))
        for name, strategy in registry.strategies().items():
            if (strategy.kind == "tasks") != (sample.kind == "streams"):
                continue
            lines.append(request(name, raw, case_id=f"{sample.key}/{name}"))
            if sample.kind == "streams":
                expected_members.append({c["process_id"] for c in raw["clients"]})
            else:
                expected_members.append({m["member_id"] for m in raw["members"]})
    answers, stderr, code = run_batch(lines)
    assert code == 0 and "Traceback" not in stderr
    assert len(answers) == len(lines) > 9 * 9
    for answer, members in zip(answers, expected_members, strict=True):
        assert "assignment" in answer, (answer["id"], answer.get("error"))
        got = answer["assignment"]
        assert isinstance(got, dict)
        assert set(got.get("clients", got)) == members, answer["id"]

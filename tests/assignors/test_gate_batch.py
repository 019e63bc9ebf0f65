"""``python -m assignors batch`` fed generated garbage: every line answered, the batch goes on.

Each answer is one JSON object with the line's ``id`` (or ``null``) and either an ``assignment``
or an ``error`` in the project's words; no traceback, exit code 0. A few cases run through a real
subprocess (the command users run); the generated ones call :func:`run_batch` on byte streams.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assignors.cli.batch import answer_line, run_batch
from tests.garbage import JSON_TREES, KNOWN_BAD, SCENARIO_TREES, render

GARBAGE = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
GOOD = {
    "topics": [{"name": "t", "partitions": 2}],
    "members": [{"member_id": "a", "topics": ["t"]}],
}
GOOD_LINE = json.dumps({"id": "good", "strategy": "range", "scenario": GOOD}).encode()


def _line(case_id: object, scenario_text: str, strategy: str = "range") -> bytes:
    prefix = json.dumps({"id": case_id, "strategy": strategy})[:-1]
    return f'{prefix}, "scenario": {scenario_text}}}'.encode("utf-8", "surrogatepass")


def _answers(lines: list[bytes]) -> list[dict[str, object]]:
    sink = io.StringIO()
    count = run_batch(io.BytesIO(b"\n".join(lines) + b"\n"), sink)
    answers = [json.loads(text) for text in sink.getvalue().splitlines()]
    assert count == len(lines) == len(answers)
    for answer in answers:
        assert "id" in answer and ("assignment" in answer) != ("error" in answer), answer
        assert "Traceback" not in json.dumps(answer)
        assert "internal error" not in str(answer.get("error", "")), answer
    return answers


def test_a_5000_digit_number_is_answered_and_the_batch_goes_on() -> None:
    """Before the gate, ``json.loads`` raised ValueError and the batch died on this line."""
    answers = _answers([_line(1, KNOWN_BAD["5000-digit partitions"]), GOOD_LINE])
    assert answers[0] == {
        "id": 1,
        "error": "scenario.topics[0].partitions: an integer of 5,000 digits; numbers here have"
        " at most 100 digits",
    }
    assert answers[1]["id"] == "good" and "assignment" in answers[1]


def test_a_null_line_is_answered_in_the_projects_words() -> None:
    assert answer_line(b"null", 4) == {
        "id": None,
        "error": "line 4: expected a JSON object (a request), got null",
    }


def test_a_byte_order_mark_on_a_line_is_accepted() -> None:
    assert "assignment" in answer_line(b"\xef\xbb\xbf" + GOOD_LINE, 1)


def test_a_refused_id_is_not_echoed_but_the_line_is_answered() -> None:
    answers = _answers([b'{"id": NaN, "strategy": "range", "scenario": {}}'])
    assert answers[0]["id"] is None
    assert "id: NaN is not a JSON number" in str(answers[0]["error"])


def test_known_garbage_through_a_real_subprocess() -> None:
    lines = [_line(index, text) for index, text in enumerate(KNOWN_BAD.values())]
    lines += [b"\xff\xfe garbage", b"null", GOOD_LINE]
    process = subprocess.run(
        [sys.executable, "-m", "assignors", "batch"],
        input=b"\n".join(lines) + b"\n",
        capture_output=True,
        timeout=300,
    )
    assert process.returncode == 0
    assert process.stderr == b""
    answers = [json.loads(line) for line in process.stdout.decode().splitlines()]
    assert len(answers) == len(lines)
    assert all("error" in answer for answer in answers[:-1])
    assert "assignment" in answers[-1]
    # A line nested too deep for Python, or not JSON (an empty scenario), has no readable id.
    expected = [
        None if name in ("deep", "empty") else index for index, name in enumerate(KNOWN_BAD)
    ]
    assert [answer["id"] for answer in answers[: len(KNOWN_BAD)]] == expected


@GARBAGE
@given(st.lists(st.binary(max_size=200), min_size=1, max_size=5))
def test_random_bytes_lines_are_each_answered(lines: list[bytes]) -> None:
    lines = [line.replace(b"\n", b" ").replace(b"\r", b" ") for line in lines]
    _answers([*lines, GOOD_LINE])


@GARBAGE
@given(st.lists(JSON_TREES, min_size=1, max_size=4))
def test_random_json_lines_are_each_answered(trees: list[object]) -> None:
    _answers([render(tree).encode("utf-8", "surrogatepass") for tree in trees])


@GARBAGE
@given(
    st.lists(
        st.tuples(
            JSON_TREES,
            st.sampled_from(["range", "sticky", "cooperative-sticky", "uniform", "streams-ha"]),
            SCENARIO_TREES,
        ),
        min_size=1,
        max_size=3,
    )
)
def test_requests_with_garbage_scenarios_are_each_answered(
    requests: list[tuple[object, str, object]],
) -> None:
    lines = [
        f'{{"id": {render(case_id)}, "strategy": "{strategy}", "scenario": {render(tree)}}}'.encode(
            "utf-8", "surrogatepass"
        )
        for case_id, strategy, tree in requests
    ]
    _answers([*lines, GOOD_LINE])

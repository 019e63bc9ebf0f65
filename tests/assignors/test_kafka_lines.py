"""Which Kafka release lines each strategy answers for (``KafkaLines``), as a specification.

Every line 3.0 to 4.4 is a valid ``kafka_version``; a strategy answers it only from the first
line that has its assignor on, and not on the lines it refuses (their answers differ from every
implemented line). A refusal is a ``ScenarioError`` whose message names the first line that has
the assignor, or the lines it answers. That every accepted line is compared with that line's own
Kafka classes is ``tests/differential/test_release_lines.py``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assignors import registry
from assignors.cli.batch import answer_line
from assignors.errors import ScenarioError
from assignors.kafka_versions import KAFKA_VERSIONS, NEWEST_KAFKA_VERSION, KafkaLines, at_least

GROUP = {
    "topics": [{"name": "t", "partitions": 2, "replica_racks": [["r2"], ["r1"]]}],
    "members": [
        {"member_id": "A", "topics": ["t"], "rack": "r1"},
        {"member_id": "B", "topics": ["t"], "rack": "r2"},
    ],
}
STREAMS = {
    "tasks": [{"id": "0_0"}, {"id": "0_1"}],
    "clients": [
        {"process_id": "00000000-0000-0000-0000-00000000000a", "capacity": 1},
        {"process_id": "00000000-0000-0000-0000-00000000000b", "capacity": 1},
    ],
}
STREAMS_GROUP = {
    "tasks": [{"id": "0_0"}],
    "clients": [
        {
            "process_id": "00000000-0000-0000-0000-00000000000a",
            "capacity": 1,
            "members": [{"member_id": "m1"}],
        }
    ],
}


def answer(strategy: str, version: str | None) -> dict[str, Any]:
    """The batch answer of ``strategy`` on a small group of its shape, as Kafka ``version``."""
    kind = registry.get(strategy)
    scenario: dict[str, Any] = dict(GROUP)
    if kind.kind == "tasks":
        scenario = dict(STREAMS_GROUP if strategy == "streams-group-sticky" else STREAMS)
    if version is not None:
        scenario["kafka_version"] = version
    request = {"id": 1, "strategy": strategy, "scenario": scenario}
    return answer_line(json.dumps(request).encode(), 1)


@pytest.mark.parametrize(
    ("strategy", "version", "named"),
    [
        ("share-simple", "3.9", "the first release line that has it is 4.0"),
        ("streams-group-sticky", "4.0.2", "the first release line that has it is 4.1"),
        ("streams-group-sticky", "4.1", "the lines it answers for are 4.2, 4.3, 4.4"),
        ("uniform", "3.4", "the first release line that has it is 3.7"),
        ("server-range", "3.0.2", "the first release line that has it is 3.7"),
        ("streams-sticky", "3.7", "the first release line that has it is 3.8"),
        ("uniform", "3.7", "the lines it answers for are 3.8, 3.9, 4.0"),
        ("streams-group-sticky", "4.1", "the lines it answers for are 4.2, 4.3, 4.4"),
    ],
)
def test_refusals_name_the_first_line_or_the_lines_answered(
    strategy: str, version: str, named: str
) -> None:
    refused = answer(strategy, version)
    assert "assignment" not in refused
    assert refused["error"].startswith("kafka_version: " + strategy), refused["error"]
    assert named in refused["error"]


def test_range_before_kip_881_does_not_look_at_racks() -> None:
    """A in r1, B in r2; t-0's replica is in r2, t-1's in r1. From 3.5 on (KIP-881) each member
    takes the partition in its rack; 3.0 to 3.4 cut the topic in member order."""
    rack_aware = {"A": [["t", 1]], "B": [["t", 0]]}
    in_order = {"A": [["t", 0]], "B": [["t", 1]]}
    for line in KAFKA_VERSIONS:
        expected = rack_aware if at_least(line, "3.5") else in_order
        assert answer("range", line)["assignment"] == expected, line


def test_every_strategy_answers_the_newest_line_and_no_line_before_its_first() -> None:
    for name, strategy in registry.strategies().items():
        lines = strategy.kafka_lines
        assert NEWEST_KAFKA_VERSION in lines.accepted, name
        assert all(at_least(line, lines.first) for line in lines.accepted), name
        assert set(lines.accepted) | {line for line, _ in lines.refused} == {
            line for line in KAFKA_VERSIONS if at_least(line, lines.first)
        }, name


@given(
    strategy=st.sampled_from(sorted(registry.strategies())),
    line=st.sampled_from(KAFKA_VERSIONS),
    patch=st.none() | st.integers(min_value=0, max_value=9),
)
def test_a_line_is_answered_exactly_when_the_strategy_accepts_it(
    strategy: str, line: str, patch: int | None
) -> None:
    """Asked as any line (or a patch release of it), a strategy answers iff its lines accept the
    line; otherwise the refusal names the first line that has it (asked before it existed) or the
    lines it answers (a refused line)."""
    lines = registry.get(strategy).kafka_lines
    got = answer(strategy, line if patch is None else f"{line}.{patch}")
    if line in lines.accepted:
        assert "assignment" in got, got
        assert got == answer(strategy, line)
    elif not at_least(line, lines.first):
        assert f"the first release line that has it is {lines.first}" in got["error"]
    else:
        assert f"the lines it answers for are {', '.join(lines.accepted)}" in got["error"]


@given(
    first=st.sampled_from(KAFKA_VERSIONS),
    refused=st.sets(st.sampled_from(KAFKA_VERSIONS[:-1])),
    asked=st.sampled_from(KAFKA_VERSIONS),
)
def test_kafka_lines_check(first: str, refused: set[str], asked: str) -> None:
    """``check`` raises exactly for the lines ``accepted`` leaves out, naming ``first`` when the
    line is older than it; ``None`` (the newest) is always answered."""
    lines = KafkaLines(
        first=first,
        arrived="x",
        refused=tuple((line, "why") for line in sorted(refused) if at_least(line, first)),
    )
    lines.check("s", None)
    if asked in lines.accepted:
        lines.check("s", asked)
        return
    with pytest.raises(ScenarioError) as error:
        lines.check("s", asked)
    if at_least(asked, first):
        assert "why" in str(error.value)
    else:
        assert f"first release line that has it is {first}" in str(error.value)

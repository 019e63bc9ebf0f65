"""The client-side sticky assignors as Kafka 3.0 to 3.4 ran them (``LineRules`` in
``assignors/client/sticky.py``): worked examples, each answered alike by Kafka's own classes of
the lines it names (``tests/differential/test_release_lines.py`` asks them), and properties.

- ``NEWEST_GENERATION``: 3.0-3.3 drop the claims of a member whose generation is older than the
  newest; 3.4 keeps them.
- ``GIVEN_BACK``: 3.0-3.4's balance test goes on while a member is one partition behind another,
  and the loop hands ``t0-3`` back to its previous-generation owner ``b``, which subscribes only
  to ``t1``; 3.5's stops first.
- ``KEPT_TWICE``: with the cooperative assignor, 3.4 lets ``a`` (generation 2) and ``c``
  (generation 3) both keep ``t1-1``, since ``b``'s losing claim (generation 1) is what ``c``'s
  is compared with.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings

from assignors.cli.batch import answer_line
from assignors.client.sticky import LineRules
from assignors.io.scenario import scenario_to_json
from assignors.kafka_versions import KAFKA_VERSIONS, at_least
from assignors.model import Scenario
from tests.assignors.test_sticky import groups

STICKY = ("sticky", "cooperative-sticky")
#: Before the claim rules of 3.4, the lines that read every generation's claims, and KIP-881's.
BEFORE_34 = ("3.0", "3.1", "3.2", "3.3")


def claims(*pairs: tuple[str, int]) -> list[list[Any]]:
    return [[topic, partition] for topic, partition in pairs]


NEWEST_GENERATION: dict[str, Any] = {
    "topics": [{"name": "t", "partitions": 3}],
    "members": [
        {"member_id": "a", "topics": ["t"], "generation": 2, "owned_partitions": claims(("t", 0))},
        {"member_id": "b", "topics": ["t"], "generation": 1, "owned_partitions": claims(("t", 2))},
    ],
}
GIVEN_BACK: dict[str, Any] = {
    "topics": [{"name": "t0", "partitions": 4}, {"name": "t1", "partitions": 2}],
    "members": [
        {
            "member_id": "a",
            "topics": ["t0"],
            "generation": 2,
            "owned_partitions": claims(("t0", 0), ("t0", 2), ("t1", 0)),
        },
        {
            "member_id": "b",
            "topics": ["t1"],
            "generation": 1,
            "owned_partitions": claims(("t0", 3), ("t1", 0)),
        },
        {
            "member_id": "c",
            "topics": ["t0", "t1"],
            "generation": 2,
            "owned_partitions": claims(("t0", 1), ("t1", 1)),
        },
    ],
}
KEPT_TWICE: dict[str, Any] = {
    "topics": [{"name": "t0", "partitions": 1}, {"name": "t1", "partitions": 2}],
    "members": [
        {
            "member_id": "a",
            "topics": ["t0", "t1"],
            "generation": 2,
            "owned_partitions": claims(("t1", 0), ("t1", 1)),
        },
        {
            "member_id": "b",
            "topics": ["t1"],
            "generation": 1,
            "owned_partitions": claims(("t1", 1)),
        },
        {
            "member_id": "c",
            "topics": ["t0", "t1"],
            "generation": 3,
            "owned_partitions": claims(("t1", 0), ("t1", 1)),
        },
    ],
}
#: (strategy, scenario, line, answer as partition sets): what ``test_release_lines`` asks Kafka.
WORKED: list[tuple[str, dict[str, Any], str, dict[str, set[tuple[str, int]]]]] = [
    *(
        (strategy, NEWEST_GENERATION, line, {"a": {("t", 0), ("t", 2)}, "b": {("t", 1)}})
        for strategy in STICKY
        for line in ("3.0", "3.3")
    ),
    *(
        (strategy, NEWEST_GENERATION, line, {"a": {("t", 0), ("t", 1)}, "b": {("t", 2)}})
        for strategy in STICKY
        for line in ("3.4", "3.5")
    ),
    *(
        (
            "sticky",
            GIVEN_BACK,
            line,
            {"a": {("t0", 0), ("t0", 2)}, "b": {("t0", 3), ("t1", 0)}, "c": {("t0", 1), ("t1", 1)}},
        )
        for line in ("3.3", "3.4")
    ),
    (
        "sticky",
        GIVEN_BACK,
        "3.5",
        {"a": {("t0", 0), ("t0", 2), ("t0", 3)}, "b": {("t1", 0)}, "c": {("t0", 1), ("t1", 1)}},
    ),
    (
        "cooperative-sticky",
        KEPT_TWICE,
        "3.4",
        {"a": {("t0", 0), ("t1", 1)}, "b": set(), "c": {("t1", 1)}},
    ),
    *(
        ("cooperative-sticky", KEPT_TWICE, line, {"a": {("t0", 0)}, "b": set(), "c": {("t1", 1)}})
        for line in ("3.3", "3.5")
    ),
]


def answer(strategy: str, scenario: dict[str, Any], line: str) -> dict[str, Any]:
    request = {"id": 1, "strategy": strategy, "scenario": {**scenario, "kafka_version": line}}
    return answer_line(json.dumps(request).encode(), 1)


def partition_sets(found: dict[str, Any]) -> dict[str, set[tuple[str, int]]]:
    return {m: {(t, p) for t, p in tps} for m, tps in found["assignment"].items()}


@pytest.mark.parametrize(("strategy", "scenario", "line", "expected"), WORKED)
def test_worked_examples(
    strategy: str, scenario: dict[str, Any], line: str, expected: dict[str, set[tuple[str, int]]]
) -> None:
    assert partition_sets(answer(strategy, scenario, line)) == expected


def test_every_line_from_30_is_answered() -> None:
    for strategy in STICKY:
        for line in KAFKA_VERSIONS:
            assert "assignment" in answer(strategy, NEWEST_GENERATION, line), (strategy, line)


def test_line_rules_change_at_34_and_35() -> None:
    for line in KAFKA_VERSIONS:
        rules = LineRules.of(line)
        assert rules.newest_generation_only == (line in BEFORE_34)
        assert rules.ignored_claim_recorded == (line == "3.4")
        assert rules.racks == at_least(line, "3.5") == (rules.balance_slack == 1)
    assert LineRules.of(None) == LineRules.of(KAFKA_VERSIONS[-1])


def without_racks(scenario: Scenario) -> Scenario:
    topics = tuple(replace(t, replica_racks=None) for t in scenario.topics)
    members = tuple(replace(m, rack=None) for m in scenario.members)
    return replace(scenario, topics=topics, members=members)


def as_line(scenario: Scenario, line: str) -> dict[str, Any]:
    return {**scenario_to_json(scenario), "kafka_version": line}


@settings(max_examples=60, deadline=None)
@given(groups())
def test_before_35_racks_change_nothing(scenario: Scenario) -> None:
    """Racks came with KIP-881 (3.5): 3.0-3.4 answer a group as they answer it without racks."""
    for strategy in STICKY:
        for line in ("3.3", "3.4"):
            racked = answer(strategy, as_line(scenario, line), line)
            plain = answer(strategy, as_line(without_racks(scenario), line), line)
            assert racked == plain, (strategy, line)


@settings(max_examples=60, deadline=None)
@given(groups(racks=False))
def test_one_generation_reads_the_same_claims_in_33_and_34(scenario: Scenario) -> None:
    """When every member states the same generation (or none) the newest generation is
    everyone's: cooperative-sticky 3.3 answers as 3.4 (the eager assignor differs where two
    claims meet, since 3.4 compares a claim with the earlier claimant's subscription)."""
    generations = {m.generation for m in scenario.members}
    if len(generations) > 1:
        members = tuple(replace(m, generation=1) for m in scenario.members)
        scenario = replace(scenario, members=members)
    old = answer("cooperative-sticky", as_line(scenario, "3.3"), "3.3")
    new = answer("cooperative-sticky", as_line(scenario, "3.4"), "3.4")
    assert old == new

"""The ``roundrobin`` strategy: Kafka's client-side ``RoundRobinAssignor``.

Worked examples (Kafka's documentation examples, the design document's rebalance example,
static members, heterogeneous subscriptions) and properties on generated groups. Parity with
Kafka on recorded cases is ``test_conformance.py``'s job.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assignors import registry
from assignors.client.range import kafka_member_order
from assignors.model import Scenario
from tests.assignors.test_client_range import (
    TWO_TOPICS_OF_THREE,
    assign,
    check_every_partition_once_to_a_subscriber,
    groups,
    member,
    shuffled,
)

ROUNDROBIN = registry.partition_strategies()["roundrobin"]


@pytest.mark.parametrize(
    ("scenario", "expected"),
    [
        pytest.param(
            {
                "topics": TWO_TOPICS_OF_THREE,
                "members": [member("C1", ["t0", "t1"]), member("C0", ["t0", "t1"])],
            },
            {"C0": ["t0-0", "t0-2", "t1-1"], "C1": ["t0-1", "t1-0", "t1-2"]},
            id="kafka-doc-two-topics-three-partitions-two-consumers",
        ),
        pytest.param(
            {
                "topics": [
                    {"name": "t0", "partitions": 1},
                    {"name": "t1", "partitions": 2},
                    {"name": "t2", "partitions": 3},
                ],
                "members": [
                    member("C0", ["t0"]),
                    member("C1", ["t0", "t1"]),
                    member("C2", ["t0", "t1", "t2"]),
                ],
            },
            {"C0": ["t0-0"], "C1": ["t1-0"], "C2": ["t1-1", "t2-0", "t2-1", "t2-2"]},
            id="kafka-doc-heterogeneous-subscriptions-skip-members",
        ),
        pytest.param(
            {
                "topics": [{"name": "A", "partitions": 2}, {"name": "B", "partitions": 2}],
                "members": [member(c, ["A", "B"]) for c in ("C1", "C2", "C3")],
            },
            {"C1": ["A-0", "B-1"], "C2": ["A-1"], "C3": ["B-0"]},
            id="seed-001-three-consumers",
        ),
        pytest.param(
            {
                "topics": [{"name": "A", "partitions": 2}, {"name": "B", "partitions": 2}],
                "members": [member(c, ["A", "B"]) for c in ("C1", "C3")],
            },
            # After C2 leaves, B-0 and B-1 swap owners: round robin is not sticky.
            {"C1": ["A-0", "B-0"], "C3": ["A-1", "B-1"]},
            id="seed-001-after-c2-leaves",
        ),
        pytest.param(
            {
                "topics": TWO_TOPICS_OF_THREE,
                "members": [
                    member("C5", ["t0", "t1"], group_instance_id="I0"),
                    member("C3", ["t0", "t1"], group_instance_id="I1"),
                    member("C4", ["t0", "t1"], group_instance_id="I2"),
                ],
            },
            {"C5": ["t0-0", "t1-0"], "C3": ["t0-1", "t1-1"], "C4": ["t0-2", "t1-2"]},
            id="static-members-keep-their-slot-whatever-their-member-id",
        ),
        pytest.param(
            {
                "topics": [{"name": "t", "partitions": 3}],
                "members": [member("a", ["t"]), member("z", ["t"], group_instance_id="z")],
            },
            {"z": ["t-0", "t-2"], "a": ["t-1"]},
            id="static-member-ahead-of-dynamic",
        ),
        pytest.param(
            {
                "topics": [{"name": "t0", "partitions": 2}, {"name": "t1", "partitions": 3}],
                "members": [member("a", ["t0", "t1"]), member("b", ["t1"]), member("c", ["t0"])],
            },
            # t0: a, c; the pointer stands after c, wraps to a: t1-0 a, t1-1 b, t1-2 a.
            {"a": ["t0-0", "t1-0", "t1-2"], "b": ["t1-1"], "c": ["t0-1"]},
            id="pointer-carries-over-between-topics",
        ),
        pytest.param(
            {
                "topics": [{"name": "t0", "partitions": 0}, {"name": "t1", "partitions": 1}],
                "members": [member("a", ["t0", "t1", "gone"]), member("b", ["t1"])],
            },
            {"a": ["t1-0"], "b": []},
            id="empty-and-missing-topics-ignored",
        ),
    ],
)
def test_worked_examples(scenario: dict[str, Any], expected: dict[str, list[str]]) -> None:
    assert assign("roundrobin", scenario) == expected


def test_describes_itself_for_people() -> None:
    assert ROUNDROBIN.name == "roundrobin"
    assert ROUNDROBIN.protocol == "eager"
    assert ROUNDROBIN.consumer_config.endswith(
        "org.apache.kafka.clients.consumer.RoundRobinAssignor"
    )
    assert ROUNDROBIN.summary and ROUNDROBIN.when_to_use


def one_at_a_time(scenario: Scenario) -> dict[str, set[tuple[str, int]]]:
    """The rule as Kafka states it, partition by partition, to check the bulk computation."""
    order = kafka_member_order(scenario.members)
    existing = {t.name: t.partitions for t in scenario.topics}
    laid_out = [
        (name, p)
        for name in sorted({t for m in order for t in m.topics if t in existing})
        for p in range(existing[name])
    ]
    answer: dict[str, set[tuple[str, int]]] = {m.member_id: set() for m in order}
    pointer = 0
    for topic, p in laid_out:
        while topic not in order[pointer].topics:
            pointer = (pointer + 1) % len(order)
        answer[order[pointer].member_id].add((topic, p))
        pointer = (pointer + 1) % len(order)
    return answer


@settings(max_examples=300, deadline=None)
@given(groups())
def test_matches_the_one_at_a_time_rule(scenario: Scenario) -> None:
    got = {
        member_id: {(tp.topic, tp.partition) for tp in tps}
        for member_id, tps in ROUNDROBIN.assign(scenario).partitions.items()
    }
    assert got == one_at_a_time(scenario)


@settings(max_examples=300, deadline=None)
@given(groups())
def test_every_partition_assigned_exactly_once_to_a_subscriber(scenario: Scenario) -> None:
    check_every_partition_once_to_a_subscriber(scenario, ROUNDROBIN.assign(scenario))


@settings(max_examples=200, deadline=None)
@given(groups(equal_subscriptions=True))
def test_equal_subscriptions_counts_differ_by_at_most_one(scenario: Scenario) -> None:
    assignment = ROUNDROBIN.assign(scenario)
    order = [m.member_id for m in kafka_member_order(scenario.members)]
    counts = [len(assignment.partitions[m]) for m in order]
    assert max(counts) - min(counts) <= 1
    assert counts == sorted(counts, reverse=True)


@settings(max_examples=200, deadline=None)
@given(groups(), st.integers(0, 2**32))
def test_deterministic_and_independent_of_member_order(scenario: Scenario, seed: int) -> None:
    first = ROUNDROBIN.assign(scenario)
    assert ROUNDROBIN.assign(scenario) == first
    assert ROUNDROBIN.assign(shuffled(scenario, seed)).partitions == first.partitions


def test_many_topics_spread_evenly_where_range_would_pile_up() -> None:
    scenario = {
        "topics": [{"name": f"t{i}", "partitions": 1} for i in range(6)],
        "members": [member(c, [f"t{i}" for i in range(6)]) for c in ("a", "b", "c")],
    }
    counts = Counter({m: len(tps) for m, tps in assign("roundrobin", scenario).items()})
    assert counts == {"a": 2, "b": 2, "c": 2}
    assert {m: len(tps) for m, tps in assign("range", scenario).items()} == {"a": 6, "b": 0, "c": 0}

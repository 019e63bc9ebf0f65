"""The trace's final placement equals the strategy's answer, on every conformance case.

``PartitionStrategy.explain`` runs the strategy with a recorder; replaying its decisions must give
every partition exactly the members :meth:`PartitionStrategy.assign` (no recorder) gives it to,
and the two answers must be equal: tracing never changes the answer.
"""

from __future__ import annotations

import pytest

from assignors import (
    AssignmentExplorerError,
    PartitionStrategy,
    TopicPartition,
    parse_scenario,
    registry,
)
from tests.conformance_cases import Case, iter_all_cases

PARTITION_CASES = [
    case
    for case in iter_all_cases()
    if isinstance(registry.strategies().get(case.strategy), PartitionStrategy)
]


def placement_of(answer: dict[str, tuple[TopicPartition, ...]]) -> dict[TopicPartition, set[str]]:
    holders: dict[TopicPartition, set[str]] = {}
    for member, partitions in answer.items():
        for tp in partitions:
            holders.setdefault(tp, set()).add(member)
    return holders


def test_every_partition_strategy_has_conformance_cases() -> None:
    covered = {case.strategy for case in PARTITION_CASES}
    assert {"range", "roundrobin", "sticky", "cooperative-sticky", "uniform"} <= covered
    assert {"server-range", "lag-aware", "failover", "stream-join-sticky"} <= covered


@pytest.mark.parametrize("case", PARTITION_CASES, ids=lambda case: case.id)
def test_trace_final_placement_is_the_answer(case: Case) -> None:
    strategy = registry.get(case.strategy)
    assert isinstance(strategy, PartitionStrategy)
    scenario, warnings = parse_scenario(case.scenario)
    answer = strategy.assign(scenario, warnings)
    explanation = strategy.explain(scenario, warnings)
    assert explanation.assignment == answer
    replayed = {tp: set(m) for tp, m in explanation.final_placement().items() if m}
    assert replayed == placement_of(dict(answer.partitions))


GENERATED_SEEDS = range(200)


@pytest.mark.parametrize("name", sorted(registry.partition_strategies()))
def test_trace_final_placement_on_generated_groups(name: str) -> None:
    """The same on the differential tests' generated groups (share-simple has no conformance
    file; the generator covers racks, static members, claims and hash collisions)."""
    from tests.differential.generate import case

    strategy = registry.partition_strategies()[name]
    for seed in GENERATED_SEEDS:
        request = case(name, seed)
        scenario, warnings = parse_scenario(request["scenario"])
        try:
            answer = strategy.assign(scenario, warnings)
        except AssignmentExplorerError:
            continue  # Kafka fails these too (the sticky engine's StickyAssignmentError)
        explanation = strategy.explain(scenario, warnings)
        assert explanation.assignment == answer, request["id"]
        replayed = {tp: set(m) for tp, m in explanation.final_placement().items() if m}
        assert replayed == placement_of(dict(answer.partitions)), request["id"]

"""The check the presorted paths share: an answer a strategy calls sorted is sorted, and equals
the answer assigned through the usual path."""

from __future__ import annotations

from typing import Any

from assignors.model import Assignment, Scenario, SortedAnswer


def check_answer(strategy: Any, scenario: Scenario, answer: Any, seed: int) -> bool:
    """Whether ``answer`` (``strategy.compute(scenario)``) took the presorted path; if it did,
    every member's partitions are in order. Either way it equals ``strategy.assign``'s."""
    presorted = isinstance(answer, SortedAnswer)
    if presorted:
        assert all(list(tps) == sorted(tps) for tps in answer.values()), seed
    assigned = strategy.assign(scenario).partitions
    assert assigned == Assignment.of(answer.keys(), dict(answer)).partitions, seed
    return presorted

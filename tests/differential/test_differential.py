"""Every Kafka strategy against Kafka's own Java assignor on generated groups (2,000 per strategy).

Every older release line is ``test_release_lines.py``'s (200 per strategy and line).

Hypothesis picks where the seeded generator (``tests/differential/generate.py``) starts; the
cases of one strategy go to the oracle in one round trip. A failure lists the first differing
cases by id (``strategy:seed``): ``generate.case(strategy, seed)`` rebuilds any of them.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from assignors import registry
from tests.differential.compare import run_cases
from tests.differential.core import KAFKA_STRATEGIES
from tests.differential.generate import case, streams_group_equal_case
from tests.oracle import PREVIOUS, UNFINISHED, Oracle

CASES_PER_STRATEGY = 2_000
#: Streams groups whose processes all have as many members (Kafka's process queue in rounds).
CASES_EQUAL_PROCESSES = 500
VERSION_DEPENDENT = tuple(n for n in KAFKA_STRATEGIES if registry.get(n).older_kafka)
#: The oracle's answer limit where Kafka is asked a group it never finishes (it answers the
#: others in milliseconds, and a fresh JVM its first in about a second).
LIMIT_S = 15.0
#: One generated batch per test run: Hypothesis picks the first seed only. A batch is not
#: shrunk, since its ids name each case.
ONE_BATCH = settings(
    max_examples=1,
    deadline=None,
    phases=(Phase.explicit, Phase.generate),
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


@pytest.mark.parametrize("strategy", KAFKA_STRATEGIES)
@ONE_BATCH
@given(first_seed=st.integers(min_value=0, max_value=2**40))
def test_same_answers_as_kafka(kafka_oracle: Oracle, strategy: str, first_seed: int) -> None:
    requests = [case(strategy, seed) for seed in range(first_seed, first_seed + CASES_PER_STRATEGY)]
    tally = run_cases(kafka_oracle, requests)[strategy]
    assert tally.cases == CASES_PER_STRATEGY
    listed = "\n".join(f"{d.request['id']}: {d.why}" for d in tally.differences[:10])
    assert not tally.differences, f"{len(tally.differences)} differences from Kafka:\n{listed}"


@ONE_BATCH
@given(first_seed=st.integers(min_value=0, max_value=2**40))
def test_streams_groups_of_equal_processes_as_kafka(kafka_oracle: Oracle, first_seed: int) -> None:
    """Processes with as many members each and many tasks: Kafka's process queue polls whole
    rounds of equal loads, which ``streams-group-sticky`` takes a round at a time."""
    seeds = range(first_seed, first_seed + CASES_EQUAL_PROCESSES)
    tally = run_cases(kafka_oracle, [streams_group_equal_case(seed) for seed in seeds])
    found = tally["streams-group-sticky"]
    assert found.cases == CASES_EQUAL_PROCESSES
    listed = "\n".join(f"{d.request['id']}: {d.why}" for d in found.differences[:10])
    assert not found.differences, f"{len(found.differences)} differences from Kafka:\n{listed}"


def test_version_dependent_strategies_are_known() -> None:
    assert VERSION_DEPENDENT == (
        "range",
        "sticky",
        "cooperative-sticky",
        "uniform",
        "server-range",
        "share-simple",
        "streams-sticky",
        "streams-group-sticky",
    )


def test_oracle_answers_errors_and_timing(kafka_oracle: Oracle) -> None:
    """The oracle answers Kafka's exceptions as errors and unknown strategies as errors."""
    unknown = kafka_oracle.answer({"id": 1, "strategy": "no-such", "scenario": {}})
    assert unknown["id"] == 1 and "unknown strategy" in unknown["error"]
    scenario = {
        "topics": [{"name": "t", "partitions": 2}],
        "members": [
            {"member_id": "a", "topics": ["t", "ghost"]},
            {"member_id": "b", "topics": ["t"]},
        ],
    }
    answer = kafka_oracle.answer({"id": 2, "strategy": "range", "scenario": scenario, "time": True})
    assert answer["assignment"] == {"a": [["t", 0]], "b": [["t", 1]]}
    assert answer["java_ns"] > 0


def test_worked_version_examples_are_kafkas(
    kafka_oracle: Oracle, previous_kafka_oracle: Oracle
) -> None:
    """The by-version examples of ``tests/assignors/test_kafka_versions.py`` (``REJOINED`` is the
    deploy CLI's too): each version's answer is that Kafka release's, and the two differ."""
    from tests.assignors import test_kafka_versions as examples

    worked = [
        ("uniform", examples.HOMOGENEOUS),
        ("uniform", examples.REJOINED),
        ("uniform", examples.HETEROGENEOUS),
        ("uniform", examples.THROWS_IN_39),
        ("streams-sticky", examples.STREAMS),
    ]
    requests = [
        {"id": f"{strategy}:{n}", "strategy": strategy, "scenario": scenario}
        for n, (strategy, scenario) in enumerate(worked)
    ]
    answers = {}
    for oracle in (kafka_oracle, previous_kafka_oracle):
        tallies = run_cases(oracle, requests)
        assert sum(t.cases for t in tallies.values()) == len(worked)
        assert not [d.request["id"] for t in tallies.values() for d in t.differences]
        answers[oracle.version] = oracle.answer_all(requests)
    for new, old in zip(answers[kafka_oracle.version], answers[PREVIOUS], strict=True):
        assert new != old, new["id"]


@pytest.mark.parametrize("strategy", ["cooperative-sticky", "sticky"])
def test_a_group_kafka_never_finishes(strategy: str) -> None:
    """Kafka's sticky assignors loop for ever on ``LOOPS_IN_KAFKA``: the oracle answers that it
    did not return in time and goes on with a new JVM; ours says Kafka never finishes, and the
    two agree. (A JVM of its own with a short limit, so the shared ones stay untouched.)"""
    from tests.assignors.test_cooperative_sticky import LOOPS_IN_KAFKA
    from tests.differential.compare import differ, our_answers

    fine = case(strategy, 30650)
    stuck = {"id": f"{strategy}:loops", "strategy": strategy, "scenario": LOOPS_IN_KAFKA}
    with Oracle(answer_limit_s=LIMIT_S) as oracle:
        first, never, after = oracle.answer_all([fine, stuck, fine])
    assert never["id"] == stuck["id"] and never["error"].startswith(UNFINISHED)
    assert first == after and "assignment" in after
    ours = our_answers([stuck])[0]
    assert differ(strategy, ours, never) == ""
    assert differ(strategy, {"id": 1, "assignment": {}}, never) != ""
    assert differ(strategy, {"id": 1, "error": "some other refusal"}, never) != ""


@pytest.mark.parametrize("tasks", [46_342, 65_536])
def test_kafkas_streams_sticky_task_limit(
    kafka_oracle: Oracle, previous_kafka_oracle: Oracle, tasks: int
) -> None:
    """Kafka's ``StickyTaskAssignor`` throws ``Illegal initial capacity`` from 46,342 tasks (its
    pair count overflows a Java ``int``; the bounds of that band): both Kafka releases and ours
    refuse with the same number. (Sizes where Kafka answers cost it minutes: the answer side
    is in ``tests/assignors/test_streams_sticky.py``.)"""
    from tests.differential.compare import differ, our_answers

    scenario = {
        "tasks": [{"id": f"{i // 1000}_{i % 1000}", "stateful": False} for i in range(tasks)],
        "clients": [
            {"process_id": f"00000000-0000-0000-0000-{c:012d}", "capacity": 1} for c in range(10)
        ],
    }
    request = {"id": f"streams-sticky:{tasks}", "strategy": "streams-sticky", "scenario": scenario}
    ours = our_answers([request])[0]
    for oracle in (kafka_oracle, previous_kafka_oracle):
        kafka = oracle.answer(request)
        assert kafka["error"].startswith("IllegalArgumentException: Illegal initial capacity: ")
        number = kafka["error"].rsplit(": ", 1)[1]
        assert ours["error"].startswith(f"Illegal initial capacity: {number}. ")
        assert differ("streams-sticky", ours, kafka) == ""

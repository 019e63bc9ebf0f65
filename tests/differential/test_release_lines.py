"""Every (Kafka strategy, release line) we answer for, against that line's own Kafka classes.

For each line 3.0 to 4.3 (4.4 is ``test_differential.py``'s 2,000 per strategy) and each
strategy whose ``kafka_lines`` accept it, 200 generated groups go to the oracle built for the
line's newest patch release (``tests/oracle.RELEASES``), asked of us with the line as the
scenario's ``kafka_version``. One JVM per line, one line after the other (the pairs run in line
order); Hypothesis picks the first seed. ``scripts/differential.py`` runs the same at 100,000 per
pair. A line a strategy refuses is not compared: there is nothing of ours to compare.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assignors import registry
from assignors.kafka_versions import KAFKA_VERSIONS, NEWEST_KAFKA_VERSION
from tests.assignors.test_kafka_lines import GROUP
from tests.differential.compare import run_cases
from tests.differential.core import KAFKA_STRATEGIES
from tests.differential.generate import case, crowded_claims_case
from tests.differential.test_differential import ONE_BATCH
from tests.oracle import RELEASES, Oracle

CASES_PER_PAIR = 200
#: Every accepted (line, strategy) pair but the newest line's, in line order.
PAIRS = [
    (line, strategy)
    for line in KAFKA_VERSIONS
    if line != NEWEST_KAFKA_VERSION
    for strategy in KAFKA_STRATEGIES
    if line in registry.get(strategy).kafka_lines.accepted
]


class LineOracles:
    """The oracle of one release line at a time: asking for another line stops the last one."""

    def __init__(self) -> None:
        self._current: Oracle | None = None

    def of(self, line: str) -> Oracle:
        release = RELEASES[line]
        if self._current is None or self._current.version != release:
            self.close()
            self._current = Oracle(release, answer_limit_s=30.0)
        return self._current

    def close(self) -> None:
        if self._current is not None:
            self._current.close()
            self._current = None


@pytest.fixture(scope="module")
def line_oracles() -> Iterator[LineOracles]:
    oracles = LineOracles()
    yield oracles
    oracles.close()


def test_every_line_has_a_release_to_check_it_with() -> None:
    assert list(RELEASES) == list(KAFKA_VERSIONS)
    assert all(release.startswith(line + ".") for line, release in RELEASES.items())


def test_every_accepted_line_of_every_kafka_strategy_is_compared() -> None:
    for strategy in KAFKA_STRATEGIES:
        accepted = registry.get(strategy).kafka_lines.accepted
        compared = {line for line, name in PAIRS if name == strategy} | {NEWEST_KAFKA_VERSION}
        assert compared == set(accepted), strategy


@pytest.mark.parametrize(("line", "strategy"), PAIRS)
@ONE_BATCH
@given(first_seed=st.integers(min_value=0, max_value=2**40))
def test_same_answers_as_that_lines_kafka(
    line_oracles: LineOracles, line: str, strategy: str, first_seed: int
) -> None:
    oracle = line_oracles.of(line)
    seeds = range(first_seed, first_seed + CASES_PER_PAIR)
    requests = [case(strategy, seed) for seed in seeds]
    tally = run_cases(oracle, requests)[strategy]
    assert tally.cases == CASES_PER_PAIR
    listed = "\n".join(f"{d.request['id']}: {d.why}" for d in tally.differences[:10])
    assert not tally.differences, (
        f"{len(tally.differences)} differences from Kafka {line}:\n{listed}"
    )


#: Groups of crowded claims per (line, sticky strategy): the lines whose claim rules differ.
CROWDED_CASES = 200


@pytest.mark.parametrize("strategy", ["sticky", "cooperative-sticky"])
@pytest.mark.parametrize("line", ["3.3", "3.4", "3.5"])
@ONE_BATCH
@given(first_seed=st.integers(min_value=0, max_value=2**40))
def test_crowded_claims_as_that_lines_kafka(
    line_oracles: LineOracles, line: str, strategy: str, first_seed: int
) -> None:
    """Claims of several generations meeting on one partition: 3.0-3.3 keep only the newest
    generation's, 3.4 records a losing claim as the partition's claimant (two cooperative
    members may then keep one partition), 3.5 does neither."""
    seeds = range(first_seed, first_seed + CROWDED_CASES)
    requests = [crowded_claims_case(strategy, seed) for seed in seeds]
    tally = run_cases(line_oracles.of(line), requests)[strategy]
    assert tally.cases == CROWDED_CASES
    listed = "\n".join(f"{d.request['id']}: {d.why}" for d in tally.differences[:10])
    assert not tally.differences, f"{len(tally.differences)} differ from Kafka {line}:\n{listed}"


@pytest.mark.parametrize("line", ["3.0", "3.3", "3.4", "3.5"])
def test_old_sticky_examples_are_that_lines_kafka(line_oracles: LineOracles, line: str) -> None:
    """``test_sticky_old_lines``' worked examples of ``line``: that line's Kafka answers them
    as we do (and so as the examples say)."""
    from tests.assignors.test_sticky_old_lines import WORKED

    requests = [
        {"id": f"{strategy}:worked:{n}", "strategy": strategy, "scenario": scenario}
        for n, (strategy, scenario, worked_line, _) in enumerate(WORKED)
        if worked_line == line
    ]
    tallies = run_cases(line_oracles.of(line), requests)
    assert sum(t.cases for t in tallies.values()) == len(requests) > 0
    assert not [d.why for t in tallies.values() for d in t.differences]


@pytest.mark.parametrize("line", ["3.4", "3.5"])
def test_range_rack_example_is_that_lines_kafka(line_oracles: LineOracles, line: str) -> None:
    """``test_kafka_lines``' rack example: Kafka 3.4 cuts in member order, 3.5 matches racks."""
    request = {"id": f"range:racks:{line}", "strategy": "range", "scenario": GROUP}
    tally = run_cases(line_oracles.of(line), [request])["range"]
    assert tally.cases == 1 and not tally.differences, tally.differences

"""The lag-aware strategy (design document 000) and the lag rules it shares
(assignors.simulate.lag)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assignors import registry
from assignors.model import Member, Scenario, Topic
from assignors.seeds.lag_aware import STRATEGY, assign_lag_aware
from assignors.simulate.lag import partition_lag, partition_lags
from tests.assignors.design_doc_scenarios import (
    as_sets,
    assert_valid_assignment,
    assignable,
    scenarios,
    shuffled_members,
)


def test_registered_as_eager_lag_aware() -> None:
    assert registry.get("lag-aware") is STRATEGY
    assert STRATEGY.protocol == "eager"


# --- lag rules -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("end", "committed", "start", "reset", "lag"),
    [
        (100, 40, 0, "latest", 60),  # lag = end - committed
        (100, None, 10, "latest", 0),  # no commit, latest: starts at the end
        (100, None, 10, "earliest", 90),  # no commit, earliest: end - start
        (100, None, 10, "none", 90),  # any other value behaves as earliest
        (100, 130, 0, "earliest", 0),  # committed beyond the end (truncated log) -> 0
        (100, 5, 10, "latest", 95),  # committed below the start counts from the commit
        (100, None, None, "earliest", 0),  # start unknown: nothing to count
    ],
)
def test_partition_lag_rules(
    end: int, committed: int | None, start: int | None, reset: str, lag: int
) -> None:
    assert partition_lag(end, committed, start, reset) == lag


def test_given_lags_win_over_offsets() -> None:
    topic = Topic(
        "t",
        2,
        lags=(7, 0),
        log_start_offsets=(0, 0),
        log_end_offsets=(100, 100),
        committed_offsets=(None, None),
    )
    assert partition_lags(topic, "earliest") == [7, 0]


def test_no_offsets_means_zero_lag() -> None:
    assert partition_lags(Topic("t", 3), "earliest") == [0, 0, 0]


@given(scenarios())
def test_lags_are_never_negative_and_one_per_partition(scenario: Scenario) -> None:
    for topic in scenario.topics:
        lags = partition_lags(topic, scenario.auto_offset_reset)
        assert len(lags) == topic.partitions
        assert all(lag >= 0 for lag in lags)


# --- worked examples -----------------------------------------------------------------------


def two_members(topic: Topic, reset: str = "latest") -> Scenario:
    members = (Member("C0", (topic.name,)), Member("C1", (topic.name,)))
    return Scenario((topic,), members, auto_offset_reset=reset)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("scenario", "expected"),
    [
        pytest.param(
            two_members(Topic("t0", 3, lags=(100_000, 60_000, 50_000))),
            {"C0": {"t0-0"}, "C1": {"t0-1", "t0-2"}},
            id="design-doc-example",
        ),
        pytest.param(
            two_members(Topic("t0", 4)),
            {"C0": {"t0-0", "t0-2"}, "C1": {"t0-1", "t0-3"}},
            id="no-lag-is-round-robin-by-member-id",
        ),
        pytest.param(
            two_members(
                Topic(
                    "t0",
                    3,
                    log_start_offsets=(0, 0, 0),
                    log_end_offsets=(10, 500, 300),
                    committed_offsets=(None, 100, None),
                ),
                reset="earliest",
            ),
            # lags 10, 400, 300: p1 -> C0, p2 -> C1, p0 -> C1 (C1 has less lag: 300 < 400)
            {"C0": {"t0-1"}, "C1": {"t0-0", "t0-2"}},
            id="offsets-with-earliest",
        ),
        pytest.param(
            two_members(
                Topic(
                    "t0",
                    3,
                    log_start_offsets=(0, 0, 0),
                    log_end_offsets=(10, 500, 300),
                    committed_offsets=(None, 100, None),
                ),
                reset="latest",
            ),
            # lags 0, 400, 0: p1 -> C0, p0 -> C1, p2 -> C1
            {"C0": {"t0-1"}, "C1": {"t0-0", "t0-2"}},
            id="offsets-with-latest",
        ),
    ],
)
def test_worked_examples(scenario: Scenario, expected: dict[str, set[str]]) -> None:
    assert as_sets(STRATEGY.assign(scenario).partitions) == expected


def test_topics_are_balanced_separately() -> None:
    # Lag from topic a does not count against a member on topic b.
    scenario = Scenario(
        (Topic("a", 2, lags=(100, 1)), Topic("b", 2, lags=(5, 5))),
        (Member("m1", ("a", "b")), Member("m2", ("a", "b"))),
    )
    assert as_sets(STRATEGY.assign(scenario).partitions) == {
        "m1": {"a-0", "b-0"},
        "m2": {"a-1", "b-1"},
    }


# --- properties ----------------------------------------------------------------------------


@given(scenarios())
def test_every_assignable_partition_once_and_only_to_subscribers(scenario: Scenario) -> None:
    assignment = STRATEGY.assign(scenario)
    assert_valid_assignment(scenario, assignment)
    assert set(assignment.owner_of()) == assignable(scenario)


@given(scenarios())
def test_per_topic_counts_differ_by_at_most_one(scenario: Scenario) -> None:
    assignment = STRATEGY.assign(scenario)
    for topic in scenario.subscribed_existing_topics():
        subscribers = [m.member_id for m in scenario.members if topic in m.topics]
        counts = Counter(
            {m: sum(tp.topic == topic for tp in assignment.partitions[m]) for m in subscribers}
        )
        assert max(counts.values()) - min(counts.values()) <= 1


@given(scenarios())
def test_most_lagging_partition_goes_first_to_smallest_id(scenario: Scenario) -> None:
    answer = assign_lag_aware(scenario)
    for topic in scenario.topics:
        subscribers = sorted(m.member_id for m in scenario.members if topic.name in m.topics)
        if not subscribers:
            continue
        lags = partition_lags(topic, scenario.auto_offset_reset)
        heaviest = max(range(topic.partitions), key=lambda p: (lags[p], -p))
        owner = next(m for m, tps in answer.items() if (topic.name, heaviest) in tps)
        assert owner == subscribers[0]


@given(scenarios(), st.integers(0, 2**32 - 1))
def test_member_order_does_not_matter(scenario: Scenario, seed: int) -> None:
    shuffled = STRATEGY.assign(shuffled_members(scenario, seed))
    assert dict(shuffled.partitions) == dict(STRATEGY.assign(scenario).partitions)

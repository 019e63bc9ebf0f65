"""``PartitionRuns``: one member's sorted partitions held as runs (topics x a range of partition
numbers), standing for the tuple of them. Worked examples, then properties: built from any
disjoint blocks, it equals the sorted tuple of their partitions in everything a tuple does."""

from __future__ import annotations

import pickle
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assignors import model
from assignors.broker.range import STRATEGY
from assignors.model import (
    Assignment,
    Member,
    PartitionRun,
    PartitionRuns,
    Scenario,
    Topic,
    TopicPartition,
)

TP = TopicPartition


# --- worked examples ----------------------------------------------------------------------------


def test_one_run_is_its_topics_times_its_numbers() -> None:
    runs = PartitionRuns([(("t1", "t2"), range(3, 5))])
    expected = (TP("t1", 3), TP("t1", 4), TP("t2", 3), TP("t2", 4))
    assert tuple(runs) == expected
    assert runs == expected and expected == runs
    assert hash(runs) == hash(expected)
    assert len(runs) == 4
    assert runs[2] == TP("t2", 3) and runs[-1] == TP("t2", 4)
    assert runs[1:3] == (TP("t1", 4), TP("t2", 3))
    assert ("t2", 4) in runs and TP("t1", 5) not in runs and ("t3", 3) not in runs
    assert runs.index(TP("t2", 3)) == 2 and runs.count(TP("t2", 3)) == 1
    assert list(reversed(runs)) == list(reversed(expected))
    assert repr(runs) == "PartitionRuns(((('t1', 't2'), range(3, 5)),))"


def test_a_stepped_run_is_every_step_th_number_of_each_topic() -> None:
    """A round-robin deal gives a member every ``n``-th partition: a range of step ``n``."""
    runs = PartitionRuns([(("t1", "t2"), range(1, 7, 3))])
    expected = (TP("t1", 1), TP("t1", 4), TP("t2", 1), TP("t2", 4))
    assert tuple(runs) == expected and runs == expected and hash(runs) == hash(expected)
    assert len(runs) == 4 and runs[1] == TP("t1", 4) and runs[-2] == TP("t2", 1)
    assert runs[::3] == (TP("t1", 1), TP("t2", 4))
    assert ("t2", 4) in runs and ("t2", 2) not in runs and ("t1", 7) not in runs
    assert runs.index(TP("t2", 1)) == 2 and runs.index(TP("t2", 4)) == 3
    with pytest.raises(ValueError, match="not in the partitions"):
        runs.index(TP("t1", 2))
    assert list(reversed(runs)) == list(reversed(expected))


def test_one_number_ranges_are_equal_whatever_their_step() -> None:
    one = PartitionRuns([(("a",), range(2, 3))])
    assert one == PartitionRuns([(("a",), range(2, 9, 7))]) == (TP("a", 2),)


def test_stepped_blocks_of_a_topic_join_when_they_continue_one_progression() -> None:
    """Cut per topic (the blocks interleave: b's come between a's), then joined."""
    runs = PartitionRuns.of([(("a",), range(6, 10, 2)), (("a", "b"), range(0, 6, 2))])
    assert runs.runs == ((("a",), range(0, 10, 2)), (("b",), range(0, 6, 2)))
    apart = PartitionRuns.of([(("a",), range(0, 6, 2)), (("a", "b"), range(7, 13, 3))])
    assert apart.runs == ((("a",), range(0, 6, 2)), (("a", "b"), range(7, 13, 3)))


def test_interleaving_stepped_blocks_are_recut_from_their_numbers() -> None:
    runs = PartitionRuns.of(
        [(("a",), range(0, 6, 2)), (("a",), range(1, 4, 2)), (("b",), range(1))]
    )
    assert runs.runs == ((("a",), range(0, 5)), (("b",), range(0, 1)))
    with pytest.raises(ValueError, match="partition a-4 is in two blocks"):
        PartitionRuns.of([(("a",), range(0, 6, 2)), (("a",), range(1, 5, 3))])


def test_blocks_with_a_negative_step_are_refused() -> None:
    with pytest.raises(ValueError, match="positive step"):
        PartitionRuns.of([(("a",), range(4, 0, -2))])


def test_blocks_that_follow_one_another_stay_whole() -> None:
    runs = PartitionRuns.of([(("c",), range(0, 2)), (("a", "b"), range(4, 6)), ((), range(9))])
    assert runs.runs == ((("a", "b"), range(4, 6)), (("c",), range(0, 2)))


def test_interleaving_blocks_are_cut_per_topic_and_joined_again() -> None:
    """Topics a and c have 2 partitions, b has 3: a range member's two blocks interleave."""
    runs = PartitionRuns.of([(("a", "c", "d"), range(0, 1)), (("b",), range(0, 2))])
    assert runs.runs == (
        (("a",), range(0, 1)),
        (("b",), range(0, 2)),
        (("c", "d"), range(0, 1)),
    )
    assert runs == (TP("a", 0), TP("b", 0), TP("b", 1), TP("c", 0), TP("d", 0))


def test_cut_blocks_join_the_adjoining_ranges_of_a_topic() -> None:
    runs = PartitionRuns.of([(("a",), range(2, 4)), (("a", "b"), range(0, 2))])
    assert runs.runs == ((("a",), range(0, 4)), (("b",), range(0, 2)))


def test_blocks_sharing_a_partition_are_refused() -> None:
    with pytest.raises(ValueError, match="partition a-1 is in two blocks"):
        PartitionRuns.of([(("a", "b"), range(0, 2)), (("a",), range(1, 3))])


def test_no_runs_is_the_empty_tuple() -> None:
    assert PartitionRuns() == () and not PartitionRuns() and hash(PartitionRuns()) == hash(())
    assert PartitionRuns() != [] and PartitionRuns([(("a",), range(1))]) != [TP("a", 0)]


def test_it_is_immutable_and_survives_pickling() -> None:
    runs = PartitionRuns([(("a",), range(0, 3))])
    with pytest.raises(AttributeError, match="immutable"):
        runs.runs = ()  # type: ignore[misc]
    again = pickle.loads(pickle.dumps(runs))
    assert again == runs and again.runs == runs.runs


def test_assignment_keeps_the_runs_and_counts_without_making_partitions() -> None:
    """``server-range`` answers 1,000 topics x 60 partitions over 40 members with one run per
    member: the ``Assignment`` holds the runs themselves, counts are O(runs)."""
    topics = tuple(Topic(f"t{n:04d}", 60) for n in range(1_000))
    names = tuple(t.name for t in topics)
    members = tuple(Member(f"m{n:02d}", names) for n in range(40))
    answer = STRATEGY.assign(Scenario(topics, members))
    first = answer.partitions["m00"]
    assert isinstance(first, PartitionRuns) and first.runs == ((names, range(0, 2)),)
    assert [len(answer.partitions[m.member_id]) for m in members] == [2_000] * 20 + [1_000] * 20
    assert Assignment.of(answer.partitions, answer.partitions).partitions["m00"] is first


def test_materialized_makes_each_members_tuple_once() -> None:
    """Readers that pass over every partition several times (metrics, the rebalance
    simulation) take the assignment with tuples: equal to it, and itself when it has them."""
    runs = PartitionRuns([(("a", "b"), range(0, 2))])
    assignment = Assignment.of(["m0", "m1"], {"m0": runs, "m1": [TP("a", 2)]})
    made = assignment.materialized()
    assert made == assignment and made.partitions["m0"] == tuple(runs)
    assert all(type(tps) is tuple for tps in made.partitions.values())
    assert made.materialized() is made


# --- properties ---------------------------------------------------------------------------------

TOPICS = ("a", "b", "c", "d", "e")


@st.composite
def disjoint_blocks(draw: Any) -> list[PartitionRun]:
    """Blocks of topics (increasing) x a range (step 1, or stepped as a round-robin deals),
    none sharing a partition with another."""
    blocks: list[PartitionRun] = []
    taken: set[tuple[str, int]] = set()
    for _ in range(draw(st.integers(0, 6))):
        topics = tuple(sorted(draw(st.sets(st.sampled_from(TOPICS), max_size=4))))
        start, step = draw(st.integers(0, 8)), draw(st.sampled_from((1, 1, 2, 3, 5)))
        numbers = range(start, start + step * draw(st.integers(0, 4)), step)
        cells = {(t, n) for t in topics for n in numbers}
        if not cells & taken:
            taken |= cells
            blocks.append((topics, numbers))
    return blocks


def as_tuple(blocks: list[PartitionRun]) -> tuple[TopicPartition, ...]:
    return tuple(sorted(TP(t, n) for topics, numbers in blocks for t in topics for n in numbers))


def valid(runs: PartitionRuns) -> bool:
    """The invariants: topics increasing, ranges of positive step and not empty, runs in
    order."""
    inside = all(
        topics and numbers and numbers.step > 0 and list(topics) == sorted(set(topics))
        for topics, numbers in runs.runs
    )
    firsts = [(topics[0], numbers[0]) for topics, numbers in runs.runs]
    lasts = [(topics[-1], numbers[-1]) for topics, numbers in runs.runs]
    return inside and all(last < first for last, first in zip(lasts, firsts[1:], strict=False))


@settings(max_examples=300, deadline=None)
@given(disjoint_blocks(), st.data())
def test_it_equals_the_sorted_tuple_of_its_blocks(blocks: list[PartitionRun], data: Any) -> None:
    runs, expected = PartitionRuns.of(blocks), as_tuple(blocks)
    assert valid(runs)
    assert len(runs) == len(expected) and bool(runs) == bool(expected)
    assert list(runs) == list(expected) and list(reversed(runs)) == list(reversed(expected))
    assert all(type(tp) is TopicPartition for tp in runs)
    assert runs == expected and expected == runs
    assert (runs != expected) is False
    assert hash(runs) == hash(expected)
    for position in range(-len(expected), len(expected)):
        assert runs[position] == expected[position]
    for outside in (len(expected), -len(expected) - 1):
        with pytest.raises(IndexError):
            runs[outside]
    cut = data.draw(st.slices(len(expected) + 2))
    assert runs[cut] == expected[cut]
    probe = (data.draw(st.sampled_from((*TOPICS, "z"))), data.draw(st.integers(-1, 25)))
    for item in (*expected[:3], probe, TP(*probe), "a", ("a",), ("a", "0")):
        assert (item in runs) == (item in expected)
        assert runs.count(item) == expected.count(item)
    for item in expected:
        assert runs.index(item) == expected.index(item)
    assert (runs == expected[:-1]) == (expected == expected[:-1])


@settings(max_examples=200, deadline=None)
@given(disjoint_blocks())
def test_every_cut_of_the_same_partitions_is_equal(blocks: list[PartitionRun]) -> None:
    """One run per partition, or per topic, holds the same sequence: equal, same hash."""
    merged = PartitionRuns.of(blocks)
    single = PartitionRuns(((tp.topic,), range(tp.partition, tp.partition + 1)) for tp in merged)
    assert valid(single)
    assert single == merged and merged == single and hash(single) == hash(merged)
    assert pickle.loads(pickle.dumps(merged)) == merged


@settings(max_examples=200, deadline=None)
@given(disjoint_blocks(), st.integers(0, 14), st.integers(-16, 16), st.integers(-16, 16))
def test_index_with_bounds_is_a_tuples(
    blocks: list[PartitionRun], at: int, start: int, stop: int
) -> None:
    runs, expected = PartitionRuns.of(blocks), as_tuple(blocks)
    item = expected[at % len(expected)] if expected else TP("a", 0)
    try:
        want: int | None = expected.index(item, start, stop)
    except ValueError:
        want = None
    if want is None:
        with pytest.raises(ValueError):
            runs.index(item, start, stop)
    else:
        assert runs.index(item, start, stop) == want


def test_overlapping_blocks_are_always_refused() -> None:
    for topics, shift in [(("a",), 0), (("a", "b"), 1), (("b",), 2)]:
        blocks = [(("a", "b"), range(0, 3)), (topics, range(shift, shift + 1))]
        with pytest.raises(ValueError, match="in two blocks"):
            PartitionRuns.of(blocks)


@settings(max_examples=200, deadline=None)
@given(disjoint_blocks(), st.integers(1, 5))
def test_iteration_in_pieces_makes_the_same_partitions(
    blocks: list[PartitionRun], piece: int
) -> None:
    """Iteration makes at most ``PIECE`` partitions at a time (here 1-5, cutting runs across
    topics and within a topic's range); the partitions are the same, in the same order."""
    runs = PartitionRuns.of(blocks)
    with patch.object(model, "PIECE", piece):
        assert list(runs) == list(as_tuple(blocks))

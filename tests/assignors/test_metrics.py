"""Assignment metrics: worked examples checked by hand, then properties on generated groups."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assignors import registry
from assignors.model import Assignment, Member, Scenario, Topic, TopicPartition
from assignors.simulate.changes import AddMember, RemoveMember, apply_changes, current_assignment
from assignors.simulate.metrics import (
    PartitionMove,
    assignment_metrics,
    lag_by_partition,
    movement,
    owned_assignment,
)
from assignors.strategy import PartitionStrategy


def tp(text: str) -> TopicPartition:
    """``"t0-2"`` -> TopicPartition("t0", 2)."""
    topic, _, number = text.rpartition("-")
    return TopicPartition(topic, int(number))


def assignment(**members: str) -> Assignment:
    """``assignment(C0="t0-0 t0-1", C1="")``."""
    return Assignment.of(members, {m: [tp(x) for x in text.split()] for m, text in members.items()})


def partition_strategy(name: str) -> PartitionStrategy:
    strategy = registry.get(name)
    assert isinstance(strategy, PartitionStrategy)
    return strategy


# --- the lag-aware design document (000): C0 100,000, C1 110,000 -------------------------------

LAG_EXAMPLE = Scenario(
    topics=(Topic("t0", 3, lags=(100_000, 60_000, 50_000)),),
    members=(Member("C0", ("t0",)), Member("C1", ("t0",))),
)


@pytest.mark.parametrize(
    ("given", "by_member", "ratio", "stddev"),
    [
        # Range and roundrobin: C0 t0-0 + t0-1 = 160,000, C1 t0-2 = 50,000; mean 105,000.
        (assignment(C0="t0-0 t0-1", C1="t0-2"), {"C0": 160_000, "C1": 50_000}, 3.2, 55_000.0),
        # The lag-aware answer: C0 t0-0 = 100,000, C1 t0-1 + t0-2 = 110,000.
        (assignment(C0="t0-0", C1="t0-1 t0-2"), {"C0": 100_000, "C1": 110_000}, 1.1, 5_000.0),
    ],
    ids=["range-or-roundrobin", "lag-aware"],
)
def test_lag_example_of_the_design_document(
    given: Assignment, by_member: dict[str, int], ratio: float, stddev: float
) -> None:
    metrics = assignment_metrics(LAG_EXAMPLE, given)
    assert metrics.lag_by_member == by_member
    assert metrics.lag_total == 210_000
    assert metrics.lag_max_min_ratio == pytest.approx(ratio)
    assert metrics.lag_stddev == pytest.approx(stddev)
    assert metrics.lag_cv == pytest.approx(stddev / 105_000)
    assert (metrics.partitions_min, metrics.partitions_max, metrics.partitions_spread) == (1, 2, 1)


def test_lag_aware_strategy_gives_the_documented_lag_totals() -> None:
    answer = partition_strategy("lag-aware").assign(LAG_EXAMPLE)
    assert assignment_metrics(LAG_EXAMPLE, answer).lag_by_member == {"C0": 100_000, "C1": 110_000}
    answer = partition_strategy("range").assign(LAG_EXAMPLE)
    assert assignment_metrics(LAG_EXAMPLE, answer).lag_by_member == {"C0": 160_000, "C1": 50_000}


def test_lag_comes_from_offsets_and_auto_offset_reset() -> None:
    # end - committed = 70; no commit: latest -> 0, earliest -> end - start = 40.
    topic = Topic(
        "t", 2, log_start_offsets=(10, 60), log_end_offsets=(100, 100), committed_offsets=(30, None)
    )
    for reset, expected in (("latest", 70), ("earliest", 110)):
        scenario = Scenario((topic,), (Member("A", ("t",)),), auto_offset_reset=reset)  # type: ignore[arg-type]
        assert assignment_metrics(scenario, assignment(A="t-0 t-1")).lag_total == expected


# --- the strategy tour (001): a consumer leaves, roundrobin vs sticky vs range ------------------

TOUR = Scenario(
    topics=(Topic("A", 2), Topic("B", 2)),
    members=tuple(Member(m, ("A", "B")) for m in ("C1", "C2", "C3")),
)


@pytest.mark.parametrize(
    ("before", "after", "moved", "kept"),
    [
        # roundrobin: A-0 C1, A-1 C2, B-0 C3, B-1 C1 -> A-0 C1, A-1 C3, B-0 C1, B-1 C3.
        (
            assignment(C1="A-0 B-1", C2="A-1", C3="B-0"),
            assignment(C1="A-0 B-0", C3="A-1 B-1"),
            {("A-1", "C2", "C3"), ("B-0", "C3", "C1"), ("B-1", "C1", "C3")},
            {"A-0"},
        ),
        # sticky: only A-1 changes, to C3.
        (
            assignment(C1="A-0 B-1", C2="A-1", C3="B-0"),
            assignment(C1="A-0 B-1", C3="A-1 B-0"),
            {("A-1", "C2", "C3")},
            {"A-0", "B-0", "B-1"},
        ),
        # range: C1 A-0 B-0, C2 A-1 B-1 -> C1 A-0 B-0, C3 A-1 B-1.
        (
            assignment(C1="A-0 B-0", C2="A-1 B-1", C3=""),
            assignment(C1="A-0 B-0", C3="A-1 B-1"),
            {("A-1", "C2", "C3"), ("B-1", "C2", "C3")},
            {"A-0", "B-0"},
        ),
    ],
    ids=["roundrobin", "sticky", "range"],
)
def test_movement_when_a_consumer_leaves(
    before: Assignment, after: Assignment, moved: set[tuple[str, str, str]], kept: set[str]
) -> None:
    result = movement(before, after)
    assert {(str(m.partition), m.from_member, m.to_member) for m in result.moved} == moved
    assert {str(t) for t in result.kept} == kept
    assert result.newly_assigned == result.dropped == ()
    assert result.revoked_count == len(moved)


@pytest.mark.parametrize(
    ("strategy", "moved", "kept"), [("roundrobin", 3, 1), ("sticky", 1, 3), ("range", 2, 2)]
)
def test_strategies_move_what_the_tour_says(strategy: str, moved: int, kept: int) -> None:
    before = Scenario(TOUR.topics, TOUR.members, assignor=strategy)
    current = current_assignment(before)
    after = apply_changes(before, [RemoveMember("C2")], current)
    target = partition_strategy(strategy).assign(after)
    result = assignment_metrics(after, target, current).movement
    assert (result.moved_count, result.kept_count) == (moved, kept)


# --- the constrained sticky algorithm (003): C2 joins C0 and C1 on t1's ten partitions ----------

STICKY_BEFORE = assignment(C0="t1-0 t1-1 t1-2 t1-3 t1-4", C1="t1-5 t1-6 t1-7 t1-8 t1-9")


def test_constrained_sticky_example_by_hand() -> None:
    scenario = Scenario((Topic("t1", 10),), tuple(Member(m, ("t1",)) for m in ("C0", "C1", "C2")))
    after = assignment(C0="t1-0 t1-1 t1-2 t1-3", C1="t1-5 t1-6 t1-7", C2="t1-4 t1-8 t1-9")
    metrics = assignment_metrics(scenario, after, STICKY_BEFORE)
    assert (metrics.movement.moved_count, metrics.movement.kept_count) == (3, 7)
    assert [(m.member_id, m.kept, m.gained, m.lost) for m in metrics.members] == [
        ("C0", 4, 0, 1),
        ("C1", 3, 0, 2),
        ("C2", 0, 3, 0),
    ]
    assert metrics.partitions_spread == 1


def test_sticky_strategy_on_the_constrained_example_moves_three() -> None:
    scenario = Scenario((Topic("t1", 10),), tuple(Member(m, ("t1",)) for m in ("C0", "C1")))
    scenario = apply_changes(scenario, [AddMember("C2")], STICKY_BEFORE)
    target = partition_strategy("sticky").assign(scenario)
    metrics = assignment_metrics(scenario, target, STICKY_BEFORE)
    assert (metrics.movement.moved_count, metrics.movement.kept_count) == (3, 7)
    assert (metrics.partitions_min, metrics.partitions_max) == (3, 4)


# --- racks, co-partitioning, idle members, unassigned partitions, claims -------------------------


def test_cross_rack_counts_only_where_both_racks_are_known() -> None:
    scenario = Scenario(
        (Topic("t", 3, replica_racks=(("a", "b"), ("b",), ("c",))),),
        (Member("A", ("t",), rack="a"), Member("B", ("t",))),
    )
    metrics = assignment_metrics(scenario, assignment(A="t-0 t-1", B="t-2"))
    # A reads t-0 (replica in a: local) and t-1 (only b: cross); B has no rack: not counted.
    assert metrics.cross_rack_assignments == 1
    assert metrics.rack_known_assignments == 2
    assert metrics.cross_rack_share == 0.5
    assert [m.cross_rack for m in metrics.members] == [1, 0]
    no_racks = assignment_metrics(
        Scenario(scenario.topics, (Member("B", ("t",)),)), assignment(B="t-0")
    )
    assert no_racks.cross_rack_share is None


def test_co_partitioning_groups_topics_with_equal_counts() -> None:
    scenario = Scenario(
        (Topic("x", 3), Topic("y", 3), Topic("z", 2)),
        (Member("A", ("x", "y", "z")), Member("B", ("x", "y", "z"))),
    )
    together = assignment(A="x-0 y-0 x-2 y-2 z-0", B="x-1 y-1 z-1")
    apart = assignment(A="x-0 x-1 y-2 z-0", B="x-2 y-0 y-1 z-1")
    (group,) = assignment_metrics(scenario, together).co_partitioning
    assert (group.topics, group.partitions, group.split_partitions, group.colocated) == (
        ("x", "y"),
        3,
        (),
        True,
    )
    (group,) = assignment_metrics(scenario, apart).co_partitioning
    # 0: x A, y B; 1: x A, y B; 2: x B, y A -> all three split.
    assert group.split_partitions == (0, 1, 2)
    assert assignment_metrics(scenario, apart).split_partition_count == 3


def test_idle_members_and_unassigned_partitions() -> None:
    scenario = Scenario(
        (Topic("t", 2), Topic("unread", 4)),
        (Member("A", ("t",)), Member("B", ("t",)), Member("C", ("t", "ghost"))),
    )
    metrics = assignment_metrics(scenario, assignment(A="t-0", B="", C=""))
    assert metrics.idle_members == ("B", "C")
    # Only subscribed topics count: unread-* is nobody's business.
    assert metrics.unassigned_partitions == (tp("t-1"),)
    assert (metrics.partitions_min, metrics.partitions_max) == (0, 1)
    assert metrics.lag_max_min_ratio == 1.0  # no lag anywhere: as even as it gets
    assert metrics.lag_cv is None


def test_movement_names_new_and_dropped_partitions() -> None:
    before = assignment(A="t-0 t-1", B="t-2")
    after = assignment(A="t-0", B="t-3")
    result = movement(before, after)
    assert result.kept == (tp("t-0"),)
    assert result.moved == ()
    assert result.newly_assigned == (PartitionMove(tp("t-3"), None, "B"),)
    assert result.dropped == (
        PartitionMove(tp("t-1"), "A", None),
        PartitionMove(tp("t-2"), "B", None),
    )
    assert result.revoked_count == 2


def test_owned_claims_resolve_by_generation_then_member_id() -> None:
    scenario = Scenario(
        (Topic("t", 3),),
        (
            Member("B", ("t",), owned_partitions=(tp("t-0"), tp("t-1")), generation=4),
            Member("A", ("t",), owned_partitions=(tp("t-0"), tp("t-2"), tp("t-9")), generation=3),
            Member("C", ("t",), owned_partitions=(tp("t-1"),), generation=4),
        ),
    )
    owned = owned_assignment(scenario)
    # t-0: B (4) beats A (3); t-1: B and C both 4 -> B; t-9 does not exist.
    assert owned.to_json() == {"B": [["t", 0], ["t", 1]], "A": [["t", 2]], "C": []}
    metrics = assignment_metrics(scenario, assignment(A="t-0 t-1 t-2", B="", C=""))
    assert (metrics.movement.moved_count, metrics.movement.kept_count) == (2, 1)


def test_metrics_serialise_to_plain_json() -> None:
    import json

    metrics = assignment_metrics(LAG_EXAMPLE, assignment(C0="t0-0", C1="t0-1 t0-2"))
    decoded = json.loads(json.dumps(metrics.to_json()))
    assert decoded["lag_by_member"] == {"C0": 100_000, "C1": 110_000}
    assert decoded["movement"]["newly_assigned"] == 3


# --- properties --------------------------------------------------------------------------------

MEMBER_IDS = ("A", "B", "C", "D", "E", "consumer-1", "consumer-10")


@st.composite
def groups(draw: st.DrawFn) -> tuple[Scenario, Assignment, Assignment]:
    """A scenario with lags and racks, a previous assignment and a new one (both random)."""
    topics = []
    for name in draw(st.lists(st.sampled_from(("x", "y", "z")), min_size=1, unique=True)):
        count = draw(st.integers(1, 8))
        lags = tuple(draw(st.lists(st.integers(0, 1000), min_size=count, max_size=count)))
        racks = tuple(
            tuple(draw(st.lists(st.sampled_from("abc"), max_size=2, unique=True)))
            for _ in range(count)
        )
        topics.append(Topic(name, count, lags=lags, replica_racks=racks))
    names = [t.name for t in topics]
    member_ids = draw(st.lists(st.sampled_from(MEMBER_IDS), min_size=1, max_size=5, unique=True))
    members = tuple(
        Member(m, tuple(names), rack=draw(st.one_of(st.none(), st.sampled_from("abc"))))
        for m in member_ids
    )
    partitions = [p for t in topics for p in t.topic_partitions()]
    gone = ("gone-member",)

    def random_assignment(owners: tuple[str, ...]) -> Assignment:
        chosen: dict[str, list[TopicPartition]] = {}
        for partition in partitions:
            owner = draw(st.one_of(st.none(), st.sampled_from(owners)))
            if owner is not None:
                chosen.setdefault(owner, []).append(partition)
        return Assignment.of(owners, chosen)

    previous = random_assignment(tuple(member_ids) + gone)
    now = random_assignment(tuple(member_ids))
    return Scenario(tuple(topics), members), previous, now


@given(groups())
def test_moved_plus_kept_is_what_was_owned_and_is_still_assigned(
    group: tuple[Scenario, Assignment, Assignment],
) -> None:
    scenario, previous, now = group
    result = assignment_metrics(scenario, now, previous).movement
    owned_and_assigned = set(previous.owner_of()) & set(now.owner_of())
    assert result.moved_count + result.kept_count == len(owned_and_assigned)
    assert result.kept_count + result.moved_count + result.newly_assigned_count == len(
        now.owner_of()
    )
    assert result.revoked_count == len(previous.owner_of()) - result.kept_count


@given(groups(), st.randoms(use_true_random=False))
def test_metrics_do_not_depend_on_member_order(
    group: tuple[Scenario, Assignment, Assignment], rng: random.Random
) -> None:
    scenario, previous, now = group
    members = list(scenario.members)
    rng.shuffle(members)
    shuffled_now = list(now.partitions.items())
    rng.shuffle(shuffled_now)
    shuffled = Scenario(scenario.topics, tuple(members))
    reordered = Assignment.of([m for m, _ in shuffled_now], dict(shuffled_now))
    assert assignment_metrics(shuffled, reordered, previous) == assignment_metrics(
        scenario, now, previous
    )


@given(groups())
def test_totals_add_up(group: tuple[Scenario, Assignment, Assignment]) -> None:
    scenario, previous, now = group
    metrics = assignment_metrics(scenario, now, previous)
    lags = lag_by_partition(scenario)
    assert metrics.lag_total == sum(lags[p] for p in now.owner_of())
    assert sum(m.partitions for m in metrics.members) == len(now.owner_of())
    assert len(metrics.unassigned_partitions) + len(now.owner_of()) == len(lags)
    assert 0 <= metrics.cross_rack_assignments <= metrics.rack_known_assignments
    if metrics.lag_cv is not None:
        assert math.isclose(
            metrics.lag_cv * metrics.lag_total / len(metrics.members), metrics.lag_stddev
        )

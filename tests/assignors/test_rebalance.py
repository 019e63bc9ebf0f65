"""Rebalance protocol simulation: hand-timed examples per protocol, then properties."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assignors.model import Assignment, Member, Scenario, Topic, TopicPartition
from assignors.simulate.changes import AddMember, RemoveMember, apply_changes, current_assignment
from assignors.simulate.rebalance import (
    RebalanceError,
    RebalanceSimulation,
    Timings,
    plan_rebalance,
    simulate,
)
from assignors.strategy import RebalanceProtocol
from tests.assignors.test_metrics import assignment, tp

# Default timings: heartbeat 3 s, revoke 1 s, warm-up 2 s, no rejoin delay, session 45 s.
BEFORE = assignment(A="t-0 t-1", B="t-2 t-3")
C_JOINS = assignment(A="t-0 t-1", B="t-2", C="t-3")  # t-3 moves from B to C


def phases(simulation: RebalanceSimulation) -> list[tuple[str, float, set[str]]]:
    return [(p.name, p.duration_s, {str(x) for x in p.paused}) for p in simulation.phases]


def test_eager_stops_everyone_then_warms_up_what_moved() -> None:
    simulation = plan_rebalance("eager", BEFORE, C_JOINS)
    assert phases(simulation) == [
        ("notice", 3.0, set()),
        ("revoke and rejoin", 1.0, {"t-0", "t-1", "t-2", "t-3"}),
        ("assign", 2.0, {"t-3"}),
    ]
    assert simulation.phases[1].revoked == tuple(sorted(BEFORE.owner_of()))
    assert simulation.phases[1].owned == {"A": (), "B": (), "C": ()}
    assert simulation.phases[2].assigned == (tp("t-3"),)
    assert simulation.rounds == 1
    assert simulation.partition_pauses == 0 + 4 + 1
    assert simulation.pause_s == 3.0  # t-3: 1 s stopped + 2 s warming
    assert simulation.group_stop_s == 1.0
    assert simulation.duration_s == 6.0
    assert simulation.stopped_members == ("A", "B")


def test_cooperative_revokes_only_what_moves_in_two_rounds() -> None:
    simulation = plan_rebalance("cooperative", BEFORE, C_JOINS)
    assert phases(simulation) == [
        ("join (round 1)", 3.0, set()),
        ("revoke (round 1)", 4.0, {"t-3"}),  # revoke 1 s + heartbeat 3 s to rejoin
        ("assign (round 2)", 2.0, {"t-3"}),
    ]
    first = simulation.phases[1]
    assert first.revoked == first.waiting == (tp("t-3"),)
    assert first.consuming == {"A": (tp("t-0"), tp("t-1")), "B": (tp("t-2"),), "C": ()}
    assert simulation.first_round.partitions["C"] == ()
    assert simulation.rounds == 2
    assert simulation.partition_pauses == 2
    assert simulation.pause_s == 6.0
    assert simulation.group_stop_s == 0.0
    assert simulation.duration_s == 9.0
    assert simulation.stopped_members == ()


def test_consumer_protocol_moves_each_member_on_its_own_epochs() -> None:
    simulation = plan_rebalance("consumer", BEFORE, C_JOINS, epoch=5)
    assert phases(simulation) == [
        ("new target", 3.0, set()),
        ("revoke and acknowledge", 4.0, {"t-3"}),
        ("assign released", 2.0, {"t-3"}),
    ]
    epochs = [dict(p.member_epochs or {}) for p in simulation.phases]
    # C is new (epoch 0); B revokes t-3 and stays at 5 until it acknowledged; A moves on at once.
    assert epochs == [{"A": 5, "B": 5, "C": 0}, {"A": 6, "B": 5, "C": 6}, dict.fromkeys("ABC", 6)]
    # C gets t-3 only after B acknowledged the revocation.
    assert simulation.phases[1].owned["C"] == ()
    assert simulation.phases[2].owned["C"] == (tp("t-3"),)
    assert (simulation.rounds, simulation.partition_pauses, simulation.group_stop_s) == (2, 2, 0)


def test_a_slow_member_holds_classic_barriers_but_not_the_consumer_protocol() -> None:
    slow = Timings(rejoin_delay_s=20.0)
    eager = plan_rebalance("eager", BEFORE, C_JOINS, timings=slow)
    consumer = plan_rebalance("consumer", BEFORE, C_JOINS, timings=slow)
    assert eager.group_stop_s == 21.0
    assert consumer.duration_s == plan_rebalance("consumer", BEFORE, C_JOINS).duration_s
    capped = plan_rebalance("eager", BEFORE, C_JOINS, timings=Timings(rejoin_delay_s=900.0))
    assert capped.group_stop_s == 301.0  # the rebalance timeout caps the barrier


def test_partitions_of_a_member_that_left_wait_from_the_start() -> None:
    before = assignment(A="t-0", B="t-1")
    target = assignment(A="t-0 t-1")
    simulation = plan_rebalance("cooperative", before, target)
    assert phases(simulation) == [
        ("join (round 1)", 3.0, {"t-1"}),
        ("assign (round 1)", 2.0, {"t-1"}),
    ]
    assert simulation.phases[0].waiting == (tp("t-1"),)
    assert simulation.rounds == 1


def test_a_static_member_that_leaves_is_noticed_after_the_session_timeout() -> None:
    before = assignment(A="t-0", B="t-1")
    target = assignment(A="t-0 t-1")
    simulation = plan_rebalance("eager", before, target, silent_departures=["B"])
    assert phases(simulation)[0] == ("detect departure", 45.0, {"t-1"})
    assert simulation.pause_s == 45.0 + 3.0 + 1.0 + 2.0


def test_a_static_restart_within_the_session_timeout_causes_no_rebalance() -> None:
    simulation = plan_rebalance(
        "eager", BEFORE, assignment(A="t-0 t-1", B="t-2 t-3"), restarted=["B"], rebalance=False
    )
    assert phases(simulation) == [("static restart", 30.0, {"t-2", "t-3"})]
    assert simulation.rounds == 0
    assert simulation.stopped_members == ("B",)
    with pytest.raises(RebalanceError, match="session timeout"):
        plan_rebalance(
            "eager",
            BEFORE,
            BEFORE,
            restarted=["B"],
            rebalance=False,
            timings=Timings(restart_s=60.0),
        )


def test_simulate_static_restart_through_changes() -> None:
    scenario = Scenario(
        (Topic("t", 4),),
        (Member("A", ("t",)), Member("B", ("t",), group_instance_id="host-b")),
    )
    after = apply_changes(scenario, [RemoveMember("B", static_restart=True)])
    for strategy in ("range", "cooperative-sticky", "uniform"):
        simulation = simulate(scenario, after, strategy, restarted=["B"])
        assert simulation.rounds == 0
        assert simulation.target == current_assignment(scenario)


# --- through the registry: what each strategy's protocol does -----------------------------------

TEN = Scenario((Topic("t1", 10),), (Member("C0", ("t1",)), Member("C1", ("t1",))))
TEN_OWNED = assignment(C0="t1-0 t1-1 t1-2 t1-3 t1-4", C1="t1-5 t1-6 t1-7 t1-8 t1-9")


@pytest.mark.parametrize(
    ("strategy", "protocol", "rounds", "partition_pauses", "stopped"),
    [
        # sticky moves 3 partitions to C2; eager pauses all 10 while revoking, then the 3 warm up.
        ("sticky", "eager", 1, 10 + 3, ("C0", "C1")),
        # cooperative-sticky: round 1 revokes the 3 that move, round 2 hands them to C2.
        ("cooperative-sticky", "cooperative", 2, 3 + 3, ()),
        # uniform (KIP-848): same 3 move, each only after its owner acknowledged.
        ("uniform", "consumer", 2, 3 + 3, ()),
    ],
)
def test_a_member_joins_the_constrained_sticky_example(
    strategy: str,
    protocol: RebalanceProtocol,
    rounds: int,
    partition_pauses: int,
    stopped: tuple[str, ...],
) -> None:
    after = apply_changes(TEN, [AddMember("C2")], TEN_OWNED)
    simulation = simulate(TEN, after, strategy, previous=TEN_OWNED)
    assert simulation.protocol == protocol
    assert simulation.rounds == rounds
    assert simulation.partition_pauses == partition_pauses
    assert simulation.stopped_members == stopped
    assert len(simulation.target.partitions["C2"]) == 3


# --- properties --------------------------------------------------------------------------------

PARTITIONS = [TopicPartition("t", p) for p in range(12)]


@st.composite
def transitions(draw: st.DrawFn) -> tuple[Assignment, Assignment]:
    """A previous assignment (with a member that may have left) and a target."""
    before_members = draw(st.lists(st.sampled_from("ABCDE"), min_size=1, unique=True))
    after_members = draw(st.lists(st.sampled_from("ABCDE"), min_size=1, unique=True))

    def pick(members: list[str]) -> Assignment:
        chosen: dict[str, list[TopicPartition]] = {}
        for partition in PARTITIONS:
            owner = draw(st.one_of(st.none(), st.sampled_from(members)))
            if owner is not None:
                chosen.setdefault(owner, []).append(partition)
        return Assignment.of(members, chosen)

    return pick(before_members), pick(after_members)


@given(transitions())
def test_eager_pauses_every_partition_in_play(pair: tuple[Assignment, Assignment]) -> None:
    before, target = pair
    simulation = plan_rebalance("eager", before, target)
    in_play = set(before.owner_of()) | set(target.owner_of())
    stop = next(p for p in simulation.phases if p.name == "revoke and rejoin")
    assert set(stop.paused) == in_play
    assert not any(stop.consuming.values())


@given(transitions(), st.sampled_from(["cooperative", "consumer"]))
def test_incremental_protocols_never_pause_more_than_eager(
    pair: tuple[Assignment, Assignment], protocol: RebalanceProtocol
) -> None:
    before, target = pair
    eager = plan_rebalance("eager", before, target)
    other = plan_rebalance(protocol, before, target)
    assert other.partition_pauses <= eager.partition_pauses
    assert set(other.paused_seconds()) <= set(eager.paused_seconds())
    # (Not the stop-the-world time: moving a group's only partition takes two rounds.)


@given(transitions(), st.sampled_from(["eager", "cooperative", "consumer"]))
def test_phases_are_consistent(
    pair: tuple[Assignment, Assignment], protocol: RebalanceProtocol
) -> None:
    before, target = pair
    simulation = plan_rebalance(protocol, before, target)
    clock = 0.0
    for phase in simulation.phases:
        assert phase.start_s == pytest.approx(clock)
        clock = phase.end_s
        held = [p for tps in phase.owned.values() for p in tps]
        assert len(held) == len(set(held)), "a partition held twice"
        for member, tps in phase.consuming.items():
            assert set(tps) <= set(phase.owned[member])
        read = {p for tps in phase.consuming.values() for p in tps}
        assert read.isdisjoint(phase.paused)
        assert set(phase.waiting) <= set(phase.paused)
    assert simulation.duration_s == pytest.approx(clock)
    # An assign phase is the last one and holds the target.
    assigns = [p for p in simulation.phases if p.name.startswith("assign")]
    if assigns:
        assert assigns[-1] is simulation.phases[-1]
        assert dict(assigns[-1].owned) == dict(target.partitions)


@st.composite
def changed_groups(draw: st.DrawFn) -> tuple[Scenario, Scenario]:
    """A group with no ownership yet (range or roundrobin ran), and the group after one change."""
    topics = tuple(
        Topic(name, draw(st.integers(1, 8)))
        for name in draw(st.lists(st.sampled_from("xyz"), min_size=1, unique=True))
    )
    names = [t.name for t in topics]
    subscriptions = st.lists(st.sampled_from(names), min_size=1, unique=True).map(tuple)
    ids = draw(st.lists(st.sampled_from("ABCDEF"), min_size=1, max_size=5, unique=True))
    before = Scenario(
        topics,
        tuple(Member(m, draw(subscriptions)) for m in ids),
        assignor=draw(st.sampled_from(["range", "roundrobin"])),
    )
    if len(ids) > 1 and draw(st.booleans()):
        after = apply_changes(before, [RemoveMember(draw(st.sampled_from(ids)))])
    else:
        after = apply_changes(before, [AddMember("new", draw(subscriptions))])
    return before, after


@given(changed_groups())
def test_cooperative_sticky_reaches_stickys_target_with_fewer_pauses(
    group: tuple[Scenario, Scenario],
) -> None:
    before, after = group
    eager = simulate(before, after, "sticky")
    cooperative = simulate(before, after, "cooperative-sticky")
    assert cooperative.target == eager.target
    assert cooperative.partition_pauses <= eager.partition_pauses

"""Worked examples of "why this partition?": each trace read as a specification.

Each example builds a small group by hand, asks the strategy to explain itself and checks the
notes and decisions a person would check with pencil and paper: the arithmetic of a split, the
order of a deal, what was kept from a claim and the loads when a partition was handed out.
"""

from __future__ import annotations

from assignors import (
    Member,
    PartitionStrategy,
    RemoveMember,
    Scenario,
    Topic,
    TopicPartition,
    change_from_text,
    evaluate,
    registry,
)
from assignors.trace import Explanation


def explain(name: str, scenario: Scenario) -> Explanation:
    strategy = registry.get(name)
    assert isinstance(strategy, PartitionStrategy)
    explanation = strategy.explain(scenario)
    assert explanation.assignment == strategy.assign(scenario)
    return explanation


def tp(topic: str, partition: int) -> TopicPartition:
    return TopicPartition(topic, partition)


def group(partitions: dict[str, int], *members: Member) -> Scenario:
    return Scenario(tuple(Topic(n, c) for n, c in partitions.items()), tuple(members))


def test_range_7_partitions_over_3_members_one_extra_for_the_first() -> None:
    scenario = group({"orders": 7}, *(Member(m, ("orders",)) for m in ("c-2", "c-0", "c-1")))
    explanation = explain("range", scenario)
    trace = explanation.partition(tp("orders", 2))
    assert trace.notes == (
        "member order (static members by group.instance.id, then the rest by member id): "
        "c-0, c-1, c-2",
        "consumers of orders in member order: c-0, c-1, c-2",
        "7 partitions over 3 consumers: 7 // 3 = 2 each, 7 % 3 = 1 extra, one each for the "
        "first 1 consumer(s)",
    )
    (decision,) = trace.decisions
    assert decision.member == "c-0"
    assert decision.reason == (
        "consumer #1 of 3 in member order takes partitions 0..2 (2 + 1 extra = 3)"
    )
    (last,) = explanation.partition(tp("orders", 6)).decisions
    assert last.member == "c-2"
    assert last.reason == "consumer #3 of 3 in member order takes partitions 5..6 (2)"


def test_range_static_members_come_first_by_instance_id() -> None:
    scenario = group(
        {"t": 2},
        Member("a", ("t",)),
        Member("z", ("t",), group_instance_id="instance-1"),
    )
    trace = explain("range", scenario).partition(tp("t", 0))
    assert trace.notes[0].endswith(": z, a")
    assert trace.holders == ("z",)


def test_roundrobin_deals_round_the_circle_skipping_non_subscribers() -> None:
    scenario = group(
        {"a": 2, "b": 2},
        Member("C0", ("a", "b")),
        Member("C1", ("a",)),
        Member("C2", ("a", "b")),
    )
    explanation = explain("roundrobin", scenario)
    assert explanation.notes[0].text.endswith(": C0 -> C1 -> C2")
    # a-0 C0, a-1 C1; the pointer is at C2: b-0 C2, then C0 (C1 does not read b): b-1 C0
    owners = {t: explanation.partition(t).holders for t in explanation.partitions()}
    assert owners == {
        tp("a", 0): ("C0",),
        tp("a", 1): ("C1",),
        tp("b", 0): ("C2",),
        tp("b", 1): ("C0",),
    }
    (decision,) = explanation.partition(tp("b", 1)).decisions
    assert decision.reason.startswith("card 2 of a deal that began with the pointer at C2")
    assert "its subscribers: C0, C2" in decision.reason


def test_sticky_keeps_claims_and_deals_the_leavers_partitions() -> None:
    # C2 left; C0 and C1 keep their 2 each (floor 6 // 2 = 3), C2's two are dealt C0, C1.
    scenario = group(
        {"t": 6},
        Member("C0", ("t",), owned_partitions=(tp("t", 0), tp("t", 1)), generation=4),
        Member("C1", ("t",), owned_partitions=(tp("t", 2), tp("t", 3)), generation=4),
    )
    explanation = explain("sticky", scenario)
    assert "6 partitions over 2 members: floor 6 // 2 = 3, ceiling 3" in " ".join(
        note.text for note in explanation.notes
    )
    (kept,) = explanation.partition(tp("t", 0)).decisions
    assert (kept.step, kept.member) == ("1 keep claim", "C0")
    assert kept.reason.startswith("kept from its claim: C0 keeps 2 of its 2 valid claim(s)")
    (dealt,) = explanation.partition(tp("t", 4)).decisions
    assert (dealt.step, dealt.member) == ("2b round-robin", "C0")
    (dealt,) = explanation.partition(tp("t", 5)).decisions
    assert (dealt.step, dealt.member) == ("2b round-robin", "C1")


def test_sticky_general_gives_to_the_least_loaded_eligible_member_with_the_loads() -> None:
    # Different subscriptions: the general algorithm. C0 reads x and y, C1 reads y only.
    scenario = group(
        {"x": 2, "y": 2},
        Member("C0", ("x", "y"), owned_partitions=(tp("x", 0), tp("x", 1)), generation=1),
        Member("C1", ("y",)),
    )
    explanation = explain("sticky", scenario)
    decisions = explanation.partition(tp("y", 0)).decisions
    assert decisions[0].step == "2 least loaded"
    assert decisions[0].member == "C1"
    assert decisions[0].reason.endswith("loads then: C1 0, C0 2")
    assert explanation.partition(tp("y", 1)).holders == ("C1",)


def test_cooperative_sticky_withholds_a_moving_partition_for_one_round() -> None:
    # C0 held all four; C1 joins: C0 keeps the floor of 2 (t-0, t-1) and gives up t-2 and t-3,
    # dealt to C1 but withheld in round 1 (C0 revokes them first).
    scenario = group(
        {"t": 4},
        Member("C0", ("t",), owned_partitions=tuple(tp("t", p) for p in range(4)), generation=2),
        Member("C1", ("t",)),
    )
    explanation = explain("cooperative-sticky", scenario)
    trace = explanation.partition(tp("t", 2))
    assert [(d.step, d.member, d.released_by) for d in trace.decisions] == [
        ("1 give up", None, "C0"),
        ("2b round-robin", "C1", None),
        ("3 withheld", None, "C1"),
    ]
    assert trace.decisions[0].reason.startswith("over its quota: C0 keeps 2 of its 4 valid")
    assert trace.decisions[2].reason == (
        "withheld from C1 this round: C0 claimed it and revokes it first; the follow-up "
        "rebalance hands it to C1"
    )
    assert trace.holders == ()
    assert trace.lines()[-1] == "  => t-2 is not handed out in this assignment"


def test_uniform_keeps_the_current_target_and_fills_from_the_front() -> None:
    scenario = group(
        {"t": 4},
        Member("A", ("t",), owned_partitions=(tp("t", 0), tp("t", 1), tp("t", 2))),
        Member("B", ("t",)),
    )
    explanation = explain("uniform", scenario)
    assert "4 partitions over 2 members: floor 4 // 2 = 2, 4 % 2 = 0 extra" in (
        explanation.notes[0].text
    )
    assert [d.step for d in explanation.partition(tp("t", 0)).decisions] == ["3 keep"]
    # A keeps two of its three (quota 2); the third and t-3 go to B.
    steps = {t: explanation.partition(t).decisions[-1].step for t in explanation.partitions()}
    assert sorted(steps.values()) == ["3 keep", "3 keep", "4 fill", "4 fill"]


def test_server_range_states_the_split() -> None:
    scenario = group({"t": 5}, Member("m1", ("t",)), Member("m2", ("t",)))
    trace = explain("server-range", scenario).partition(tp("t", 3))
    assert "5 partitions over 2 subscribers: 5 // 2 = 2 each, 5 % 2 = 1 extra" in trace.notes[-1]
    assert trace.decisions[0].reason == (
        "subscriber #2 of 2 in member order takes partitions 3..4 (2)"
    )


def test_lag_aware_hands_out_the_most_lagging_first_with_the_loads() -> None:
    scenario = Scenario(
        (Topic("t", 3, lags=(10, 500, 40)),),
        (Member("A", ("t",)), Member("B", ("t",))),
    )
    explanation = explain("lag-aware", scenario)
    assert explanation.notes[0].text.endswith("1 (lag 500), 2 (lag 40), 0 (lag 10)")
    # 1 -> A (both empty, smallest id); 2 -> B (fewest); 0 -> B (A and B have one each, B less lag)
    (decision,) = explanation.partition(tp("t", 0)).decisions
    assert decision.member == "B"
    assert "loads then: B 1 partitions/lag 40, A 1 partitions/lag 500" in decision.reason


def test_failover_names_the_takeover_order() -> None:
    scenario = group(
        {"t": 2},
        Member("low", ("t",), priority=1),
        Member("high", ("t",), priority=9),
        Member("none", ("t",)),
    )
    trace = explain("failover", scenario).partition(tp("t", 1))
    assert trace.notes[0].endswith(
        "high (priority 9), low (priority 1), none (priority none: lowest)"
    )
    assert trace.holders == ("high",)


def test_stream_join_sticky_numbers_own_then_unowned_then_stolen() -> None:
    # A had 0, 1, 2 of 4 numbers; B joins: round 1 A takes back 0, B takes the unowned 3;
    # round 2 A takes 1, B steals 2 from A (the only victim).
    scenario = group(
        {"left": 4, "right": 4},
        Member(
            "A", ("left", "right"), owned_partitions=(tp("left", 0), tp("left", 1), tp("left", 2))
        ),
        Member("B", ("left", "right")),
    )
    explanation = explain("stream-join-sticky", scenario)
    steps = {number: explanation.partition(tp("right", number)).decisions[0] for number in range(4)}
    assert [(steps[n].step, steps[n].member) for n in range(4)] == [
        ("4a own", "A"),
        ("4a own", "A"),
        ("4c steal", "B"),
        ("4b unowned", "B"),
    ]
    assert "stolen from A" in steps[2].reason


def test_share_simple_shares_a_partition_when_members_outnumber_partitions() -> None:
    scenario = group({"t": 1}, Member("m1", ("t",)), Member("m2", ("t",)))
    explanation = explain("share-simple", scenario)
    trace = explanation.partition(tp("t", 0))
    assert sorted(trace.holders) == ["m1", "m2"]
    assert [d.step for d in trace.decisions] == ["5 fill", "5 fill"]
    assert explanation.final_placement()[tp("t", 0)] == frozenset({"m1", "m2"})


def test_evaluate_explains_its_target_on_request() -> None:
    scenario = group(
        {"t": 4},
        Member("C0", ("t",), owned_partitions=(tp("t", 0), tp("t", 1)), generation=1),
        Member("C1", ("t",), owned_partitions=(tp("t", 2), tp("t", 3)), generation=1),
    )
    evaluation = evaluate(scenario, [RemoveMember("C1")], ["sticky"])
    item = evaluation.strategy("sticky")
    assert item.explanation.assignment == item.target
    trace = item.explanation.partition(tp("t", 3))
    assert trace.holders == ("C0",)
    assert trace.decisions[-1].step == "2b round-robin"


def test_evaluate_explains_a_static_restart_as_no_rebalance() -> None:
    scenario = group(
        {"t": 2},
        Member("C0", ("t",), group_instance_id="i-0", owned_partitions=(tp("t", 0),)),
        Member("C1", ("t",), group_instance_id="i-1", owned_partitions=(tp("t", 1),)),
    )
    evaluation = evaluate(scenario, [change_from_text("restart:C0")], ["range"])
    explanation = evaluation.strategy("range").explanation
    assert explanation.notes[0].text.startswith("no rebalance: only static members restart")
    trace = explanation.partition(tp("t", 0))
    assert [(d.step, d.member) for d in trace.decisions] == [("no rebalance", "C0")]

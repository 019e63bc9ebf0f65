"""Group changes as pure Scenario -> Scenario functions: examples, errors and properties."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assignors import registry
from assignors.errors import UnknownStrategyError
from assignors.model import Member, Scenario, Topic
from assignors.simulate.changes import (
    AddMember,
    Change,
    ChangeError,
    RemoveMember,
    SetLags,
    SetPartitions,
    SetProduceRates,
    SkewLag,
    Subscribe,
    apply_change,
    apply_changes,
    apply_in_order,
    apply_one,
    current_assignment,
    describe,
    restarted_members,
    skew_ranks,
)
from assignors.simulate.lag import partition_lags
from tests.assignors.test_metrics import assignment, tp

GROUP = Scenario(
    (Topic("orders", 4, lags=(1, 2, 3, 4)), Topic("payments", 2)),
    (
        Member("A", ("orders", "payments"), group_instance_id="host-a"),
        Member("B", ("orders",)),
    ),
)


def owned(scenario: Scenario) -> dict[str, list[str]]:
    return {m.member_id: [str(p) for p in m.owned_partitions] for m in scenario.members}


def test_without_ownership_the_current_assignment_is_range_by_default() -> None:
    # range, per topic: orders 0-1 to A, 2-3 to B; payments (only A subscribes) 0-1 to A.
    assert current_assignment(GROUP) == assignment(
        A="orders-0 orders-1 payments-0 payments-1", B="orders-2 orders-3"
    )


def test_without_ownership_the_scenario_assignor_decides() -> None:
    scenario = Scenario(GROUP.topics, GROUP.members, assignor="roundrobin")
    # roundrobin over sorted partitions, skipping members not subscribed to payments.
    assert current_assignment(scenario) == assignment(
        A="orders-0 orders-2 payments-0 payments-1", B="orders-1 orders-3"
    )
    with pytest.raises(UnknownStrategyError):
        current_assignment(Scenario(GROUP.topics, GROUP.members, assignor="no-such"))


def test_owned_partitions_are_the_current_assignment() -> None:
    members = (
        Member("A", ("orders",), owned_partitions=(tp("orders-3"),), generation=2),
        Member("B", ("orders",)),
    )
    scenario = Scenario(GROUP.topics, members)
    assert current_assignment(scenario) == assignment(A="orders-3", B="")


def test_after_a_change_members_own_the_current_assignment_in_a_new_generation() -> None:
    after = apply_change(GROUP, AddMember("C"))
    assert owned(after) == {
        "A": ["orders-0", "orders-1", "payments-0", "payments-1"],
        "B": ["orders-2", "orders-3"],
        "C": [],
    }
    assert [m.generation for m in after.members] == [1, 1, None]
    # Without topics, C subscribes like the first member.
    assert after.members[2].topics == ("orders", "payments")
    assert GROUP.members[0].owned_partitions == ()  # the input is untouched


@pytest.mark.parametrize(
    ("change", "check"),
    [
        (AddMember("C", ("payments",)), lambda s: s.members[2].topics == ("payments",)),
        (RemoveMember("B"), lambda s: [m.member_id for m in s.members] == ["A"]),
        (Subscribe("B", ("payments",)), lambda s: s.members[1].topics == ("payments",)),
        (
            SetPartitions("orders", 6),
            lambda s: s.topics[0].partitions == 6 and s.topics[0].lags == (1, 2, 3, 4, 0, 0),
        ),
        (RemoveMember("A", static_restart=True), lambda s: len(s.members) == 2),
    ],
    ids=lambda value: describe(value) if not callable(value) else "",
)
def test_each_change(change: Change, check: object) -> None:
    after = apply_change(GROUP, change)
    assert callable(check) and check(after)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ([AddMember("A")], "'A' is already in the group"),
        ([AddMember("C", ("nope",))], "no topic 'nope'"),
        ([AddMember("C", ())], "at least one topic"),
        ([RemoveMember("Z")], "no member 'Z' in the group (members: A, B)"),
        ([RemoveMember("B"), RemoveMember("B")], "no member 'B' in the group (members: A)"),
        ([RemoveMember("B", static_restart=True)], "no group_instance_id"),
        ([RemoveMember("B"), AddMember("B")], "gets a new member id"),
        ([Subscribe("B", ("orders",))], "already subscribes"),
        ([Subscribe("B", ("orders", "orders"))], "listed twice"),
        ([SetPartitions("orders", 3)], "cannot shrink"),
        ([SetPartitions("orders", 4)], "already has 4 partitions"),
        ([SetPartitions("ghost", 9)], "no topic 'ghost'"),
    ],
)
def test_changes_that_make_no_sense_are_refused(changes: list[Change], message: str) -> None:
    with pytest.raises(ChangeError) as error:
        apply_changes(GROUP, changes)
    assert message in str(error.value)
    assert error.value.index == len(changes) - 1  # which change failed: the last one here


def test_a_topic_grows_with_every_per_partition_array_padded() -> None:
    topic = Topic(
        "orders",
        2,
        replica_racks=(("r1",), ("r2",)),
        lags=(5, 6),
        log_start_offsets=(1, 2),
        log_end_offsets=(10, 20),
        committed_offsets=(8, None),
        produce_rates=(1.5, 2.5),
    )
    grown = apply_one(Scenario((topic,), ()), SetPartitions("orders", 4)).topics[0]
    assert grown == Topic(
        "orders",
        4,
        replica_racks=(("r1",), ("r2",), (), ()),
        lags=(5, 6, 0, 0),
        log_start_offsets=(1, 2, 0, 0),
        log_end_offsets=(10, 20, 0, 0),
        committed_offsets=(8, None, None, None),
        produce_rates=(1.5, 2.5, 0.0, 0.0),
    )
    # A topic that states no arrays still states none.
    assert apply_one(GROUP, SetPartitions("payments", 3)).topics[1] == Topic("payments", 3)


def test_in_order_alone_changes_nobody_s_ownership() -> None:
    members = (Member("A", ("orders",), owned_partitions=(tp("orders-3"),), generation=2),)
    scenario = Scenario(GROUP.topics, members)
    after = apply_in_order(scenario, [SetPartitions("orders", 5), AddMember("B")])
    assert after.members[0] == members[0]
    assert [m.member_id for m in after.members] == ["A", "B"]
    assert apply_changes(scenario, [SetPartitions("orders", 5), AddMember("B")]) == (
        apply_in_order(
            Scenario(GROUP.topics, (dataclasses.replace(members[0], generation=3),)),
            [SetPartitions("orders", 5), AddMember("B")],
        )
    )


def test_add_like_the_first_member_needs_a_first_member() -> None:
    with pytest.raises(ChangeError, match="no member to copy"):
        apply_change(Scenario(GROUP.topics, ()), AddMember("C"))


def test_restarted_members_lists_static_restarts_only() -> None:
    changes: list[Change] = [RemoveMember("A", static_restart=True), RemoveMember("B")]
    assert restarted_members(changes) == ("A",)


# --- properties --------------------------------------------------------------------------------

CHANGES = st.one_of(
    st.builds(AddMember, st.sampled_from("ABCDE"), st.sampled_from([None, ("orders",)])),
    st.builds(RemoveMember, st.sampled_from("ABCDE")),
    st.builds(Subscribe, st.sampled_from("ABCDE"), st.sampled_from([("orders",), ("payments",)])),
    st.builds(SetPartitions, st.sampled_from(["orders", "payments"]), st.integers(0, 9)),
)


@given(st.lists(CHANGES, max_size=5))
def test_changes_keep_the_scenario_sound(changes: list[Change]) -> None:
    current = current_assignment(GROUP)
    try:
        after = apply_changes(GROUP, changes)
    except ChangeError:
        return
    ids = [m.member_id for m in after.members]
    assert len(ids) == len(set(ids))
    counts = after.partition_counts()
    for member in after.members:
        # Members that were there own their current partitions; new ones own nothing.
        assert member.owned_partitions == current.partitions.get(member.member_id, ())
        assert all(p.partition < counts[p.topic] for p in member.owned_partitions)
    for before, grown in zip(GROUP.topics, after.topics, strict=True):
        assert grown.partitions >= before.partitions
    assert apply_changes(GROUP, changes) == after  # pure: same input, same output


# --- facts about partitions: lag, produce rates, a hot spot; an added member's priority ---------

OFFSETS = Topic(
    "clicks",
    8,
    log_end_offsets=(100,) * 8,
    committed_offsets=(90, 80, 70, 60, 50, 40, 30, None),
    produce_rates=(1.0,) * 8,
)
SHAPED = Scenario((OFFSETS, Topic("orders", 4, lags=(1, 2, 3, 4))), GROUP.members)


def lags(scenario: Scenario, topic: str) -> list[int]:
    return partition_lags(scenario.topic_by_name()[topic], scenario.auto_offset_reset)


def _skewed(values: list[int], topic: str, factor: int, floor: int, share: float) -> list[int]:
    """The rule of SkewLag written out: rank r of the seeded order gets max(v, v*f//r, floor//r)."""
    result = list(values)
    for rank, partition in enumerate(skew_ranks(topic, len(values), share), start=1):
        old = values[partition]
        result[partition] = max(old, old * factor // rank, floor // rank)
    return result


@pytest.mark.parametrize(
    ("change", "topic", "expected"),
    [
        # Only the named partitions change; the others keep the lag their offsets give.
        (SetLags("clicks", ((0, 500), (7, 9))), "clicks", [500, 20, 30, 40, 50, 60, 70, 9]),
        (SetLags("orders", ((3, 0),)), "orders", [1, 2, 3, 0]),
        # Hot partitions: a quarter (at least one), seeded positions, Zipf-like: the hottest
        # 10x (at least 10,000), the next half that (at least 5,000).
        (SkewLag(), "clicks", _skewed([10, 20, 30, 40, 50, 60, 70, 0], "clicks", 10, 10_000, 0.25)),
        (SkewLag(), "orders", _skewed([1, 2, 3, 4], "orders", 10, 10_000, 0.25)),
        (
            SkewLag(factor=3, floor=0, share=0.5),
            "orders",
            _skewed([1, 2, 3, 4], "orders", 3, 0, 0.5),
        ),
    ],
    ids=lambda value: describe(value) if isinstance(value, SetLags | SkewLag) else None,
)
def test_lag_changes(change: Change, topic: str, expected: list[int]) -> None:
    after = apply_one(SHAPED, change)
    assert lags(after, topic) == expected
    assert after.members == SHAPED.members  # nothing else changes


def test_produce_rates_change_only_the_named_partitions() -> None:
    after = apply_one(SHAPED, SetProduceRates("clicks", ((2, 250.0),)))
    assert after.topic_by_name()["clicks"].produce_rates == (1.0, 1.0, 250.0) + (1.0,) * 5
    # A topic that stated no rates produces 0 elsewhere.
    orders = apply_one(SHAPED, SetProduceRates("orders", ((0, 5),)))
    assert orders.topic_by_name()["orders"].produce_rates == (5.0, 0.0, 0.0, 0.0)


def test_an_added_member_keeps_its_priority() -> None:
    after = apply_change(GROUP, AddMember("C", priority=7, consume_rate=50.0))
    added = after.members[-1]
    assert (added.member_id, added.priority, added.consume_rate) == ("C", 7, 50.0)
    assert apply_change(GROUP, AddMember("D")).members[-1].priority is None


def test_an_added_member_keeps_every_member_field_it_states() -> None:
    change = AddMember(
        "C",
        ("orders",),
        rack="r1",
        group_instance_id="host-c",
        consume_rate=5.0,
        priority=1,
        client_id="app",
        host="/10.0.0.3",
        owned_partitions=(tp("orders-1"),),
        generation=9,
    )
    added = apply_change(GROUP, change).members[-1]
    assert added == Member(
        "C",
        ("orders",),
        rack="r1",
        group_instance_id="host-c",
        owned_partitions=(tp("orders-1"),),
        generation=9,
        priority=1,
        consume_rate=5.0,
        client_id="app",
        host="/10.0.0.3",
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (SetLags("ghost", ((0, 1),)), "no topic 'ghost'"),
        (SetLags("orders", ((4, 1),)), "orders-4: no such partition (orders has 4)"),
        (SetLags("orders", ((0, -1),)), "must be a number >= 0"),
        (SetLags("orders", ((0, 1.5),)), "whole number"),  # type: ignore[arg-type]
        (SetLags("orders", ()), "at least one partition"),
        (SetProduceRates("orders", ((0, float("nan")),)), "must be a number >= 0"),
        (SetProduceRates("orders", ((-1, 1.0),)), "no such partition"),
        (SkewLag(factor=0), "factor must be a whole number >= 1"),
        (SkewLag(floor=-1), "floor must be a whole number >= 0"),
        (SkewLag(share=0), "share must be in (0, 1]"),
    ],
)
def test_fact_changes_that_make_no_sense_are_refused(change: Change, message: str) -> None:
    with pytest.raises(ChangeError) as error:
        apply_one(SHAPED, change)
    assert message in str(error.value)


def test_fact_changes_also_apply_with_the_membership_changes() -> None:
    after = apply_changes(SHAPED, [SkewLag(), AddMember("C")])
    assert lags(after, "orders") == lags(apply_one(SHAPED, SkewLag()), "orders")
    assert [m.generation for m in after.members] == [1, 1, None]


@given(
    st.lists(st.integers(0, 10**6), min_size=1, max_size=20),
    st.integers(1, 20),
    st.integers(0, 10**5),
    st.floats(0.01, 1.0),
)
def test_a_skew_never_lowers_a_lag_and_decays_by_rank(
    values: list[int], factor: int, floor: int, share: float
) -> None:
    scenario = Scenario((Topic("t", len(values), lags=tuple(values)),), GROUP.members)
    skewed = lags(apply_one(scenario, SkewLag(factor, floor, share)), "t")
    ranked = skew_ranks("t", len(values), share)
    assert len(ranked) == len(set(ranked)) == max(1, int(len(values) * share))
    for partition, (old, new) in enumerate(zip(values, skewed, strict=True)):
        if partition not in ranked:
            assert new == old
    for rank, partition in enumerate(ranked, start=1):
        old = values[partition]
        assert skewed[partition] == max(old, old * factor // rank, floor // rank)
    assert apply_one(scenario, SkewLag(factor, floor, share)) == apply_one(
        scenario, SkewLag(factor, floor, share)
    )


def test_a_skew_spreads_hot_partitions_so_strategies_differ() -> None:
    """The old rule made the first partitions hot, which range and roundrobin both give to the
    first member: every strategy looked the same. Seeded positions separate them."""
    members = tuple(Member(f"C{i}", ("a", "b")) for i in range(4))
    scenario = Scenario((Topic("a", 16), Topic("b", 16)), members)
    skewed = apply_one(scenario, SkewLag())
    hot = [p for t in ("a", "b") for p, lag in enumerate(lags(skewed, t)) if lag]
    assert sorted(hot) != list(range(len(hot)))  # not simply the first partitions
    by_member = {}
    for name in ("range", "roundrobin"):
        assignment = registry.partition_strategies()[name].assign(skewed)
        topic_lags = {t.name: lags(skewed, t.name) for t in skewed.topics}
        by_member[name] = sorted(
            sum(topic_lags[tp.topic][tp.partition] for tp in tps)
            for tps in assignment.partitions.values()
        )
    assert by_member["range"] != by_member["roundrobin"]
    # A different seed puts the hot partitions elsewhere.
    assert skew_ranks("a", 16, 0.25, seed=1) != skew_ranks("a", 16, 0.25, seed=0)


@given(st.dictionaries(st.integers(0, 7), st.integers(0, 10**9), min_size=1))
def test_set_lags_sets_exactly_what_it_is_given(new: dict[int, int]) -> None:
    after = lags(apply_one(SHAPED, SetLags("clicks", tuple(new.items()))), "clicks")
    before = lags(SHAPED, "clicks")
    assert after == [new.get(p, before[p]) for p in range(8)]

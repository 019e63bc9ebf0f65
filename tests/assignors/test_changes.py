"""Group changes as pure Scenario -> Scenario functions: examples, errors and properties."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assignors.changes import (
    AddMember,
    Change,
    ChangeError,
    RemoveMember,
    SetPartitions,
    Subscribe,
    apply_change,
    apply_changes,
    current_assignment,
    describe,
    restarted_members,
)
from assignors.errors import UnknownStrategyError
from assignors.model import Member, Scenario, Topic
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

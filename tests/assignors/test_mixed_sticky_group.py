"""A ``sticky`` group of kafka-python's own ``StickyPartitionAssignor`` and our adapter, on the
Apache Kafka cluster the suite starts, as a team switching between the two in a rolling deploy.

Both announce the protocol name ``sticky``; kafka-python's writes its claims with an INT16
version in front of Java's layout, ours writes Java's layout (or kafka-python's, with
``user_data_layout="kafka-python"``). Clients ``kp*`` run kafka-python's assignor unchanged (a
subclass only records when it leads), clients ``us*`` ours. Every membership change waits until
the broker reports a Stable group whose assignment every consumer holds (the machinery of
``test_kafka_python_adapters``), and records which client led the rebalance that produced it.

The property checked: when a member leaves, every member that stays keeps every partition it
had, whoever leads. That needs the leader to read every member's claim: ours reads both layouts;
kafka-python's reads only its own, so it keeps our members' partitions only when they write
kafka-python's layout.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from kafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor

from adapters import kafka_python as adapters
from assignors.model import Topic
from tests.assignors.test_kafka_python_adapters import Group, Settled, _show
from tests.kafka_broker import unique_name
from tests.kafka_cluster.cluster import KafkaCluster

pytestmark = pytest.mark.broker

PARTITIONS = 6
#: How often a change makes a member rejoin after noida-db admitted it without a rebalance.
REJOIN_RETRIES = 2


class _KafkaPythonSticky(StickyPartitionAssignor):  # type: ignore[misc]
    """kafka-python's own sticky assignor, recording in ``leads`` each time it assigns."""

    def __init__(self, client_id: str, leads: list[str]) -> None:
        super().__init__()
        self.client_id, self.leads = client_id, leads

    def assign(self, cluster: Any, members: Any) -> Any:
        self.leads.append(self.client_id)
        return super().assign(cluster, members)


class _OurSticky(adapters.StickyAssignor):
    """Our adapter, recording in ``leads`` each time it assigns."""

    def __init__(self, client_id: str, leads: list[str], layout: adapters.StickyLayout) -> None:
        super().__init__(user_data_layout=layout)
        self.client_id, self.leads = client_id, leads

    def assign(self, cluster: Any, members: Any) -> dict[str, Any]:
        self.leads.append(self.client_id)
        return super().assign(cluster, members)


@dataclass
class MixedStickyGroup(Group):
    """A Group whose ``kp*`` clients run kafka-python's sticky assignor and the others ours."""

    our_layout: adapters.StickyLayout = "java"
    leads: list[str] = field(default_factory=list)

    def assignor(self, client_id: str) -> Any:
        if client_id.startswith("kp"):
            return _KafkaPythonSticky(client_id, self.leads)
        return _OurSticky(client_id, self.leads, self.our_layout)

    def change(self, action: Callable[[], None]) -> tuple[Settled, str]:
        """Run one membership change, wait until it settles; the state and who led it."""
        action()
        state = self.settle()
        for _ in range(REJOIN_RETRIES):
            idle = self.idle_while_others_hold_more(state)
            if not idle:
                break
            for client_id in idle:  # noida-db quirk: see Group.admitted_without_rebalance
                self.leave(client_id)
                self.join(client_id)
            state = self.settle()
        everything = {(t.name, p) for t in self.topics for p in range(t.partitions)}
        held = [(tp.topic, tp.partition) for tps in state.reported.values() for tp in tps]
        assert sorted(held) == sorted(everything), f"not assigned once each: {state.reported}"
        self.state = state
        return state, self.leads[-1]

    @staticmethod
    def idle_while_others_hold_more(state: Settled) -> list[str]:
        by_client = state.by_client()
        if max(len(tps) for tps in by_client.values()) < 2:
            return []
        return sorted(cid for cid, tps in by_client.items() if not tps)


def side(client_id: str) -> str:
    return "kafka-python" if client_id.startswith("kp") else "ours"


def assert_survivors_keep(before: Settled, after: Settled, leader: str) -> None:
    was, now = before.by_client(), after.by_client()
    lost = {cid: was[cid] - now[cid] for cid in now if was.get(cid, set()) - now[cid]}
    assert not lost, (
        f"with {leader} ({side(leader)}) leading, members that stayed lost partitions: "
        f"{_show(lost)}; before {_show(was)}, after {_show(now)}"
    )


@pytest.fixture
def make_mixed_group(
    kafka_cluster: KafkaCluster,
) -> Iterator[Callable[[adapters.StickyLayout], MixedStickyGroup]]:
    groups: list[MixedStickyGroup] = []

    def make(our_layout: adapters.StickyLayout) -> MixedStickyGroup:
        names = [unique_name("orders"), unique_name("clicks")]
        kafka_cluster.create_topics(dict.fromkeys(names, PARTITIONS))
        group = MixedStickyGroup(
            kafka_cluster,
            "sticky",
            unique_name("ae-mixed-sticky"),
            tuple(Topic(name, PARTITIONS) for name in names),
            our_layout=our_layout,
        )
        groups.append(group)
        return group

    yield make
    for group in groups:
        group.close()


def join_all(group: MixedStickyGroup, *client_ids: str) -> None:
    for client_id in client_ids:
        group.change(functools.partial(group.join, client_id))


@pytest.mark.parametrize("first", ["kp", "us"])
def test_mixed_group_stays_sticky_whichever_side_leads(
    make_mixed_group: Callable[[adapters.StickyLayout], MixedStickyGroup], first: str
) -> None:
    # The first member to join an empty group leads it, and keeps leading while it stays (a
    # leader that rejoins is kept): the side that joins first leads every rebalance, so each
    # side's leader is checked on purpose. (Which member the broker picks once a leader leaves
    # is its choice; a test that waited for leadership to pass across sides failed by chance.)
    other = "us" if first == "kp" else "kp"
    group = make_mixed_group("kafka-python")
    join_all(group, f"{first}0", f"{other}1", f"{first}2", f"{other}3")
    for leaving in (f"{other}3", f"{first}2"):
        before = group.state
        assert before is not None
        after, leader = group.change(functools.partial(group.leave, leaving))
        assert side(leader) == side(f"{first}0"), f"leaders of the rebalances: {group.leads}"
        assert any(side(cid) != side(leader) for cid in after.member_ids)
        assert_survivors_keep(before, after, leader)


def test_our_leader_keeps_kafka_python_members_partitions(
    make_mixed_group: Callable[[adapters.StickyLayout], MixedStickyGroup],
) -> None:
    group = make_mixed_group("java")  # our default
    join_all(group, "us0", "kp1", "kp2", "kp3")
    for leaving in ("kp3", "kp2"):
        before = group.state
        assert before is not None
        after, leader = group.change(functools.partial(group.leave, leaving))
        assert side(leader) == "ours", group.leads
        assert_survivors_keep(before, after, leader)

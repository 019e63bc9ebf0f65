"""Sticky groups mixing Java, librdkafka and our kafka-python adapters, on Apache Kafka.

Three pairings share one classic group each: Java's ``CooperativeStickyAssignor`` with our
``CooperativeStickyAssignor`` adapter; Java's eager ``StickyAssignor`` with our ``StickyAssignor``
adapter; librdkafka's ``cooperative-sticky`` with our cooperative adapter. The same story runs
for each, with the other client's members ``x1``, ``x2``, ... (``j`` for Java, ``r`` for
librdkafka) and ours ``p1``, ``p2``, ...:

1. x1 joins first, so it leads (the broker keeps the first member as leader while it stays);
   p1, p2 and x2 join and x2 leaves: the other client assigns, reading our members' claims.
2. x1 leaves: only ours remain, so one of ours leads from then on; x3 joins and the other
   member of ours leaves: ours assigns, reading the other client's claims.

A fourth group has all three in one ``cooperative-sticky`` group, and hands leadership from
librdkafka to Java to ours by shrinking the group to one member of the next side; each leads
joins with members of both other sides present.

Who led is not assumed: every change records the members that ran their assignor, and the test
asserts the side. After every change (see :mod:`tests.kafka_cluster.mixed_group` for how a state
counts as settled): when a member leaves, every member that stays keeps every partition it had;
when one joins, the others only give partitions up, exactly those the newcomer gets; counts differ
by at most one. Throughout, a watch reads every member's owned partitions ten times a second and
no partition may ever be owned by two members at once, nor assigned twice in a reader's reading.

Topics have a replica on every rack (replication factor 3 over the three zones) and no member
sets ``client.rack``, so rack-aware assignment (KIP-881) is off: see
``docs/mixed-client-groups.md`` for why librdkafka's cooperative-sticky can rebalance without end
when it is on with partitions on some racks only.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from adapters import kafka_python as adapters
from tests.kafka_broker import unique_name
from tests.kafka_cluster.cluster import KafkaCluster
from tests.kafka_cluster.mixed_group import MixedGroup, Owned, Settled, side

pytestmark = pytest.mark.broker

PARTITIONS = 6  # per topic; two topics


@pytest.fixture
def make_group(
    kafka_cluster: KafkaCluster, tmp_path: Path
) -> Iterator[Callable[[str], MixedGroup]]:
    groups: list[MixedGroup] = []

    def make(protocol: str) -> MixedGroup:
        topics = {unique_name("orders"): PARTITIONS, unique_name("clicks"): PARTITIONS}
        kafka_cluster.create_topics(topics)  # the cluster's replication factor, 3: every rack
        group = MixedGroup(
            kafka_cluster, protocol, adapters.ADAPTERS[protocol],
            unique_name(f"ae-mixed-{protocol}"), topics, tmp_path,
        )  # fmt: skip
        groups.append(group)
        return group

    yield make
    for group in groups:
        group.close()


def joined(group: MixedGroup, client_id: str) -> Settled:
    before = group.state.owned if group.state else {}
    after = group.change(functools.partial(group.join, client_id))
    stayed = {cid: tps for cid, tps in after.owned.items() if cid != client_id}
    given_up = {cid: before[cid] - stayed[cid] for cid in stayed}
    assert all(stayed[cid] <= before[cid] for cid in stayed), (
        f"{client_id} joined; members that were there gained partitions: {_moves(before, after)}"
    )
    everything = {(topic, p) for topic, count in group.topics.items() for p in range(count)}
    expected = frozenset().union(*given_up.values()) if before else everything
    assert after.owned[client_id] == expected, (
        f"{client_id} joined and did not get exactly what the others gave up: "
        f"{_moves(before, after)}"
    )
    _assert_balanced(after.owned)
    return after


def left(group: MixedGroup, client_id: str) -> Settled:
    assert group.state is not None
    before = group.state.owned
    after = group.change(functools.partial(group.leave, client_id))
    lost = {cid: before[cid] - tps for cid, tps in after.owned.items() if before[cid] - tps}
    assert not lost, f"{client_id} left; members that stayed lost {lost}: {_moves(before, after)}"
    _assert_balanced(after.owned)
    return after


def _assert_balanced(owned: Owned) -> None:
    counts = [len(tps) for tps in owned.values()]
    assert max(counts) - min(counts) <= 1, f"unbalanced: {owned}"


def _moves(before: Owned, after: Settled) -> str:
    return f"before {before}, after {after.owned}, led by {after.leaders}"


def assert_led_by(state: Settled, expected_side: str, step: str) -> None:
    assert state.leaders, f"{step}: no member ran its assignor"
    sides = {side(leader) for leader in state.leaders}
    assert sides == {expected_side}, f"{step}: led by {state.leaders}, expected {expected_side}"


@pytest.mark.parametrize(
    ("other", "protocol"),
    [("j", "cooperative-sticky"), ("j", "sticky"), ("r", "cooperative-sticky")],
    ids=["java-cooperative-sticky", "java-sticky", "librdkafka-cooperative-sticky"],
)
def test_a_mixed_group_stays_sticky_whichever_client_leads(
    make_group: Callable[[str], MixedGroup], other: str, protocol: str
) -> None:
    group = make_group(protocol)
    theirs = side(f"{other}0")

    # 1. Their first member leads while ours join and one of theirs comes and goes.
    assert_led_by(joined(group, f"{other}1"), theirs, f"{other}1 joins")
    for step in ("p1", "p2", f"{other}2"):
        assert_led_by(joined(group, step), theirs, f"{step} joins")
    assert_led_by(left(group, f"{other}2"), theirs, f"{other}2 leaves")

    # 2. Their leader leaves: only ours remain, and one of ours leads from then on.
    assert_led_by(left(group, f"{other}1"), "ours", f"{other}1 (the leader) leaves")
    assert_led_by(joined(group, f"{other}3"), "ours", f"{other}3 joins")
    assert group.state is not None
    leader = group.state.leaders[-1]
    follower = "p2" if leader == "p1" else "p1"
    after = left(group, follower)
    assert_led_by(after, "ours", f"{follower} leaves")
    assert set(after.owned) == {leader, f"{other}3"}
    assert_never_owned_twice(group)


def test_java_librdkafka_and_our_adapter_take_turns_leading_one_group(
    make_group: Callable[[str], MixedGroup],
) -> None:
    # Leadership is handed on by shrinking the group to one member, which then leads.
    group = make_group("cooperative-sticky")
    for member in ("r1", "p1", "j1"):  # librdkafka's r1 joined first
        assert_led_by(joined(group, member), "librdkafka", f"{member} joins")
    left(group, "r1")
    left(group, "p1")  # only j1 is left: Java leads
    for member in ("r2", "p2"):
        assert_led_by(joined(group, member), "Java", f"{member} joins")
    left(group, "j1")
    left(group, "r2")  # only p2 is left: ours leads
    for member in ("j2", "r3"):
        assert_led_by(joined(group, member), "ours", f"{member} joins")
    assert_led_by(left(group, "j2"), "ours", "j2 leaves")
    assert_never_owned_twice(group)


#: Brokers 1, 2, 3 sit in zone-a, zone-b, zone-c. Four of six partitions live in zone-b only.
ZONE_B_HEAVY = {0: [2], 1: [2], 2: [2], 3: [2], 4: [1], 5: [3]}


def test_our_adapter_leading_a_rack_aware_group_with_librdkafka_members_settles(
    kafka_cluster: KafkaCluster, tmp_path: Path
) -> None:
    # The setting in which librdkafka's own cooperative-sticky leader was seen rebalancing
    # without end (docs/mixed-client-groups.md): partitions on one rack each, zone-b members
    # among members without a rack, and more zone-b partitions than their share. With our
    # adapter leading (Kafka's algorithm), every change settles, balanced. (Rack-aware, Kafka's
    # sticky assignors move partitions for locality too: the zone-b member gives up its
    # off-rack partitions once there is room elsewhere, so the join and leave rules of the
    # other tests do not apply.)

    topic = kafka_cluster.create_placed_topic(unique_name("zoned"), ZONE_B_HEAVY)
    group = MixedGroup(
        kafka_cluster, "cooperative-sticky", adapters.CooperativeStickyAssignor,
        unique_name("ae-mixed-racks"), {topic: len(ZONE_B_HEAVY)}, tmp_path,
        racks={"r1": "zone-b", "r3": "zone-b"},
    )  # fmt: skip
    try:
        zone_b = {(topic, p) for p, brokers in ZONE_B_HEAVY.items() if brokers == [2]}
        steps = [("p1", group.join), ("r1", group.join), ("r2", group.join), ("r3", group.join),
                 ("r1", group.leave), ("r2", group.leave)]  # fmt: skip
        for client_id, action in steps:  # ours joined first and leads throughout
            after = group.change(functools.partial(action, client_id))
            assert_led_by(after, "ours", f"{client_id} {action.__name__}s")
            _assert_balanced(after.owned)
            if (client_id, action) == ("r2", group.join):  # room for r1's share in zone-b
                assert after.owned["r1"] <= zone_b, f"r1 is off its rack: {after.owned}"
        assert_never_owned_twice(group)
    finally:
        group.close()


def assert_never_owned_twice(group: MixedGroup) -> None:
    group.watch.stop()
    assert group.watch.readings > 10, f"the watch read too little: {group.watch.errors[-3:]}"
    assert not group.watch.doubles, f"partitions owned twice at once: {group.watch.doubles}"

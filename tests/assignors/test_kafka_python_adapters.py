"""Our kafka-python adapters in real consumers, on the real broker the suite starts (noida-db).

For every adapter a group of real ``KafkaConsumer`` s is driven through the same story: members
m0, m1, m2 join one at a time, m0 (the first leader, and for failover the top priority) leaves,
m3 joins. After each step the test waits until the broker reports a Stable group whose
assignment covers as many partitions as our library says it should, then checks that the
assignment the broker reports (admin ``describe_groups``) equals what the registry strategy
computes for the same scenario, built by the test from what it knows: member ids as the broker
reports them, the topics it created, the priorities and data it chose, and, for the sticky kinds,
the assignment the broker reported at the previous step as each member's claim.

For cooperative-sticky the consumers' own rebalance listeners (timestamped) also show KIP-429 at
work: a partition that keeps its owner is never revoked, and a partition that moves is revoked
by its old owner before its new owner is given it, two rounds that land on the second round our
library computes.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest
from kafka import ConsumerRebalanceListener, KafkaConsumer

from assignors import kafka_python as adapters
from assignors import registry
from assignors.model import Member, Scenario, Topic, TopicPartition
from assignors.strategy import PartitionStrategy
from tests.kafka_broker import CONSUMER_TEST_CONFIG, KafkaBroker, PolledConsumer, unique_name

pytestmark = pytest.mark.broker

PARTITIONS = 6
#: Records produced per partition of "orders": a skew the lag-aware adapter must follow.
SKEWED_ORDERS = {0: 50, 1: 5, 2: 30, 3: 0, 4: 1, 5: 100}
PRIORITIES = {"m0": 10, "m1": 5, "m2": 1, "m3": 7}
STEP_TIMEOUT_S = 40.0
#: Strategies whose answer depends on what members owned before (claims in the scenario).
STICKY_KINDS = {"sticky", "cooperative-sticky", "stream-join-sticky"}

Ownership = dict[str, set[TopicPartition]]


class RecordingListener(ConsumerRebalanceListener):  # type: ignore[misc]
    """Records the partitions kafka-python revokes and assigns, in order."""

    def __init__(self) -> None:
        self.events: list[tuple[str, set[TopicPartition], float]] = []

    def on_partitions_revoked(self, revoked: Any) -> None:
        self.events.append(("revoked", {_tp(tp) for tp in revoked}, time.monotonic()))

    def on_partitions_assigned(self, assigned: Any) -> None:
        self.events.append(("assigned", {_tp(tp) for tp in assigned}, time.monotonic()))


@dataclass
class Group:
    """A consumer group of real consumers using one adapter, and what the test knows about it."""

    broker: KafkaBroker
    strategy_name: str
    group_id: str
    topics: tuple[Topic, ...]
    consumers: dict[str, PolledConsumer] = field(default_factory=dict)
    member_ids: dict[str, str] = field(default_factory=dict)  # client id -> member id
    previous: Ownership = field(default_factory=dict)  # member id -> partitions, last step
    generation: int = 0
    listeners: dict[str, RecordingListener] = field(default_factory=dict)

    @property
    def strategy(self) -> PartitionStrategy:
        strategy = registry.get(self.strategy_name)
        assert isinstance(strategy, PartitionStrategy)
        return strategy

    def assignor(self, client_id: str) -> Any:
        if self.strategy_name == "failover":
            return adapters.FailoverAssignor(priority=PRIORITIES[client_id])
        if self.strategy_name == "lag-aware":
            return adapters.LagAwareAssignor(
                bootstrap_servers=self.broker.bootstrap,
                group_id=self.group_id,
                auto_offset_reset="earliest",
            )
        return adapters.ADAPTERS[self.strategy_name]

    def join(self, client_id: str) -> None:
        consumer = KafkaConsumer(
            bootstrap_servers=self.broker.bootstrap,
            group_id=self.group_id,
            client_id=client_id,
            auto_offset_reset="earliest",
            enable_auto_commit=False,  # keeps the lags where the test put them
            fetch_max_wait_ms=100,
            **CONSUMER_TEST_CONFIG,
            partition_assignment_strategy=[self.assignor(client_id)],
        )
        listener = RecordingListener()
        self.listeners[client_id] = listener
        consumer.subscribe([topic.name for topic in self.topics], listener=listener)
        self.consumers[client_id] = PolledConsumer(consumer)

    def leave(self, client_id: str) -> None:
        self.consumers.pop(client_id).close()

    def close(self) -> None:
        for client_id in list(self.consumers):
            self.leave(client_id)

    def scenario(
        self, member_ids: Mapping[str, str], owned: Ownership, generation: int
    ) -> Scenario:
        """The scenario a step presents to the leader, as the test knows it."""
        names = tuple(topic.name for topic in self.topics)
        members = []
        for client_id, member_id in sorted(member_ids.items()):
            claim = tuple(sorted(owned.get(member_id, set())))
            had_assignment = member_id in owned
            members.append(
                Member(
                    member_id,
                    names,
                    priority=PRIORITIES[client_id] if self.strategy_name == "failover" else None,
                    owned_partitions=claim if self.strategy_name in STICKY_KINDS else (),
                    # All members that held an assignment got it in the same generation.
                    generation=generation if had_assignment else None,
                )
            )
        return Scenario(self.topics, tuple(members), auto_offset_reset="earliest")

    def expected(self, member_ids: Mapping[str, str]) -> Ownership:
        """Our library's answer for this step (both rounds for cooperative-sticky)."""
        answer = self.strategy.assign(self.scenario(member_ids, self.previous, self.generation))
        result = {m: set(tps) for m, tps in answer.partitions.items()}
        if self.strategy_name == "cooperative-sticky":
            # Round two: every member now owns what round one gave it, one generation later.
            round_two = self.scenario(member_ids, result, self.generation + 1)
            second = self.strategy.assign(round_two)
            result = {m: set(tps) for m, tps in second.partitions.items()}
        return result

    def settle(self) -> Ownership:
        """Wait until the broker reports what our library computes for this step; return it.

        A rebalance passes through states that are not the answer (members still joining, the
        first cooperative round, noida-db's lost-JoinGroup hiccup), so the test polls until the
        group is Stable with the expected members and every consumer holds what the broker
        reports. If that never equals our library's answer, the step fails with both.
        """
        deadline = time.monotonic() + STEP_TIMEOUT_S
        description: dict[str, Any] = {}
        reported: Ownership = {}
        expected: Ownership = {}
        while time.monotonic() < deadline:
            description = self.broker.describe_group(self.group_id)
            members = description.get("members", [])
            member_ids = {m["client_id"]: m["member_id"] for m in members}
            if description.get("group_state") == "Stable" and set(member_ids) == set(
                self.consumers
            ):
                reported = {m["member_id"]: _reported_partitions(m) for m in members}
                expected = self.expected(member_ids)
                held = {
                    member_ids[cid]: {_tp(tp) for tp in c.consumer.assignment()}
                    for cid, c in self.consumers.items()
                }
                if reported == expected and held == reported:
                    self.member_ids = member_ids
                    self.generation += 2
                    return reported
            time.sleep(0.1)
        raise AssertionError(
            f"{self.strategy_name}: with {sorted(self.consumers)} the broker never reported "
            f"what our library computes within {STEP_TIMEOUT_S:.0f} s.\n"
            f"last reported: {_show(reported)}\nour library:   {_show(expected)}\n"
            f"last description: {description!r}"
        )

    def owned_by_client(self) -> dict[str, set[TopicPartition]]:
        return {cid: self.previous.get(mid, set()) for cid, mid in self.member_ids.items()}

    def step(self, action: Callable[[], None]) -> Ownership:
        """Run one membership change, wait for the answer, check how partitions moved."""
        before = self.owned_by_client()
        for listener in self.listeners.values():
            listener.events.clear()
        action()
        self.previous = self.settle()
        if self.strategy_name == "cooperative-sticky":
            self.check_cooperative_moves(before, self.owned_by_client())
        return self.previous

    def check_cooperative_moves(
        self, before: dict[str, set[TopicPartition]], after: dict[str, set[TopicPartition]]
    ) -> None:
        """KIP-429 as the consumers saw it (their rebalance listeners, with timestamps).

        A partition that stays with its owner is never revoked; a partition that moves between
        two members is revoked by the old owner before the new owner is given it, so it is never
        owned twice; none is lost (the settled state covers every partition, checked above).
        """
        for client_id, owned in before.items():
            if client_id not in after:
                continue  # the member left (close revokes everything)
            kept = owned & after[client_id]
            revoked = self.events(client_id, "revoked")
            assert not any(kept & tps for _, tps in revoked), (
                f"{client_id} had kept partitions revoked: {revoked}"
            )
            for new_owner, now in after.items():
                moved = (owned & now) if new_owner != client_id else set()
                for tp in moved:
                    revoked_at = min(t for t, tps in revoked if tp in tps)
                    assigned_at = min(
                        t for t, tps in self.events(new_owner, "assigned") if tp in tps
                    )
                    assert revoked_at <= assigned_at, f"{tp} given to {new_owner} before revoked"

    def events(self, client_id: str, kind: str) -> list[tuple[float, set[TopicPartition]]]:
        return [(t, tps) for k, tps, t in self.listeners[client_id].events if k == kind]


def join_one_by_one(group: Group, *client_ids: str) -> None:
    for client_id in client_ids:
        group.step(functools.partial(group.join, client_id))


def _tp(tp: Any) -> TopicPartition:
    return TopicPartition(tp.topic, tp.partition)


def _reported_partitions(member: Mapping[str, Any]) -> set[TopicPartition]:
    assignment = member.get("member_assignment") or {}
    return {
        TopicPartition(entry["topic"], number)
        for entry in assignment.get("assigned_partitions", [])
        for number in entry["partitions"]
    }


def _show(ownership: Ownership) -> str:
    return str({m: sorted(str(tp) for tp in tps) for m, tps in sorted(ownership.items())})


@pytest.fixture
def make_group(kafka_broker: KafkaBroker) -> Any:
    groups: list[Group] = []

    def make(strategy_name: str) -> Group:
        orders = kafka_broker.create_topic(unique_name("orders"), PARTITIONS)
        clicks = kafka_broker.create_topic(unique_name("clicks"), PARTITIONS)
        kafka_broker.produce(orders, SKEWED_ORDERS)
        topics = (
            Topic(
                orders,
                PARTITIONS,
                log_start_offsets=(0,) * PARTITIONS,
                log_end_offsets=tuple(SKEWED_ORDERS[p] for p in range(PARTITIONS)),
                committed_offsets=(None,) * PARTITIONS,
            ),
            Topic(
                clicks,
                PARTITIONS,
                log_start_offsets=(0,) * PARTITIONS,
                log_end_offsets=(0,) * PARTITIONS,
                committed_offsets=(None,) * PARTITIONS,
            ),
        )
        group = Group(kafka_broker, strategy_name, unique_name(f"ae-{strategy_name}"), topics)
        groups.append(group)
        return group

    yield make
    for group in groups:
        group.close()


@pytest.mark.parametrize("strategy_name", sorted(adapters.ADAPTERS))
def test_real_consumers_get_what_our_library_computes(
    make_group: Callable[[str], Group], strategy_name: str
) -> None:
    group = make_group(strategy_name)
    join_one_by_one(group, "m0", "m1", "m2")
    assert sum(len(tps) for tps in group.previous.values()) == 2 * PARTITIONS
    group.step(lambda: group.leave("m0"))
    group.step(lambda: group.join("m3"))
    assert set(group.member_ids) == {"m1", "m2", "m3"}


def test_lag_aware_adapter_follows_the_produced_skew(make_group: Callable[[str], Group]) -> None:
    group = make_group("lag-aware")
    join_one_by_one(group, "m0", "m1", "m2")
    orders = group.topics[0].name
    by_client = {
        cid: sorted(tp.partition for tp in group.previous[mid] if tp.topic == orders)
        for cid, mid in group.member_ids.items()
    }
    # Lags 50, 5, 30, 0, 1, 100 (nothing committed, earliest): p5, p0, p2 go one each; then p1
    # to the least loaded (30), p4 to the next (50), p3 to the member holding p5.
    assert by_client == {"m0": [3, 5], "m1": [0, 4], "m2": [1, 2]}
    ranges = registry.get("range")
    assert isinstance(ranges, PartitionStrategy)
    range_answer = ranges.assign(group.scenario(group.member_ids, {}, group.generation))
    assert {m: set(tps) for m, tps in range_answer.partitions.items()} != group.previous


def test_failover_moves_everything_to_the_next_priority(
    make_group: Callable[[str], Group],
) -> None:
    group = make_group("failover")
    everything = {TopicPartition(t.name, p) for t in group.topics for p in range(PARTITIONS)}
    join_one_by_one(group, "m0", "m1", "m2")
    assert group.previous[group.member_ids["m0"]] == everything  # priority 10
    group.step(lambda: group.leave("m0"))
    assert group.previous[group.member_ids["m1"]] == everything  # priority 5 takes over
    assert group.previous[group.member_ids["m2"]] == set()
    group.step(lambda: group.join("m3"))
    assert group.previous[group.member_ids["m3"]] == everything  # priority 7 beats 5


def test_cooperative_adapter_moves_partitions_in_two_rounds(
    make_group: Callable[[str], Group],
) -> None:
    group = make_group("cooperative-sticky")
    join_one_by_one(group, "m0", "m1")
    before = group.owned_by_client()
    group.step(functools.partial(group.join, "m2"))
    after = group.owned_by_client()
    moved = {tp for cid in ("m0", "m1") for tp in before[cid] - after[cid]}
    assert moved == after["m2"] and len(moved) == 4  # the newcomer's share, taken by moves
    # Round one: m0 and m1 only revoke what moves and gain nothing; round two: m2 gets it all
    # at once. (Group.step already checked the order in time and that kept partitions stayed.)
    for cid in ("m0", "m1"):
        events = group.listeners[cid].events
        assert [(kind, tps) for kind, tps, _ in events] == [("revoked", before[cid] - after[cid])]
    assert [(kind, tps) for kind, tps, _ in group.listeners["m2"].events] == [("assigned", moved)]

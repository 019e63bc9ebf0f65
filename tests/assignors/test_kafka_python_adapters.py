"""Our kafka-python adapters in real consumers, on the real broker the suite starts (noida-db).

For every adapter a group of real ``KafkaConsumer`` s is driven through the same story: members
m0, m1, m2 join one at a time, m0 (the first leader, and for failover the top priority) leaves,
m3 joins. After each step the test waits until the broker reports a Stable group whose
assignment covers as many partitions as our library says it should, then checks that the
assignment the broker reports (admin ``describe_groups``) equals what the registry strategy
computes for the same scenario, built by the test from what it knows: member ids as the broker
reports them, the topics it created, the priorities and data it chose, and, for the sticky kinds,
the assignment the broker reported at the previous step as each member's claim.

While a step settles, the test samples every consumer's own ``assignment()`` and checks that no
partition is ever held by two consumers; for cooperative-sticky it also checks that a partition
that keeps its owner is never revoked in between (that is the point of KIP-429), and that the
two rounds land on the second round our library computes.
"""

from __future__ import annotations

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
from tests.kafka_broker import KafkaBroker, PolledConsumer, unique_name

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
        self.events: list[tuple[str, set[TopicPartition]]] = []

    def on_partitions_revoked(self, revoked: Any) -> None:
        self.events.append(("revoked", {_tp(tp) for tp in revoked}))

    def on_partitions_assigned(self, assigned: Any) -> None:
        self.events.append(("assigned", {_tp(tp) for tp in assigned}))


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
    samples: list[dict[str, set[TopicPartition]]] = field(default_factory=list)
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
            session_timeout_ms=10000,
            heartbeat_interval_ms=300,
            fetch_max_wait_ms=100,
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

    def sample(self) -> None:
        self.samples.append(
            {cid: {_tp(tp) for tp in c.consumer.assignment()} for cid, c in self.consumers.items()}
        )

    def settle(self) -> tuple[Ownership, Ownership]:
        """Wait for the broker to report the step's final assignment; (reported, expected)."""
        deadline = time.monotonic() + STEP_TIMEOUT_S
        description: dict[str, Any] = {}
        reported: Ownership = {}
        expected: Ownership = {}
        while time.monotonic() < deadline:
            self.sample()
            description = self.broker.describe_group(self.group_id)
            members = description.get("members", [])
            if description.get("group_state") == "Stable" and len(members) == len(self.consumers):
                member_ids = {m["client_id"]: m["member_id"] for m in members}
                if set(member_ids) == set(self.consumers):
                    reported = {m["member_id"]: _reported_partitions(m) for m in members}
                    expected = self.expected(member_ids)
                    total = sum(len(tps) for tps in expected.values())
                    if sum(len(tps) for tps in reported.values()) == total and all(
                        {_tp(tp) for tp in self.consumers[cid].consumer.assignment()}
                        == reported[mid]
                        for cid, mid in member_ids.items()
                    ):
                        self.member_ids = member_ids
                        self.generation += 2
                        return reported, expected
            time.sleep(0.05)
        raise AssertionError(
            f"{self.strategy_name}: group did not settle in {STEP_TIMEOUT_S:.0f} s with "
            f"{sorted(self.consumers)}; last description: {description!r}; "
            f"last reported {reported!r}, expected {expected!r}"
        )

    def step(self, action: Callable[[], None]) -> Ownership:
        """Run one membership change, check it, and return the settled ownership."""
        before = dict(self.previous)
        self.samples.clear()
        action()
        reported, expected = self.settle()
        assert reported == expected, (
            f"{self.strategy_name}: broker reports {_show(reported)}, "
            f"our library computes {_show(expected)}"
        )
        self.check_samples(before, reported)
        self.previous = reported
        return reported

    def check_samples(self, before: Ownership, after: Ownership) -> None:
        for sample in self.samples:
            held: dict[TopicPartition, str] = {}
            for client_id, partitions in sample.items():
                for tp in partitions:
                    assert tp not in held, f"{tp} held by {held[tp]} and {client_id} at once"
                    held[tp] = client_id
        if self.strategy_name != "cooperative-sticky":
            return
        client_of = {member_id: cid for cid, member_id in self.member_ids.items()}
        for member_id, partitions in before.items():
            client_id = client_of.get(member_id)
            if client_id is None:
                continue  # the member left
            kept = partitions & after.get(member_id, set())
            for sample in self.samples:
                if client_id in sample:  # sampled before this step's change too
                    missing = kept - sample[client_id]
                    assert not missing, f"cooperative rebalance revoked {missing} from {client_id}"


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
    for client_id in ("m0", "m1", "m2"):
        group.step(lambda client_id=client_id: group.join(client_id))
    assert sum(len(tps) for tps in group.previous.values()) == 2 * PARTITIONS
    group.step(lambda: group.leave("m0"))
    group.step(lambda: group.join("m3"))
    assert set(group.member_ids) == {"m1", "m2", "m3"}


def test_lag_aware_adapter_follows_the_produced_skew(make_group: Callable[[str], Group]) -> None:
    group = make_group("lag-aware")
    for client_id in ("m0", "m1", "m2"):
        group.step(lambda client_id=client_id: group.join(client_id))
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
    for client_id in ("m0", "m1", "m2"):
        group.step(lambda client_id=client_id: group.join(client_id))
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
    group.step(lambda: group.join("m0"))
    group.step(lambda: group.join("m1"))
    before = {cid: group.previous[mid] for cid, mid in group.member_ids.items()}
    for listener in group.listeners.values():
        listener.events.clear()
    group.step(lambda: group.join("m2"))
    after = {cid: group.previous[mid] for cid, mid in group.member_ids.items()}
    moved = {tp for cid in ("m0", "m1") for tp in before[cid] - after[cid]}
    assert moved == after["m2"] and len(moved) == 4  # the newcomer's share, taken by moves
    # Round one: m0 and m1 revoke only what moves and are handed nothing new; round two: m2
    # gets the revoked partitions. (Check_samples already saw no partition held twice and no
    # kept partition revoked in between.)
    for cid in ("m0", "m1"):
        events = group.listeners[cid].events
        assert ("revoked", before[cid] - after[cid]) in events
        assert all(kind == "revoked" and tps <= moved for kind, tps in events if tps), events
    assert group.listeners["m2"].events[-1] == ("assigned", moved)

"""KIP-848 consumer groups read live through ConsumerGroupDescribe, and live equals ours.

Real Java consumers (``group.protocol=consumer``, tests/kafka_cluster/java_members.py) form a
group on Apache Kafka with the broker's ``uniform`` or ``range`` assignor; members carry racks
and, for one, a static instance id. The reader describes the group (assignor, epochs, each
member's epoch, current and target assignment, subscription, rack, instance id, client id, host)
and the snapshot becomes a scenario for ``uniform`` / ``server-range``.

Live equals ours: after each change (a member joins, one leaves, a topic grows) the broker
computes a new target assignment from the members, the topics and the previous targets. The test
builds that input from two readings (the scenario read after the change, with each member's
``owned_partitions`` set to its target *before* the change) and checks that our strategy's
answer is exactly the broker's new target assignment, for ``server-range`` and ``uniform``
alike.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assignors import (
    PartitionStrategy,
    Scenario,
    TopicPartition,
    dumps_scenario,
    parse_scenario_text,
    registry,
    scenario_to_json,
)
from cluster.connection import ConnectionSettings
from cluster.kafka_release import reproduced_line
from cluster.reader import ClusterReader, ConsumerGroupDescription
from cluster.snapshot import snapshot_group
from tests.cluster.recording_proxy import RecordingProxy
from tests.cluster.test_read_only import assert_read_only
from tests.kafka_broker import unique_name
from tests.kafka_cluster.cluster import KAFKA_VERSION, KafkaCluster
from tests.kafka_cluster.java_members import JavaGroup

pytestmark = pytest.mark.broker

SETTLE_TIMEOUT_S = 90.0


def settled(
    reader: ClusterReader, group_id: str, members: int, java: JavaGroup, after_epoch: int = 0
) -> ConsumerGroupDescription:
    """The group once it is Stable with ``members`` members, all holding their targets, at a
    group epoch above ``after_epoch``."""
    deadline = time.monotonic() + SETTLE_TIMEOUT_S
    last: ConsumerGroupDescription | None = None
    while time.monotonic() < deadline:
        try:
            last = reader.describe_consumer_group(group_id)
        except Exception:  # the group may not exist yet
            time.sleep(0.5)
            continue
        if (
            last.state == "Stable"
            and len(last.members) == members
            and not last.reconciling
            and last.assignment_epoch == last.group_epoch
            and last.group_epoch > after_epoch
        ):
            return last
        time.sleep(0.3)
    raise AssertionError(f"group not settled: {last!r}\njava output:\n{java.output()}")


def with_previous_targets(scenario: Scenario, before: ConsumerGroupDescription) -> Scenario:
    """The scenario with each member's ``owned_partitions`` = its target before the change."""
    previous = {m.member_id: m.target_assignment for m in before.members}
    members = tuple(
        dataclasses.replace(
            member,
            owned_partitions=tuple(
                TopicPartition(t, p) for t, p in previous.get(member.member_id, ())
            ),
        )
        for member in scenario.members
    )
    return dataclasses.replace(scenario, members=members)


def assert_live_equals_ours(
    strategy_name: str, scenario: Scenario, after: ConsumerGroupDescription
) -> None:
    strategy = registry.get(strategy_name)
    assert isinstance(strategy, PartitionStrategy)
    ours = {
        member: {(tp.topic, tp.partition) for tp in partitions}
        for member, partitions in strategy.assign(scenario).partitions.items()
    }
    live = {m.member_id: set(m.target_assignment) for m in after.members}
    if ours != live:
        print("scenario:", dumps_scenario(scenario_to_json(scenario)))
        print("ours:", sorted((k, sorted(v)) for k, v in ours.items()))
        print("live:", sorted((k, sorted(v)) for k, v in live.items()))
    assert ours == live


@pytest.mark.parametrize(("assignor", "strategy"), [("uniform", "uniform"),
                                                    ("range", "server-range")])  # fmt: skip
def test_a_consumer_group_read_live_equals_our_strategy(
    kafka_cluster: KafkaCluster, tmp_path: Path, assignor: str, strategy: str
) -> None:
    orders, payments = unique_name("orders"), unique_name("payments")
    kafka_cluster.create_topics({orders: 6, payments: 3}, replication_factor=1)
    kafka_cluster.produce(orders, {0: 5, 3: 2})
    group_id = unique_name(f"kip848-{assignor}")
    settings = ConnectionSettings(kafka_cluster.bootstrap, timeout_s=10.0)
    members = ["c0:zone-a", "c1:zone-b:static-1", "c2:zone-c"]
    with (
        JavaGroup(kafka_cluster, group_id, assignor, f"{orders},{payments}", members,
                  tmp_path) as java,
        ClusterReader(settings) as reader,
    ):  # fmt: skip
        first = settled(reader, group_id, 3, java)
        scenario, warnings = snapshot_group(reader, group_id)
        assert warnings == ()
        assert scenario.assignor == strategy
        assert first.assignor == assignor
        by_client = {m.client_id: m for m in first.members}
        assert set(by_client) == {"c0", "c1", "c2"}
        assert by_client["c1"].instance_id == "static-1"
        assert {c: m.rack for c, m in by_client.items()} == {
            "c0": "zone-a", "c1": "zone-b", "c2": "zone-c"
        }  # fmt: skip
        for member in first.members:
            assert member.member_epoch == first.assignment_epoch
            assert member.subscribed_topics == tuple(sorted((orders, payments)))
            assert member.subscribed_regex is None
            assert member.host and "127.0.0.1" in member.host
            assert member.assignment == member.target_assignment
        read = {m.member_id: m for m in scenario.members}
        for member in first.members:
            item = read[member.member_id]
            assert {(tp.topic, tp.partition) for tp in item.owned_partitions} == set(
                member.target_assignment
            )
            assert (item.rack, item.client_id, item.group_instance_id) == (
                member.rack, member.client_id, member.instance_id,
            )  # fmt: skip
        assert "KIP-848 group" in (scenario.description or "")
        assert scenario.kafka_version == reproduced_line(KAFKA_VERSION)  # the brokers' release
        topics = scenario.topic_by_name()
        assert topics[orders].log_end_offsets == (5, 0, 0, 2, 0, 0)
        assert topics[orders].topic_id is not None

        steps = [
            ("a member joins", lambda: java.join("c3:zone-a"), 4),
            ("a member leaves", lambda: java.leave("c0"), 3),
            ("a topic grows", lambda: grow(kafka_cluster, payments, 5), 3),
        ]
        before = first
        for name, change, count in steps:
            print("step:", name)
            change()
            after = settled(reader, group_id, count, java, after_epoch=before.group_epoch)
            scenario, _ = snapshot_group(reader, group_id)
            assert_live_equals_ours(strategy, with_previous_targets(scenario, before), after)
            before = after


def grow(cluster: KafkaCluster, topic: str, partitions: int) -> None:
    from kafka.admin import NewPartitions

    admin = cluster.admin()
    try:
        admin.create_partitions({topic: NewPartitions(partitions)})
    finally:
        admin.close()


def test_a_regex_subscription_and_the_allow_list(
    kafka_cluster: KafkaCluster, tmp_path: Path
) -> None:
    prefix = unique_name("rx")
    topics = {f"{prefix}-a": 2, f"{prefix}-b": 2}
    kafka_cluster.create_topics(topics, replication_factor=1)
    group_id = unique_name("kip848-regex")
    with JavaGroup(kafka_cluster, group_id, "uniform", f"re:{prefix}-.*", ["r0", "r1"],
                   tmp_path) as java:  # fmt: skip
        with ClusterReader(ConnectionSettings(kafka_cluster.bootstrap, timeout_s=10.0)) as reader:
            settled(reader, group_id, 2, java)
        with RecordingProxy() as proxy:
            settings = ConnectionSettings(
                kafka_cluster.bootstrap, timeout_s=10.0, proxy_url=proxy.url
            )
            with ClusterReader(settings) as reader:
                description = reader.describe_consumer_group(group_id)
                listing = {g.group_id: g for g in reader.list_groups()}[group_id]
                scenario, _ = snapshot_group(reader, group_id)
            assert_read_only(proxy)
            assert "ConsumerGroupDescribe" in {name for name, _ in proxy.seen()}
        cli = subprocess.run(
            [sys.executable, "-m", "cluster", "snapshot", "--group", group_id,
             "--bootstrap-servers", kafka_cluster.bootstrap, "--timeout", "20"],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    from_cli, _ = parse_scenario_text(cli.stdout)
    assert from_cli.assignor == "uniform"
    assert {m.member_id for m in from_cli.members} == {m.member_id for m in description.members}
    assert listing.group_type == "consumer" and listing.members == 2
    assert {m.subscribed_regex for m in description.members} == {f"{prefix}-.*"}
    assert {m.member_id: set(m.topics) for m in scenario.members} == {
        m.member_id: set(topics) for m in description.members
    }
    assigned = sorted(tp for m in description.members for tp in m.target_assignment)
    assert assigned == sorted((t, p) for t, n in topics.items() for p in range(n))

"""The session's Apache Kafka cluster is what the other tests rely on.

Three brokers in three racks on loopback, each with a PLAINTEXT and a SASL_SSL listener; topics
replicated over all three; records produced and read back; the authorizer's ACLs as documented
in tests/kafka_cluster/cluster.py; logs under the test's folder.
"""

from __future__ import annotations

import pytest
from kafka import KafkaConsumer, TopicPartition

from tests.kafka_broker import unique_name
from tests.kafka_cluster.cluster import KAFKA_VERSION, RACKS, KafkaCluster

pytestmark = pytest.mark.broker


def test_three_brokers_in_three_racks_on_loopback(kafka_cluster: KafkaCluster) -> None:
    admin = kafka_cluster.admin()
    try:
        described = admin.describe_cluster()
    finally:
        admin.close()
    brokers = {int(b["broker_id"]): b for b in described["brokers"]}
    assert {node: b["rack"] for node, b in brokers.items()} == RACKS
    assert {b["host"] for b in brokers.values()} == {"127.0.0.1"}
    assert all(process.poll() is None for process in kafka_cluster.processes.values())
    for node in RACKS:
        log = kafka_cluster.work_dir / f"node-{node}" / "logs" / "server.log"
        assert f"Kafka version: {KAFKA_VERSION}" in log.read_text()


def test_replicated_topic_round_trip(kafka_cluster: KafkaCluster) -> None:
    topic = kafka_cluster.create_topic(unique_name("round-trip"), partitions=3)
    kafka_cluster.produce(topic, {0: 4, 2: 1})
    consumer = KafkaConsumer(bootstrap_servers=kafka_cluster.bootstrap)
    try:
        partitions = [TopicPartition(topic, number) for number in range(3)]
        ends = consumer.end_offsets(partitions)
        assert [ends[tp] for tp in partitions] == [4, 0, 1]
    finally:
        consumer.close()
    admin = kafka_cluster.admin()
    try:
        (described,) = admin.describe_topics([topic])
    finally:
        admin.close()
    assert all(sorted(p["replica_nodes"]) == [1, 2, 3] for p in described["partitions"])


def test_acls_as_documented(kafka_cluster: KafkaCluster) -> None:
    from kafka.admin import (
        ACLFilter,
        ACLOperation,
        ACLPermissionType,
        ACLResourcePatternType,
        ResourcePatternFilter,
        ResourceType,
    )

    admin = kafka_cluster.admin()
    try:
        acls, _ = admin.describe_acls(
            ACLFilter(
                principal=None,
                host="*",
                operation=ACLOperation.ANY,
                permission_type=ACLPermissionType.ANY,
                resource_pattern=ResourcePatternFilter(
                    ResourceType.ANY, None, ACLResourcePatternType.ANY
                ),
            )
        )
    finally:
        admin.close()
    granted = {
        (acl.principal, acl.resource_pattern.resource_type.name, acl.operation.name) for acl in acls
    }
    assert granted == {
        ("User:reader", "GROUP", "DESCRIBE"), ("User:reader", "GROUP", "READ"),
        ("User:reader", "TOPIC", "DESCRIBE"), ("User:reader", "TOPIC", "READ"),
        ("User:reader", "CLUSTER", "DESCRIBE"), ("User:groupsonly", "GROUP", "DESCRIBE"),
    }  # fmt: skip
    assert not any(principal == "User:nobody" for principal, _, _ in granted)

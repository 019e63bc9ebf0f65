"""The session broker (noida-db) answers the Kafka calls the rest of the suite relies on."""

from __future__ import annotations

import pytest
from kafka import KafkaConsumer, TopicPartition

from tests.kafka_broker import CONSUMER_TEST_CONFIG, KafkaBroker, PolledConsumer, unique_name

pytestmark = pytest.mark.broker


def test_bootstrap_is_loopback(kafka_broker: KafkaBroker) -> None:
    host, port = kafka_broker.bootstrap.split(":")
    assert host == "127.0.0.1"
    assert int(port) > 0
    assert kafka_broker.process.poll() is None


def test_topic_produce_and_group_of_real_consumers(kafka_broker: KafkaBroker) -> None:
    topic = kafka_broker.create_topic(unique_name("broker-check"), partitions=4)
    group = unique_name("broker-check-group")
    kafka_broker.produce(topic, {0: 3, 1: 1, 2: 0, 3: 5})

    admin = kafka_broker.admin()
    try:
        assert topic in admin.list_topics()
    finally:
        admin.close()

    probe = KafkaConsumer(bootstrap_servers=kafka_broker.bootstrap)
    try:
        partitions = [TopicPartition(topic, number) for number in range(4)]
        assert probe.partitions_for_topic(topic) == {0, 1, 2, 3}
        ends = probe.end_offsets(partitions)
        assert [ends[tp] for tp in partitions] == [3, 1, 0, 5]
    finally:
        probe.close()

    consumers = [
        PolledConsumer(
            KafkaConsumer(
                topic,
                bootstrap_servers=kafka_broker.bootstrap,
                group_id=group,
                client_id=f"member-{index}",
                auto_offset_reset="earliest",
                **CONSUMER_TEST_CONFIG,
            )
        )
        for index in range(2)
    ]
    try:
        description = kafka_broker.wait_for_stable_group(
            group,
            members=2,
            settled=lambda d: all(m["member_assignment"] for m in d["members"]),
        )
        reported = {
            (topic_entry["topic"], number)
            for member in description["members"]
            for topic_entry in member["member_assignment"]["assigned_partitions"]
            for number in topic_entry["partitions"]
        }
        assert reported == {(topic, number) for number in range(4)}
        assert {m["client_id"] for m in description["members"]} == {"member-0", "member-1"}
        assert all(m["member_metadata"]["topics"] == [topic] for m in description["members"])

        owned = [c.consumer.assignment() for c in consumers]
        assert sum(len(partitions) for partitions in owned) == 4
        assert set().union(*owned) == {TopicPartition(topic, n) for n in range(4)}

        admin = kafka_broker.admin()
        try:
            listed = {entry["group_id"] for entry in admin.list_groups()}
        finally:
            admin.close()
        assert group in listed
    finally:
        for consumer in consumers:
            consumer.close()

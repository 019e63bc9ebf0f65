"""Broker racks -> ``replica_racks``, against librdkafka's mock cluster (3 brokers, 3 racks).

What ran against what: kafka-python's admin client (through ``cluster.reader``) talked Kafka
protocol over loopback TCP to librdkafka's in-process mock cluster (tests/cluster/
librdkafka_mock.py; ``broker_version=(2, 0)`` because kafka-python 3.0.12 cannot decode the
mock's ApiVersions error answer). The mock serves Metadata and ListOffsets but not ListGroups or
DescribeGroups, so the group part of the scenario is given by the test (two members) and only
the metadata part is read; the truth for replica placement comes from a second, independent
client (confluent-kafka's own ``list_topics``) mapped through the racks the test set.
"""

from __future__ import annotations

import pytest

from assignors.io.scenario import parse_scenario
from cluster.connection import ConnectionSettings
from cluster.errors import ClusterError
from cluster.reader import ClusterReader, GroupDescription, MemberDescription
from cluster.snapshot import scenario_json
from tests.cluster.librdkafka_mock import mock_cluster

RACKS = {1: "zone-a", 2: "zone-b", 3: "zone-c"}
TOPICS = {"orders": (6, 2), "audit": (3, 3), "single": (2, 1)}


def _member(
    member_id: str, rack: str, assignment: tuple[tuple[str, int], ...]
) -> MemberDescription:
    return MemberDescription(
        member_id=member_id, client_id=member_id, host="/127.0.0.1", group_instance_id=None,
        topics=tuple(TOPICS), subscription_user_data=b"", owned_partitions=(), generation=3,
        rack=rack, assignment=assignment, assignment_user_data=b"",
    )  # fmt: skip


def _replicas_by_independent_client(bootstrap: str) -> dict[tuple[str, int], list[int]]:
    from confluent_kafka import Producer

    metadata = Producer({"bootstrap.servers": bootstrap}).list_topics(timeout=10)
    return {
        (name, p): list(partition.replicas)
        for name, topic in metadata.topics.items()
        for p, partition in topic.partitions.items()
    }


def test_replica_racks_come_from_the_brokers_racks() -> None:
    with mock_cluster(RACKS, TOPICS) as bootstrap:
        truth = _replicas_by_independent_client(bootstrap)
        settings = ConnectionSettings(bootstrap, timeout_s=10.0, broker_version=(2, 0))
        with ClusterReader(settings) as reader:
            assert reader.broker_racks() == RACKS
            group = GroupDescription(
                group_id="mock-group", state="Stable", protocol_type="consumer",
                protocol="range",
                members=(
                    _member("m-a", "zone-a", (("orders", 0), ("orders", 1))),
                    _member("m-b", "zone-b", (("audit", 2),)),
                ),
            )  # fmt: skip
            raw = scenario_json(reader, group, committed={})
    scenario, warnings = parse_scenario(raw, path="")
    assert warnings == ()
    topics = scenario.topic_by_name()
    assert {name: topic.partitions for name, topic in topics.items()} == {
        name: count for name, (count, _) in TOPICS.items()
    }
    for name, (count, replication) in TOPICS.items():
        racks = topics[name].replica_racks
        assert racks is not None
        for p in range(count):
            expected = sorted({RACKS[broker] for broker in truth[(name, p)]})
            assert list(racks[p]) == expected
            assert len(racks[p]) == replication  # replicas sit on distinct brokers
        assert topics[name].log_end_offsets == (0,) * count
    assert {m.member_id: m.rack for m in scenario.members} == {"m-a": "zone-a", "m-b": "zone-b"}


def test_groups_on_a_cluster_that_cannot_list_them_fail_with_a_message() -> None:
    with mock_cluster(RACKS, {"t": (1, 1)}) as bootstrap:
        settings = ConnectionSettings(bootstrap, timeout_s=3.0, broker_version=(2, 0))
        with ClusterReader(settings) as reader, pytest.raises(ClusterError) as caught:
            reader.list_groups()
    print("mock cluster, ListGroups ->", caught.value)
    assert str(caught.value)

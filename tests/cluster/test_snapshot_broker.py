"""The reader against Apache Kafka (three brokers in three racks): the scenario matches the group.

Each test builds a group whose every fact it knows (topics, records written per partition,
offsets committed, members), reads it with the reader, and compares: members (ids, client ids,
hosts, subscriptions), their assignment (``owned_partitions`` equals what the broker's
DescribeGroups reports), committed offsets (``null`` where nothing was committed), log-start and
log-end offsets, and the lag the project's lag function computes from them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from assignors.io.scenario import parse_scenario_text
from assignors.simulate.lag import partition_lags
from cluster.connection import ConnectionSettings
from cluster.errors import BootstrapUnreachableError, GroupNotFoundError
from cluster.reader import ClusterReader, GroupDescription
from cluster.snapshot import scenario_json, snapshot_group
from tests.cluster.groups import running_group
from tests.kafka_broker import BrokerClientHelpers, KafkaBroker, unique_name
from tests.kafka_cluster.cluster import RACKS, KafkaCluster
from tests.ports import free_port

pytestmark = pytest.mark.broker

TOPICS = {"orders": 6, "payments": 3}
RECORDS = {"orders": {0: 40, 1: 25, 2: 10, 3: 0, 4: 7, 5: 3}, "payments": {0: 12, 1: 5, 2: 9}}
COMMITS = {("orders", 0): 10, ("orders", 1): 25, ("orders", 4): 2, ("payments", 2): 4}


def replica_nodes(cluster: KafkaCluster, topic: str) -> dict[int, list[int]]:
    """Replica broker ids per partition, from a second client (kafka-python's own admin)."""
    admin = cluster.admin()
    try:
        (described,) = admin.describe_topics([topic])
    finally:
        admin.close()
    return {p["partition_index"]: list(p["replica_nodes"]) for p in described["partitions"]}


def _settings(broker: BrokerClientHelpers, **extra: object) -> ConnectionSettings:
    return ConnectionSettings(bootstrap_servers=broker.bootstrap, timeout_s=10.0, **extra)  # type: ignore[arg-type]


@pytest.mark.parametrize("auto_offset_reset", ["latest", "earliest"])
def test_snapshot_matches_what_the_test_knows(
    kafka_cluster: KafkaCluster, auto_offset_reset: str
) -> None:
    with running_group(
        kafka_cluster, TOPICS, RECORDS, COMMITS, members=3, replication_factor=2
    ) as group:
        with ClusterReader(_settings(kafka_cluster)) as reader:
            scenario, warnings = snapshot_group(reader, group.group_id)
            listings = {g.group_id: g for g in reader.list_groups()}
        broker_view = group.assignment()
    assert warnings == ()
    assert scenario.group_id == group.group_id
    assert scenario.assignor == "range"  # kafka-python's first default
    assert listings[group.group_id].members == 3
    assert listings[group.group_id].state == "Stable"
    assert listings[group.group_id].protocol_type == "consumer"
    members = {m.member_id: m for m in scenario.members}
    assert set(members) == set(broker_view)
    assert sorted(m.client_id or "" for m in members.values()) == group.client_ids
    for member_id, member in members.items():
        assert set(member.topics) == set(group.topics)
        assert {(tp.topic, tp.partition) for tp in member.owned_partitions} == broker_view[
            member_id
        ]
        assert member.host is not None and "127.0.0.1" in member.host
    owned = [tp for m in scenario.members for tp in m.owned_partitions]
    assert len(owned) == len(set(owned)) == sum(TOPICS.values())

    topics = scenario.topic_by_name()
    assert {name: topic.partitions for name, topic in topics.items()} == group.topics
    for base, count in TOPICS.items():
        name = f"{base}-{group.group_id.removeprefix('group-')}"
        topic = topics[name]
        ends = [RECORDS[base].get(p, 0) for p in range(count)]
        committed = [COMMITS.get((base, p)) for p in range(count)]
        assert topic.log_start_offsets == (0,) * count
        assert topic.log_end_offsets == tuple(ends)
        assert topic.committed_offsets == tuple(committed)
        expected_lag = [
            end - commit if commit is not None else (end if auto_offset_reset == "earliest" else 0)
            for end, commit in zip(ends, committed, strict=True)
        ]
        assert partition_lags(topic, auto_offset_reset) == expected_lag
        replicas = replica_nodes(kafka_cluster, name)
        assert topic.replica_racks == tuple(
            tuple(sorted(RACKS[node] for node in replicas[p])) for p in range(count)
        )
        assert all(len(racks) == 2 for racks in topic.replica_racks)


def test_cli_snapshot_is_a_loadable_scenario_file(kafka_cluster: KafkaCluster) -> None:
    with running_group(
        kafka_cluster, {"events": 4}, {"events": {0: 5, 1: 6}}, {}, members=2
    ) as group:
        started = time.monotonic()
        result = subprocess.run(
            [sys.executable, "-m", "cluster", "snapshot", "--group", group.group_id,
             "--bootstrap-servers", kafka_cluster.bootstrap, "--timeout", "10",
             "--sample-seconds", "1"],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        elapsed = time.monotonic() - started
        groups = subprocess.run(
            [sys.executable, "-m", "cluster", "groups", "--json",
             "--bootstrap-servers", kafka_cluster.bootstrap],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert elapsed >= 1.0
    scenario, warnings = parse_scenario_text(result.stdout)
    assert warnings == ()
    assert scenario.group_id == group.group_id
    assert len(scenario.members) == 2
    (topic,) = scenario.topics
    assert topic.log_end_offsets == (5, 6, 0, 0)
    assert topic.committed_offsets == (None,) * 4
    assert topic.produce_rates == (0.0,) * 4  # nothing written while sampling
    assert all(m.consume_rate == 0.0 for m in scenario.members)
    listed = [json.loads(line) for line in groups.stdout.splitlines()]
    assert {"group_id": group.group_id, "state": "Stable", "protocol_type": "consumer",
            "group_type": "classic", "members": 2} in listed  # fmt: skip


def _wait_for_commits(
    broker: BrokerClientHelpers, group_id: str, expected: dict[tuple[str, int], int]
) -> None:
    deadline = time.monotonic() + 20
    with ClusterReader(_settings(broker)) as reader:
        while True:
            committed = reader.committed_offsets(group_id)
            if all(committed.get(tp) == offset for tp, offset in expected.items()):
                return
            assert time.monotonic() < deadline, f"commits never reached {expected}: {committed}"
            time.sleep(0.1)


def test_sampling_measures_produce_and_consume_rates(kafka_cluster: KafkaCluster) -> None:
    with running_group(
        kafka_cluster, {"clicks": 2}, {"clicks": {0: 10, 1: 10}}, {}, members=1,
        enable_auto_commit=True, auto_commit_interval_ms=100,
    ) as group:  # fmt: skip
        (topic_name,) = group.topics
        (member_id,) = group.assignment()
        _wait_for_commits(kafka_cluster, group.group_id, {(topic_name, 0): 10, (topic_name, 1): 10})

        def sleep_while_traffic_flows(seconds: float) -> None:
            # Inside the sampling window: 30 records arrive in partition 0 and the member
            # consumes and auto-commits them; partition 1 stays idle.
            started = time.monotonic()
            kafka_cluster.produce(topic_name, {0: 30})
            _wait_for_commits(kafka_cluster, group.group_id, {(topic_name, 0): 40})
            time.sleep(max(seconds - (time.monotonic() - started), 0))

        with ClusterReader(_settings(kafka_cluster)) as reader:
            clock_start = time.monotonic()
            scenario, _ = snapshot_group(
                reader, group.group_id, sample_seconds=0.5, sleep=sleep_while_traffic_flows
            )
            elapsed = time.monotonic() - clock_start
    (topic,) = scenario.topics
    assert topic.log_end_offsets == (40, 10)
    assert topic.committed_offsets == (40, 10)
    assert topic.produce_rates is not None
    assert topic.produce_rates[1] == 0.0
    assert 30 / elapsed <= topic.produce_rates[0] <= 30 / 0.5
    (member,) = scenario.members
    assert member.member_id == member_id
    assert member.consume_rate is not None
    assert 30 / elapsed <= member.consume_rate <= 30 / 0.5
    assert member.consume_rate == pytest.approx(topic.produce_rates[0], rel=1e-3)


def test_a_group_with_commits_but_no_members(kafka_cluster: KafkaCluster) -> None:
    from tests.cluster.groups import commit_offsets

    topic = kafka_cluster.create_topic(unique_name("idle"), 2)
    kafka_cluster.produce(topic, {0: 8, 1: 3})
    group_id = unique_name("idle-group")
    commit_offsets(kafka_cluster, group_id, {(topic, 0): 5})
    with ClusterReader(_settings(kafka_cluster)) as reader:
        scenario, warnings = snapshot_group(reader, group_id)
    assert warnings == ()
    assert scenario.members == ()
    (read,) = scenario.topics
    assert read.committed_offsets == (5, None)
    assert partition_lags(read, "earliest") == [3, 3]


def test_group_not_found_names_the_groups_that_exist(kafka_cluster: KafkaCluster) -> None:
    with (
        running_group(kafka_cluster, {"misc": 1}, {}, {}, members=1) as group,
        ClusterReader(_settings(kafka_cluster)) as reader,
        pytest.raises(GroupNotFoundError) as caught,
    ):
        snapshot_group(reader, group.group_id + "x")
    message = str(caught.value)
    assert message.startswith(f"group '{group.group_id}x' not found; groups on this cluster:")
    # The group a typo meant is named first, however many groups the cluster holds.
    assert message.split("groups on this cluster: ")[1].startswith(group.group_id)


def test_unreachable_bootstrap_fails_within_the_timeout() -> None:
    port = free_port()
    started = time.monotonic()
    with pytest.raises(BootstrapUnreachableError) as caught:
        ClusterReader(ConnectionSettings(f"127.0.0.1:{port}", timeout_s=1.5))
    assert time.monotonic() - started < 1.5
    assert str(caught.value).startswith(f"nothing listens at 127.0.0.1:{port} (connection refused)")


def test_cli_failure_is_a_message_and_exit_code_2() -> None:
    port = free_port()
    result = subprocess.run(
        [sys.executable, "-m", "cluster", "groups", "--bootstrap-servers", f"127.0.0.1:{port}",
         "--timeout", "1"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"error: nothing listens at 127.0.0.1:{port}")
    assert "Traceback" not in result.stderr


def test_racks_are_read_live_from_the_brokers(kafka_cluster: KafkaCluster) -> None:
    """Replicas placed by the test (explicit assignment) -> the racks the scenario lists."""
    from kafka.admin import NewTopic

    placement = {0: [1, 2], 1: [2, 3], 2: [3, 1], 3: [2, 1], 4: [3, 2]}
    topic = unique_name("placed")
    admin = kafka_cluster.admin()
    try:
        admin.create_topics([NewTopic(topic, -1, -1, replica_assignments=placement)])
    finally:
        admin.close()
    with ClusterReader(_settings(kafka_cluster)) as reader:
        assert reader.broker_racks() == RACKS
        group = GroupDescription("placed-group", "Empty", "consumer", "", members=())
        raw = scenario_json(reader, group, committed={(topic, 0): 0})
    (entry,) = raw["topics"]
    assert entry["replica_racks"] == [
        sorted(RACKS[node] for node in placement[p]) for p in range(len(placement))
    ]


def test_a_second_kafka_implementation_at_older_protocol_versions(
    kafka_broker: KafkaBroker,
) -> None:
    """noida-db (not Apache Kafka; kafka-python negotiates version 3.3 with it, so older request
    versions): the one place it still adds something. The reader's snapshot equals the group."""
    records = {"legacy": {0: 4, 1: 2, 2: 0}}
    with running_group(kafka_broker, {"legacy": 3}, records, {("legacy", 0): 1}, members=2) as g:
        with ClusterReader(_settings(kafka_broker)) as reader:
            scenario, warnings = snapshot_group(reader, g.group_id)
        broker_view = g.assignment()
    assert warnings == ()
    assert {
        m.member_id: {(tp.topic, tp.partition) for tp in m.owned_partitions}
        for m in scenario.members
    } == broker_view
    (topic,) = scenario.topics
    assert topic.log_end_offsets == (4, 2, 0)
    assert topic.committed_offsets == (1, None, None)
    assert topic.replica_racks is None  # noida-db has no racks

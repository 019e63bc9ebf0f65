"""Kafka Streams groups (KIP-1071) read live through StreamsGroupDescribe.

A real Kafka Streams application (``tests/kafka_cluster/java/StreamsApp.java``,
``group.protocol=streams``, three instances, one standby replica per stateful task as the test
cluster sets ``group.streams.num.standby.replicas``) forms a group on Apache Kafka. The reader
describes it (topology, epochs, each member's current and target active, standby and warm-up
tasks) and what it reports must equal what every instance says it runs itself; then an instance
leaves and the same holds for the two left. The group becomes a Streams scenario (tasks per
instance, the ``streams-ha`` shape) through ``cluster.snapshot.read_group`` and through
``python -m cluster snapshot``, and the reader stays inside the read-only allow-list.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assignors import StreamsScenario, parse_streams_scenario, registry
from cluster.connection import ConnectionSettings
from cluster.errors import StreamsGroupError
from cluster.kafka_release import reproduced_line
from cluster.reader import ClusterReader
from cluster.snapshot import read_group, snapshot_group
from cluster.streams_group import StreamsGroupDescription, StreamsTask
from tests.cluster.dashboard_live import dashboard_with_live_group, streams_figure
from tests.cluster.recording_proxy import RecordingProxy
from tests.cluster.test_read_only import assert_read_only
from tests.kafka_broker import unique_name
from tests.kafka_cluster.cluster import KAFKA_VERSION, KafkaCluster
from tests.kafka_cluster.java_streams import StreamsApplication

pytestmark = pytest.mark.broker

SETTLE_TIMEOUT_S = 120.0


def _text(tasks: tuple[StreamsTask, ...]) -> frozenset[str]:
    return frozenset(f"{subtopology}_{partition}" for subtopology, partition in tasks)


def instance_of(client_id: str) -> str:
    """The Kafka Streams instance (its ``client.id``) of a member's consumer client id."""
    return client_id.split("-StreamThread-", 1)[0]


def agreed(
    reader: ClusterReader,
    group_id: str,
    app: StreamsApplication,
    members: int,
    after_epoch: int = 0,
) -> StreamsGroupDescription:
    """The group once it is Stable with ``members`` members (stream threads), its target
    computed for its group epoch (above ``after_epoch``), every member running its target, and
    every instance's own report equal to what the reader says its members run."""
    deadline = time.monotonic() + SETTLE_TIMEOUT_S
    last: StreamsGroupDescription | None = None
    while time.monotonic() < deadline:
        try:
            last = reader.describe_streams_group(group_id)
        except Exception:  # the group may not exist yet
            time.sleep(0.5)
            continue
        read: dict[str, tuple[set[str], set[str]]] = {}
        for m in last.members:
            active, standby = read.setdefault(instance_of(m.client_id), (set(), set()))
            active |= _text(m.assignment.active)
            standby |= _text(m.assignment.standby + m.assignment.warmup)
        reported = {name: (set(t.active), set(t.standby)) for name, t in app.tasks().items()}
        if (
            last.state == "Stable"
            and len(last.members) == members
            and not last.reconciling
            and last.assignment_epoch == last.group_epoch > after_epoch
            and read == reported
        ):
            return last
        time.sleep(0.3)
    raise AssertionError(
        f"the reader and the instances did not agree: {last!r}\n{app.tasks()!r}\n{app.output()}"
    )


def test_a_streams_group_read_live_equals_what_its_instances_run(
    kafka_cluster: KafkaCluster, tmp_path: Path
) -> None:
    counted, piped = unique_name("counted"), unique_name("piped")
    kafka_cluster.create_topics(
        {counted: 4, piped: 3, f"{counted}-counts": 4, f"{piped}-upper": 3}, replication_factor=1
    )
    group_id = unique_name("streams-app")
    settings = ConnectionSettings(kafka_cluster.bootstrap, timeout_s=10.0)
    with (
        StreamsApplication(kafka_cluster, group_id, counted, piped, ["s1", "s2", "s3"],
                           tmp_path) as app,
        ClusterReader(settings) as reader,
    ):  # fmt: skip
        group = agreed(reader, group_id, app, 3)
        assert group.topology_epoch is not None
        subtopologies = {s.subtopology_id: s for s in group.subtopologies or ()}
        assert set(subtopologies) == {"0", "1"}
        assert subtopologies["0"].source_topics == (counted,)
        assert subtopologies["0"].stateful and not subtopologies["1"].stateful
        assert subtopologies["1"].source_topics == (piped,)
        every_active = sorted(t for m in group.members for t in m.target_assignment.active)
        assert every_active == [("0", p) for p in range(4)] + [("1", p) for p in range(3)]
        standby_holders = sorted(t for m in group.members for t in m.target_assignment.standby)
        assert standby_holders == [("0", p) for p in range(4)]  # one standby per stateful task
        for member in group.members:
            assert member.member_epoch == group.assignment_epoch
            assert member.client_id.startswith(("s1-", "s2-", "s3-"))
            assert not set(member.target_assignment.active) & set(member.target_assignment.standby)
        listing = {g.group_id: g for g in reader.list_groups()}[group_id]
        assert (listing.group_type, listing.protocol_type, listing.members) == (
            "streams", "streams", 3,
        )  # fmt: skip

        scenario, warnings = read_group(reader, group_id)
        assert warnings == ()
        assert isinstance(scenario, StreamsScenario)
        assert scenario.kafka_version == reproduced_line(KAFKA_VERSION)  # the brokers' release
        assert [str(t.id) for t in scenario.tasks] == [
            "0_0", "0_1", "0_2", "0_3", "1_0", "1_1", "1_2",
        ]  # fmt: skip
        assert [str(t) for t in scenario.stateful_tasks] == ["0_0", "0_1", "0_2", "0_3"]
        assert scenario.config.num_standby_replicas == 1
        by_process = {m.process_id: m for m in group.members}
        assert {c.process_id for c in scenario.clients} == set(by_process)
        for client in scenario.clients:
            member = by_process[client.process_id]
            assert client.capacity == 1
            assert {str(t) for t in client.prev_active} == _text(member.assignment.active)
            assert {str(t) for t in client.prev_standby} == _text(
                member.assignment.standby + member.assignment.warmup
            )
            assert set(client.task_lags) == set(scenario.stateful_tasks)
        # The reconciliation keeps every member's epoch and the tasks it runs, as described.
        assert scenario.reconciliation is not None
        assert (scenario.reconciliation.group_epoch, scenario.reconciliation.assignment_epoch) == (
            group.group_epoch, group.assignment_epoch,
        )  # fmt: skip
        described = {m.member_id: m for m in group.members}
        assert {e.member_id for e in scenario.reconciliation.members} == set(described)
        for entry in scenario.reconciliation.members:
            member = described[entry.member_id]
            assert entry.member_epoch == member.member_epoch
            assert entry.process_id == member.process_id
            assert {str(t) for t in entry.current.active} == _text(member.assignment.active)
            assert {str(t) for t in entry.target.active} == _text(member.target_assignment.active)
        streams_ha = registry.task_strategies()["streams-ha"]
        answer = streams_ha.compute(scenario)
        assert sorted(str(t) for c in answer.clients.values() for t in c.active) == [
            str(t.id) for t in scenario.tasks
        ]
        with pytest.raises(StreamsGroupError, match="Kafka Streams group"):
            snapshot_group(reader, group_id)

        app.stop("s1")
        after = agreed(reader, group_id, app, 2)
        assert after.group_epoch > group.group_epoch
        assert not any(m.client_id.startswith("s1-") for m in after.members)
        every_active = sorted(t for m in after.members for t in m.target_assignment.active)
        assert every_active == [("0", p) for p in range(4)] + [("1", p) for p in range(3)]

        with RecordingProxy() as proxy:
            proxied = ConnectionSettings(
                kafka_cluster.bootstrap, timeout_s=10.0, proxy_url=proxy.url
            )
            with ClusterReader(proxied) as recorded:
                read_group(recorded, group_id)
                recorded.list_groups()
            assert_read_only(proxy)
            assert "StreamsGroupDescribe" in {name for name, _ in proxy.seen()}
        app = dashboard_with_live_group(kafka_cluster.bootstrap, group_id, "Kafka Streams")
        headline = " ".join(m.value for m in app.markdown)
        assert f"Streams group {group_id}" in headline and "Kafka Streams" in headline
        figure = streams_figure(app)
        before = figure["frames"][0]  # what the instances run now, one bar per instance
        assert len(before["data"][0]["x"]) == 2
        # Its real tasks, member by member (stream threads), with their epochs.
        table = next(df.value for df in app.dataframe if "active now" in df.value.columns)
        loaded = app.session_state["ae.source"].streams.reconciliation
        assert set(table["member id"]) == {entry.member_id for entry in loaded.members}
        for entry in loaded.members:
            row = table[table["member id"] == entry.member_id].iloc[0]
            assert row["active now"] == (", ".join(map(str, entry.current.active)) or "—")
        cli = subprocess.run(
            [sys.executable, "-m", "cluster", "snapshot", "--group", group_id,
             "--bootstrap-servers", kafka_cluster.bootstrap, "--timeout", "20"],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        groups_cli = subprocess.run(
            [sys.executable, "-m", "cluster", "groups",
             "--bootstrap-servers", kafka_cluster.bootstrap, "--timeout", "20"],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    from_cli = parse_streams_scenario(json.loads(cli.stdout))
    assert {c.process_id for c in from_cli.clients} == {m.process_id for m in after.members}
    line = next(line for line in groups_cli.stdout.splitlines() if line.startswith(group_id))
    assert line.split()[1:] == ["Stable", "streams", "streams", "2"]

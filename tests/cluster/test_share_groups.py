"""Share groups (KIP-932) read live through ShareGroupDescribe, and live equals ours.

Real share consumers form one share group on Apache Kafka: Java ``KafkaShareConsumer`` s
(``tests/kafka_cluster/java/ShareMembers.java``) and a librdkafka one (confluent-kafka's
``ShareConsumer``). A share consumer does not expose its assignment, so each reports the
partitions it receives records from (a producer writes to every partition all the time); the
reader's answer (assignor, epochs, each member's subscription, rack, client id and partitions)
must equal what every consumer receives. The group becomes a scenario for ``share-simple``.

Live equals ours: after a member joins (more members than partitions: partitions are shared)
and one leaves, the broker's new assignment equals ``share-simple`` on the scenario read after
the change with each member's ``owned_partitions`` set to what it held before.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from assignors import PartitionStrategy, Scenario, StreamsScenario, TopicPartition, registry
from cluster.connection import ConnectionSettings
from cluster.kafka_release import reproduced_line
from cluster.reader import ClusterReader
from cluster.share_group import ShareGroupDescription
from cluster.snapshot import read_group, snapshot_group
from tests.cluster.dashboard_live import dashboard_with_live_group
from tests.cluster.recording_proxy import RecordingProxy
from tests.cluster.test_read_only import assert_read_only
from tests.dashboard import plotly_spec
from tests.kafka_broker import unique_name
from tests.kafka_cluster.cluster import KAFKA_VERSION, KafkaCluster
from tests.kafka_cluster.java_share import ConfluentShareMember, JavaShareGroup

pytestmark = pytest.mark.broker

SETTLE_TIMEOUT_S = 90.0
Holds = dict[str, frozenset[tuple[str, int]]]


def agreed(
    reader: ClusterReader,
    group_id: str,
    members: int,
    holds: Callable[[], Holds],
    after_epoch: int = 0,
    partitions: int = 3,
) -> ShareGroupDescription:
    """The group once Stable with ``members`` members at one epoch above ``after_epoch``, every
    one of the topic's ``partitions`` assigned (a group whose target is not computed yet is
    Stable with nothing assigned, and its consumers then rightly receive nothing), and every
    consumer receiving records from exactly the partitions the reader says it holds."""
    deadline = time.monotonic() + SETTLE_TIMEOUT_S
    last: ShareGroupDescription | None = None
    held: Holds = {}
    while time.monotonic() < deadline:
        try:
            last = reader.describe_share_group(group_id)
        except Exception:  # the group may not exist yet
            time.sleep(0.5)
            continue
        held = holds()
        if (
            last.state == "Stable"
            and len(last.members) == members
            and last.group_epoch == last.assignment_epoch > after_epoch
            and all(m.member_epoch == last.assignment_epoch for m in last.members)
            and len({tp for m in last.members for tp in m.assignment}) == partitions
            and held == {m.client_id: frozenset(m.assignment) for m in last.members}
        ):
            return last
        time.sleep(0.3)
    raise AssertionError(f"the reader and the consumers did not agree: {last!r}\n{held!r}")


def with_share_state(
    reader: ClusterReader, group_id: str, topic: str
) -> tuple[Scenario | StreamsScenario, tuple[str, ...]]:
    """The group read (as :func:`read_group` reads any group) once every partition of
    ``topic`` has a share-partition start offset, or as last read after the settle timeout.

    A partition's share state is written by the share coordinator after its leader first
    serves the group, asynchronously to the records it delivers: a read just after the
    consumers receive records can still find one partition without state (Kafka then reports
    no start offset and no lag for it, and so does the scenario). That is the broker catching
    up, so the test waits for it rather than reading a half-initialised group."""
    deadline = time.monotonic() + SETTLE_TIMEOUT_S
    while True:
        scenario, warnings = read_group(reader, group_id)
        if not isinstance(scenario, Scenario) or time.monotonic() > deadline:
            return scenario, warnings
        offsets = scenario.topic_by_name()[topic].committed_offsets
        if offsets and None not in offsets:
            return scenario, warnings
        time.sleep(0.5)


def with_previous(scenario: Scenario, before: ShareGroupDescription) -> Scenario:
    previous = {m.member_id: m.assignment for m in before.members}
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


def assert_live_equals_ours(scenario: Scenario, after: ShareGroupDescription) -> None:
    strategy = registry.get("share-simple")
    assert isinstance(strategy, PartitionStrategy)
    answer = strategy.assign(scenario).partitions
    ours = {m: {(tp.topic, tp.partition) for tp in tps} for m, tps in answer.items()}
    live = {m.member_id: set(m.assignment) for m in after.members}
    assert ours == live, f"ours {ours}\nlive {live}"


def test_a_share_group_read_live_equals_its_consumers_and_our_strategy(
    kafka_cluster: KafkaCluster, tmp_path: Path
) -> None:
    topic = unique_name("queue")
    kafka_cluster.create_topics({topic: 3}, replication_factor=1)
    group_id = unique_name("share")
    settings = ConnectionSettings(kafka_cluster.bootstrap, timeout_s=10.0)
    with (
        JavaShareGroup(kafka_cluster, group_id, [topic], ["j1:zone-a", "j2"], tmp_path) as java,
        ClusterReader(settings) as reader,
    ):
        librdkafka = ConfluentShareMember(kafka_cluster, group_id, [topic], "rd1")
        try:

            def holds() -> Holds:
                return {**java.holds(), "rd1": librdkafka.holds()}

            first = agreed(reader, group_id, 3, holds)
            assert first.assignor == "simple"
            by_client = {m.client_id: m for m in first.members}
            assert {c: m.rack for c, m in by_client.items()} == {
                "j1": "zone-a", "j2": None, "rd1": None,
            }  # fmt: skip
            assert all(m.subscribed_topics == (topic,) for m in first.members)
            assert sorted(tp for m in first.members for tp in m.assignment) == [
                (topic, p) for p in range(3)
            ]
            listing = {g.group_id: g for g in reader.list_groups()}[group_id]
            assert (listing.group_type, listing.members) == ("share", 3)
            scenario, warnings = with_share_state(reader, group_id, topic)
            assert isinstance(scenario, Scenario) and warnings == ()
            assert scenario.assignor == "share-simple"
            assert scenario.kafka_version == reproduced_line(KAFKA_VERSION)  # the brokers' release
            assert "Share group" in (scenario.description or "")
            assert {
                m.member_id: {(tp.topic, tp.partition) for tp in m.owned_partitions}
                for m in scenario.members
            } == {m.member_id: set(m.assignment) for m in first.members}

            # Offsets and lag as Kafka defines them for a share group (DescribeShareGroupOffsets):
            # the share-partition start offset, and Kafka's lag, within the log.
            queue = scenario.topic_by_name()[topic]
            assert queue.log_end_offsets is not None and queue.lags is not None
            assert queue.committed_offsets is not None
            for start, lag, end in zip(
                queue.committed_offsets, queue.lags, queue.log_end_offsets, strict=True
            ):
                assert start is not None and 0 <= start <= end, (start, end)
                assert 0 <= lag <= end - start, (lag, start, end)
            assert "share-partition start offsets" in (scenario.description or "")

            app = dashboard_with_live_group(kafka_cluster.bootstrap, group_id, "share")
            shown = " ".join([m.value for m in app.markdown] + [c.value for c in app.caption])
            assert f"Group {group_id}" in shown and "Share group (KIP-932" in shown
            # Its members and their lag (Kafka's share-group lag of what each holds), as read.
            loaded = app.session_state["ae.source"].scenario
            lags = {
                (topic.name, p): lag
                for topic in loaded.topics
                for p, lag in enumerate(topic.lags or ())
            }
            table = plotly_spec.markdown_frame(app, "client id")  # a small group: Markdown
            assert table is not None, "the members table is on the page"
            assert list(table["member id"]) == [m.member_id for m in loaded.members]
            for member, row_lag in zip(loaded.members, table["lag"], strict=True):
                held = sum(lags[(tp.topic, tp.partition)] for tp in member.owned_partitions)
                assert int(row_lag.replace(",", "")) == held

            before = first
            steps: list[tuple[str, Callable[[], None], int]] = [
                ("a member joins", lambda: java.join("j3"), 4),
                ("a member leaves", lambda: java.leave("j1"), 3),
            ]
            for name, change, count in steps:
                print("step:", name)
                change()
                after = agreed(reader, group_id, count, holds, after_epoch=before.group_epoch)
                scenario, _ = snapshot_group(reader, group_id)
                assert_live_equals_ours(with_previous(scenario, before), after)
                held = [tp for m in after.members for tp in m.assignment]
                assert (len(held) > len(set(held))) == (count > 3)  # 4 members share partitions
                before = after

            with RecordingProxy() as proxy:
                proxied = ConnectionSettings(
                    kafka_cluster.bootstrap, timeout_s=10.0, proxy_url=proxy.url
                )
                with ClusterReader(proxied) as recorded:
                    snapshot_group(recorded, group_id)
                    recorded.list_groups()
                assert_read_only(proxy)
                assert "ShareGroupDescribe" in {name for name, _ in proxy.seen()}
        finally:
            librdkafka.close()
    groups_cli = subprocess.run(
        [sys.executable, "-m", "cluster", "groups",
         "--bootstrap-servers", kafka_cluster.bootstrap, "--timeout", "20"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    line = next(line for line in groups_cli.stdout.splitlines() if line.startswith(group_id))
    assert line.split()[2:4] == ["share", "share"]

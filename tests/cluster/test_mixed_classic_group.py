"""A classic group of Java and librdkafka consumers, read live.

Java ``KafkaConsumer`` s (``group.protocol=classic``, Kafka's ``RangeAssignor``) and
confluent-kafka (librdkafka) consumers (``range``) share one classic group: both announce the
protocol ``range``, so whichever leads assigns for all. The reader
(DescribeGroups, the consumer protocol decoded) must say what every consumer says it owns, with
each member's client id, subscription and rack, through a member joining and one leaving; no
partition is ever owned twice in a reading, and the snapshot is a ``range`` scenario whose
``owned_partitions`` are those assignments.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from cluster.connection import ConnectionSettings
from cluster.errors import GroupNotFoundError
from cluster.reader import ClusterReader, GroupDescription
from cluster.snapshot import snapshot_group
from tests.kafka_broker import unique_name
from tests.kafka_cluster.cluster import KafkaCluster
from tests.kafka_cluster.java_members import JavaGroup
from tests.kafka_cluster.librdkafka_members import LibrdkafkaMember

pytestmark = pytest.mark.broker

SETTLE_TIMEOUT_S = 90.0
#: Both sides' ``range`` (librdkafka has no eager ``sticky``). With ``cooperative-sticky`` on
#: both sides the group was seen rebalancing without end (generation 93 within two minutes, stuck
#: in PreparingRebalance) in one run of three: librdkafka's rack-aware leader, with the racks and
#: the one-replica topic of this test (docs/mixed-client-groups.md; the cooperative-sticky mixed
#: groups are in tests/assignors/test_mixed_client_groups.py).
STRATEGY = "range"
Owned = dict[str, frozenset[tuple[str, int]]]


def agreed(
    reader: ClusterReader, group_id: str, members: int, owned: Callable[[], Owned]
) -> GroupDescription:
    """The group once Stable with ``members`` members, every partition owned once, and every
    consumer owning exactly what the reader says it is assigned."""
    deadline = time.monotonic() + SETTLE_TIMEOUT_S
    last: GroupDescription | None = None
    said: Owned = {}
    while time.monotonic() < deadline:
        try:
            last = reader.describe_group(group_id)
        except GroupNotFoundError:  # not formed yet
            time.sleep(0.5)
            continue
        said = owned()
        assigned = [tp for m in last.members for tp in m.assignment]
        assert len(assigned) == len(set(assigned)), f"a partition owned twice: {last!r}"
        if (
            last.state == "Stable"
            and len(last.members) == members
            and said == {m.client_id: frozenset(m.assignment) for m in last.members}
        ):
            return last
        time.sleep(0.3)
    raise AssertionError(f"the reader and the consumers did not agree: {last!r}\n{said!r}")


def test_a_classic_group_of_java_and_librdkafka_consumers_reads_as_each_says(
    kafka_cluster: KafkaCluster, tmp_path: Path
) -> None:
    topic = unique_name("mixed")
    kafka_cluster.create_topics({topic: 6}, replication_factor=1)
    group_id = unique_name("mixed-classic")
    settings = ConnectionSettings(kafka_cluster.bootstrap, timeout_s=10.0)
    librdkafka: dict[str, LibrdkafkaMember] = {}
    with (
        JavaGroup(kafka_cluster, group_id, f"classic:{STRATEGY}", topic,
                  ["j1:zone-a", "j2"], tmp_path) as java,
        ClusterReader(settings) as reader,
    ):  # fmt: skip
        try:
            librdkafka["rd1"] = LibrdkafkaMember(
                kafka_cluster, group_id, [topic], "rd1", STRATEGY, rack="zone-b"
            )

            def owned() -> Owned:
                return {**java.assignments(), **{c: m.owned() for c, m in librdkafka.items()}}

            group = agreed(reader, group_id, 3, owned)
            assert group.protocol_type == "consumer"
            assert group.protocol == STRATEGY
            by_client = {m.client_id: m for m in group.members}
            assert {c: m.rack for c, m in by_client.items()} == {
                "j1": "zone-a", "j2": None, "rd1": "zone-b",
            }  # fmt: skip
            assert all(m.topics == (topic,) for m in group.members)
            assert sorted(tp for m in group.members for tp in m.assignment) == [
                (topic, p) for p in range(6)
            ]

            librdkafka["rd2"] = LibrdkafkaMember(kafka_cluster, group_id, [topic], "rd2", STRATEGY)
            group = agreed(reader, group_id, 4, owned)
            java.leave("j1")
            group = agreed(reader, group_id, 3, owned)
            assert {m.client_id for m in group.members} == {"j2", "rd1", "rd2"}
            # Eager members give everything up before they rejoin: nothing owned, no user data.
            assert all(not m.owned_partitions and not m.subscription_user_data
                       for m in group.members)  # fmt: skip
            scenario, _ = snapshot_group(reader, group_id)
            assert scenario.assignor == STRATEGY
            assert {
                m.client_id: {(tp.topic, tp.partition) for tp in m.owned_partitions}
                for m in scenario.members
            } == {m.client_id: set(m.assignment) for m in group.members}
            assert not [e for m in librdkafka.values() for e in m.errors if "rror" in e]
        finally:
            for member in librdkafka.values():
                member.close()

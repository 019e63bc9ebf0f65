"""A KIP-848 group caught mid-reconciliation on Apache Kafka, read into the scenario's
``reconciliation``.

One Java consumer (``group.protocol=consumer``, broker assignor ``uniform``) owns all six
partitions; its revocations are then *held* (its rebalance listener blocks, see
``java/GroupMembers.java``) and a second member joins. The broker computes new targets (three
partitions each), but the first member cannot give up its three until released, and the newcomer
cannot get them until then: the group stays mid-reconciliation for as long as the test needs.
The snapshot (and ``python -m cluster snapshot``) must show exactly that: the first member's
current assignment (six) beside its target (three), the pending revocation equal to what the
Java member is revoking, the newcomer's pending assignment blocked by the first member, the
epochs; and, once released, every member at its target.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from assignors import (
    MemberProgress,
    Scenario,
    TopicPartition,
    parse_scenario_text,
    reconciliation_progress,
)
from cluster.connection import ConnectionSettings
from cluster.reader import ClusterReader
from cluster.snapshot import snapshot_group
from tests.cluster.test_consumer_groups import settled
from tests.kafka_broker import unique_name
from tests.kafka_cluster.cluster import KafkaCluster
from tests.kafka_cluster.java_members import JavaGroup

pytestmark = pytest.mark.broker

DEADLINE_S = 90.0


def _by_client(scenario: Scenario) -> dict[str, MemberProgress]:
    clients = {m.member_id: m.client_id for m in scenario.members}
    return {clients[p.member_id] or p.member_id: p for p in reconciliation_progress(scenario)}


def mid_reconciliation(reader: ClusterReader, group_id: str, java: JavaGroup) -> Scenario:
    """The group's snapshot once c0 is held revoking and c1's target is computed."""
    deadline = time.monotonic() + DEADLINE_S
    last: Scenario | None = None
    while time.monotonic() < deadline:
        if "c0" in java.holding():
            last, _ = snapshot_group(reader, group_id)
            progress = _by_client(last)
            if set(progress) == {"c0", "c1"} and progress["c1"].target:
                return last
        time.sleep(0.3)
    raise AssertionError(f"never mid-reconciliation: {last!r}\njava output:\n{java.output()}")


def test_a_group_caught_mid_reconciliation_is_read_into_the_scenario(
    kafka_cluster: KafkaCluster, tmp_path: Path
) -> None:
    topic = unique_name("reconcile")
    kafka_cluster.create_topics({topic: 6}, replication_factor=1)
    group_id = unique_name("kip848-reconcile")
    settings = ConnectionSettings(kafka_cluster.bootstrap, timeout_s=10.0)
    every = tuple(TopicPartition(topic, p) for p in range(6))
    with (
        JavaGroup(kafka_cluster, group_id, "uniform", topic, ["c0"], tmp_path) as java,
        ClusterReader(settings) as reader,
    ):
        first = settled(reader, group_id, 1, java)
        java.hold("c0")
        java.join("c1")
        scenario = mid_reconciliation(reader, group_id, java)
        reconciliation = scenario.reconciliation
        assert reconciliation is not None
        assert reconciliation.group_epoch > first.group_epoch
        assert reconciliation.assignment_epoch == reconciliation.group_epoch
        progress = _by_client(scenario)
        c0, c1 = progress["c0"], progress["c1"]
        # c0 still owns all six; its target is three of them; it is revoking the other three.
        assert c0.current == every
        assert len(c0.target) == 3 and set(c0.target) < set(every)
        revoking = {TopicPartition(t, p) for t, p in java.holding()["c0"]}
        assert set(c0.pending_revocation) == revoking == set(every) - set(c0.target)
        assert c0.pending_assignment == () and c0.reconciling
        assert c0.member_epoch is not None and c0.member_epoch < reconciliation.assignment_epoch
        assert c0.epoch_behind
        # c1's target is those three; it owns none of them until c0 lets them go.
        assert set(c1.target) == revoking and c1.current == ()
        assert set(c1.pending_assignment) == revoking
        assert dict(c1.released_by) == dict.fromkeys(c1.pending_assignment, c0.member_id)

        # The command line writes the same field.
        cli = subprocess.run(
            [sys.executable, "-m", "cluster", "snapshot", "--group", group_id,
             "--bootstrap-servers", kafka_cluster.bootstrap, "--timeout", "20"],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert cli.returncode == 0, cli.stderr
        from_cli, _ = parse_scenario_text(cli.stdout)
        assert from_cli.reconciliation is not None
        assert _by_client(from_cli)["c0"].pending_revocation == c0.pending_revocation

        java.release("c0")
        done = settled(reader, group_id, 2, java, after_epoch=first.group_epoch)
        after, _ = snapshot_group(reader, group_id)
        assert after.reconciliation is not None
        assert after.reconciliation.group_epoch >= done.group_epoch
        assert not any(p.reconciling for p in reconciliation_progress(after))
        assert all(entry.current is None for entry in after.reconciliation.members)

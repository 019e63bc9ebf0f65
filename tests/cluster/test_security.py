"""Security for real, on Apache Kafka's SASL_SSL listener (the test's CA, StandardAuthorizer).

1. SCRAM-SHA-512 and PLAIN logins as ``reader`` succeed and read a live group (members,
   assignment, offsets) over TLS from all three brokers.
2. A missing ACL gives a message naming the principal, the operation and the resource, and the
   command that grants it: ``nobody`` (no ACL) is denied DESCRIBE on the group; ``groupsonly``
   (DESCRIBE on groups only) gets past the group and is denied DESCRIBE on its topic.
3. The password never reaches a log (kafka-python's DEBUG log of a successful SCRAM and PLAIN
   login and of failed ones), an exception text, the CLI's output or its scenario file (the
   export). (A wrong password and an untrusted CA: tests/cluster/test_failures.py.)
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from assignors import dumps_scenario, scenario_to_json
from cluster.connection import Secret
from cluster.errors import ClusterError, NotAuthorizedError
from cluster.reader import ClusterReader
from cluster.snapshot import snapshot_group
from tests.cluster.groups import running_group
from tests.kafka_cluster.cluster import KafkaCluster

pytestmark = pytest.mark.broker


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-512", "PLAIN"])
def test_a_sasl_ssl_login_reads_a_live_group(kafka_cluster: KafkaCluster, mechanism: str) -> None:
    records = {"orders": {0: 7, 1: 3}}
    with running_group(kafka_cluster, {"orders": 2}, records, {("orders", 0): 2}, members=2) as g:
        settings = kafka_cluster.secure_settings("reader", sasl_mechanism=mechanism)
        with ClusterReader(settings) as reader:
            scenario, warnings = snapshot_group(reader, g.group_id)
            listed = {listing.group_id for listing in reader.list_groups()}
        broker_view = g.assignment()
    assert warnings == ()
    assert g.group_id in listed
    assert {m.member_id for m in scenario.members} == set(broker_view)
    for member in scenario.members:
        owned = {(tp.topic, tp.partition) for tp in member.owned_partitions}
        assert owned == broker_view[member.member_id]
    (topic,) = scenario.topics
    assert topic.log_end_offsets == (7, 3)
    assert topic.committed_offsets == (2, None)


def test_no_acl_names_the_operation_and_the_group(kafka_cluster: KafkaCluster) -> None:
    with (
        running_group(kafka_cluster, {"secret": 1}, {}, {}, members=1) as group,
        ClusterReader(kafka_cluster.secure_settings("nobody")) as reader,
    ):
        assert group.group_id not in {g.group_id for g in reader.list_groups()}
        with pytest.raises(NotAuthorizedError) as caught:
            snapshot_group(reader, group.group_id)
    print("nobody ->", caught.value)
    assert str(caught.value) == (
        f"User:nobody is not allowed to DESCRIBE group {group.group_id!r}"
        " (GROUP_AUTHORIZATION_FAILED): grant it with kafka-acls.sh --add --allow-principal"
        f" User:nobody --operation Describe --group {group.group_id}."
    )


def test_a_missing_topic_acl_names_the_topic(kafka_cluster: KafkaCluster) -> None:
    with (
        running_group(kafka_cluster, {"hidden": 2}, {"hidden": {0: 1}}, {}, members=1) as group,
        ClusterReader(kafka_cluster.secure_settings("groupsonly")) as reader,
    ):
        (topic,) = group.topics
        with pytest.raises(NotAuthorizedError) as caught:
            snapshot_group(reader, group.group_id)
    print("groupsonly ->", caught.value)
    assert str(caught.value) == (
        f"User:groupsonly is not allowed to DESCRIBE topic {topic!r}"
        " (TOPIC_AUTHORIZATION_FAILED): grant it with kafka-acls.sh --add --allow-principal"
        f" User:groupsonly --operation Describe --topic {topic}."
    )


def test_the_password_never_shows(
    kafka_cluster: KafkaCluster, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    password = kafka_cluster.passwords["reader"]
    caplog.set_level(logging.DEBUG, logger="kafka")
    texts: list[str] = []
    with running_group(kafka_cluster, {"audit": 2}, {"audit": {0: 4}}, {}, members=1) as group:
        for mechanism in ("SCRAM-SHA-512", "PLAIN"):
            settings = kafka_cluster.secure_settings("reader", sasl_mechanism=mechanism)
            with ClusterReader(settings) as reader:
                scenario, _ = snapshot_group(reader, group.group_id)
            texts += [repr(settings), str(settings.describe())]
            texts.append(dumps_scenario(scenario_to_json(scenario)))
        for user, secret in (("reader", password + "-wrong"), ("nobody", password)):
            settings = kafka_cluster.secure_settings(user, sasl_password=Secret(secret))
            with pytest.raises(ClusterError) as caught, ClusterReader(settings) as reader:
                snapshot_group(reader, group.group_id)
            texts += [str(caught.value), repr(caught.value)]
        output = tmp_path / "snapshot.json"
        cli = subprocess.run(
            [sys.executable, "-m", "cluster", "snapshot", "--group", group.group_id,
             "--bootstrap-servers", kafka_cluster.secure_bootstrap,
             "--security-protocol", "SASL_SSL", "--ssl-cafile", str(kafka_cluster.ca_file),
             "--sasl-mechanism", "SCRAM-SHA-512", "--sasl-username", "reader",
             "--output", str(output)],
            capture_output=True, text=True, timeout=120, check=False,
            env={**os.environ, "AE_SASL_PASSWORD": password},
        )  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    texts += [cli.stdout, cli.stderr, output.read_text()]
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "Authenticated as reader" in logged  # the logins really happened, at DEBUG
    assert "SaslAuthenticate" in logged
    for text in [logged, *texts]:
        assert password not in text
        assert password.encode().hex() not in text

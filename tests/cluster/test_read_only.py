"""The reader never disturbs a group: every request it sends is on the read-only allow-list.

A recording SOCKS5 proxy on loopback (tests/cluster/recording_proxy.py) sits between the
client and the real broker; every Kafka request header (API key, version) that crosses it is
recorded, and :func:`assert_read_only` fails on any key outside
``cluster.reader.ALLOWED_API_KEYS``. The tests:

1. The reader lists groups and snapshots a live group (with rate sampling) through the proxy:
   only allowed keys, the expected read calls did happen, and the group is unchanged after.
2. The check does fail: a real kafka-python consumer joining a group through the same proxy
   sends JoinGroup/SyncGroup (and more), and :func:`assert_read_only` names them.
3. TLS for real: the proxy terminates TLS with a CA and certificates the test creates
   (trustme), the reader connects with ``security_protocol="SSL"`` and the CA file (and in one
   case a client certificate the proxy requires); a reader that trusts another CA is refused.
"""

from __future__ import annotations

import ssl
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import trustme

from cluster.connection import ConnectionSettings
from cluster.errors import AuthenticationFailedError
from cluster.reader import ALLOWED_API_KEYS, FORBIDDEN_API_KEYS, ClusterReader
from cluster.snapshot import snapshot_group
from tests.cluster.groups import running_group
from tests.cluster.recording_proxy import API_NAMES, RecordingProxy
from tests.kafka_broker import BrokerClientHelpers, PolledConsumer, unique_name
from tests.kafka_cluster.cluster import KafkaCluster

pytestmark = pytest.mark.broker

ALLOWED = set(ALLOWED_API_KEYS.values())


def assert_read_only(proxy: RecordingProxy) -> None:
    """Fail, naming them, if any recorded request is outside the allow-list."""
    seen = proxy.seen()
    print("requests seen through the proxy:", ", ".join(f"{n} v{v}" for n, v in seen))
    forbidden = sorted({r.name for r in proxy.requests if r.api_key not in ALLOWED})
    assert not forbidden, f"requests outside the read-only allow-list: {', '.join(forbidden)}"


def _state(broker: BrokerClientHelpers, group_id: str) -> tuple[object, ...]:
    description = broker.describe_group(group_id)
    members = sorted((m["member_id"], repr(m["member_assignment"])) for m in description["members"])
    admin = broker.admin()
    try:
        offsets = sorted(admin.list_group_offsets(group_id)[group_id].items())
    finally:
        admin.close()
    return description["group_state"], tuple(members), tuple(offsets)


def test_allow_list_and_forbidden_list_do_not_overlap() -> None:
    assert not set(ALLOWED_API_KEYS.values()) & set(FORBIDDEN_API_KEYS.values())
    for name, key in {**ALLOWED_API_KEYS, **FORBIDDEN_API_KEYS}.items():
        assert API_NAMES[key] == name


def test_reader_sends_only_read_only_requests(kafka_cluster: KafkaCluster) -> None:
    records = {"orders": {0: 9, 1: 4, 2: 6}}
    with running_group(
        kafka_cluster, {"orders": 3}, records, {("orders", 0): 3, ("orders", 2): 6}, members=2
    ) as group:
        before = _state(kafka_cluster, group.group_id)
        with RecordingProxy() as proxy:
            settings = ConnectionSettings(
                kafka_cluster.bootstrap, timeout_s=10.0, proxy_url=proxy.url
            )
            with ClusterReader(settings) as reader:
                listings = reader.list_groups()
                scenario, _ = snapshot_group(reader, group.group_id, sample_seconds=0.3)
            assert_read_only(proxy)
            names = {name for name, _ in proxy.seen()}
            assert proxy.errors == []
        after = _state(kafka_cluster, group.group_id)
    assert {
        "ApiVersions", "Metadata", "FindCoordinator", "ListGroups", "DescribeGroups",
        "OffsetFetch", "ListOffsets",
    } <= names  # fmt: skip
    assert group.group_id in {g.group_id for g in listings}
    assert len(scenario.members) == 2
    assert before == after, "reading the group changed it"


def test_the_check_fails_when_a_consumer_joins_through_the_proxy(
    kafka_cluster: KafkaCluster,
) -> None:
    from kafka import KafkaConsumer

    topic = kafka_cluster.create_topic(unique_name("joined"), 2)
    group_id = unique_name("joiner")
    with RecordingProxy() as proxy:
        consumer = PolledConsumer(
            KafkaConsumer(
                topic,
                bootstrap_servers=kafka_cluster.bootstrap,
                group_id=group_id,
                proxy_url=proxy.url,
                enable_auto_commit=True,
                auto_commit_interval_ms=100,
            )
        )
        try:
            kafka_cluster.wait_for_stable_group(group_id, 1)
            time.sleep(0.5)  # let it fetch and commit a little
        finally:
            consumer.close()
        with pytest.raises(AssertionError) as caught:
            assert_read_only(proxy)
    message = str(caught.value)
    for name in ("JoinGroup", "SyncGroup", "Fetch", "OffsetCommit", "LeaveGroup"):
        assert name in message


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-512", "PLAIN"])
def test_sasl_ssl_login_is_on_the_allow_list(kafka_cluster: KafkaCluster, mechanism: str) -> None:
    """SASL_SSL to Apache Kafka through a proxy that ends TLS and starts it again upstream, so
    the SASL requests and every read cross it in clear (the reader trusts the cluster's CA, which
    also signed the proxy's certificate)."""
    proxy_cert = kafka_cluster.authority.issue_cert("127.0.0.1", "localhost")
    client_side = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    proxy_cert.configure_cert(client_side)
    upstream = ssl.create_default_context(cafile=str(kafka_cluster.ca_file))
    with (
        running_group(kafka_cluster, {"sasl": 1}, {"sasl": {0: 2}}, {}, members=1) as group,
        RecordingProxy(tls=client_side, upstream_tls=upstream) as proxy,
    ):
        settings = kafka_cluster.secure_settings(
            "reader", sasl_mechanism=mechanism, proxy_url=proxy.url, timeout_s=20.0
        )
        try:
            with ClusterReader(settings) as reader:
                scenario, _ = snapshot_group(reader, group.group_id)
        finally:
            print("proxy errors:", proxy.errors, "seen:", proxy.seen())
        assert_read_only(proxy)
        names = {name for name, _ in proxy.seen()}
        assert proxy.errors == []
    assert {"SaslHandshake", "SaslAuthenticate", "DescribeGroups", "OffsetFetch"} <= names
    assert scenario.topics[0].log_end_offsets == (2,)


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, object]]:
    directory = tmp_path_factory.mktemp("tls")
    authority = trustme.CA()
    server_cert = authority.issue_cert("127.0.0.1", "localhost")
    client_cert = authority.issue_cert("reader@example.invalid")
    ca_file = directory / "ca.pem"
    authority.cert_pem.write_to_path(str(ca_file))
    client_file = directory / "client.pem"
    key_file = directory / "client.key"
    client_cert.cert_chain_pems[0].write_to_path(str(client_file))
    client_cert.private_key_pem.write_to_path(str(key_file))
    other = trustme.CA()
    other_ca = directory / "other-ca.pem"
    other.cert_pem.write_to_path(str(other_ca))
    yield {
        "authority": authority,
        "server_cert": server_cert,
        "ca": str(ca_file),
        "client_cert": str(client_file),
        "client_key": str(key_file),
        "other_ca": str(other_ca),
    }


def _server_context(files: dict[str, object], require_client_cert: bool) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    files["server_cert"].configure_cert(context)  # type: ignore[attr-defined]
    if require_client_cert:
        files["authority"].configure_trust(context)  # type: ignore[attr-defined]
        context.verify_mode = ssl.CERT_REQUIRED
    return context


@pytest.mark.parametrize("mutual", [False, True], ids=["server-tls", "mutual-tls"])
def test_ssl_path_through_a_tls_terminating_proxy(
    kafka_cluster: KafkaCluster, tls_files: dict[str, object], mutual: bool
) -> None:
    with (
        running_group(kafka_cluster, {"secure": 2}, {"secure": {0: 3}}, {}, members=1) as group,
        RecordingProxy(tls=_server_context(tls_files, mutual)) as proxy,
    ):
        settings = ConnectionSettings(
            kafka_cluster.bootstrap,
            security_protocol="SSL",
            ssl_cafile=str(tls_files["ca"]),
            ssl_certfile=str(tls_files["client_cert"]) if mutual else None,
            ssl_keyfile=str(tls_files["client_key"]) if mutual else None,
            timeout_s=10.0,
            proxy_url=proxy.url,
        )
        with ClusterReader(settings) as reader:
            scenario, _ = snapshot_group(reader, group.group_id)
        assert_read_only(proxy)
        assert proxy.errors == []
        assert ("ApiVersions", 3) in proxy.seen() or any(
            n == "ApiVersions" for n, _ in proxy.seen()
        )
    assert scenario.topics[0].log_end_offsets == (3, 0)


def test_ssl_with_an_untrusted_certificate_is_refused(
    kafka_cluster: KafkaCluster, tls_files: dict[str, object]
) -> None:
    with RecordingProxy(tls=_server_context(tls_files, False)) as proxy:
        settings = ConnectionSettings(
            kafka_cluster.bootstrap,
            security_protocol="SSL",
            ssl_cafile=str(tls_files["other_ca"]),
            timeout_s=2.0,
            proxy_url=proxy.url,
        )
        with pytest.raises(AuthenticationFailedError) as caught:
            ClusterReader(settings)
        assert proxy.requests == []  # nothing readable crossed: the handshake failed first
    print("untrusted certificate ->", caught.value)
    assert str(caught.value) == (
        f"the TLS certificate of {kafka_cluster.bootstrap} is not trusted: set the CA file to the"
        " CA that signed the brokers' certificates."
    )


def test_tls_files_must_exist(tmp_path: Path) -> None:
    from cluster.errors import ConnectionSettingsError

    with pytest.raises(ConnectionSettingsError, match=r"ssl cafile .* is not a readable file"):
        ClusterReader(
            ConnectionSettings(
                "127.0.0.1:9", security_protocol="SSL", ssl_cafile=str(tmp_path / "none.pem")
            )
        )

"""Apache Kafka for the tests: three KRaft brokers on loopback, started once per session.

What runs (all from the jars ``tests/kafka_cluster/pom.xml`` names, resolved by Maven into
``~/.m2``; ``scripts/test.sh`` writes the class path to ``target/classpath.txt``):

- node 1: controller and broker (``process.roles=broker,controller``), nodes 2 and 3: brokers;
  ``broker.rack`` ``zone-a``, ``zone-b``, ``zone-c``. One JVM each, ``-Xmx`` :data:`HEAP`.
- Listeners per broker, all on 127.0.0.1 with ports chosen free at start:
  ``PLAINTEXT`` (the tests' open door: its principal ``User:ANONYMOUS`` is a super user),
  ``SECURE`` = SASL_SSL with SCRAM-SHA-512 and PLAIN over TLS (a CA this module makes with
  trustme; the brokers' key store is PEM), ``INTERNAL`` (between brokers) and, on node 1,
  ``CONTROLLER``.
- Streams groups (``group.protocol=streams``, KIP-1071) and share groups (KIP-932) are on: the
  features ``streams.version=1`` and ``share.version=1`` are finalised at format time
  (:data:`FEATURES`); Streams groups get one standby replica per stateful task.
- ``StandardAuthorizer`` with super users ``admin`` (the fixture's SASL user) and ANONYMOUS;
  users (SCRAM-SHA-512 credentials written at format time, and the same names for PLAIN):
  ``admin``, ``reader`` (DESCRIBE and READ on every group and topic, DESCRIBE on the cluster:
  what the read-only reader needs), ``groupsonly`` (DESCRIBE on groups, nothing on topics) and
  ``nobody`` (no ACL at all).

Start (:func:`start_cluster`): write the CA and key store, format the controller's log directory
(``kafka.tools.StorageTool``, with the SCRAM credentials) and write the brokers'
``meta.properties``, start the three JVMs, wait until the controller sees
three unfenced brokers and each SASL_SSL listener accepts a SCRAM login, then create the ACLs.
A failed start raises :class:`ClusterStartError` with the tail of every node's log. Logs stay under
the given folder (``node-N/logs/server.log`` and ``node-N/stdout``). :func:`stop_cluster` sends
SIGTERM and, after 15 s, SIGKILL.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.kafka_broker import BrokerClientHelpers
from tests.ports import free_port

HERE = Path(__file__).resolve().parent
CLASSPATH_FILE = HERE / "target" / "classpath.txt"
KAFKA_VERSION = "4.4.0"
HEAP = "320m"
RACKS = {1: "zone-a", 2: "zone-b", 3: "zone-c"}
START_TIMEOUT_S = 240.0
STOP_TIMEOUT_S = 15.0
LOG_TAIL_CHARS = 4000
#: SASL users: name -> password. ``admin`` is a super user, ``reader`` may read, ``nobody`` not.
USERS = {
    "admin": "admin-" + uuid.uuid4().hex[:12],
    "reader": "reader-" + uuid.uuid4().hex[:12],
    "nobody": "nobody-" + uuid.uuid4().hex[:12],
    "groupsonly": "groupsonly-" + uuid.uuid4().hex[:12],
}
#: kafka-python consumer settings for tests on this cluster: a rebalance timeout (the poll
#: interval) long enough for a leader whose assignor reads offsets on a loaded 2-core machine.
CONSUMER_TEST_CONFIG: dict[str, int] = {
    "session_timeout_ms": 10000,
    "heartbeat_interval_ms": 500,
    "max_poll_interval_ms": 30000,
    "request_timeout_ms": 31000,
}
#: Features finalised at format time: Streams groups (KIP-1071) and share groups (KIP-932).
FEATURES = ("streams.version=1", "share.version=1")
JVM_OPTIONS = (
    f"-Xmx{HEAP}",
    "-Xms64m",
    "-Xss512k",
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-XX:MaxMetaspaceSize=128m",
    "-XX:ReservedCodeCacheSize=48m",
    "-Djava.awt.headless=true",
)


class ClusterStartError(RuntimeError):
    """The Kafka cluster did not start; the message holds the reason and the logs' tails."""


@dataclass(frozen=True, slots=True)
class NodePorts:
    plaintext: int
    secure: int
    internal: int
    controller: int | None


@dataclass(slots=True)
class KafkaCluster(BrokerClientHelpers):
    """A running three-broker Apache Kafka cluster and where to reach it."""

    bootstrap: str
    secure_bootstrap: str
    ca_file: Path
    #: The test CA (``trustme.CA``): issues more certificates, e.g. for a TLS-terminating proxy.
    authority: Any
    work_dir: Path
    ports: dict[int, NodePorts]
    processes: dict[int, subprocess.Popen[bytes]] = field(repr=False)
    replication_factor: int = 3
    started_in_s: float = 0.0

    @property
    def passwords(self) -> dict[str, str]:
        return dict(USERS)

    def secure_settings(self, user: str = "reader", **overrides: Any) -> Any:
        """``ConnectionSettings`` for the SASL_SSL listener as ``user`` (SCRAM-SHA-512)."""
        from cluster.connection import ConnectionSettings, Secret

        options: dict[str, Any] = {
            "bootstrap_servers": self.secure_bootstrap,
            "security_protocol": "SASL_SSL",
            "ssl_cafile": str(self.ca_file),
            "sasl_mechanism": "SCRAM-SHA-512",
            "sasl_username": user,
            "sasl_password": Secret(USERS[user]),
            "timeout_s": 10.0,
        }
        options.update(overrides)
        return ConnectionSettings(**options)

    def rss_bytes(self) -> int:
        """Resident memory of the three JVMs together (from /proc)."""
        total = 0
        for process in self.processes.values():
            try:
                status = Path(f"/proc/{process.pid}/status").read_text()
            except OSError:
                continue
            for line in status.splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        return total

    def logs(self) -> str:
        return _log_tails(self.work_dir)


def classpath(version: str = KAFKA_VERSION) -> str:
    """The jars' class path of Apache Kafka ``version``: the suite's own as ``scripts/test.sh``
    resolved it, another release's from the same pom with ``-Dkafka.version`` (into
    ``target/classpath-VERSION.txt``); resolved now when the file is missing (Maven keeps the
    jars in ``~/.m2``, so only a first run downloads them)."""
    target = (
        CLASSPATH_FILE
        if version == KAFKA_VERSION
        else CLASSPATH_FILE.with_name(f"classpath-{version}.txt")
    )
    if not target.is_file():
        command = [
            "mvn", "-q", "-B", "-f", str(HERE / "pom.xml"), "dependency:build-classpath",
            f"-Dkafka.version={version}", f"-Dmdep.outputFile={target}",
        ]  # fmt: skip
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if result.returncode != 0 or not target.is_file():
            raise ClusterStartError(
                f"Maven could not resolve Apache Kafka {version} ({' '.join(command)}):\n"
                f"{result.stdout[-LOG_TAIL_CHARS:]}{result.stderr[-LOG_TAIL_CHARS:]}"
            )
    return target.read_text().strip()


def _write_tls(work_dir: Path) -> tuple[Any, Path, Path]:
    """A CA (PEM) and the brokers' PEM key store: PKCS#8 key + certificate for 127.0.0.1."""
    import trustme
    from cryptography.hazmat.primitives import serialization

    authority = trustme.CA(organization_name="assignment-explorer test CA")
    server = authority.issue_cert("127.0.0.1", "localhost")
    ca_file = work_dir / "ca.pem"
    authority.cert_pem.write_to_path(str(ca_file))
    key = serialization.load_pem_private_key(server.private_key_pem.bytes(), password=None)
    pkcs8 = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    keystore = work_dir / "broker-keystore.pem"
    keystore.write_bytes(pkcs8 + b"".join(blob.bytes() for blob in server.cert_chain_pems))
    return authority, ca_file, keystore


def _properties(
    node_id: int, ports: dict[int, NodePorts], work_dir: Path, keystore: Path, ca_file: Path
) -> str:
    own = ports[node_id]
    controller_port = ports[1].controller
    listeners = [
        f"PLAINTEXT://127.0.0.1:{own.plaintext}",
        f"SECURE://127.0.0.1:{own.secure}",
        f"INTERNAL://127.0.0.1:{own.internal}",
    ]
    advertised = list(listeners)
    roles = "broker"
    if own.controller is not None:
        listeners.append(f"CONTROLLER://127.0.0.1:{own.controller}")
        roles = "broker,controller"
    plain_users = " ".join(f'user_{name}="{password}"' for name, password in USERS.items())
    lines = {
        "process.roles": roles,
        "node.id": node_id,
        "broker.rack": RACKS[node_id],
        "controller.quorum.voters": f"1@127.0.0.1:{controller_port}",
        "controller.listener.names": "CONTROLLER",
        "listeners": ",".join(listeners),
        "advertised.listeners": ",".join(advertised),
        "inter.broker.listener.name": "INTERNAL",
        "listener.security.protocol.map": (
            "PLAINTEXT:PLAINTEXT,SECURE:SASL_SSL,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT"
        ),
        "log.dirs": str(work_dir / f"node-{node_id}" / "data"),
        "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "super.users": "User:admin;User:ANONYMOUS",
        "listener.name.secure.sasl.enabled.mechanisms": "SCRAM-SHA-512,PLAIN",
        "listener.name.secure.scram-sha-512.sasl.jaas.config": (
            "org.apache.kafka.common.security.scram.ScramLoginModule required;"
        ),
        "listener.name.secure.plain.sasl.jaas.config": (
            f"org.apache.kafka.common.security.plain.PlainLoginModule required {plain_users};"
        ),
        "listener.name.secure.ssl.keystore.type": "PEM",
        "listener.name.secure.ssl.keystore.location": str(keystore),
        "listener.name.secure.ssl.truststore.type": "PEM",
        "listener.name.secure.ssl.truststore.location": str(ca_file),
        "num.partitions": 1,
        "default.replication.factor": 1,
        "offsets.topic.num.partitions": 6,
        "offsets.topic.replication.factor": 3,
        "transaction.state.log.replication.factor": 1,
        "transaction.state.log.min.isr": 1,
        "transaction.state.log.num.partitions": 2,
        "share.coordinator.state.topic.num.partitions": 2,
        "share.coordinator.state.topic.replication.factor": 1,
        "share.coordinator.state.topic.min.isr": 1,
        "group.initial.rebalance.delay.ms": 0,
        "group.consumer.min.heartbeat.interval.ms": 500,
        "group.consumer.heartbeat.interval.ms": 500,
        "group.consumer.min.session.timeout.ms": 6000,
        "group.consumer.session.timeout.ms": 10000,
        # Streams groups (KIP-1071) and share groups (KIP-932): enabled by the features
        # streams.version and share.version (set at format time); fast heartbeats for the tests,
        # one standby replica per stateful task for Streams.
        "group.streams.initial.rebalance.delay.ms": 0,
        "group.streams.min.heartbeat.interval.ms": 500,
        "group.streams.heartbeat.interval.ms": 500,
        "group.streams.min.session.timeout.ms": 6000,
        "group.streams.session.timeout.ms": 10000,
        "group.streams.num.standby.replicas": 1,
        "group.share.min.heartbeat.interval.ms": 500,
        "group.share.heartbeat.interval.ms": 500,
        "group.share.min.session.timeout.ms": 6000,
        "group.share.session.timeout.ms": 10000,
        "num.network.threads": 2,
        "num.io.threads": 2,
        "num.recovery.threads.per.data.dir": 1,
        "background.threads": 2,
        "log.cleaner.enable": "false",
        "auto.create.topics.enable": "false",
    }
    return "".join(f"{key}={value}\n" for key, value in lines.items())


LOG4J2 = """\
status = warn
appender.file.type = File
appender.file.name = FILE
appender.file.fileName = ${sys:kafka.logs.dir}/server.log
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = FILE
logger.state.name = state.change.logger
logger.state.level = WARN
logger.request.name = kafka.request.logger
logger.request.level = WARN
"""


def _java(main: str, arguments: list[str], node_dir: Path, jars: str) -> list[str]:
    return [
        "java", *JVM_OPTIONS, f"-Dkafka.logs.dir={node_dir / 'logs'}",
        f"-Dlog4j2.configurationFile={node_dir / 'log4j2.properties'}",
        "-cp", jars, main, *arguments,
    ]  # fmt: skip


def _format(node_id: int, node_dir: Path, cluster_id: str, jars: str) -> None:
    scram = [
        argument
        for name, password in USERS.items()
        for argument in ("--add-scram", f"SCRAM-SHA-512=[name={name},password={password}]")
    ]
    command = _java(
        "kafka.tools.StorageTool",
        [
            "format",
            "-t",
            cluster_id,
            "-c",
            str(node_dir / "server.properties"),
            *scram,
            *(argument for feature in FEATURES for argument in ("--feature", feature)),
        ],
        node_dir,
        jars,
    )
    with open(node_dir / "format.out", "wb") as out:
        result = subprocess.run(
            command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, check=False
        )
    if result.returncode != 0:
        raise ClusterStartError(
            f"formatting node {node_id} failed (exit {result.returncode}):\n"
            + (node_dir / "format.out").read_text(errors="replace")[-LOG_TAIL_CHARS:]
        )


def _write_broker_meta(node_id: int, data_dir: Path, cluster_id: str) -> None:
    """What ``kafka-storage format`` writes for a broker-only node (its metadata version comes
    from the controller): ``meta.properties`` v1. Saves a JVM start per broker."""
    data_dir.mkdir(parents=True, exist_ok=True)
    directory_id = _cluster_id()
    (data_dir / "meta.properties").write_text(
        f"node.id={node_id}\ndirectory.id={directory_id}\nversion=1\ncluster.id={cluster_id}\n"
    )


def _log_tails(work_dir: Path) -> str:
    parts = []
    for node_dir in sorted(work_dir.glob("node-*")):
        for name in ("stdout", "logs/server.log"):
            path = node_dir / name
            if path.is_file():
                text = path.read_text(errors="replace")[-LOG_TAIL_CHARS:]
                parts.append(f"--- {path} (tail) ---\n{text}")
    return "\n".join(parts)


def _accepts(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _unfenced_brokers(bootstrap: str) -> set[int]:
    from kafka import KafkaAdminClient

    admin = KafkaAdminClient(
        bootstrap_servers=bootstrap, request_timeout_ms=3000, bootstrap_timeout_ms=3000
    )
    try:
        described = admin.describe_cluster()
        return {
            int(broker["broker_id"])
            for broker in described["brokers"]
            if not broker.get("is_fenced", False)
        }
    finally:
        admin.close()


def _wait_ready(cluster: KafkaCluster, deadline: float) -> None:
    """Readiness: every port open, three brokers registered, SCRAM logins on every broker."""
    last_error = "none"
    while True:
        for node_id, process in cluster.processes.items():
            if process.poll() is not None:
                raise ClusterStartError(f"node {node_id} exited with code {process.returncode}")
        ports_open = all(
            _accepts(p.plaintext) and _accepts(p.secure) for p in cluster.ports.values()
        )
        if ports_open:
            try:
                brokers = _unfenced_brokers(cluster.bootstrap)
                if brokers == set(RACKS):
                    break
                last_error = f"brokers registered: {sorted(brokers)}"
            except Exception as error:  # not ready yet: the admin client raises meanwhile
                last_error = f"{type(error).__name__}: {error}"
        if time.monotonic() > deadline:
            raise ClusterStartError(
                f"the cluster was not ready within {START_TIMEOUT_S:.0f} s (ports open:"
                f" {ports_open}; last check: {last_error})"
            )
        time.sleep(0.5)
    _create_acls(cluster)
    _wait_for_group_coordinator(cluster, deadline)
    _wait_for_scram_logins(cluster, deadline)


def _create_acls(cluster: KafkaCluster) -> None:
    from kafka.admin import (
        ACL,
        ACLOperation,
        ACLPermissionType,
        ACLResourcePatternType,
        ResourcePattern,
        ResourceType,
    )

    acls = [
        ACL(
            principal="User:reader",
            host="*",
            operation=operation,
            permission_type=ACLPermissionType.ALLOW,
            resource_pattern=ResourcePattern(resource, name, ACLResourcePatternType.LITERAL),
        )
        for resource, name, operations in (
            (ResourceType.GROUP, "*", (ACLOperation.DESCRIBE, ACLOperation.READ)),
            (ResourceType.TOPIC, "*", (ACLOperation.DESCRIBE, ACLOperation.READ)),
            (ResourceType.CLUSTER, "kafka-cluster", (ACLOperation.DESCRIBE,)),
        )
        for operation in operations
    ] + [
        ACL(
            principal="User:groupsonly",
            host="*",
            operation=ACLOperation.DESCRIBE,
            permission_type=ACLPermissionType.ALLOW,
            resource_pattern=ResourcePattern(
                ResourceType.GROUP, "*", ACLResourcePatternType.LITERAL
            ),
        )
    ]
    admin = cluster.admin("ae-tests-acls")
    try:
        result = admin.create_acls(acls)
    finally:
        admin.close()
    if result.get("failed"):
        raise ClusterStartError(f"creating the ACLs failed: {result['failed']}")


def _wait_for_group_coordinator(cluster: KafkaCluster, deadline: float) -> None:
    """The first FindCoordinator creates ``__consumer_offsets``; wait until groups can be found."""
    from kafka.errors import KafkaError

    admin = cluster.admin("ae-tests-readiness")
    try:
        while True:
            try:
                admin.describe_groups(["ae-tests-readiness"])
                return
            except KafkaError as error:
                if time.monotonic() > deadline:
                    raise ClusterStartError(f"no group coordinator: {error}") from None
                time.sleep(0.3)
    finally:
        admin.close()


def _wait_for_scram_logins(cluster: KafkaCluster, deadline: float) -> None:
    """Every SASL_SSL listener accepts the reader's SCRAM login and sees its ACLs."""
    from kafka import KafkaAdminClient

    for node_id, ports in sorted(cluster.ports.items()):
        while True:
            try:
                config = cluster.secure_settings("reader").to_kafka_config()
                config["bootstrap_servers"] = [f"127.0.0.1:{ports.secure}"]
                admin = KafkaAdminClient(**config)
                try:
                    admin.describe_cluster()
                finally:
                    admin.close()
                break
            except Exception as error:
                if time.monotonic() > deadline:
                    raise ClusterStartError(
                        f"node {node_id}: a SCRAM login on its SASL_SSL listener failed: {error}"
                    ) from None
                time.sleep(0.5)


def start_cluster(work_dir: Path) -> KafkaCluster:
    """Start the three nodes under ``work_dir``; raise :class:`ClusterStartError` on failure."""
    started = time.monotonic()
    jars = classpath()
    authority, ca_file, keystore = _write_tls(work_dir)
    ports = {
        node_id: NodePorts(
            free_port(), free_port(), free_port(), free_port() if node_id == 1 else None
        )
        for node_id in RACKS
    }
    cluster_id = _cluster_id()
    for node_id in RACKS:
        node_dir = work_dir / f"node-{node_id}"
        (node_dir / "logs").mkdir(parents=True, exist_ok=True)
        (node_dir / "server.properties").write_text(
            _properties(node_id, ports, work_dir, keystore, ca_file)
        )
        (node_dir / "log4j2.properties").write_text(LOG4J2)
    _format(1, work_dir / "node-1", cluster_id, jars)
    for node_id in RACKS:
        if node_id != 1:
            _write_broker_meta(node_id, work_dir / f"node-{node_id}" / "data", cluster_id)
    processes: dict[int, subprocess.Popen[bytes]] = {}
    for node_id in RACKS:
        node_dir = work_dir / f"node-{node_id}"
        command = _java("kafka.Kafka", [str(node_dir / "server.properties")], node_dir, jars)
        with open(node_dir / "stdout", "wb") as out:
            processes[node_id] = subprocess.Popen(
                command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            )
    cluster = KafkaCluster(
        bootstrap=",".join(f"127.0.0.1:{ports[n].plaintext}" for n in RACKS),
        secure_bootstrap=",".join(f"127.0.0.1:{ports[n].secure}" for n in RACKS),
        ca_file=ca_file,
        authority=authority,
        work_dir=work_dir,
        ports=ports,
        processes=processes,
    )
    try:
        _wait_ready(cluster, started + START_TIMEOUT_S)
    except BaseException as error:
        stop_cluster(cluster)
        raise ClusterStartError(
            f"Apache Kafka {KAFKA_VERSION} did not start: {error}\n{_log_tails(work_dir)}"
        ) from None
    cluster.started_in_s = time.monotonic() - started
    return cluster


def _cluster_id() -> str:
    """A random id as Kafka's ``Uuid.randomUuid()`` makes one: URL-safe base64, never starting
    with "-" (the storage tool would read such an id as an option: about 1 run in 64 failed)."""
    import base64

    while True:
        text = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not text.startswith("-"):
            return text


def stop_cluster(cluster: KafkaCluster) -> None:
    """SIGTERM to every node, then SIGKILL to those still alive after :data:`STOP_TIMEOUT_S`."""
    alive = [p for p in cluster.processes.values() if p.poll() is None]
    for process in alive:
        process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT_S
    for process in alive:
        try:
            process.wait(timeout=max(deadline - time.monotonic(), 0.1))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=STOP_TIMEOUT_S)


def main() -> None:  # pragma: no cover - manual measurement: python -m tests.kafka_cluster.cluster
    import tempfile

    with tempfile.TemporaryDirectory(prefix="kafka-cluster-") as folder:
        cluster = start_cluster(Path(folder))
        try:
            print(f"started in {cluster.started_in_s:.1f} s; bootstrap {cluster.bootstrap}")
            print(f"RSS of the three JVMs: {cluster.rss_bytes() / 2**20:.0f} MiB")
        finally:
            stop_cluster(cluster)


if __name__ == "__main__":  # pragma: no cover
    main()
    os._exit(0)

"""Another Apache Kafka release for the tests that need one: one KRaft node on loopback.

The suite's cluster (:mod:`tests.kafka_cluster.cluster`) runs Kafka 4.4.0 on three nodes with
TLS, SASL and ACLs. A test that needs another release (the reader's version detection reads a
3.9 cluster too) starts this instead, in its own module's fixture, so the suite pays for it
only there: one JVM that is controller and broker (``process.roles=broker,controller``),
PLAINTEXT only, formatted with the release's own ``kafka.tools.StorageTool`` and its default
``metadata.version``. The jars come from the same pom with ``-Dkafka.version`` and stay in
``~/.m2`` (:func:`tests.kafka_cluster.cluster.classpath`), like the suite's own.
"""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.kafka_broker import BrokerClientHelpers
from tests.kafka_cluster.cluster import (
    LOG4J2,
    LOG_TAIL_CHARS,
    STOP_TIMEOUT_S,
    ClusterStartError,
    _accepts,
    _cluster_id,
    _java,
    _unfenced_brokers,
    classpath,
)
from tests.ports import free_port

START_TIMEOUT_S = 180.0


@dataclass(slots=True)
class SingleNode(BrokerClientHelpers):
    """A running one-node Apache Kafka of release ``version``."""

    version: str
    bootstrap: str
    work_dir: Path
    process: subprocess.Popen[bytes] = field(repr=False)
    replication_factor: int = 1
    started_in_s: float = 0.0

    def logs(self) -> str:
        out = self.work_dir / "stdout"
        return out.read_text(errors="replace")[-LOG_TAIL_CHARS:] if out.is_file() else ""


def _properties(port: int, controller: int, work_dir: Path) -> str:
    lines = {
        "process.roles": "broker,controller",
        "node.id": 1,
        "controller.quorum.voters": f"1@127.0.0.1:{controller}",
        "controller.listener.names": "CONTROLLER",
        "listeners": f"PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller}",
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{port}",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
        "log.dirs": str(work_dir / "data"),
        "num.partitions": 1,
        "offsets.topic.num.partitions": 3,
        "offsets.topic.replication.factor": 1,
        "transaction.state.log.replication.factor": 1,
        "transaction.state.log.min.isr": 1,
        "group.initial.rebalance.delay.ms": 0,
        "num.network.threads": 2,
        "num.io.threads": 2,
        "log.cleaner.enable": "false",
        "auto.create.topics.enable": "false",
    }
    return "".join(f"{key}={value}\n" for key, value in lines.items())


def start_single_node(work_dir: Path, version: str) -> SingleNode:
    """Format and start the node; :class:`ClusterStartError` (with its output) on failure."""
    started = time.monotonic()
    jars = classpath(version)
    port, controller = free_port(), free_port()
    (work_dir / "logs").mkdir(parents=True, exist_ok=True)
    (work_dir / "server.properties").write_text(_properties(port, controller, work_dir))
    (work_dir / "log4j2.properties").write_text(LOG4J2)
    config = str(work_dir / "server.properties")
    format_command = _java(
        "kafka.tools.StorageTool", ["format", "-t", _cluster_id(), "-c", config], work_dir, jars
    )
    formatted = subprocess.run(format_command, capture_output=True, text=True, check=False)
    if formatted.returncode != 0:
        raise ClusterStartError(
            f"formatting Apache Kafka {version} failed (exit {formatted.returncode}):\n"
            f"{(formatted.stdout + formatted.stderr)[-LOG_TAIL_CHARS:]}"
        )
    with open(work_dir / "stdout", "wb") as out:
        process = subprocess.Popen(
            _java("kafka.Kafka", [config], work_dir, jars),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    node = SingleNode(version, f"127.0.0.1:{port}", work_dir, process)
    try:
        _wait_ready(node, started + START_TIMEOUT_S)
    except BaseException as error:
        stop_single_node(node)
        raise ClusterStartError(
            f"Apache Kafka {version} did not start: {error}\n{node.logs()}"
        ) from None
    node.started_in_s = time.monotonic() - started
    return node


def _wait_ready(node: SingleNode, deadline: float) -> None:
    last_error = "none"
    port = int(node.bootstrap.rsplit(":", 1)[1])
    while True:
        if node.process.poll() is not None:
            raise ClusterStartError(f"the node exited with code {node.process.returncode}")
        if _accepts(port):
            try:
                if _unfenced_brokers(node.bootstrap) == {1}:
                    return
            except Exception as error:  # not ready yet: the admin client raises meanwhile
                last_error = f"{type(error).__name__}: {error}"
        if time.monotonic() > deadline:
            raise ClusterStartError(f"not ready within {START_TIMEOUT_S:.0f} s ({last_error})")
        time.sleep(0.5)


def stop_single_node(node: SingleNode) -> None:
    """SIGTERM, then SIGKILL after :data:`STOP_TIMEOUT_S`."""
    if node.process.poll() is None:
        node.process.terminate()
        try:
            node.process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            node.process.kill()
            node.process.wait(timeout=STOP_TIMEOUT_S)

"""A Kafka Streams application for the tests: real ``KafkaStreams`` instances with
``group.protocol=streams`` (KIP-1071).

``java/StreamsApp.java`` (compiled once per session against the cluster's own kafka-streams
jar) runs the instances of one application, each a ``KafkaStreams`` with one stream thread and
its own state directory, in one JVM. :class:`StreamsApplication` starts it, sends
``start``/``stop`` commands on its stdin and reads what each instance reports about its own
tasks (``tasks INSTANCE CONSUMER_CLIENT_ID active=... standby=...`` lines, kept in a file
under the test's folder).
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from tests.kafka_cluster.cluster import KafkaCluster, classpath
from tests.kafka_cluster.java_members import compiled_classes


@dataclass(frozen=True, slots=True)
class InstanceTasks:
    """What one Kafka Streams instance says it runs (task ids as ``0_1``)."""

    consumer_client_id: str
    active: frozenset[str]
    standby: frozenset[str]


class StreamsApplication:
    """One Streams application (``application.id`` = the group id); a context manager.

    Topology: ``counted`` counted per key into a state store (subtopology 0, stateful) and
    ``piped`` upper-cased (subtopology 1, stateless); outputs ``<counted>-counts`` and
    ``<piped>-upper`` must exist.
    """

    def __init__(
        self,
        cluster: KafkaCluster,
        application_id: str,
        counted: str,
        piped: str,
        instances: Sequence[str],
        work_dir: Path,
    ) -> None:
        self.application_id = application_id
        self.log = work_dir / f"streams-{application_id}.out"
        state_dir = work_dir / f"streams-state-{application_id}"
        state_dir.mkdir(parents=True, exist_ok=True)
        command = [
            "java", "-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-cp", f"{compiled_classes(cluster, 'StreamsApp')}:{classpath()}",
            "StreamsApp", cluster.bootstrap, application_id, str(state_dir), counted, piped,
            *instances,
        ]  # fmt: skip
        with open(self.log, "wb") as out:
            self.process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT, text=True
            )

    def _send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def start(self, instance: str) -> None:
        self._send(f"start {instance}")

    def stop(self, instance: str) -> None:
        self._send(f"stop {instance}")

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def tasks(self) -> dict[str, InstanceTasks]:
        """Each running instance's latest report of its own tasks."""
        reported: dict[str, InstanceTasks] = {}
        for line in self.output().splitlines():
            words = line.split()
            if len(words) == 5 and words[0] == "tasks":
                active, standby = (word.split("=", 1)[1] for word in words[3:5])
                reported[words[1]] = InstanceTasks(
                    consumer_client_id=words[2],
                    active=frozenset(filter(None, active.split(","))),
                    standby=frozenset(filter(None, standby.split(","))),
                )
            elif len(words) == 2 and words[0] == "stopped":
                reported.pop(words[1], None)
        return reported

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self._send("quit")
                self.process.stdin.close()  # type: ignore[union-attr]
                self.process.wait(timeout=90)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait(timeout=10)

    def __enter__(self) -> StreamsApplication:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

"""A Kafka Streams application for the tests: real ``KafkaStreams`` instances with
``group.protocol=streams`` (KIP-1071).

``java/StreamsApp.java`` (compiled once per session against the cluster's own kafka-streams
jar) runs the instances of one application, each a ``KafkaStreams`` with its own state
directory (one stream thread, or ``N`` for an instance given as ``name:N``), in one JVM.
:class:`StreamsApplication` starts it, sends ``start``/``stop`` commands on its stdin and reads
what each instance reports about its own tasks (``tasks INSTANCE CONSUMER_CLIENT_IDS active=...
standby=...`` lines, kept in a file under the test's folder).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.kafka_cluster.cluster import KafkaCluster
from tests.kafka_cluster.java_members import JavaProgram


@dataclass(frozen=True, slots=True)
class InstanceTasks:
    """What one Kafka Streams instance says it runs (task ids as ``0_1``)."""

    consumer_client_id: str
    active: frozenset[str]
    standby: frozenset[str]


class StreamsApplication(JavaProgram):
    """One Streams application (``application.id`` = the group id); a context manager.

    Topology: ``counted`` counted per key into a state store (subtopology 0, stateful) and
    ``piped`` upper-cased (subtopology 1, stateless); outputs ``<counted>-counts`` and
    ``<piped>-upper`` must exist.
    """

    QUIT_TIMEOUT_S = 90.0

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
        state_dir = work_dir / f"streams-state-{application_id}"
        state_dir.mkdir(parents=True, exist_ok=True)
        super().__init__(
            cluster,
            "StreamsApp",
            [cluster.bootstrap, application_id, str(state_dir), counted, piped, *instances],
            work_dir / f"streams-{application_id}.out",
            heap="192m",
        )

    def start(self, instance: str) -> None:
        """Start ``instance`` (``name`` or ``name:threads``)."""
        self._send(f"start {instance}")

    def stop(self, name: str) -> None:
        self._send(f"stop {name}")

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

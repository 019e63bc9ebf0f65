"""Share consumers for the tests: real Java ``KafkaShareConsumer`` s (KIP-932), and
librdkafka's (confluent-kafka ``ShareConsumer``).

A share consumer does not expose its assignment; what it receives shows it. ``ShareMembers``
(``java/ShareMembers.java``, compiled once per session) runs the Java members of one share group
in one JVM together with a producer that writes a record to every partition of the topics every
100 ms; each member prints the partitions it received records from in the last 2 seconds.
:class:`ConfluentShareMember` does the same in a Python thread with confluent-kafka.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.kafka_cluster.cluster import KafkaCluster
from tests.kafka_cluster.java_members import JavaProgram

#: How recent a record must be for its partition to count as held (seconds).
WINDOW_S = 2.0


class JavaShareGroup(JavaProgram):
    """Java share consumers of one group (and the producer feeding them); a context manager."""

    def __init__(
        self,
        cluster: KafkaCluster,
        group_id: str,
        topics: Sequence[str],
        members: Sequence[str],
        log_dir: Path,
    ) -> None:
        self.group_id = group_id
        super().__init__(
            cluster,
            "ShareMembers",
            [cluster.bootstrap, group_id, ",".join(topics), *members],
            log_dir / f"share-{group_id}.out",
        )

    def join(self, member: str) -> None:
        self._send(f"join {member}")

    def leave(self, client_id: str) -> None:
        self._send(f"leave {client_id}")

    def holds(self) -> dict[str, frozenset[tuple[str, int]]]:
        """Each running member's latest report: the partitions it receives records from."""
        return self.latest("holds", gone="left")


class ConfluentShareMember:
    """One librdkafka share consumer polled in a thread; ``holds()`` as for the Java members."""

    def __init__(
        self, cluster: KafkaCluster, group_id: str, topics: Sequence[str], client_id: str
    ) -> None:
        from confluent_kafka import ShareConsumer

        self.client_id = client_id
        self._consumer: Any = ShareConsumer(
            {"bootstrap.servers": cluster.bootstrap, "group.id": group_id,
             "client.id": client_id}
        )  # fmt: skip
        self._consumer.subscribe(list(topics))
        self._seen: dict[tuple[str, int], float] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.errors: list[str] = []
        self._thread = threading.Thread(target=self._run, name=f"share-{client_id}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                messages = list(self._consumer.poll(0.1))
            except Exception as error:  # kept for the test's failure message
                self.errors.append(repr(error))
                time.sleep(0.2)
                continue
            now = time.monotonic()
            with self._lock:
                for message in messages:
                    if message is not None and message.error() is None:
                        self._seen[(message.topic(), message.partition())] = now
        self._consumer.close()

    def holds(self) -> frozenset[tuple[str, int]]:
        now = time.monotonic()
        with self._lock:
            return frozenset(key for key, seen in self._seen.items() if now - seen <= WINDOW_S)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=60)

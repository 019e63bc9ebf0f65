"""Share consumers for the tests: real Java ``KafkaShareConsumer`` s (KIP-932), and
librdkafka's (confluent-kafka ``ShareConsumer``).

A share consumer does not expose its assignment; what it receives shows it. ``ShareMembers``
(``java/ShareMembers.java``, compiled once per session) runs the Java members of one share group
in one JVM together with a producer that writes a record to every partition of the topics every
100 ms; each member prints the partitions it received records from in the last 2 seconds.
:class:`ConfluentShareMember` does the same in a Python thread with confluent-kafka.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from tests.kafka_cluster.cluster import KafkaCluster, classpath
from tests.kafka_cluster.java_members import compiled_classes

#: How recent a record must be for its partition to count as held (seconds).
WINDOW_S = 2.0


class JavaShareGroup:
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
        self.log = log_dir / f"share-{group_id}.out"
        command = [
            "java", "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-cp", f"{compiled_classes(cluster, 'ShareMembers')}:{classpath()}",
            "ShareMembers", cluster.bootstrap, group_id, ",".join(topics), *members,
        ]  # fmt: skip
        with open(self.log, "wb") as out:
            self.process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT, text=True
            )

    def _send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def join(self, member: str) -> None:
        self._send(f"join {member}")

    def leave(self, client_id: str) -> None:
        self._send(f"leave {client_id}")

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def holds(self) -> dict[str, frozenset[tuple[str, int]]]:
        """Each running member's latest report: the partitions it receives records from."""
        held: dict[str, frozenset[tuple[str, int]]] = {}
        for line in self.output().splitlines():
            words = line.split(" ")
            if words[0] == "holds" and len(words) == 3:
                pairs = (item.rsplit("-", 1) for item in words[2].split(",") if item)
                held[words[1]] = frozenset((topic, int(p)) for topic, p in pairs)
            elif words[0] == "left" and len(words) == 2:
                held.pop(words[1], None)
        return held

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self._send("quit")
                self.process.stdin.close()  # type: ignore[union-attr]
                self.process.wait(timeout=60)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait(timeout=10)

    def __enter__(self) -> JavaShareGroup:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


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

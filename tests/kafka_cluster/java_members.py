"""Java consumers for the tests: real ``KafkaConsumer`` s with ``group.protocol=consumer`` (or
``classic``).

kafka-python does not speak the consumer rebalance protocol, so a small Java program
(``java/GroupMembers.java``, compiled once per session against the cluster's own kafka-clients
jar) runs the members of one group, each in its own thread of one JVM. :class:`JavaGroup` starts
it, sends ``join``/``leave`` commands on its stdin and stops it; its output (``assigned CLIENT
t-p,...`` lines) is kept in a file under the test's folder.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from tests.kafka_cluster.cluster import HERE, KafkaCluster, classpath

_COMPILE_LOCK = threading.Lock()


def compiled_classes(cluster: KafkaCluster, program: str = "GroupMembers") -> Path:
    """``java/<program>.java`` compiled into the cluster's folder (once per session)."""
    classes = cluster.work_dir / "java-classes"
    with _COMPILE_LOCK:
        if not (classes / f"{program}.class").is_file():
            classes.mkdir(exist_ok=True)
            subprocess.run(
                ["javac", "-cp", classpath(), "-d", str(classes),
                 str(HERE / "java" / f"{program}.java")],
                check=True, capture_output=True, text=True,
            )  # fmt: skip
    return classes


class JavaGroup:
    """One KIP-848 group of Java consumers; use as a context manager (all leave at the end).

    ``members`` are ``clientId[:rack[:instanceId]]``; ``subscription`` is ``topic,topic`` or
    ``re:REGEX``; ``assignor`` is ``uniform`` or ``range`` (``group.remote.assignor``), or
    ``classic:NAME`` for classic-protocol members with Java's client assignor ``NAME``
    (``range``, ``roundrobin``, ``sticky``, ``cooperative-sticky``).
    """

    def __init__(
        self,
        cluster: KafkaCluster,
        group_id: str,
        assignor: str,
        subscription: str,
        members: Sequence[str],
        log_dir: Path,
    ) -> None:
        self.group_id = group_id
        self.log = log_dir / f"java-{group_id}.out"
        command = [
            "java", "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-cp", f"{compiled_classes(cluster)}:{classpath()}",
            "GroupMembers", cluster.bootstrap, group_id, assignor, subscription, *members,
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

    def assignments(self) -> dict[str, frozenset[tuple[str, int]]]:
        """Each running member's latest ``assigned`` report: the partitions it owns."""
        owned: dict[str, frozenset[tuple[str, int]]] = {}
        for line in self.output().splitlines():
            words = line.split(" ")
            if words[0] == "assigned" and len(words) == 3:
                pairs = (item.rsplit("-", 1) for item in words[2].split(",") if item)
                owned[words[1]] = frozenset((topic, int(p)) for topic, p in pairs)
            elif words[0] == "left" and len(words) == 2:
                owned.pop(words[1], None)
        return owned

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self._send("quit")
                self.process.stdin.close()  # type: ignore[union-attr]
                self.process.wait(timeout=60)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait(timeout=10)

    def __enter__(self) -> JavaGroup:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

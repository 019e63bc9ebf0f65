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
from typing import Self

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


class JavaProgram:
    """A program of ``java/`` in its own JVM, driven by one command a line on its stdin, its
    output kept in ``log``. A context manager: at the end it is sent ``quit`` and waited for
    (killed if it does not exit within :attr:`QUIT_TIMEOUT_S`)."""

    QUIT_TIMEOUT_S = 60.0

    def __init__(
        self,
        cluster: KafkaCluster,
        program: str,
        arguments: Sequence[str],
        log: Path,
        heap: str = "128m",
    ) -> None:
        self.log = log
        command = [
            "java", f"-Xmx{heap}", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-cp", f"{compiled_classes(cluster, program)}:{classpath()}", program, *arguments,
        ]  # fmt: skip
        with open(self.log, "wb") as out:
            self.process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT, text=True
            )

    def _send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def latest(self, kind: str, gone: str) -> dict[str, frozenset[tuple[str, int]]]:
        """Each running member's latest ``KIND MEMBER t-p,...`` report (a ``GONE MEMBER`` line
        forgets it)."""
        latest: dict[str, frozenset[tuple[str, int]]] = {}
        for line in self.output().splitlines():
            words = line.split(" ")
            if words[0] == kind and len(words) == 3:
                pairs = (item.rsplit("-", 1) for item in words[2].split(",") if item)
                latest[words[1]] = frozenset((topic, int(p)) for topic, p in pairs)
            elif words[0] == gone and len(words) == 2:
                latest.pop(words[1], None)
        return latest

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self._send("quit")
                self.process.stdin.close()  # type: ignore[union-attr]
                self.process.wait(timeout=self.QUIT_TIMEOUT_S)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait(timeout=10)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class JavaGroup(JavaProgram):
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
        super().__init__(
            cluster,
            "GroupMembers",
            [cluster.bootstrap, group_id, assignor, subscription, *members],
            log_dir / f"java-{group_id}.out",
        )

    def join(self, member: str) -> None:
        self._send(f"join {member}")

    def leave(self, client_id: str) -> None:
        self._send(f"leave {client_id}")

    def hold(self, client_id: str) -> None:
        """Make ``client_id``'s next revocation wait (the group stays mid-reconciliation)."""
        self._send(f"hold {client_id}")

    def release(self, client_id: str) -> None:
        """Let ``client_id``'s held revocation finish."""
        self._send(f"release {client_id}")

    def holding(self) -> dict[str, frozenset[tuple[str, int]]]:
        """Each member whose revocation is being held, with what it is revoking."""
        return self.latest("holding", gone="release")

    def assignments(self) -> dict[str, frozenset[tuple[str, int]]]:
        """Each running member's latest ``assigned`` report: the partitions it owns."""
        return self.latest("assigned", gone="left")

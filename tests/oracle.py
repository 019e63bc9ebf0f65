"""Kafka's own Java assignors as a test oracle: one JVM per session, JSON lines both ways.

The oracle (``oracle/``, a Maven project; test-time only) answers the batch contract of
``python -m assignors batch`` by calling Kafka's classes. :func:`build` runs Maven (idempotent,
jars cached in ``~/.m2``); :class:`Oracle` starts one JVM for a Kafka version and answers
requests in bulk (a writer thread feeds stdin while a reader thread collects answers, so no
pipe fills up).

Kafka's sticky assignors never return on some groups (their rebalancing loop repeats for ever:
``assignors/client/sticky.py``, general step 4). An answer that takes longer than
``answer_limit_s`` is therefore an answer too: ``{"id", "error": UNFINISHED ...}``; the JVM,
still busy with it, is killed and a new one answers the requests after it.

Versions: any Kafka release (``"3.4.1"``); :data:`RELEASES` names the newest patch of each
release line 3.0 to 4.4 on Maven Central. :func:`maven_command` computes, per line, which oracle
classes the build leaves out (their Kafka classes are missing there): :data:`NEWEST` is the
default build, :data:`PREVIOUS` the newest 3.9.x.
"""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
import threading
from collections.abc import Iterable, Iterator
from contextlib import suppress
from pathlib import Path
from types import TracebackType
from typing import IO, Any

REPO = Path(__file__).resolve().parent.parent
ORACLE_DIR = REPO / "oracle"
#: The newest patch release of every Kafka release line the project reproduces, oldest first.
RELEASES: dict[str, str] = {
    "3.0": "3.0.2",
    "3.1": "3.1.2",
    "3.2": "3.2.3",
    "3.3": "3.3.2",
    "3.4": "3.4.1",
    "3.5": "3.5.2",
    "3.6": "3.6.2",
    "3.7": "3.7.2",
    "3.8": "3.8.1",
    "3.9": "3.9.2",
    "4.0": "4.0.2",
    "4.1": "4.1.2",
    "4.2": "4.2.2",
    "4.3": "4.3.1",
    "4.4": "4.4.0",
}
NEWEST = RELEASES["4.4"]
PREVIOUS = RELEASES["3.9"]
#: The first release line whose jars hold what each optional part of the oracle drives: the
#: pattern of its classes, and the line. Older builds leave those classes out and answer their
#: requests with an error (``Oracle.since``).
OPTIONAL_CLASSES: tuple[tuple[str, str, str], ...] = (
    ("oracle.exclude.server", "**/*ServerAssignor.java", "3.9"),
    ("oracle.exclude.share", "**/ShareAssignor.java", "3.9"),
    ("oracle.exclude.streams", "**/Streams*Assignor.java", "3.8"),
    ("oracle.exclude.streams.group", "**/StreamsGroupStickyAssignor.java", "4.4"),
)
#: Oracle classes that drive an interface only some lines have: the Maven property that leaves
#: them out (its default in ``pom.xml``), the first line that has the interface, and the line
#: that replaced it; the build for a line in that span compiles them (``-Dprop=none``).
LINE_RANGE_CLASSES: tuple[tuple[str, str, str], ...] = (
    ("oracle.exclude.streams.group.early", "4.1", "4.4"),
    ("oracle.exclude.kafka38", "3.8", "3.9"),
)
#: Maven switches that leave out the group coordinator's jars before the line that first has them.
MISSING_JARS: tuple[tuple[str, str], ...] = (
    ("oracle.no.coordinator", "3.4"),
    ("oracle.no.coordinator.api", "3.8"),
)
#: Seconds the oracle may take over one answer (a generated group takes milliseconds; the first
#: answer of a JVM includes loading Kafka's classes) before the request counts as never answered.
ANSWER_LIMIT_S = 60.0
#: How the error answer to a request Kafka did not finish begins.
UNFINISHED = "Kafka's assignor did not return within"


class OracleUnavailable(RuntimeError):
    """Java or Maven is missing, or the build failed: the message says which."""


def build_dir(version: str = NEWEST) -> Path:
    return ORACLE_DIR / "target" / f"kafka-{version}"


def build(version: str = NEWEST) -> Path:
    """Build the oracle for ``version`` unless its jar is newer than every source; its folder."""
    target = build_dir(version)
    jar = target / "oracle.jar"
    sources = [ORACLE_DIR / "pom.xml", *ORACLE_DIR.glob("src/**/*.java")]
    if jar.exists() and (target / "oracle.classpath").exists():
        built = jar.stat().st_mtime
        if all(source.stat().st_mtime <= built for source in sources):
            return target
    if shutil.which("mvn") is None or shutil.which("java") is None:
        raise OracleUnavailable("the oracle needs Java 17 and Maven (mvn) on the path")
    command = maven_command(version)
    done = subprocess.run(command, cwd=ORACLE_DIR, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise OracleUnavailable(f"building the oracle failed:\n{done.stdout[-4000:]}{done.stderr}")
    return target


def _line_key(version: str) -> tuple[int, int]:
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


def maven_command(version: str) -> list[str]:
    """The Maven command that builds the oracle for Kafka ``version`` into :func:`build_dir`."""
    older = [
        f"-D{prop}={pattern}"
        for prop, pattern, since in OPTIONAL_CLASSES
        if _line_key(version) < _line_key(since)
    ]
    absent = [f"-D{prop}" for prop, since in MISSING_JARS if _line_key(version) < _line_key(since)]
    spans = [
        f"-D{prop}=none"
        for prop, since, until in LINE_RANGE_CLASSES
        if _line_key(since) <= _line_key(version) < _line_key(until)
    ]
    return [
        "mvn",
        "-q",
        "-B",
        "-Dstyle.color=never",
        f"-Dkafka.version={version}",
        *absent,
        *older,
        *spans,
        "package",
    ]


def java_command(version: str = NEWEST) -> list[str]:
    """The command that runs the oracle for ``version`` (built already)."""
    target = build_dir(version)
    classpath = (target / "oracle.classpath").read_text(encoding="utf-8").strip()
    return ["java", "-Xss16m", "-cp", f"{target / 'oracle.jar'}:{classpath}", "oracle.Oracle"]


class Oracle:
    """One running oracle JVM; :meth:`answer_all` sends requests and returns answers in order.

    ``answer_limit_s``: how long one answer may take (``None``: no limit) before the request
    gets the :data:`UNFINISHED` error and the JVM is replaced."""

    def __init__(
        self, version: str = NEWEST, answer_limit_s: float | None = ANSWER_LIMIT_S
    ) -> None:
        build(version)
        self.version = version
        self.answer_limit_s = answer_limit_s
        self._lock = threading.Lock()
        self._start()

    def _start(self) -> None:
        self._process = subprocess.Popen(
            java_command(self.version),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )
        self._answers: queue.Queue[str | None] = queue.Queue()
        stdout = self._pipes()[1]
        threading.Thread(target=_read_lines, args=(stdout, self._answers), daemon=True).start()

    def answer_all(self, requests: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        """The oracle's answer to each request, in order (one JSON object each)."""
        asked = list(requests)
        lines = [json.dumps(request, separators=(",", ":")) for request in asked]
        answers: list[dict[str, Any]] = []
        with self._lock:
            while len(answers) < len(lines):
                pending = lines[len(answers) :]
                writer = threading.Thread(
                    target=_write_lines, args=(self._pipes()[0], pending), daemon=True
                )
                writer.start()
                for _ in pending:
                    line = self._next_answer()
                    if line is None:  # Kafka is still at it: the request is never answered
                        answers.append({"id": asked[len(answers)].get("id"), "error": self._late()})
                        self._replace()
                        break
                    answers.append(json.loads(line))
                writer.join()
        return answers

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        return self.answer_all([request])[0]

    def _next_answer(self) -> str | None:
        """The next answer line; ``None`` when none came within the limit."""
        try:
            line = self._answers.get(timeout=self.answer_limit_s)
        except queue.Empty:
            return None
        if line is None:
            raise OracleUnavailable("the oracle JVM ended before answering every request")
        return line

    def _late(self) -> str:
        return (
            f"{UNFINISHED} {self.answer_limit_s:g} s (the oracle JVM was stopped and replaced); "
            "it answers a generated group in milliseconds, so its assign call does not end"
        )

    def _replace(self) -> None:
        self._process.kill()
        self._process.wait()
        if self._process.stdin is not None:
            with suppress(OSError):
                self._process.stdin.close()
        self._start()

    def _pipes(self) -> tuple[IO[str], IO[str]]:
        if self._process.stdin is None or self._process.stdout is None:
            raise OracleUnavailable("the oracle process has no pipes")
        return self._process.stdin, self._process.stdout

    def close(self) -> None:
        if self._process.stdin is not None:
            with suppress(OSError):
                self._process.stdin.close()
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()

    def __enter__(self) -> Oracle:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()


def _write_lines(stream: IO[str], lines: Iterator[str] | list[str]) -> None:
    """Feed ``lines``; stops quietly when the JVM is killed under it (a request it never ended)."""
    with suppress(OSError, ValueError):
        for line in lines:
            stream.write(line)
            stream.write("\n")
        stream.flush()


def _read_lines(stream: IO[str], into: queue.Queue[str | None]) -> None:
    """Every answer line into ``into``, then ``None`` when the JVM's output ends."""
    with suppress(OSError, ValueError):
        for line in stream:
            into.put(line)
    into.put(None)


if __name__ == "__main__":
    import sys

    # ``python -m tests.oracle command 3.4`` prints the Maven command for that line's release;
    # ``python -m tests.oracle build 3.4 3.5`` builds those lines (``all``: every line).
    action, *lines = sys.argv[1:]
    for line in list(RELEASES) if lines == ["all"] else lines:
        release = RELEASES.get(line, line)
        if action == "command":
            print(" ".join(maven_command(release)))
        else:
            print(build(release))

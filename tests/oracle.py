"""Kafka's own Java assignors as a test oracle: one JVM per session, JSON lines both ways.

The oracle (``oracle/``, a Maven project; test-time only) answers the batch contract of
``python -m assignors batch`` by calling Kafka's classes. :func:`build` runs Maven (idempotent,
jars cached in ``~/.m2``); :class:`Oracle` starts one JVM for a Kafka version and answers
requests in bulk (a writer thread feeds stdin while answers are read, so no pipe fills up).

Versions: :data:`NEWEST` (the default build) and :data:`PREVIOUS` (the newest 3.9.x, Maven
profile ``kafka-3.9``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import IO, Any

REPO = Path(__file__).resolve().parent.parent
ORACLE_DIR = REPO / "oracle"
NEWEST = "4.4.0"
PREVIOUS = "3.9.2"
#: Maven profile per Kafka version (the newest needs none).
PROFILES = {NEWEST: (), PREVIOUS: ("-Pkafka-3.9",)}


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
    command = ["mvn", "-q", "-B", "-Dstyle.color=never", *PROFILES[version], "package"]
    done = subprocess.run(command, cwd=ORACLE_DIR, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise OracleUnavailable(f"building the oracle failed:\n{done.stdout[-4000:]}{done.stderr}")
    return target


def java_command(version: str = NEWEST) -> list[str]:
    """The command that runs the oracle for ``version`` (built already)."""
    target = build_dir(version)
    classpath = (target / "oracle.classpath").read_text(encoding="utf-8").strip()
    return ["java", "-Xss16m", "-cp", f"{target / 'oracle.jar'}:{classpath}", "oracle.Oracle"]


class Oracle:
    """One running oracle JVM; :meth:`answer_all` sends requests and returns answers in order."""

    def __init__(self, version: str = NEWEST) -> None:
        build(version)
        self.version = version
        self._process = subprocess.Popen(
            java_command(version),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )
        self._lock = threading.Lock()

    def answer_all(self, requests: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        """The oracle's answer to each request, in order (one JSON object each)."""
        lines = [json.dumps(request, separators=(",", ":")) for request in requests]
        with self._lock:
            stdin, stdout = self._pipes()
            writer = threading.Thread(target=_write_lines, args=(stdin, lines), daemon=True)
            writer.start()
            answers = [json.loads(_read_line(stdout)) for _ in lines]
            writer.join()
        return answers

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        return self.answer_all([request])[0]

    def _pipes(self) -> tuple[IO[str], IO[str]]:
        if self._process.stdin is None or self._process.stdout is None:
            raise OracleUnavailable("the oracle process has no pipes")
        return self._process.stdin, self._process.stdout

    def close(self) -> None:
        if self._process.stdin is not None:
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
    for line in lines:
        stream.write(line)
        stream.write("\n")
    stream.flush()


def _read_line(stream: IO[str]) -> str:
    line = stream.readline()
    if not line:
        raise OracleUnavailable("the oracle JVM ended before answering every request")
    return line

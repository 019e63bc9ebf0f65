"""noida-db, a small Kafka-protocol server, for the tests: the session fixture ``kafka_broker``.

The broker tests run on Apache Kafka (``tests/kafka_cluster/``, fixture ``kafka_cluster``).
noida-db stays for what it still adds: a second, non-Apache implementation that kafka-python
speaks to at older request versions (API version 3.3). It also holds the helpers both share
(:class:`BrokerClientHelpers`, :class:`PolledConsumer`, :func:`unique_name`).

The broker is noida-db 0.2.3 (a test extra), a single native binary that speaks the Kafka wire
protocol. The fixture runs that binary directly (not through noida-db's console script, which only
wraps it) as::

    <site-packages>/noida_db/noida-db start --only kafka --host 127.0.0.1 \
        --kafka-port PORT --data-dir TMPDIR

on a free loopback port with a fresh data directory, waits (bounded) until the port accepts TCP
connections and yields a :class:`KafkaBroker` whose ``bootstrap`` is ``"127.0.0.1:PORT"``. At the
end of the session the process gets SIGTERM, then SIGKILL if it has not exited within 10 s.

If the broker cannot start, every test that uses the fixture fails (pytest reports an error in
setup, with the reason and the tail of the binary's stderr). It never skips: CI must run these
tests.

Use it::

    @pytest.mark.broker
    def test_something(kafka_broker: KafkaBroker) -> None:
        kafka_broker.create_topic("orders", partitions=6)
        consumer = KafkaConsumer("orders", bootstrap_servers=kafka_broker.bootstrap, ...)

Topic and group names are shared by the whole session: give each test its own names (for example
with :func:`unique_name`).

Quirks of noida-db 0.2.3 seen with kafka-python 3.0.12 (worth knowing before you write a test):

- The binary prints ``weak version `GLIBC_2.39' not found`` on stderr on this machine's glibc and
  runs fine anyway; that line in a failure message is not the cause.
- kafka-python negotiates API version (3, 3) with it. Topics ``__consumer_offsets`` and
  ``__transaction_state`` exist from the start and show in ``list_topics``.
- ``create_topics`` answers at once and the topic is usable right away (replication factor 1).
- Group coordination is the classic protocol (JoinGroup/SyncGroup). Several consumers of one group
  polled in ONE thread round-robin do not settle: a consumer's ``poll`` blocks in JoinGroup until
  the others have joined, so the group keeps rebalancing. Poll each consumer in its own thread
  (see :class:`PolledConsumer`); with threads a group of 3 is Stable in well under a second.
- Now and then (2 of 25 eager joins in one measurement, while consumers were fetching) noida-db
  completes a rebalance but never sends the JoinGroup response to a follower: the leader's
  response lists the follower, the follower's request just stays open, and the next rebalance
  waits for it in ``PreparingRebalance``. kafka-python waits for that response up to
  ``max_poll_interval_ms`` + 5 s (default: over 5 minutes). Use :data:`CONSUMER_TEST_CONFIG`
  (``max_poll_interval_ms`` 6000, the rebalance timeout): after 6 s the broker completes a new
  generation, answers the waiting request with it, and the group settles within about 7 s. That
  follower may then get an empty SyncGroup assignment, which kafka-python 3.0.12 cannot decode
  (``struct.error`` out of ``poll``); polling again recovers (``PolledConsumer`` keeps polling and
  records the error). Allow ~40 s per membership change.
  Cooperative rebalancing hits this on nearly every join (9 of 10 joins took ~6.3 s), since the
  leader rejoins for the second round right after the first; a rebalance listener that takes
  ~1 s in ``on_partitions_revoked`` avoided it in 10 of 10 joins (see
  tests/assignors/test_kafka_python_adapters.py). kafka-python's own range and cooperative-sticky
  assignors show the same, so it is not an adapter problem.
- Rarely (seen once in a CI run, with the lag-aware leader reading offsets while it assigned), a
  member ends up in a Stable group whose leader assigned without it: it holds nothing and no
  rebalance follows. The adapter tests detect exactly that state and make the member rejoin.
- ``KafkaAdminClient.describe_groups`` answers with the members' subscription metadata and
  assignment decoded as kafka-python's ConsumerProtocol (``member_metadata.topics``,
  ``member_metadata.user_data`` as a str, ``member_assignment.assigned_partitions``), for custom
  protocol names too; the group's ``protocol_data`` is the chosen assignor name. During a
  rebalance the state is ``PreparingRebalance``/``CompletingRebalance`` and assignments are empty;
  wait for ``Stable``.
- Data lives under the data dir only; the control file ``noida.control.json`` is written there.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from kafka.errors import KafkaError

from tests.ports import free_port

START_TIMEOUT_S = 30.0
#: Consumer settings for tests against noida-db: short rebalance and request timeouts so a lost
#: JoinGroup response (see the module docstring) costs seconds, not minutes.
CONSUMER_TEST_CONFIG: dict[str, int] = {
    "session_timeout_ms": 6000,
    "heartbeat_interval_ms": 300,
    "max_poll_interval_ms": 6000,
    "request_timeout_ms": 7000,
}
STOP_TIMEOUT_S = 10.0
STDERR_TAIL_CHARS = 2000


class BrokerStartError(RuntimeError):
    """noida-db did not start or did not open its Kafka port in time."""


def noida_binary() -> Path:
    """The native noida-db binary shipped inside the installed ``noida_db`` package."""
    try:
        import noida_db
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise BrokerStartError(
            "noida-db is not installed: install the test extras (pip install -e '.[test]')"
        ) from exc
    binary = Path(noida_db.__file__).parent / ("noida-db.exe" if os.name == "nt" else "noida-db")
    if not binary.is_file():
        raise BrokerStartError(f"noida-db binary not found at {binary}")
    if not os.access(binary, os.X_OK):
        binary.chmod(0o755)
    return binary


def unique_name(prefix: str) -> str:
    """A topic or group name no other test of the session uses."""
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


_SHARED_ADMINS: dict[str, Any] = {}
_SHARED_ADMINS_LOCK = threading.Lock()


class BrokerClientHelpers:
    """Admin, topic, produce and group helpers for any broker or cluster with a ``bootstrap``.

    Shared by :class:`KafkaBroker` (noida-db) and ``tests.kafka_cluster.cluster.KafkaCluster``
    (Apache Kafka); ``replication_factor`` is what new topics get.
    """

    __slots__ = ()
    bootstrap: str
    replication_factor: int

    def admin(self, client_id: str = "ae-tests-admin") -> Any:
        """A new kafka-python ``KafkaAdminClient`` for this broker; the caller closes it."""
        from kafka import KafkaAdminClient

        return KafkaAdminClient(bootstrap_servers=self.bootstrap, client_id=client_id)

    def create_topic(self, name: str, partitions: int) -> str:
        """Create ``name`` with ``partitions`` partitions; returns the name."""
        return self.create_topics({name: partitions})[0]

    def create_topics(
        self, partitions_by_topic: dict[str, int], replication_factor: int | None = None
    ) -> list[str]:
        """Create the topics (``replication_factor`` or the broker's own); returns the names."""
        from kafka.admin import NewTopic

        replicas = self.replication_factor if replication_factor is None else replication_factor

        admin = self.admin()
        try:
            admin.create_topics(
                [NewTopic(name, count, replicas) for name, count in partitions_by_topic.items()]
            )
        finally:
            admin.close()
        return list(partitions_by_topic)

    def create_placed_topic(self, name: str, replicas: dict[int, list[int]]) -> str:
        """Create ``name`` with each partition's replicas on the given broker ids; its name."""
        from kafka.admin import NewTopic

        admin = self.admin()
        try:
            admin.create_topics([NewTopic(name, replica_assignments=replicas)])
        finally:
            admin.close()
        return name

    def produce(self, topic: str, messages_by_partition: dict[int, int]) -> None:
        """Write ``count`` small records to each given partition of ``topic``."""
        from kafka import KafkaProducer

        producer = KafkaProducer(bootstrap_servers=self.bootstrap, linger_ms=5)
        try:
            for partition, count in messages_by_partition.items():
                for index in range(count):
                    producer.send(topic, value=b"m%d" % index, partition=partition)
            producer.flush(timeout=30)
        finally:
            producer.close(timeout=10)

    def describe_group(self, group_id: str) -> dict[str, Any]:
        """kafka-python's ``describe_groups`` answer for one group.

        Tests poll this several times a second while a group settles, so one admin client per
        broker is kept (a new client per call costs a bootstrap each time on a loaded machine).
        """
        with _SHARED_ADMINS_LOCK:
            admin = _SHARED_ADMINS.get(self.bootstrap)
            if admin is None:
                admin = _SHARED_ADMINS[self.bootstrap] = self.admin("ae-tests-describe")
            try:
                return dict(admin.describe_groups([group_id])[group_id])
            except Exception:
                _SHARED_ADMINS.pop(self.bootstrap, None)
                with contextlib.suppress(Exception):
                    admin.close()
                raise

    def wait_for_stable_group(
        self,
        group_id: str,
        members: int,
        timeout_s: float = 30.0,
        settled: Callable[[dict[str, Any]], bool] | None = None,
    ) -> dict[str, Any]:
        """Poll ``describe_groups`` until the group is Stable with ``members`` members.

        ``settled`` may add a condition on the description (for example that every assignable
        partition is assigned). Raises ``AssertionError`` with the last description on timeout.
        """
        deadline = time.monotonic() + timeout_s
        description: dict[str, Any] = {}
        while time.monotonic() < deadline:
            try:
                description = self.describe_group(group_id)
            except KafkaError as error:  # e.g. the coordinator moving: ask again
                if not error.retriable:
                    raise
                time.sleep(0.2)
                continue
            if (
                description.get("group_state") == "Stable"
                and len(description.get("members", [])) == members
                and (settled is None or settled(description))
            ):
                return description
            time.sleep(0.2)
        raise AssertionError(
            f"group {group_id!r} not Stable with {members} members after {timeout_s:.0f} s; "
            f"last description: {description!r}"
        )


@dataclass(slots=True)
class KafkaBroker(BrokerClientHelpers):
    """A running noida-db Kafka broker: where to connect and a few helpers."""

    bootstrap: str
    data_dir: Path
    process: subprocess.Popen[bytes] = field(repr=False)
    stderr_path: Path = field(repr=False)
    replication_factor: int = 1


def _stderr_tail(path: Path) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return "(no stderr captured)"
    return text[-STDERR_TAIL_CHARS:].strip() or "(stderr empty)"


def _port_accepts(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def stop_broker(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL if the process is still alive after ``STOP_TIMEOUT_S``."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=STOP_TIMEOUT_S)


def start_broker(data_dir: Path, timeout_s: float = START_TIMEOUT_S) -> KafkaBroker:
    """Start noida-db's Kafka service on a free loopback port; raise ``BrokerStartError``."""
    binary = noida_binary()
    failures: list[str] = []
    for attempt in range(3):  # another process may grab the free port between probe and bind
        port = free_port()
        attempt_dir = data_dir / f"attempt-{attempt}"
        attempt_dir.mkdir(parents=True, exist_ok=True)
        stderr_path = attempt_dir / "noida-db.stderr"
        stdout_path = attempt_dir / "noida-db.stdout"
        command = [
            str(binary),
            "start",
            "--only",
            "kafka",
            "--host",
            "127.0.0.1",
            "--kafka-port",
            str(port),
            "--data-dir",
            str(attempt_dir),
        ]
        with open(stdout_path, "wb") as stdout, open(stderr_path, "wb") as stderr:
            process = subprocess.Popen(
                command, stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL
            )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if process.poll() is not None:
                break
            if _port_accepts(port):
                return KafkaBroker(f"127.0.0.1:{port}", attempt_dir, process, stderr_path)
            time.sleep(0.1)
        exit_code = process.poll()
        stop_broker(process)
        reason = (
            f"exited with code {exit_code}"
            if exit_code is not None
            else f"did not accept connections on 127.0.0.1:{port} within {timeout_s:.0f} s"
        )
        failures.append(
            f"attempt {attempt + 1}: `{' '.join(command)}` {reason}; stderr tail:\n"
            f"{_stderr_tail(stderr_path)}"
        )
    raise BrokerStartError("noida-db Kafka broker did not start.\n" + "\n".join(failures))


@contextlib.contextmanager
def running_broker(data_dir: Path | None = None) -> Iterator[KafkaBroker]:
    """Context manager form, for scripts and examples outside pytest."""
    with contextlib.ExitStack() as stack:
        if data_dir is None:
            data_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="noida-")))
        broker = start_broker(data_dir)
        try:
            yield broker
        finally:
            stop_broker(broker.process)


@pytest.fixture(scope="session")
def kafka_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafkaBroker]:
    """The session's broker (noida-db on 127.0.0.1); fails, never skips, if it cannot start."""
    data_dir = tmp_path_factory.mktemp("noida-db")
    try:
        broker = start_broker(data_dir)
    except BrokerStartError as exc:
        pytest.fail(str(exc), pytrace=False)
    try:
        yield broker
    finally:
        stop_broker(broker.process)


class PolledConsumer:
    """A kafka-python consumer polled in its own daemon thread until :meth:`close`.

    Only that thread calls ``poll`` while it runs; reading ``assignment()`` from another thread is
    fine for tests. ``close`` stops the thread, then closes the consumer (which leaves the group).
    An exception from ``poll`` is recorded in :attr:`errors` and polling goes on, as a service's
    poll loop would: with noida-db a rebalance can hand a member an empty assignment, which
    kafka-python fails to decode once and then recovers from by rejoining (see the module
    docstring). Tests assert on the group's settled state, and may inspect ``errors``.

    Polls last up to a second, as a service's would. Shorter polls trip a kafka-python 3.0.12
    race: when a leader's assignment (the lag-aware adapter reads offsets from the cluster
    there) outlasts ``poll(timeout_ms=...)`` on a rejoin that metadata started, the join
    finishes unobserved, heartbeats never resume, and the broker drops the member for good.
    """

    def __init__(self, consumer: Any, poll_timeout_ms: int = 1000) -> None:
        self.consumer = consumer
        self._stop = threading.Event()
        self._errors: list[BaseException] = []
        self._thread = threading.Thread(
            target=self._loop,
            args=(poll_timeout_ms,),
            name=f"poll-{next(_THREAD_IDS)}",
            daemon=True,
        )
        self._thread.start()

    def _loop(self, poll_timeout_ms: int) -> None:
        while not self._stop.is_set():
            try:
                self.consumer.poll(timeout_ms=poll_timeout_ms)
            except Exception as exc:  # see the class docstring
                self._errors.append(exc)
                time.sleep(poll_timeout_ms / 1000)

    @property
    def errors(self) -> list[BaseException]:
        return list(self._errors)

    def close(self, timeout_s: float = 15.0) -> None:
        self._stop.set()
        self._thread.join(timeout=timeout_s)
        self.consumer.close(timeout_ms=int(timeout_s * 1000))


_THREAD_IDS = itertools.count()

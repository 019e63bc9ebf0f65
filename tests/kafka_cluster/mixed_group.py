"""One classic consumer group of different clients, driven and watched by a test.

Members are told apart by their client id's first letter: ``j*`` are Java ``KafkaConsumer`` s
(one JVM, :class:`~tests.kafka_cluster.java_members.JavaGroup`, Kafka's own assignor of the
group's protocol), ``p*`` are kafka-python consumers running our adapter of that protocol, ``r*``
are librdkafka (confluent-kafka) consumers. All subscribe to the same topics and announce the
same protocol name, so whichever member the broker makes leader assigns for all.

Each side records when its member leads (Java prints ``leads``; our adapter is subclassed to
record; librdkafka says so in its debug log), so a test can tell who computed each assignment.

What is checked, and how:

* :class:`OwnershipWatch` reads every member's owned partitions ten times a second in a thread of
  its own and keeps every partition it finds owned by two members at once. Members are read one
  after another, so a partition seen with member A and then with member B could have moved in
  between; a double is kept only when A, read again after B, still owns it (A held it before and
  after B was seen holding it).
* :meth:`MixedGroup.change` runs one membership change and waits (bounded) until the reader
  (DescribeGroups) reports a Stable group of the expected members in which every member owns
  exactly what the broker says it was assigned, every partition is assigned once, and nothing
  changed for ``QUIET_S``. Every reading of the reader is checked for a partition assigned twice.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cluster.connection import ConnectionSettings
from cluster.errors import ConsumerProtocolGroupError, GroupNotFoundError
from cluster.reader import ClusterReader, GroupDescription
from tests.kafka_broker import PolledConsumer
from tests.kafka_cluster.cluster import CONSUMER_TEST_CONFIG, KafkaCluster
from tests.kafka_cluster.java_members import JavaGroup
from tests.kafka_cluster.librdkafka_members import LibrdkafkaMember

Partition = tuple[str, int]
Owned = dict[str, frozenset[Partition]]  # client id -> partitions

STEP_TIMEOUT_S = 120.0  # generous: the 2-core machine is often shared by several test runs
#: How long the agreed state must stay unchanged (a cooperative change takes two rounds).
QUIET_S = 3.0
WATCH_INTERVAL_S = 0.1
SIDES = {"j": "Java", "p": "ours", "r": "librdkafka"}


def side(client_id: str) -> str:
    """The kind of client a member is, from its client id's first letter."""
    return SIDES[client_id[0]]


def _recording(adapter: type[Any], client_id: str, leads: list[str], rack: str | None) -> Any:
    """An instance of our adapter ``adapter`` that appends ``client_id`` to ``leads`` on assign."""

    class Recording(adapter):  # type: ignore[misc]
        def assign(self, cluster: Any, members: Any) -> Any:
            leads.append(client_id)
            return super().assign(cluster, members)

    return Recording(client_rack=rack)


@dataclass(frozen=True, slots=True)
class Double:
    """A partition two members owned at once, as :class:`OwnershipWatch` saw it."""

    partition: Partition
    first: str
    second: str


class OwnershipWatch:
    """Reads every member's owned partitions until stopped; keeps each confirmed double."""

    def __init__(self, readers: Callable[[], dict[str, Callable[[], frozenset[Partition]]]]):
        self._readers = readers
        self.readings = 0
        self.doubles: list[Double] = []
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ownership-watch", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(WATCH_INTERVAL_S):
            try:
                self.doubles.extend(read_once(self._readers()))
            except Exception as error:  # a member closing under the reading: read on
                self.errors.append(repr(error))
                continue
            self.readings += 1

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)


def read_once(readers: dict[str, Callable[[], frozenset[Partition]]]) -> list[Double]:
    """One reading of every member, with each apparent double confirmed as the module says."""
    seen: dict[Partition, str] = {}
    doubles: list[Double] = []
    for client_id, read in readers.items():
        for partition in read():
            first = seen.setdefault(partition, client_id)
            if first != client_id and partition in readers[first]():
                doubles.append(Double(partition, first, client_id))
    return doubles


@dataclass
class Settled:
    """A state the reader and every member agreed on, and who led the change to it."""

    owned: Owned
    leaders: list[str]
    readings: int  # how often the reader was read while the change settled


@dataclass
class MixedGroup:
    """A classic group of Java, kafka-python (our adapter) and librdkafka members."""

    cluster: KafkaCluster
    protocol: str  # "sticky" or "cooperative-sticky"
    adapter: type[Any]  # our kafka-python adapter of that protocol
    group_id: str
    topics: dict[str, int]  # name -> partitions
    log_dir: Path
    racks: dict[str, str] = field(default_factory=dict)  # client id -> client.rack, if any
    java: JavaGroup | None = None
    python: dict[str, PolledConsumer] = field(default_factory=dict)
    librdkafka: dict[str, LibrdkafkaMember] = field(default_factory=dict)
    python_leads: list[str] = field(default_factory=list)
    librdkafka_leads: list[str] = field(default_factory=list)
    java_members: set[str] = field(default_factory=set)
    state: Settled | None = None

    def __post_init__(self) -> None:
        self.reader = ClusterReader(ConnectionSettings(self.cluster.bootstrap, timeout_s=10.0))
        self.watch = OwnershipWatch(self.readers)

    # --- members ---------------------------------------------------------------------------

    def join(self, client_id: str) -> None:
        kind = side(client_id)
        rack = self.racks.get(client_id)
        if kind == "Java":
            spec = f"{client_id}:{rack}" if rack else client_id
            if self.java is None:
                self.java = JavaGroup(
                    self.cluster, self.group_id, f"classic:{self.protocol}",
                    ",".join(self.topics), [spec], self.log_dir,
                )  # fmt: skip
            else:
                self.java.join(spec)
            self.java_members.add(client_id)
        elif kind == "ours":
            from kafka import KafkaConsumer

            consumer = KafkaConsumer(
                bootstrap_servers=self.cluster.bootstrap,
                group_id=self.group_id,
                client_id=client_id,
                auto_offset_reset="earliest",
                enable_auto_commit=False,
                fetch_max_wait_ms=100,
                **CONSUMER_TEST_CONFIG,
                partition_assignment_strategy=[
                    _recording(self.adapter, client_id, self.python_leads, rack)
                ],
            )
            consumer.subscribe(list(self.topics))
            self.python[client_id] = PolledConsumer(consumer)
        else:
            self.librdkafka[client_id] = LibrdkafkaMember(
                self.cluster, self.group_id, list(self.topics), client_id,
                self.protocol, rack=rack, leads=self.librdkafka_leads,
            )  # fmt: skip

    def leave(self, client_id: str) -> None:
        kind = side(client_id)
        if kind == "Java":
            assert self.java is not None
            self.java_members.discard(client_id)
            self.java.leave(client_id)
        elif kind == "ours":
            self.python.pop(client_id).close()
        else:
            self.librdkafka.pop(client_id).close()

    @property
    def members(self) -> set[str]:
        return self.java_members | set(self.python) | set(self.librdkafka)

    def readers(self) -> dict[str, Callable[[], frozenset[Partition]]]:
        """How to read what each running member owns now."""
        readers: dict[str, Callable[[], frozenset[Partition]]] = {}
        for client_id in sorted(self.java_members):
            readers[client_id] = functools.partial(self._java_owned_by, client_id)
        for client_id, polled in list(self.python.items()):
            readers[client_id] = functools.partial(_kafka_python_owned, polled.consumer)
        for client_id, member in list(self.librdkafka.items()):
            readers[client_id] = member.owned
        return readers

    def _java_owned_by(self, client_id: str) -> frozenset[Partition]:
        owned = self.java.assignments() if self.java is not None else {}
        return owned.get(client_id, frozenset())

    # --- changes ---------------------------------------------------------------------------

    def change(self, action: Callable[[], None]) -> Settled:
        """Run one membership change and wait until it settles; who led it is in the result."""
        java_before, python_before, rdk_before = self._lead_counts()
        action()
        owned, readings = self._settle()
        java_after, python_after, rdk_after = self._lead_counts()
        leaders = (
            self._java_leads()[java_before:java_after]
            + self.python_leads[python_before:python_after]
            + self.librdkafka_leads[rdk_before:rdk_after]
        )
        self.state = Settled(owned, leaders, readings)
        return self.state

    def _java_leads(self) -> list[str]:
        if self.java is None:
            return []
        return [line.split(" ")[1] for line in self.java.output().splitlines()
                if line.startswith("leads ")]  # fmt: skip

    def _lead_counts(self) -> tuple[int, int, int]:
        return len(self._java_leads()), len(self.python_leads), len(self.librdkafka_leads)

    def _settle(self) -> tuple[Owned, int]:
        everything = sorted((t, p) for t, count in self.topics.items() for p in range(count))
        deadline = time.monotonic() + STEP_TIMEOUT_S
        candidate: Owned | None = None
        since = 0.0
        readings = 0
        why = "no reading yet"
        while time.monotonic() < deadline:
            agreed, why = self._agreed(everything)
            readings += 1
            if agreed is None or agreed != candidate:
                candidate, since = agreed, time.monotonic()
            elif time.monotonic() - since >= QUIET_S:
                return agreed, readings
            time.sleep(0.25)
        raise AssertionError(
            f"{self.protocol}: group {self.group_id} did not settle within "
            f"{STEP_TIMEOUT_S:.0f} s with {sorted(self.members)}: {why}; errors: "
            f"{ {c: m.errors[-3:] for c, m in self.python.items()} } "
            f"{ {c: m.errors[-3:] for c, m in self.librdkafka.items()} }"
        )

    def _agreed(self, everything: Sequence[Partition]) -> tuple[Owned | None, str]:
        try:
            group = self.reader.describe_group(self.group_id)
        except GroupNotFoundError:
            return None, "the group does not exist yet"
        except ConsumerProtocolGroupError:
            # The reader's race while the group forms: DescribeGroups did not know it yet, and
            # by the time ListGroups answered it existed (not Dead), which the reader takes for
            # a KIP-848 group. The next reading describes it.
            return None, "the group was forming when read"
        assigned = [tp for member in group.members for tp in member.assignment]
        assert len(assigned) == len(set(assigned)), (
            f"the broker assigned a partition twice: {group}"
        )
        if group.state != "Stable" or {m.client_id for m in group.members} != self.members:
            return None, f"not Stable with {sorted(self.members)}: {_show_group(group)}"
        said = {m.client_id or "": frozenset(m.assignment) for m in group.members}
        owned = {client_id: read() for client_id, read in self.readers().items()}
        if owned != said:
            return None, f"members own {_show(owned)}, the broker says {_show(said)}"
        if sorted(assigned) != list(everything):
            return None, f"not every partition assigned: {_show(said)}"
        return owned, ""

    def close(self) -> None:
        self.watch.stop()
        for client_id in list(self.python):
            self.leave(client_id)
        for client_id in list(self.librdkafka):
            self.leave(client_id)
        if self.java is not None:
            self.java.close()
        self.reader.close()


def _kafka_python_owned(consumer: Any) -> frozenset[Partition]:
    return frozenset((tp.topic, tp.partition) for tp in consumer.assignment())


def _show(owned: Owned) -> str:
    return str({c: sorted(f"{t}-{p}" for t, p in tps) for c, tps in sorted(owned.items())})


def _show_group(group: GroupDescription) -> str:
    members = {m.client_id or m.member_id: sorted(m.assignment) for m in group.members}
    return f"{group.state}, {members}"

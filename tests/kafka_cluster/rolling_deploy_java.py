"""The Java side of tests/kafka_cluster/rolling_deploy.py: a KIP-848 group
(``group.protocol=consumer``, the broker's ``uniform`` assignor) of Java consumers
(``java/GroupMembers.java``, one JVM, one thread a member), restarted or scaled for real.

What differs from the kafka-python side, and why:

* **rebalances** are group epochs (ConsumerGroupDescribe through the project's read-only
  :class:`cluster.reader.ClusterReader`): each target assignment the broker computes bumps it once.
  The planner's ``rebalances`` are those targets (its ``rounds`` count reconciliation steps, which
  Kafka does not number).
* **callbacks**: the program prints ``assigned CLIENT t-p,...`` after every change of a member's
  assignment (on revoke, on assign, on close); a thread reads those lines as they come and
  timestamps them (every 20 ms), and each line becomes a revocation of what the member no longer
  lists and an assignment of what it lists anew.
* the session timeout and heartbeat are the broker's (``group.consumer.*`` in
  tests/kafka_cluster/cluster.py): 10 s and 0.5 s. A batch's members stop one after the other
  (the program's ``leave`` waits for the member to close); under KIP-848 each leave is its own
  epoch anyway, so batches of 1 are what is compared.

Invariants: as rolling_deploy's; the JVM is stopped when the run ends.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path

from assignors.model import Topic, TopicPartition
from cluster.connection import ConnectionSettings
from cluster.reader import ClusterReader
from tests.kafka_cluster.cluster import KafkaCluster
from tests.kafka_cluster.java_members import JavaGroup
from tests.kafka_cluster.rolling_deploy import POLL_S, SETTLE_TIMEOUT_S, Event, RealPlan, Recorder

#: The broker's group.consumer.session.timeout.ms and heartbeat interval for this cluster.
CONSUMER_SESSION_TIMEOUT_S = 10.0
CONSUMER_HEARTBEAT_S = 0.5
TAIL_S = 0.02


class _Tail(threading.Thread):
    """Reads the program's ``assigned`` lines as they come; turns them into timed events."""

    def __init__(self, log: Path, recorder: Recorder, epoch: list[int]) -> None:
        super().__init__(daemon=True)
        self.log, self.recorder, self.epoch = log, recorder, epoch
        self.stop = threading.Event()
        self.held: dict[str, frozenset[TopicPartition]] = {}

    def run(self) -> None:
        offset = 0
        while not self.stop.is_set():
            text = self.log.read_text(errors="replace") if self.log.exists() else ""
            end = text.rfind("\n") + 1
            now = time.monotonic()
            for line in text[offset:end].splitlines():
                self._line(line, now)
            offset = end
            time.sleep(TAIL_S)

    def _line(self, line: str, at: float) -> None:
        words = line.split(" ")
        if words[0] != "assigned" or len(words) != 3:
            return
        client = words[1]
        pairs = (item.rsplit("-", 1) for item in words[2].split(",") if item)
        now = frozenset(TopicPartition(topic, int(p)) for topic, p in pairs)
        was = self.held.get(client, frozenset())
        self.held[client] = now
        if was - now:
            self.recorder.add(Event(at, client, "revoked", was - now, self.epoch[0]))
        if now - was:
            self.recorder.add(Event(at, client, "assigned", now - was, self.epoch[0]))


class JavaLiveGroup:
    """The members of one run, driven through one GroupMembers program."""

    def __init__(
        self, cluster: KafkaCluster, plan: RealPlan, group_id: str, topics: tuple[Topic, ...]
    ) -> None:
        self.plan, self.group_id, self.topics = plan, group_id, topics
        self.recorder = Recorder()
        self.live: set[str] = set()
        self.reader = ClusterReader(ConnectionSettings(cluster.bootstrap, timeout_s=10.0))
        self.program = JavaGroup(
            cluster, group_id, "uniform", ",".join(t.name for t in topics), [], cluster.work_dir
        )
        self.epoch = [-1]
        self.tail = _Tail(self.program.log, self.recorder, self.epoch)
        self.tail.start()

    def start(self, client_ids: Sequence[str]) -> None:
        for cid in client_ids:
            self.program.join(f"{cid}::{cid}" if self.plan.static else cid)
            self.live.add(cid)

    def stop(self, client_ids: Sequence[str]) -> None:
        for cid in client_ids:
            self.program.leave(cid)
            self.live.discard(cid)

    def close(self) -> None:
        self.tail.stop.set()
        self.program.close()

    def observe(self) -> tuple[dict[str, set[TopicPartition]], int] | None:
        """Settled: Stable, exactly the live members, none reconciling, every partition held,
        and what the members printed equals what the broker reports."""
        group = self.reader.describe_consumer_group(self.group_id)
        self.epoch[0] = group.group_epoch
        reported = {
            m.client_id: {TopicPartition(t, p) for t, p in m.assignment} for m in group.members
        }
        everything = {tp for t in self.topics for tp in t.topic_partitions()}
        printed = {cid: set(tps) for cid, tps in self.tail.held.items() if cid in self.live}
        settled = (
            group.state == "Stable"
            and set(reported) == self.live
            and not group.reconciling
            and set().union(*reported.values()) == everything
            and printed == reported
        )
        return (reported, group.group_epoch) if settled else None

    def settle(self) -> tuple[dict[str, set[TopicPartition]], int]:
        deadline = time.monotonic() + SETTLE_TIMEOUT_S
        while time.monotonic() < deadline:
            try:
                state = self.observe()
            except Exception:  # the group not formed yet, a coordinator moving: ask again
                state = None
            if state is not None:
                return state
            time.sleep(POLL_S)
        raise AssertionError(
            f"{self.plan.name}: not settled within {SETTLE_TIMEOUT_S:.0f} s;"
            f" output {self.program.output()[-2000:]}"
        )

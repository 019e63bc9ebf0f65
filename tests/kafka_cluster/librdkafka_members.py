"""librdkafka consumers for the tests: confluent-kafka ``Consumer`` s in a classic group.

:class:`LibrdkafkaMember` polls one consumer in a Python thread and keeps its assignment as
librdkafka reports it (``Consumer.assignment()`` after every poll), so a test can compare it
with what the reader says the member owns.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import Any

from tests.kafka_cluster.cluster import KafkaCluster


class LibrdkafkaMember:
    """One classic-protocol librdkafka consumer (``partition.assignment.strategy`` given)."""

    def __init__(
        self,
        cluster: KafkaCluster,
        group_id: str,
        topics: Sequence[str],
        client_id: str,
        strategy: str = "cooperative-sticky",
        rack: str | None = None,
        leads: list[str] | None = None,
    ) -> None:
        from confluent_kafka import Consumer

        config: dict[str, Any] = {
            "bootstrap.servers": cluster.bootstrap,
            "group.id": group_id,
            "client.id": client_id,
            "partition.assignment.strategy": strategy,
            "session.timeout.ms": 10000,
            "heartbeat.interval.ms": 500,
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
        }
        if rack is not None:
            config["client.rack"] = rack
        if leads is not None:
            config["debug"] = "cgrp"
            config["logger"] = _leader_log(client_id, leads)
        self.client_id = client_id
        self._owned: frozenset[tuple[str, int]] = frozenset()
        self._lock = threading.Lock()
        self._consumer: Any = Consumer(config)
        self._consumer.subscribe(
            list(topics), on_assign=self._gained, on_revoke=self._gave_up, on_lost=self._gave_up
        )
        self._stop = threading.Event()
        self.errors: list[str] = []
        self._thread = threading.Thread(target=self._run, name=f"rdk-{client_id}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                message = self._consumer.poll(0.1)
                if message is not None and message.error() is not None:
                    self.errors.append(str(message.error()))
                owned = frozenset((tp.topic, tp.partition) for tp in self._consumer.assignment())
            except Exception as error:  # kept for the test's failure message
                self.errors.append(repr(error))
                continue
            with self._lock:
                self._owned = owned
        self._consumer.close()  # leaves the group

    def _gained(self, consumer: Any, partitions: Sequence[Any]) -> None:
        # Eager or incremental: what it has (nothing, for eager) plus what it is given.
        self._set_owned(consumer.assignment(), partitions, gained=True)

    def _gave_up(self, consumer: Any, partitions: Sequence[Any]) -> None:
        self._set_owned(consumer.assignment(), partitions, gained=False)

    def _set_owned(self, current: Sequence[Any], change: Sequence[Any], gained: bool) -> None:
        held = {(tp.topic, tp.partition) for tp in current}
        changed = {(tp.topic, tp.partition) for tp in change}
        with self._lock:
            self._owned = frozenset(held | changed if gained else held - changed)

    def owned(self) -> frozenset[tuple[str, int]]:
        with self._lock:
            return self._owned

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=60)


#: What librdkafka's ``cgrp`` debug log says when a JoinGroup response makes this member leader.
ELECTED = "I am elected leader"


def _leader_log(client_id: str, leads: list[str]) -> logging.Logger:
    """A logger for one consumer's librdkafka log that records each election in ``leads``."""

    class Elections(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if ELECTED in record.getMessage():
                leads.append(client_id)

    logger = logging.getLogger(f"{__name__}.{client_id}.{id(leads)}")
    logger.propagate = False  # the debug log is verbose: only elections are kept
    logger.setLevel(logging.DEBUG)
    logger.addHandler(Elections())
    return logger

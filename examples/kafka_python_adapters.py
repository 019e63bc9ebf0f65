"""Run our assignment strategies inside real kafka-python consumers.

    .venv/bin/python examples/kafka_python_adapters.py                      # local noida-db
    .venv/bin/python examples/kafka_python_adapters.py --bootstrap host:9092 --strategy failover

Creates a topic (6 partitions, skewed data), starts three consumers in one group with the chosen
adapter, prints who owns what, stops the first consumer, prints again, starts a fourth, prints
again. Without ``--bootstrap`` it starts a throw-away noida-db broker on 127.0.0.1 (installed with
the test extras) and stops it at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kafka import ConsumerRebalanceListener, KafkaAdminClient, KafkaConsumer, KafkaProducer
from kafka.admin import NewTopic

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adapters import kafka_python as adapters

PRIORITIES = {"c0": 10, "c1": 5, "c2": 1, "c3": 7}
SKEW = {0: 500, 1: 10, 2: 300, 3: 0, 4: 20, 5: 900}


class Member:
    """One consumer polled in its own thread (kafka-python consumers are not thread-safe)."""

    def __init__(self, name: str, topic: str, group: str, args: argparse.Namespace) -> None:
        self.name = name
        settings: dict[str, Any] = {
            "bootstrap_servers": args.bootstrap,
            "group_id": group,
            "client_id": name,
            "auto_offset_reset": "earliest",
            "enable_auto_commit": False,
            "session_timeout_ms": 6000,
            "heartbeat_interval_ms": 300,
            "max_poll_interval_ms": 6000,
            "request_timeout_ms": 7000,
        }
        assignor = make_assignor(args.strategy, name, settings)
        self.consumer = KafkaConsumer(partition_assignment_strategy=[assignor], **settings)
        self.consumer.subscribe([topic], listener=PausingListener(args.revoke_pause))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()

    def _poll(self) -> None:
        while not self._stop.is_set():
            try:
                self.consumer.poll(timeout_ms=100)
            except Exception as exc:  # keep polling, as a service would; the next poll rejoins
                print(f"  ({self.name}: poll raised {exc!r}; polling on)")
                time.sleep(0.1)

    def owned(self) -> list[int]:
        return sorted(tp.partition for tp in self.consumer.assignment())

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        self.consumer.close()


class PausingListener(ConsumerRebalanceListener):  # type: ignore[misc]
    """Takes ``pause_s`` to give partitions up, as a service flushing state would.

    With the local noida-db broker this matters for cooperative-sticky: noida-db drops a
    follower's JoinGroup response when the leader rejoins for the second cooperative round
    too quickly, and the group then limps through rebalance timeouts. A real Kafka broker
    does not need it (``--revoke-pause 0``).
    """

    def __init__(self, pause_s: float) -> None:
        self.pause_s = pause_s

    def on_partitions_revoked(self, revoked: Any) -> None:
        if revoked:
            time.sleep(self.pause_s)

    def on_partitions_assigned(self, assigned: Any) -> None:
        pass


def make_assignor(strategy: str, name: str, settings: dict[str, Any]) -> Any:
    if strategy == "failover":
        return adapters.FailoverAssignor(priority=PRIORITIES[name])
    if strategy == "lag-aware":
        # Lags from the cluster, read-only, with the consumer's own connection settings.
        return adapters.LagAwareAssignor(**settings)
    return adapters.ADAPTERS[strategy]


@contextlib.contextmanager
def broker(bootstrap: str | None) -> Iterator[str]:
    if bootstrap:
        yield bootstrap
        return
    from tests.kafka_broker import running_broker

    with running_broker() as local:
        print(f"started noida-db on {local.bootstrap}")
        yield local.bootstrap


def show(title: str, members: list[Member], settle_s: float) -> None:
    deadline = time.monotonic() + settle_s
    previous: list[list[int]] | None = None
    # Wait until every partition has an owner and nothing changed for a second (a cooperative
    # rebalance hands moved partitions over in a second round).
    while time.monotonic() < deadline:
        time.sleep(1.0)
        current = [m.owned() for m in members]
        if current == previous and sorted(itertools.chain(*current)) == list(SKEW):
            break
        previous = current
    print(title)
    for member in members:
        print(f"  {member.name}: partitions {member.owned()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", help="host:port of a Kafka broker (default: local noida-db)")
    parser.add_argument(
        "--strategy", choices=sorted(adapters.ADAPTERS), default="cooperative-sticky"
    )
    parser.add_argument("--settle", type=float, default=20.0, help="seconds to wait per step")
    parser.add_argument(
        "--revoke-pause",
        type=float,
        default=None,
        help="seconds a consumer takes to give up partitions (default: 1 on noida-db, else 0)",
    )
    args = parser.parse_args()
    if args.revoke_pause is None:
        args.revoke_pause = 0.0 if args.bootstrap else 1.0

    with broker(args.bootstrap) as bootstrap:
        args.bootstrap = bootstrap
        topic = f"orders-{uuid.uuid4().hex[:6]}"
        group = f"example-{args.strategy}-{uuid.uuid4().hex[:6]}"
        admin = KafkaAdminClient(bootstrap_servers=bootstrap)
        admin.create_topics([NewTopic(topic, len(SKEW), 1)])
        admin.close()
        producer = KafkaProducer(bootstrap_servers=bootstrap)
        for partition, count in SKEW.items():
            for index in range(count):
                producer.send(topic, b"%d" % index, partition=partition)
        producer.flush()
        producer.close()
        print(f"topic {topic}: records per partition {SKEW}; strategy {args.strategy}")

        members = [Member(name, topic, group, args) for name in ("c0", "c1", "c2")]
        try:
            show("three members:", members, args.settle)
            members.pop(0).close()
            show("c0 left:", members, args.settle)
            members.append(Member("c3", topic, group, args))
            show("c3 joined:", members, args.settle)
        finally:
            for member in members:
                member.close()


if __name__ == "__main__":
    main()

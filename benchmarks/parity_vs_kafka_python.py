"""Our strategies vs kafka-python's own assignors on the shared conformance cases, side by side.

For every case of ``client.jsonl`` (and, for the adapter column, the design documents' files) it
answers the scenario three ways and counts the cases whose answer equals Kafka's (``expected``):

* ``ours``: the registry strategy on the parsed scenario (what the conformance suite runs);
* ``ours via adapter``: our kafka-python adapter's ``assign(cluster, members)``, fed the members'
  subscriptions encoded as a real group would send them (topics, rack, StickyAssignor user data,
  owned partitions and generation, priority, sticky-join user data) and a cluster metadata object
  that answers partition counts and replica racks; the answer is decoded from the
  ``ConsumerProtocolAssignment`` s it returns. This checks the adapters' plumbing on every case;
* ``kafka-python``: kafka-python 3.0.12's own assignor of the same protocol name, fed the same
  subscriptions (it has range, roundrobin, sticky and cooperative-sticky, and no rack awareness);
* ``kafka-python, own user data``: its sticky assignor once more, given its own user data objects
  instead of Java's bytes (its encoding carries a version prefix Java's does not, so in a group
  with Java members, or with our adapter, it cannot read the claims).

Run: ``.venv/bin/python benchmarks/parity_vs_kafka_python.py`` (about half a minute; prints a
Markdown table). Set ``AE_CONFORMANCE_DIR`` if the cases are not in ``tests/conformance``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kafka.coordinator.assignors.cooperative_sticky import CooperativeStickyAssignor
from kafka.coordinator.assignors.range import RangePartitionAssignor
from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
from kafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor
from kafka.coordinator.assignors.sticky.user_data import StickyAssignorUserData
from kafka.protocol.consumer.metadata import (
    ConsumerProtocolAssignment,
    ConsumerProtocolSubscription,
)

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from assignors import kafka_python as adapters  # noqa: E402
from assignors import registry  # noqa: E402
from assignors.io.scenario import parse_scenario  # noqa: E402
from assignors.model import Member, Scenario, TopicPartition  # noqa: E402
from assignors.strategy import PartitionStrategy  # noqa: E402

CONFORMANCE_DIR = Path(os.environ.get("AE_CONFORMANCE_DIR", REPO / "tests" / "conformance"))
FILES = ("client.jsonl", "lag-aware.jsonl", "failover.jsonl", "stream-join-sticky.jsonl")
KAFKA_PYTHON: dict[str, Callable[[], Any]] = {
    "range": RangePartitionAssignor,
    "roundrobin": RoundRobinPartitionAssignor,
    "sticky": StickyPartitionAssignor,
    "cooperative-sticky": CooperativeStickyAssignor,
}

Answer = dict[str, set[tuple[str, int]]]
OWN = "kafka-python, own user data"


@dataclass(frozen=True)
class Broker:
    node_id: int
    rack: str | None


class ClusterMetadata:
    """What assignors ask kafka-python's ClusterMetadata, answered from a scenario."""

    def __init__(self, scenario: Scenario) -> None:
        self.counts = scenario.partition_counts()
        racks = sorted({r for t in scenario.topics for rs in t.replica_racks or () for r in rs})
        self._brokers = [Broker(i, rack) for i, rack in enumerate(racks)]
        self._replicas = {
            (t.name, p): set(rs)
            for t in scenario.topics
            for p, rs in enumerate(t.replica_racks or ())
        }

    def partitions_for_topic(self, topic: str) -> set[int] | None:
        count = self.counts.get(topic)
        return None if count is None else set(range(count))

    def topics(self, exclude_internal_topics: bool = True) -> set[str]:
        return set(self.counts)

    def brokers(self) -> list[Broker]:
        return self._brokers

    def is_replica_node(self, tp: Any, node_id: int) -> Broker | None:
        broker = self._brokers[node_id]
        return broker if broker.rack in self._replicas.get((tp.topic, tp.partition), ()) else None


@dataclass(frozen=True)
class JoinedMember:
    """What kafka-python hands ``assign`` per member (a JoinGroupResponseMember, decoded)."""

    member_id: str
    group_instance_id: str | None
    metadata: Any


def subscription(strategy: str, member: Member) -> Any:
    """The member's subscription as a member of that protocol sends it (Java's layouts)."""
    owned = [TopicPartition(tp.topic, tp.partition) for tp in member.owned_partitions]
    generation = -1 if member.generation is None else member.generation
    user_data: bytes | None = None
    owned_field: list[Any] = []
    if strategy == "sticky" and (owned or member.generation is not None):
        user_data = adapters.encode_sticky_user_data(owned, generation)
    elif strategy == "cooperative-sticky":
        user_data = adapters.encode_int32(generation)
        grouped: dict[str, list[int]] = defaultdict(list)
        for tp in owned:
            grouped[tp.topic].append(tp.partition)
        owned_field = [
            ConsumerProtocolSubscription.TopicPartition(topic=t, partitions=sorted(ps))
            for t, ps in sorted(grouped.items())
        ]
    elif strategy == "failover" and member.priority is not None:
        user_data = adapters.encode_int32(member.priority)
    elif strategy == "stream-join-sticky":
        numbers = {tp.partition for tp in owned}
        user_data = adapters.encode_stream_join_user_data(numbers, member.generation or 0)
    return ConsumerProtocolSubscription(
        version=adapters.PROTOCOL_VERSION,
        topics=list(member.topics),
        user_data=user_data,
        owned_partitions=owned_field,
        generation_id=generation if strategy == "cooperative-sticky" else -1,
        rack_id=member.rack,
    )


def kafka_python_own_sticky(subscription_: Any, member: Member) -> Any:
    """The same subscription with kafka-python's own StickyAssignorUserData object as user data.

    kafka-python 3.0.12 encodes that user data with an INT16 version in front, which Java's
    layout does not have, so it cannot read a Java member's (or our adapter's) sticky user data;
    this variant shows its algorithm alone.
    """
    if not subscription_.user_data:
        return subscription_
    grouped: dict[str, list[int]] = defaultdict(list)
    for tp in member.owned_partitions:
        grouped[tp.topic].append(tp.partition)
    generation = -1 if member.generation is None else member.generation
    return ConsumerProtocolSubscription(
        version=adapters.PROTOCOL_VERSION,
        topics=list(member.topics),
        user_data=StickyAssignorUserData(sorted(grouped.items()), generation),
        owned_partitions=[],
        generation_id=-1,
        rack_id=member.rack,
    )


def decode(assignments: dict[str, Any]) -> Answer:
    answer: Answer = {}
    for member_id, assignment in assignments.items():
        if isinstance(assignment, bytes | bytearray):
            assignment = ConsumerProtocolAssignment.decode(assignment)
        answer[member_id] = {
            (topic, p) for topic, partitions in assignment.assigned_partitions for p in partitions
        }
    return answer


def cases() -> Iterator[tuple[str, Scenario, Answer]]:
    for file_name in FILES:
        with (CONFORMANCE_DIR / file_name).open(encoding="utf-8") as lines:
            for line in lines:
                raw = json.loads(line)
                scenario, _ = parse_scenario(raw["scenario"])
                expected = {m: {(t, p) for t, p in tps} for m, tps in raw["expected"].items()}
                yield raw["strategy"], scenario, expected


def lag_source_for(scenario: Scenario) -> adapters.LagSource:
    topics = scenario.topic_by_name()
    return lambda counts: {name: topics[name] for name in counts if name in topics}


def make_adapter(strategy: str, scenario: Scenario) -> Any:
    if strategy == "lag-aware":
        return adapters.LagAwareAssignor(
            lag_source_for(scenario), auto_offset_reset=scenario.auto_offset_reset
        )
    return adapters.ADAPTERS[strategy]()


def main() -> None:
    passed: dict[str, Counter[str]] = defaultdict(Counter)
    seconds: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    total: Counter[str] = Counter()
    crashes: dict[str, Counter[str]] = defaultdict(Counter)
    for strategy, scenario, expected in cases():
        total[strategy] += 1
        cluster = ClusterMetadata(scenario)
        members = [
            JoinedMember(m.member_id, m.group_instance_id, subscription(strategy, m))
            for m in scenario.members
        ]
        ours = registry.get(strategy)
        assert isinstance(ours, PartitionStrategy)

        start = time.perf_counter()
        result = ours.assign(scenario)
        seconds["ours"][strategy] += time.perf_counter() - start
        answer = {
            m: {(tp.topic, tp.partition) for tp in tps} for m, tps in result.partitions.items()
        }
        passed["ours"][strategy] += answer == expected

        start = time.perf_counter()
        answer = decode(make_adapter(strategy, scenario).assign(cluster, members))
        seconds["ours via adapter"][strategy] += time.perf_counter() - start
        passed["ours via adapter"][strategy] += {
            m: answer.get(m, set()) for m in expected
        } == expected

        if strategy in KAFKA_PYTHON:
            start = time.perf_counter()
            try:
                answer = decode(KAFKA_PYTHON[strategy]().assign(cluster, members))
            except Exception as exc:  # a crash counts as a wrong answer
                crashes[strategy][f"{type(exc).__name__}: {exc}"[:120]] += 1
                answer = {}
            seconds["kafka-python"][strategy] += time.perf_counter() - start
            complete = {m: answer.get(m, set()) for m in expected}
            passed["kafka-python"][strategy] += complete == expected
        if strategy == "sticky":
            own = [
                JoinedMember(
                    j.member_id, j.group_instance_id, kafka_python_own_sticky(j.metadata, m)
                )
                for j, m in zip(members, scenario.members, strict=True)
            ]
            start = time.perf_counter()
            answer = decode(StickyPartitionAssignor().assign(cluster, own))
            seconds[OWN][strategy] += time.perf_counter() - start
            passed[OWN][strategy] += {m: answer.get(m, set()) for m in expected} == expected

    columns = ("ours", "ours via adapter", "kafka-python", OWN)
    print("| strategy | cases | " + " | ".join(columns) + " |")
    print("| --- | ---: | " + " | ".join("---:" for _ in columns) + " |")
    for strategy in total:
        cells = []
        for column in columns:
            if column == "kafka-python" and strategy not in KAFKA_PYTHON:
                cells.append("(none)")
                continue
            if column == OWN and strategy != "sticky":
                cells.append("" if strategy not in KAFKA_PYTHON else "(as left)")
                continue
            ms = 1000 * seconds[column][strategy]
            cells.append(f"{passed[column][strategy]}/{total[strategy]} ({ms:.0f} ms)")
        print(f"| {strategy} | {total[strategy]} | " + " | ".join(cells) + " |")
    for strategy, reasons in crashes.items():
        for reason, count in reasons.most_common(3):
            print(f"kafka-python {strategy} raised on {count} cases: {reason}")


if __name__ == "__main__":
    main()

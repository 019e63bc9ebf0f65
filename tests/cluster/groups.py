"""Real consumer groups on the test broker, with offsets the test knows exactly.

:func:`running_group` creates the topics, writes ``records`` to each partition, commits
``commits`` for the group with a stand-alone consumer (manual assignment: it never joins), then
starts ``members`` real kafka-python consumers in the group (auto-commit off, so the committed
offsets stay exactly as set), each polled in its own thread, and waits until the group is Stable
with every partition assigned. The consumers leave the group when the context exits.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from tests.kafka_broker import BrokerClientHelpers, PolledConsumer, unique_name


@dataclass(frozen=True)
class KnownGroup:
    group_id: str
    topics: dict[str, int]
    records: dict[str, dict[int, int]]
    commits: dict[tuple[str, int], int]
    client_ids: list[str]
    description: dict[str, Any]

    def assignment(self) -> dict[str, set[tuple[str, int]]]:
        """member id -> assigned partitions, as the broker's DescribeGroups reports them."""
        result: dict[str, set[tuple[str, int]]] = {}
        for member in self.description["members"]:
            pairs = {
                (entry["topic"], p)
                for entry in member["member_assignment"]["assigned_partitions"]
                for p in entry["partitions"]
            }
            result[member["member_id"]] = pairs
        return result


def commit_offsets(
    broker: BrokerClientHelpers, group_id: str, commits: dict[tuple[str, int], int]
) -> None:
    from kafka import KafkaConsumer
    from kafka.structs import OffsetAndMetadata, TopicPartition

    consumer = KafkaConsumer(
        bootstrap_servers=broker.bootstrap, group_id=group_id, enable_auto_commit=False
    )
    try:
        partitions = [TopicPartition(t, p) for t, p in commits]
        consumer.assign(partitions)
        consumer.commit(
            {TopicPartition(t, p): OffsetAndMetadata(o, "", -1) for (t, p), o in commits.items()}
        )
    finally:
        consumer.close()


@contextlib.contextmanager
def running_group(
    broker: BrokerClientHelpers,
    topics: dict[str, int],
    records: dict[str, dict[int, int]],
    commits: dict[tuple[str, int], int],
    members: int,
    assignors: Sequence[Any] = (),
    replication_factor: int | None = None,
    **consumer_config: Any,
) -> Iterator[KnownGroup]:
    from kafka import KafkaConsumer

    suffix = unique_name("g")
    names = {f"{name}-{suffix}": count for name, count in topics.items()}
    rename = {name: f"{name}-{suffix}" for name in topics}
    broker.create_topics(names, replication_factor)
    real_records = {rename[t]: counts for t, counts in records.items()}
    for topic, counts in real_records.items():
        broker.produce(topic, counts)
    real_commits = {(rename[t], p): o for (t, p), o in commits.items()}
    group_id = f"group-{suffix}"
    if real_commits:
        commit_offsets(broker, group_id, real_commits)
    client_ids = [f"reader-test-{i}" for i in range(members)]
    config: dict[str, Any] = {
        "bootstrap_servers": broker.bootstrap,
        "group_id": group_id,
        "enable_auto_commit": False,
        "auto_offset_reset": "earliest",
        **consumer_config,
    }
    if assignors:
        config["partition_assignment_strategy"] = list(assignors)
    polled = [
        PolledConsumer(KafkaConsumer(*names, client_id=client_id, **config))
        for client_id in client_ids
    ]
    total = sum(names.values())
    try:

        def settled(description: dict[str, Any]) -> bool:
            assigned = sum(
                len(entry["partitions"])
                for member in description["members"]
                for entry in member["member_assignment"]["assigned_partitions"]
            )
            return assigned == total

        description = broker.wait_for_stable_group(group_id, members, settled=settled)
        yield KnownGroup(group_id, names, real_records, real_commits, client_ids, description)
    finally:
        for consumer in polled:
            consumer.close()

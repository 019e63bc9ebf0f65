"""Cluster metadata from ``kcat -L -J``: partition counts, replicas, and racks where known.

The JSON kcat prints::

    {"brokers": [{"id": 1, "name": "host:9092"}, ...],
     "topics": [{"topic": "orders",
                 "partitions": [{"partition": 0, "leader": 1,
                                 "replicas": [{"id": 1}, {"id": 2}], "isrs": [...]}, ...]}]}

kcat does not print broker racks; a broker entry may carry a ``"rack"`` (added by hand, or by a
tool that knows), and :func:`parse_kcat_metadata` takes more from ``broker_racks`` (broker id ->
rack, e.g. from ``--broker-rack 1:us-east-1a``). A partition gets ``replica_racks`` only when the
rack of every one of its replicas is known, so a scenario never claims half-known racks.

Invariants: partition numbers of a topic are exactly ``0 .. count-1`` (a gap is an error: kcat
lists every partition); a topic kcat reports with an error (``"error"`` field) is left out with a
warning. Standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from assignors.errors import ScenarioError
from assignors.io.json_checks import Problems, is_int, type_name


@dataclass(frozen=True, slots=True)
class TopicMetadata:
    """One topic: its partition count and, per partition, its replicas' racks (or ``None``)."""

    name: str
    partitions: int
    replica_racks: tuple[tuple[str, ...], ...] | None


@dataclass(frozen=True, slots=True)
class ClusterMetadata:
    topics: Mapping[str, TopicMetadata]
    warnings: tuple[str, ...]


def _broker_racks(raw: object, extra: Mapping[int, str], problems: Problems) -> dict[int, str]:
    racks = dict(extra)
    if not isinstance(raw, list):
        problems.error("brokers", f"expected a list, got {type_name(raw)}")
        return racks
    for index, broker in enumerate(raw):
        if not isinstance(broker, dict) or not is_int(broker.get("id")):
            problems.error(f"brokers[{index}]", "expected an object with an integer id")
            continue
        rack = broker.get("rack")
        if isinstance(rack, str) and rack and broker["id"] not in racks:
            racks[broker["id"]] = rack
    return racks


def _replica_racks(
    partitions: list[dict[str, Any]], racks: Mapping[int, str]
) -> tuple[tuple[str, ...], ...] | None:
    by_partition: list[tuple[str, ...]] = []
    for partition in sorted(partitions, key=lambda p: p["partition"]):
        replicas = partition.get("replicas")
        if not isinstance(replicas, list) or not replicas:
            return None
        ids = [r.get("id") if isinstance(r, dict) else None for r in replicas]
        known = [racks[i] for i in ids if isinstance(i, int) and i in racks]
        if len(known) != len(ids):
            return None
        by_partition.append(tuple(known))
    return tuple(by_partition)


def _topic(
    raw: object, path: str, racks: Mapping[int, str], problems: Problems
) -> TopicMetadata | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("topic"), str):
        problems.error(path, "expected an object with a topic name")
        return None
    name = raw["topic"]
    if raw.get("error"):
        problems.warn(path, f"kcat reports an error for topic {name!r}, left out: {raw['error']}")
        return None
    partitions = raw.get("partitions")
    if not isinstance(partitions, list) or not all(
        isinstance(p, dict) and is_int(p.get("partition")) for p in partitions
    ):
        problems.error(f"{path}.partitions", "expected a list of objects with a partition number")
        return None
    numbers = sorted(p["partition"] for p in partitions)
    if numbers != list(range(len(numbers))):
        problems.error(f"{path}.partitions", f"partition numbers are not 0..{len(numbers) - 1}")
        return None
    return TopicMetadata(name, len(numbers), _replica_racks(partitions, racks))


def parse_kcat_metadata(
    raw: object, broker_racks: Mapping[int, str] | None = None
) -> ClusterMetadata:
    """Topics from the JSON of ``kcat -L -J``; :class:`ScenarioError` names what is wrong."""
    problems = Problems()
    if not isinstance(raw, dict):
        raise ScenarioError([f"kcat metadata: expected a JSON object, got {type_name(raw)}"])
    racks = _broker_racks(raw.get("brokers", []), broker_racks or {}, problems)
    topics_raw = raw.get("topics")
    if not isinstance(topics_raw, list):
        problems.error("topics", f"expected a list, got {type_name(topics_raw)}")
        topics_raw = []
    topics: dict[str, TopicMetadata] = {}
    for index, topic_raw in enumerate(topics_raw):
        topic = _topic(topic_raw, f"topics[{index}]", racks, problems)
        if topic is not None:
            topics[topic.name] = topic
    if problems.errors:
        raise ScenarioError([f"kcat metadata: {e}" for e in problems.errors])
    return ClusterMetadata(topics, tuple(f"kcat metadata: {w}" for w in problems.warnings))

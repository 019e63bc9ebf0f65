"""``python -m assignors assign FILE --strategy NAME --explain TOPIC:PARTITION``: why it is there.

The strategy runs once with its decision recorder (:meth:`PartitionStrategy.explain
<assignors.strategy.PartitionStrategy.explain>`, the same answer as without); the trace of each
named partition is printed: the notes that decided it (member order, the split's arithmetic,
quotas), then every decision that touched it, then where it ends. ``--json`` prints the batch
answer shape with an ``explain`` list. Bad input (not ``TOPIC:PARTITION``, a topic the scenario
does not have, a partition number out of range, a Streams task strategy) is a
:class:`ExplainRequestError` naming what exists.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assignors.errors import AssignmentExplorerError
from assignors.model import Scenario, TopicPartition
from assignors.trace import Explanation, PartitionTrace

#: How many topic names an error lists before "...".
SHOWN_TOPICS = 10


class ExplainRequestError(AssignmentExplorerError, ValueError):
    """An ``--explain`` value that does not name a partition of the scenario."""


def requested_partition(text: str, scenario: Scenario) -> TopicPartition:
    """``"orders:7"`` -> ``TopicPartition("orders", 7)``, checked against ``scenario``.

    The topic is everything before the last colon (Kafka topic names have none).
    """
    topic, colon, number = text.rpartition(":")
    if not colon or not topic or not (number.isascii() and number.isdigit()) or len(number) > 9:
        raise ExplainRequestError(f"--explain: expected TOPIC:PARTITION, got {text!r}")
    counts = scenario.partition_counts()
    if topic not in counts:
        names = sorted(counts)
        listed = ", ".join(names[:SHOWN_TOPICS]) + (", ..." if len(names) > SHOWN_TOPICS else "")
        raise ExplainRequestError(
            f"--explain: topic {topic!r} is not in the scenario (its topics: {listed or 'none'})"
        )
    partition = int(number)
    if partition >= counts[topic]:
        span = f"partitions 0..{counts[topic] - 1}" if counts[topic] else "no partitions"
        raise ExplainRequestError(
            f"--explain: topic {topic!r} has {span}, not partition {partition}"
        )
    return TopicPartition(topic, partition)


def requested_partitions(texts: Sequence[str], scenario: Scenario) -> list[TopicPartition]:
    """Every ``--explain`` value checked, in the order given, repeats dropped."""
    return list(dict.fromkeys(requested_partition(text, scenario) for text in texts))


def trace_text(explanation: Explanation, partitions: Sequence[TopicPartition]) -> str:
    """The traces of ``partitions`` as text, one block each, blank line between."""
    header = f"strategy {explanation.strategy}"
    blocks = ["\n".join(explanation.partition(tp).lines()) for tp in partitions]
    return "\n\n".join([header, *blocks])


def trace_json(trace: PartitionTrace) -> dict[str, Any]:
    """One partition's trace in the JSON answer."""
    return {
        "partition": [trace.partition.topic, trace.partition.partition],
        "members": list(trace.holders),
        "notes": list(trace.notes),
        "decisions": [
            {
                "step": d.step,
                "member": d.member,
                "released_by": d.released_by,
                "reason": d.reason,
            }
            for d in trace.decisions
        ],
    }

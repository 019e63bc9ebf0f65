"""The one place the differential tests reach into the core (a one-line change if it moves)."""

from __future__ import annotations

from typing import Any

from assignors.cli.batch import answer_line

#: Kafka strategies the oracle answers for, in report order.
KAFKA_STRATEGIES = (
    "range",
    "roundrobin",
    "sticky",
    "cooperative-sticky",
    "uniform",
    "server-range",
    "share-simple",
    "streams-ha",
)

#: Strategies whose scenario is the Streams shape.
STREAMS_STRATEGIES = frozenset({"streams-ha"})


def ours(line: bytes) -> dict[str, Any]:
    """Our answer to one JSON request line, exactly as ``python -m assignors batch`` gives it."""
    return answer_line(line, 1)

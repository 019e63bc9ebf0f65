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
    "streams-sticky",
    "streams-group-sticky",
)

#: Strategies whose scenario is the Streams shape and whose answer is per client.
STREAMS_STRATEGIES = frozenset({"streams-ha", "streams-sticky"})
#: Strategies whose scenario is the Streams shape and whose answer is per group member.
STREAMS_GROUP_STRATEGIES = frozenset({"streams-group-sticky"})
#: Kafka versions that lack a strategy's Kafka class (their oracle answers an error).
ABSENT_IN = {"3.9.2": frozenset({"streams-group-sticky"})}


def in_kafka(strategy: str, version: str) -> bool:
    """Whether Kafka ``version`` has the assignor ``strategy`` reproduces."""
    return strategy not in ABSENT_IN.get(version, frozenset())


def ours(line: bytes) -> dict[str, Any]:
    """Our answer to one JSON request line, exactly as ``python -m assignors batch`` gives it."""
    return answer_line(line, 1)

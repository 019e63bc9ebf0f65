"""The one place the differential tests reach into the core (a one-line change if it moves)."""

from __future__ import annotations

from typing import Any

from assignors import registry
from assignors.cli.batch import answer_line
from assignors.kafka_versions import release_line

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

#: In our error when Kafka's assignor would loop for ever on the group (the sticky assignors).
NEVER_FINISHES = "never finishes on this group"
#: Strategies whose scenario is the Streams shape and whose answer is per client.
STREAMS_STRATEGIES = frozenset({"streams-ha", "streams-sticky"})
#: Strategies whose scenario is the Streams shape and whose answer is per group member.
STREAMS_GROUP_STRATEGIES = frozenset({"streams-group-sticky"})


def in_kafka(strategy: str, version: str) -> bool:
    """Whether we answer ``strategy`` as Kafka ``version`` (a release such as ``"3.4.1"``): the
    registry's ``kafka_lines`` for it accept that release's line. Lines before the assignor
    existed, and lines not reproduced, are refused by us and not compared; their oracle lacks the
    class or holds an unfinished one (Kafka 3.9's share ``SimpleAssignor`` gives every member every
    partition it subscribes to, and no 3.9 broker runs it)."""
    return release_line(version) in registry.get(strategy).kafka_lines.accepted


def for_version(request: dict[str, Any], version: str) -> dict[str, Any]:
    """``request`` with its scenario's ``kafka_version`` set to ``version``'s release line, so
    that our answer reproduces the release the oracle runs (the oracle ignores the field)."""
    return {**request, "scenario": {**request["scenario"], "kafka_version": release_line(version)}}


def ours(line: bytes) -> dict[str, Any]:
    """Our answer to one JSON request line, exactly as ``python -m assignors batch`` gives it."""
    return answer_line(line, 1)

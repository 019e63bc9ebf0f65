"""Comparing our answer with the oracle's, the way ``tests/conformance_cases.py`` does.

Partition answers: the same members, each with the same set of ``[topic, partition]`` pairs.
Streams answers: the same clients with the same active / standby / warm-up task sets and the same
probing flag. Both sides refusing a request (an ``error`` answer each) also agree; one refusing
alone is a difference. A request Kafka never finished (the oracle's :data:`UNFINISHED` error)
agrees only with ours saying Kafka's assignor never finishes on it, and the other way round.
Bulk: :func:`run_cases` answers many requests with one oracle round trip.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tests.conformance_cases import _compare_tasks, compare_members, partition_sets
from tests.differential.core import (
    NEVER_FINISHES,
    STREAMS_GROUP_STRATEGIES,
    STREAMS_STRATEGIES,
    for_version,
    ours,
)
from tests.oracle import UNFINISHED, Oracle


@dataclass(frozen=True, slots=True)
class Difference:
    request: dict[str, Any]
    ours: dict[str, Any]
    kafka: dict[str, Any]
    why: str


@dataclass(slots=True)
class Tally:
    """Per strategy: cases run, differences, requests Kafka refused (errors), and the ids of
    those Kafka never finished (among the errors)."""

    cases: int = 0
    differences: list[Difference] = field(default_factory=list)
    kafka_errors: int = 0
    kafka_unfinished: list[str] = field(default_factory=list)


def differ(strategy: str, our_answer: dict[str, Any], kafka: dict[str, Any]) -> str:
    """Empty when the answers agree, else a short description of the first difference."""
    if "error" in our_answer or "error" in kafka:
        if "error" in our_answer and "error" in kafka:
            unfinished = kafka["error"].startswith(UNFINISHED)
            if unfinished != (NEVER_FINISHES in our_answer["error"]):
                return f"ours: {our_answer['error']}; kafka: {kafka['error']}"
            return ""
        mine = our_answer.get("error", "an assignment")
        return f"ours: {mine}; kafka: {kafka.get('error', 'an assignment')}"
    if strategy in STREAMS_STRATEGIES:
        return _compare_tasks(our_answer["assignment"], kafka["assignment"])[1]
    if strategy in STREAMS_GROUP_STRATEGIES:
        return compare_members(our_answer["assignment"], kafka["assignment"])
    got = partition_sets(our_answer["assignment"])
    want = partition_sets(kafka["assignment"])
    for member in sorted(set(got) | set(want)):
        if got.get(member) != want.get(member):
            extra = sorted(got.get(member, set()) - want.get(member, set()))
            missing = sorted(want.get(member, set()) - got.get(member, set()))
            return f"{member}: extra {extra[:6]} missing {missing[:6]}"
    return ""


def our_answers(requests: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [ours(json.dumps(request).encode()) for request in requests]


def tally(
    requests: Sequence[dict[str, Any]],
    answers: Sequence[dict[str, Any]],
    kafka_answers: Sequence[dict[str, Any]],
    into: dict[str, Tally],
) -> None:
    """Add every case's outcome to ``into`` (per strategy)."""
    for request, our_answer, kafka in zip(requests, answers, kafka_answers, strict=True):
        counts = into.setdefault(request["strategy"], Tally())
        counts.cases += 1
        if "error" in kafka:
            counts.kafka_errors += 1
            if kafka["error"].startswith(UNFINISHED):
                counts.kafka_unfinished.append(str(request["id"]))
        why = differ(request["strategy"], our_answer, kafka)
        if why:
            counts.differences.append(Difference(request, our_answer, kafka, why))


def run_cases(oracle: Oracle, requests: Sequence[dict[str, Any]]) -> dict[str, Tally]:
    """Our answers and the oracle's for ``requests``, each asked as the oracle's Kafka version
    (the scenario's ``kafka_version``); the tally per strategy."""
    result: dict[str, Tally] = {}
    asked = [for_version(request, oracle.version) for request in requests]
    tally(asked, our_answers(asked), oracle.answer_all(asked), result)
    return result

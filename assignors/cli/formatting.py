"""Short human-readable renderings of partitions and assignments (CLI tables, dashboard labels)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import groupby
from typing import Any

from assignors.io.compact import assignment_to_json, claims_to_json
from assignors.model import Assignment, PartitionRuns, TopicPartition


def one_line(message: object) -> str:
    """``message`` as one line of text: line breaks and other control characters escaped (a
    member id may hold a newline; an error on stderr must stay one line)."""
    text = str(message)
    if text.isprintable():
        return text
    return "".join(
        char if char.isprintable() else char.encode("unicode_escape").decode("ascii")
        for char in text
    )


def compact_numbers(numbers: Iterable[int]) -> str:
    """``[0, 1, 2, 5, 7, 8]`` -> ``"0-2,5,7-8"`` (sorted, runs collapsed)."""
    ordered = sorted(set(numbers))
    parts: list[str] = []
    start = previous = None
    for number in ordered:
        if previous is not None and number == previous + 1:
            previous = number
            continue
        if start is not None:
            parts.append(str(start) if start == previous else f"{start}-{previous}")
        start = previous = number
    if start is not None:
        parts.append(str(start) if start == previous else f"{start}-{previous}")
    return ",".join(parts)


def compact_partitions(partitions: Iterable[TopicPartition]) -> str:
    """``orders-0, orders-1, payments-3`` -> ``"orders[0-1] payments[3]"`` (topics sorted)."""
    ordered = sorted(partitions)
    return " ".join(
        f"{topic}[{compact_numbers(tp.partition for tp in group)}]"
        for topic, group in groupby(ordered, key=lambda tp: tp.topic)
    )


def assignment_table(assignment: Assignment, every_topic: Sequence[str] | None = None) -> str:
    """A plain-text table: one row per member with its partition count and partitions (the
    lines of :func:`assignment_lines`, joined)."""
    return "\n".join(assignment_lines(assignment, every_topic))


def assignment_lines(
    assignment: Assignment, every_topic: Sequence[str] | None = None
) -> Iterator[str]:
    """The table's lines, made one at a time (a shell writes each as it comes: a million
    partitions never sit in one string). Partitions are written ``topic[0-2,5]``; with
    ``every_topic`` (the scenario's topics, in order) in the compact form's runs, a block
    of every topic as ``*[17]`` and of some as ``{a,b}[0-9]``."""
    members = sorted(assignment.partitions)
    header = ("member", "count", "partitions")
    counts = [str(len(assignment.partitions[member])) for member in members]
    widths = [max(map(len, [header[0], *members])), max(map(len, [header[1], *counts]))]
    yield f"{header[0]:<{widths[0]}}  {header[1]:>{widths[1]}}  {header[2]}"
    yield f"{'-' * widths[0]}  {'-' * widths[1]}  {'-' * len(header[2])}"
    for member, count in zip(members, counts, strict=True):
        partitions = assignment.partitions[member]
        if every_topic is None:
            cell = _verbose_cell(partitions)
        else:
            cell = " ".join(map(_entry_text, claims_to_json(partitions, every_topic)))
        yield f"{member:<{widths[0]}}  {count:>{widths[1]}}  {cell or '-'}"


def _verbose_cell(partitions: Sequence[TopicPartition]) -> str:
    """``topic[0-2,5]`` per topic; a :class:`PartitionRuns` read from its runs (numbers only,
    no partition objects made)."""
    if not isinstance(partitions, PartitionRuns):
        return compact_partitions(partitions)
    per_topic: dict[str, list[int]] = {}
    for topics, numbers in partitions.runs:
        for topic in topics:
            per_topic.setdefault(topic, []).extend(numbers)
    return " ".join(f"{topic}[{compact_numbers(numbers)}]" for topic, numbers in per_topic.items())


def _entry_text(entry: list[Any] | dict[str, Any]) -> str:
    """One compact-form claims entry as table text: ``orders[0-499]``, ``*[17]``, ``{a,b}[3]``."""
    if isinstance(entry, list):
        return f"{entry[0]}[{entry[1]}]"
    topics = entry["topics"]
    named = topics if isinstance(topics, str) else "{" + ",".join(topics) + "}"
    return f"{named}[{entry['partitions']}]"


def answer_json(assignment: Assignment, every_topic: Sequence[str] | None) -> dict[str, list[Any]]:
    """An answer's JSON: ``{member: [[topic, partition], ...]}``, or in the compact form's runs
    when ``every_topic`` (the scenario's topics, in order) is given."""
    if every_topic is None:
        return assignment.to_json()
    return assignment_to_json(assignment, every_topic)

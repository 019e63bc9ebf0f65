"""Short human-readable renderings of partitions and assignments (CLI tables, dashboard labels)."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import groupby

from assignors.model import Assignment, TopicPartition


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


def assignment_table(assignment: Assignment) -> str:
    """A plain-text table: one row per member with its partition count and partitions."""
    rows = [
        (member, str(len(tps)), compact_partitions(tps) or "-")
        for member, tps in sorted(assignment.partitions.items())
    ]
    header = ("member", "count", "partitions")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(2)]
    lines = [f"{header[0]:<{widths[0]}}  {header[1]:>{widths[1]}}  {header[2]}"]
    lines.append(f"{'-' * widths[0]}  {'-' * widths[1]}  {'-' * len(header[2])}")
    lines.extend(f"{m:<{widths[0]}}  {c:>{widths[1]}}  {p}" for m, c, p in rows)
    return "\n".join(lines)

"""The compact form of the scenario format: partitions as runs, not one by one.

A million-partition group written one partition at a time is tens of megabytes, mostly the
same topic names over and over. The compact form says the same thing in a few entries; the one
loader (:mod:`assignors.io.scenario`) reads both forms, mixed freely, with the same checks, and
:func:`assignors.io.scenario.scenario_to_json` writes either (``compact=True``).

The notation (``docs/scenario-format.md``, "The compact form"):

1. **Partition numbers**: a string of comma-separated pieces, each ``N`` (one partition),
   ``A-B`` (``A`` to ``B``, both included) or ``A-B/S`` (every ``S``-th from ``A`` up to ``B``,
   as in a crontab). ``"0-499"``, ``"7,9,20-29"``, ``"3-98003/2000"``. The numbers are read in
   the order written.
2. **Every topic**: ``"*"`` as a member's ``topics`` (a string, never inside a list) is every
   topic of the scenario, in the order of ``topics``; so is ``"topics": "*"`` in a block (3).
3. **Owned partitions** (``owned_partitions``, a reconciliation's ``current``, an answer's
   partitions): besides ``[topic, partition]`` pairs, an entry may be ``[topic, "0-499"]`` (those
   partitions of one topic) or a block ``{"topics": "*" | [names], "partitions": "0-499"}``
   (the numbers of each topic in turn: topic by topic, as the list is written).
4. **Per-partition values** (``lags``, offsets, ``produce_rates``, ``replica_racks``): besides a
   list with one entry per partition, an object from partition numbers to the value they share,
   ``{"0-498": 0, "499": 12}``, covering every partition exactly once.

Invariants: expanding what :func:`claims_to_json` writes gives back the claims, in order;
expanding what :func:`values_to_json` writes gives back the values; neither ever writes a form
longer than the one-by-one form by more than a few characters.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain, compress, groupby, islice, product, repeat
from operator import eq, itemgetter, ne, sub
from typing import Any, cast

from assignors.gc_pause import paused_gc
from assignors.model import Assignment, PartitionRuns, TopicPartition

#: ``"*"``: every topic of the scenario, in the order of its ``topics`` list.
EVERY_TOPIC = "*"
#: ``--form auto`` writes the compact form for a group of at least this many partitions.
COMPACT_FROM_PARTITIONS = 10_000
#: The forms a shell may ask for: ``auto`` is compact from :data:`COMPACT_FROM_PARTITIONS`.
FORMS = ("auto", "compact", "verbose")
#: The fields of a block entry (rule 3).
BLOCK_FIELDS = frozenset({"topics", "partitions"})
#: How partition numbers are written (rule 1); shown in messages.
NUMBERS_HINT = 'numbers and runs such as "7", "0-499" or "0-98/2" (every 2nd), comma-separated'

_PIECE = re.compile(r"([0-9]{1,10})(?:-([0-9]{1,10})(?:/([0-9]{1,10}))?)?")


def parse_numbers(text: str) -> list[range]:
    """The partition numbers a string of rule 1 names, as ranges in the order written.

    Raises ``ValueError`` with a message saying what to write instead. Ranges may be empty
    only if ``B < A`` was written, which is refused; a step is at least 1."""
    ranges: list[range] = []
    for piece in text.split(","):
        match = _PIECE.fullmatch(piece.strip())
        if match is None:
            raise ValueError(
                f"{piece.strip()!r:.40} is not a partition number or run; write {NUMBERS_HINT}"
            )
        first = int(match[1])
        last = first if match[2] is None else int(match[2])
        step = 1 if match[3] is None else int(match[3])
        if last < first or step < 1:
            raise ValueError(
                f"{piece.strip()!r} runs backwards or has step 0; write the smaller number"
                " first and a step of at least 1"
            )
        ranges.append(range(first, last + 1, step))
    return ranges


def format_range(numbers: range) -> str:
    """One range as a piece of rule 1: ``"7"``, ``"0-499"`` or ``"3-98003/2000"``."""
    if len(numbers) == 1:
        return str(numbers.start)
    last = numbers[-1]
    if numbers.step == 1:
        return f"{numbers.start}-{last}"
    return f"{numbers.start}-{last}/{numbers.step}"


def progressions(numbers: Sequence[int]) -> Iterator[range]:
    """``numbers`` cut, in order, into ranges: each greedy-longest from the left, kept as a range
    when it holds three numbers or more (two when they are consecutive), else one number.

    ``chain(*progressions(n)) == n`` for any sequence of non-negative integers; a sorted run of
    consecutive numbers is one range. Differences are taken and grouped in C; the Python loop
    runs once per range written, not once per number.
    """
    count = len(numbers)
    steps = list(map(sub, islice(numbers, 1, None), numbers))
    # Runs of equal differences: (step, index of the run's last difference).
    ends: list[tuple[int, int]] = []
    last = -1
    for step, same in groupby(steps):
        last += len(list(same))
        ends.append((step, last))
    position, run = 0, 0  # the first number not written yet; the run holding its difference
    while position < count:
        while run < len(ends) and ends[run][1] < position:
            run += 1
        if run == len(ends):  # the last number, alone
            yield range(numbers[position], numbers[position] + 1)
            return
        step, end = ends[run][0], ends[run][1] + 1  # end: the progression's last number
        if step >= 1 and (end - position >= 2 or step == 1):
            yield range(numbers[position], numbers[end] + 1, step)
            position = end + 1
        else:
            yield range(numbers[position], numbers[position] + 1)
            position += 1


def format_numbers(numbers: Sequence[int]) -> str | int:
    """``numbers`` in rule 1 (an ``int`` when there is one number: the pair form).

    Two numbers, the commonest span of a scattered answer (``sticky`` after a leave), are
    written without :func:`progressions`, as it would: ``"A-B"`` when ``B`` follows ``A``, else
    ``"A,B"``."""
    if len(numbers) == 1:
        return numbers[0]
    if len(numbers) == 2:
        first, second = numbers
        return f"{first}-{second}" if second == first + 1 else f"{first},{second}"
    return ",".join(map(format_range, progressions(numbers)))


def _entry(topics: Sequence[str], numbers: str | int, every_topic: Sequence[str]) -> Any:
    if len(topics) == 1:
        return [topics[0], numbers]
    every = len(topics) == len(every_topic) and tuple(topics) == tuple(every_topic)
    return {"topics": EVERY_TOPIC if every else list(topics), "partitions": str(numbers)}


def claims_to_json(claims: Sequence[TopicPartition], every_topic: Sequence[str]) -> list[Any]:
    """Claims (owned partitions, an answer's partitions) in the compact form, order kept.

    Consecutive claims on one topic become one ``[topic, "numbers"]`` entry; consecutive topics
    with the same numbers one block, ``"*"`` when they are ``every_topic`` in its order. A
    :class:`PartitionRuns` is written from its runs, making no partition objects."""
    if isinstance(claims, PartitionRuns):
        every = tuple(every_topic)
        return [
            _entry(topics, numbers[0] if len(numbers) == 1 else format_range(numbers), every)
            for topics, numbers in claims.runs
        ]
    topics, numbers = list(map(itemgetter(0), claims)), list(map(itemgetter(1), claims))
    if not any(map(eq, topics, islice(topics, 1, None))):
        # One partition per topic in a row (a range assignor's answer over many topics with as
        # many members as partitions): blocks are the runs of equal numbers, found in C.
        return _single_claims(topics, numbers, every_topic)
    # Where the topic changes (a "span": one topic's claims in a row), found in C.
    starts = [0, *compress(range(1, len(topics)), map(ne, islice(topics, 1, None), topics))]
    spans = list(map(numbers.__getitem__, map(slice, starts, [*islice(starts, 1, None), None])))
    span_topics = list(map(topics.__getitem__, starts))
    # A block is a row of spans with equal numbers (compared in C): its numbers are written once.
    cuts = [0, *compress(range(1, len(spans)), map(ne, islice(spans, 1, None), spans))]
    blocks = map(span_topics.__getitem__, map(slice, cuts, [*islice(cuts, 1, None), None]))
    written = map(format_numbers, map(spans.__getitem__, cuts))
    return list(map(_entry, blocks, written, repeat(tuple(every_topic))))


def _single_claims(topics: list[str], numbers: list[int], every_topic: Sequence[str]) -> list[Any]:
    """:func:`claims_to_json` where no two claims in a row share a topic."""
    every = tuple(every_topic)
    entries: list[Any] = []
    start = 0
    for number, same in groupby(numbers):
        end = start + len(list(same))
        entries.append(_entry(tuple(topics[start:end]), number, every))
        start = end
    return entries


def assignment_to_json(assignment: Assignment, every_topic: Sequence[str]) -> dict[str, list[Any]]:
    """An answer in the compact form: member id -> its partitions as :func:`claims_to_json`.

    The cyclic collector is paused meanwhile (:func:`~assignors.gc_pause.paused_gc`): a scattered
    answer at a million partitions is a few hundred thousand lists, no cycles among them, and
    the collections their making set off walked the scenario's million partitions again and
    again (``sticky`` after a leave: the JSON cost twice the table)."""
    with paused_gc():
        return {
            member: claims_to_json(partitions, every_topic)
            for member, partitions in assignment.partitions.items()
        }


def values_to_json(values: Sequence[Any]) -> list[Any] | dict[str, Any]:
    """Per-partition values as an object of runs (rule 4) when that holds at most a quarter as
    many entries as there are partitions; else the plain list. Tuples are written as lists."""
    groups = [(value, len(list(same))) for value, same in groupby(values)]
    if len(groups) * 4 > len(values):
        return [list(v) if isinstance(v, tuple) else v for v in values]
    keyed: dict[str, Any] = {}
    start = 0
    for value, length in groups:
        keyed[format_range(range(start, start + length))] = (
            list(value) if isinstance(value, tuple) else value
        )
        start += length
    return keyed


def use_compact(form: str, partition_count: int) -> bool:
    """Whether ``form`` (one of :data:`FORMS`) means the compact form for a group of
    ``partition_count`` partitions."""
    if form not in FORMS:
        raise ValueError(f"form {form!r}: expected one of {', '.join(FORMS)}")
    return form == "compact" or (form == "auto" and partition_count >= COMPACT_FROM_PARTITIONS)


def expand(topics: Iterable[str], ranges: Sequence[range]) -> Iterator[TopicPartition]:
    """The claims of a block: each topic in turn with every number of ``ranges`` (made in C)."""
    pairs = product(topics, chain.from_iterable(ranges))
    return cast(Iterator[TopicPartition], map(tuple.__new__, repeat(TopicPartition), pairs))

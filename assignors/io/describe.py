"""Reading what engineers already have: the text ``kafka-consumer-groups.sh`` prints.

:func:`parse_describe` reads the tables of ``--describe --group G`` (offsets), ``--describe
--members [--verbose]`` and ``--describe --state`` as Kafka 3.x and 4.x print them, in any order
and mix, and keeps every row with the line it came from:

1. A table starts at a header line whose first column is ``GROUP`` (or, as Kafka before 2.0 and
   its documentation print it, ``TOPIC``, ``CONSUMER-ID`` or ``COORDINATOR``); its columns are the
   header's words (``COORDINATOR (ID)`` counts as one). Known tables: offsets (``TOPIC``,
   ``PARTITION``, ``CURRENT-OFFSET``, ... and, with 4.x ``--verbose``, ``LEADER-EPOCH``), members
   (``CONSUMER-ID``, ``HOST``, ``CLIENT-ID``, ``#PARTITIONS``, optionally ``GROUP-INSTANCE-ID``,
   3.x's ``ASSIGNMENT`` or 4.x's ``CURRENT-EPOCH CURRENT-ASSIGNMENT TARGET-EPOCH
   TARGET-ASSIGNMENT [UPGRADED]``) and state (``ASSIGNMENT-STRATEGY``, ``STATE``, ...).
2. A row is cut at the header's column positions (Kafka pads every column to its widest value,
   left-aligned), so a value may hold spaces; a row that does not line up with its header is read
   word by word (``COORDINATOR (ID)`` taking two words), the last column taking the rest.
3. ``-`` is Kafka's "no value". Numbers must be whole and not negative; anything else is an error
   naming the line.
4. Kafka's own notes (``Consumer group 'g' has no active members.``, ``Warning: ... is
   rebalancing``) become warnings; any other line outside a table is an error with its number.

:func:`scenario_from_listing` turns one group's rows into a scenario object (the JSON shape of
``docs/scenario-format.md``), saying in a warning every assumption it makes:

1. Topics and partition counts: ``partitions`` (from ``--partitions topic:N``) first, then the
   cluster metadata (:mod:`assignors.io.kcat`), then the listing itself (highest partition
   seen + 1, with a warning); a gap in the listed numbers with no count given is an error.
2. Offsets: the log-end and committed offsets of every listed partition (``-``: no commit). A
   topic with partitions the listing does not show gets explicit ``lags`` instead (the listed
   lags, 0 for the others, with a warning).
3. Members: from the members table when there is one (static ids, clients, hosts, and with 4.x
   ``--verbose`` the current assignment), else from the offsets table's ``CONSUMER-ID`` column;
   owned partitions from the offsets table. The listing shows no subscriptions: every member is
   taken to subscribe to every topic of the group (a warning says so).
4. ``assignor``: the state table's ``ASSIGNMENT-STRATEGY`` when it names a strategy we have
   (``range`` of a group whose members have epochs is the broker-side ``server-range``).

Standard library only. Errors raise :class:`~assignors.errors.ScenarioError` listing every
problem, each ``"<source>:<line>: <what is wrong>"``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from assignors.errors import ScenarioError

MISSING = "-"
#: Header words that are one column although they hold a space.
_JOINED_HEADERS = (("COORDINATOR", "(ID)"),)
#: A header starts with GROUP; Kafka before 2.0 (and its documentation) had no GROUP column.
_FIRST_COLUMNS = frozenset({"GROUP", "TOPIC", "CONSUMER-ID", "COORDINATOR"})
#: The group of rows from a table without a GROUP column.
UNNAMED_GROUP = ""
_OFFSET_COLUMNS = ("TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG")
_MEMBER_COLUMNS = ("CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS")
_STATE_COLUMNS = ("ASSIGNMENT-STRATEGY", "STATE")
_NOTE = re.compile(r"^(Warning: )?Consumer group '(?P<group>.*)' (?P<what>.*)$")
#: Kafka 4.x ``CURRENT-ASSIGNMENT``: ``orders:0,1;payments:2``.
_ASSIGNMENT_4X = re.compile(r"^[^:;]+:\d+(,\d+)*(;[^:;]+:\d+(,\d+)*)*$")
#: Kafka 3.x before 3.7 (Scala): ``orders(0,1), payments(2)``.
_ASSIGNMENT_SCALA = re.compile(r"^[^(),]+\(\d+(,\d+)*\)(, [^(),]+\(\d+(,\d+)*\))*$")
Pair = tuple[str, int]


@dataclass(frozen=True, slots=True)
class OffsetRow:
    """One row of the offsets table; ``None`` where Kafka printed ``-``."""

    line: int
    group: str
    topic: str | None
    partition: int | None
    committed: int | None
    log_end: int | None
    lag: int | None
    consumer_id: str | None
    host: str | None
    client_id: str | None


@dataclass(frozen=True, slots=True)
class MemberRow:
    """One row of the members table. ``assignment`` is ``None`` where the listing has none."""

    line: int
    group: str
    consumer_id: str
    instance_id: str | None
    host: str | None
    client_id: str | None
    partition_count: int | None
    assignment: tuple[Pair, ...] | None
    epoch: int | None
    target: tuple[Pair, ...] | None


@dataclass(frozen=True, slots=True)
class Listing:
    """Everything read from a listing: rows by table, the state table's strategy per group."""

    offsets: tuple[OffsetRow, ...]
    members: tuple[MemberRow, ...]
    strategies: Mapping[str, str]
    warnings: tuple[str, ...]

    def groups(self) -> list[str]:
        """The groups the listing mentions, in the order they first appear."""
        seen: dict[str, None] = {}
        for group in [row.group for row in self.offsets] + [row.group for row in self.members]:
            seen.setdefault(group, None)
        for group in self.strategies:
            seen.setdefault(group, None)
        return list(seen)


@dataclass(slots=True)
class _Reader:
    source: str
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def error(self, line: int, message: str) -> None:
        self.errors.append(f"{self.source}:{line}: {message}")

    def warn(self, line: int, message: str) -> None:
        self.warnings.append(f"{self.source}:{line}: {message}")


@dataclass(frozen=True, slots=True)
class _Header:
    names: tuple[str, ...]
    starts: tuple[int, ...]


def _header(line: str) -> _Header | None:
    """The columns of a table header line (first word ``GROUP``), with where each starts."""
    words = [(m.group(0), m.start()) for m in re.finditer(r"\S+", line)]
    if not words or words[0][0] not in _FIRST_COLUMNS or len(words) < 2:
        return None
    names: list[str] = []
    starts: list[int] = []
    for word, start in words:
        if names and any(names[-1] == a and word == b for a, b in _JOINED_HEADERS):
            names[-1] = f"{names[-1]} {word}"
            continue
        names.append(word)
        starts.append(start)
    return _Header(tuple(names), tuple(starts))


def _cells(line: str, header: _Header) -> list[str] | None:
    """Cut ``line`` into the header's columns: by position when it lines up, else by words."""
    starts = header.starts
    aligned = len(line) > starts[-1] and all(
        line[start - 1] == " " for start in starts[1:] if start <= len(line)
    )
    if aligned:
        bounds = [*starts[1:], len(line)]
        by_position = [line[start:end].strip() for start, end in zip(starts, bounds, strict=True)]
        if all(by_position):
            return by_position
    words = line.split()
    spare = len(words) - len(header.names)
    if spare < 0:
        return None
    cells: list[str] = []
    for name in header.names[:-1]:
        # A column whose header holds a space ("COORDINATOR (ID)") holds one in its value too.
        take = 1 + min(spare, name.count(" "))
        spare -= take - 1
        cells.append(" ".join(words[:take]))
        words = words[take:]
    return [*cells, " ".join(words)]


def _count(text: str, what: str, line: int, reader: _Reader) -> int | None:
    """A whole, non-negative number, or ``None`` for ``-``; an error otherwise."""
    if text == MISSING:
        return None
    if not (text.isascii() and text.isdigit()) or len(text) > 19:
        reader.error(line, f"{what}: expected a whole number or '-', got {text!r}")
        return None
    return int(text)


def _text(value: str) -> str | None:
    return None if value in (MISSING, "") else value


def _offset_row(values: Mapping[str, str], line: int, reader: _Reader) -> OffsetRow:
    def number(column: str) -> int | None:
        return _count(values.get(column, MISSING), column, line, reader)

    return OffsetRow(
        line=line,
        group=values.get("GROUP", UNNAMED_GROUP),
        topic=_text(values["TOPIC"]),
        partition=number("PARTITION"),
        committed=number("CURRENT-OFFSET"),
        log_end=number("LOG-END-OFFSET"),
        lag=number("LAG"),
        consumer_id=_text(values.get("CONSUMER-ID", MISSING)),
        host=_text(values.get("HOST", MISSING)),
        client_id=_text(values.get("CLIENT-ID", MISSING)),
    )


def _assignment(text: str, line: int, reader: _Reader) -> tuple[Pair, ...] | None:
    """A member's partitions as Kafka prints them; ``None`` when the text names no topics."""
    text = text.strip()
    if text in (MISSING, ""):
        return ()
    if _ASSIGNMENT_4X.match(text):
        return tuple(
            (topic, int(number))
            for part in text.split(";")
            for topic, numbers in [part.rsplit(":", 1)]
            for number in numbers.split(",")
        )
    if _ASSIGNMENT_SCALA.match(text):
        return tuple(
            (topic, int(number))
            for topic, numbers in re.findall(r"([^(),]+)\(([\d,]+)\)", text)
            for number in numbers.split(",")
        )
    if re.fullmatch(r"\(\d+(,\d+)*\)(, \(\d+(,\d+)*\))*", text):
        reader.warn(
            line,
            "this ASSIGNMENT column names no topics (Kafka 3.7-3.9 prints it that way); "
            "owners come from the offsets table instead",
        )
        return None
    reader.error(line, f"ASSIGNMENT: cannot read {text!r}")
    return None


def _member_row(values: Mapping[str, str], line: int, reader: _Reader) -> MemberRow:
    assignment_text = values.get("CURRENT-ASSIGNMENT", values.get("ASSIGNMENT"))
    target_text = values.get("TARGET-ASSIGNMENT")
    return MemberRow(
        line=line,
        group=values.get("GROUP", UNNAMED_GROUP),
        consumer_id=values["CONSUMER-ID"],
        instance_id=_text(values.get("GROUP-INSTANCE-ID", MISSING)),
        host=_text(values["HOST"]),
        client_id=_text(values["CLIENT-ID"]),
        partition_count=_count(values["#PARTITIONS"], "#PARTITIONS", line, reader),
        assignment=None if assignment_text is None else _assignment(assignment_text, line, reader),
        epoch=_count(values.get("CURRENT-EPOCH", MISSING), "CURRENT-EPOCH", line, reader),
        target=None if target_text is None else _assignment(target_text, line, reader),
    )


def _table_kind(header: _Header) -> str | None:
    names = set(header.names)
    for kind, needed in (
        ("offsets", _OFFSET_COLUMNS),
        ("members", _MEMBER_COLUMNS),
        ("state", _STATE_COLUMNS),
    ):
        if names.issuperset(needed):
            return kind
    return None


def _outside_table(text: str, number: int, reader: _Reader) -> None:
    """A line that is not part of a table: one of Kafka's notes, or an error."""
    note = _NOTE.match(text.strip())
    if note:
        reader.warn(number, f"Kafka says: {text.strip()}")
    else:
        reader.error(number, f"not part of a kafka-consumer-groups.sh table: {text.strip()[:80]!r}")


def _lines(text: str) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(text.lstrip("\ufeff").splitlines(), start=1):
        yield number, line.rstrip().expandtabs(8)


def parse_describe(text: str, source: str = "listing") -> Listing:
    """Every table row of a ``kafka-consumer-groups.sh --describe`` listing (steps 1-4 above).

    Raises :class:`ScenarioError` with every unreadable line, by number.
    """
    reader = _Reader(source)
    offsets: list[OffsetRow] = []
    members: list[MemberRow] = []
    strategies: dict[str, str] = {}
    header: _Header | None = None
    kind: str | None = None
    for number, line in _lines(text):
        if not line.strip():
            header = kind = None
            continue
        new_header = _header(line)
        if new_header is not None:
            header, kind = new_header, _table_kind(new_header)
            if kind is None:
                reader.error(number, f"unknown table with columns {' '.join(new_header.names)}")
            continue
        if header is None or kind is None:
            _outside_table(line, number, reader)
            continue
        cells = _cells(line, header)
        if cells is None:
            reader.error(number, f"expected {len(header.names)} columns ({' '.join(header.names)})")
            continue
        values = dict(zip(header.names, cells, strict=True))
        if kind == "offsets":
            offsets.append(_offset_row(values, number, reader))
        elif kind == "members":
            members.append(_member_row(values, number, reader))
        else:
            strategies[values.get("GROUP", UNNAMED_GROUP)] = values["ASSIGNMENT-STRATEGY"]
    if not offsets and not members and not strategies and not reader.errors:
        reader.error(
            0,
            "no kafka-consumer-groups.sh table found (expected the output of "
            "kafka-consumer-groups.sh --describe --group G)",
        )
    if reader.errors:
        raise ScenarioError(reader.errors)
    return Listing(tuple(offsets), tuple(members), strategies, tuple(reader.warnings))


def merge_listings(listings: Sequence[Listing]) -> Listing:
    """Several listings (e.g. ``--describe`` and ``--describe --members``) read as one."""
    strategies: dict[str, str] = {}
    for listing in listings:
        strategies.update(listing.strategies)
    return Listing(
        tuple(row for listing in listings for row in listing.offsets),
        tuple(row for listing in listings for row in listing.members),
        strategies,
        tuple(warning for listing in listings for warning in listing.warnings),
    )

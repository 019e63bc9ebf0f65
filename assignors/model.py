"""The data every partition strategy reads and writes.

A :class:`Scenario` is a frozen snapshot of one consumer group: the topics that exist (with their
partition counts and, optionally, replica racks, topic ids, offsets, lags and produce rates) and
the members (subscription, rack, static id, what each owned before and in which generation, and
the optional fields the design documents' strategies read). A strategy is a pure function
``Scenario -> Assignment``.

Invariants the types keep:

* ``TopicPartition`` orders by topic name (code-point order), then partition number, which is
  the order every assignment lists partitions in.
* ``Topic`` per-partition tuples (``replica_racks``, ``lags``, offsets, ``produce_rates``) are
  either ``None`` or exactly ``partitions`` long; the loader (:mod:`assignors.io.scenario`)
  checks this, the dataclasses trust it.
* ``Assignment.partitions`` lists every member of the scenario, each with a sorted sequence of
  partitions (possibly empty): a tuple, or a :class:`PartitionRuns` (the same partitions held
  as blocks of topics x a range of partition numbers, equal to the tuple it stands for).
* ``Scenario.reconciliation`` (a live KIP-848 group read mid-rebalance) names only members of
  the scenario, each at most once; a member's ``current`` is ``None`` exactly when it holds its
  target (its ``owned_partitions``).

Nothing here imports outside the standard library.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, groupby, islice, product, repeat, starmap
from operator import attrgetter, eq, itemgetter, mul
from operator import index as operator_index
from types import MappingProxyType
from typing import Literal, NamedTuple, SupportsIndex, TypeVar, cast, overload

from assignors.gc_pause import paused_gc

AutoOffsetReset = Literal["latest", "earliest", "none"]

#: Java's Integer.MIN_VALUE: the priority of a member that states none (failover strategy).
LOWEST_PRIORITY = -(2**31)


class TopicPartition(NamedTuple):
    """One partition of one topic; orders by topic name, then partition number.

    A named tuple rather than a dataclass: assignments hold millions of these, and tuples are
    created, hashed and compared in C (sorting 1,000,000 of them is ten times faster).
    """

    topic: str
    partition: int

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"


@dataclass(frozen=True, slots=True)
class Topic:
    """A topic as the cluster metadata describes it, plus optional offset facts per partition.

    ``replica_racks[p]`` holds the racks of the brokers with a replica of partition ``p``.
    ``committed_offsets[p]`` is ``None`` where the group has no commit for ``p``.
    """

    name: str
    partitions: int
    replica_racks: tuple[tuple[str, ...], ...] | None = None
    topic_id: str | None = None
    lags: tuple[int, ...] | None = None
    log_start_offsets: tuple[int, ...] | None = None
    log_end_offsets: tuple[int, ...] | None = None
    committed_offsets: tuple[int | None, ...] | None = None
    produce_rates: tuple[float, ...] | None = None

    def topic_partitions(self) -> list[TopicPartition]:
        """Every partition of this topic, in partition order."""
        return [TopicPartition(self.name, p) for p in range(self.partitions)]


@dataclass(frozen=True, slots=True)
class Member:
    """A group member: its subscription and what it tells the assignor about itself.

    ``topics`` is the subscription as the member sent it; topics absent from the scenario are
    ignored by every strategy, as Kafka ignores topics missing from the metadata.
    ``owned_partitions`` with ``generation`` is the member's claim from the previous rebalance
    (``generation`` ``None`` when the member did not state one).
    """

    member_id: str
    topics: tuple[str, ...]
    rack: str | None = None
    group_instance_id: str | None = None
    owned_partitions: tuple[TopicPartition, ...] = ()
    generation: int | None = None
    priority: int | None = None
    consume_rate: float | None = None
    client_id: str | None = None
    host: str | None = None


@dataclass(frozen=True, slots=True)
class MemberReconciliation:
    """One KIP-848 member's progress toward its target, as ConsumerGroupDescribe reports it.

    The member's target (what the group's assignor gave it at the target assignment epoch) is
    its ``owned_partitions`` in the scenario; ``current`` is what it owns now, kept only when it
    differs (``None``: it holds its target). ``member_epoch`` is the epoch the member has
    acknowledged; below the target assignment epoch, it has not caught up yet.
    """

    member_id: str
    member_epoch: int
    current: tuple[TopicPartition, ...] | None = None


@dataclass(frozen=True, slots=True)
class Reconciliation:
    """Where a KIP-848 group stands between two assignments: the group epoch (bumped by every
    change to the group), the target assignment epoch (the group epoch the current targets were
    computed at; equal to the group epoch once the assignor has run) and each member's own
    epoch and current assignment. Members are listed in the scenario's member order."""

    group_epoch: int
    assignment_epoch: int
    members: tuple[MemberReconciliation, ...] = ()

    def by_member(self) -> dict[str, MemberReconciliation]:
        """Entries keyed by member id."""
        return {entry.member_id: entry for entry in self.members}


@dataclass(frozen=True, slots=True)
class Scenario:
    """A consumer group at one moment: topics, members and group-wide options.

    Member ids and topic names are unique (the loader enforces it). For the client-side
    strategies the order of ``members`` carries no meaning; for the server-side ones it is the
    order in which members joined the coordinator's member map. ``kafka_version``: the Kafka
    release line (:data:`assignors.kafka_versions.KAFKA_VERSIONS`) whose assignors a
    version-dependent strategy reproduces; ``None`` is the newest.
    """

    topics: tuple[Topic, ...]
    members: tuple[Member, ...]
    auto_offset_reset: AutoOffsetReset = "latest"
    name: str | None = None
    description: str | None = None
    group_id: str | None = None
    assignor: str | None = None
    reconciliation: Reconciliation | None = None
    """Set for a KIP-848 group read live: epochs and, per member, what it owns now where that is
    not yet its target (see :class:`Reconciliation`)."""
    kafka_version: str | None = None

    def topic_by_name(self) -> dict[str, Topic]:
        """Topics keyed by name."""
        return {topic.name: topic for topic in self.topics}

    def partition_counts(self) -> dict[str, int]:
        """Partition count per existing topic."""
        return {topic.name: topic.partitions for topic in self.topics}

    def subscribed_topics(self) -> set[str]:
        """Every topic name some member subscribes to (existing or not).

        Members mostly list the same topics: a member whose list equals the previous member's
        (the same tuple, as the parser shares equal lists, or equal element by element; no
        hashing) adds nothing and is skipped.
        """
        names: set[str] = set()
        previous: tuple[str, ...] | None = None
        for member in self.members:
            if member.topics is not previous and member.topics != previous:
                previous = member.topics
                names.update(previous)
        return names

    def subscribed_existing_topics(self) -> list[str]:
        """Topics that exist and that at least one member subscribes to, sorted by name."""
        counts = self.partition_counts()
        return sorted({t for m in self.members for t in m.topics if t in counts})


def topic_partitions(
    topic: str, numbers: Iterable[int], count: int | None = None
) -> Iterator[TopicPartition]:
    """``TopicPartition(topic, n)`` for each of ``numbers`` (the first ``count`` of them when
    given), built in C: ``tuple.__new__`` over ``zip``, no Python-level call per partition.
    Strategies building a million partitions pass one shared list of numbers with ``count``,
    so that every topic reuses the same ``int`` objects."""
    names = repeat(topic) if count is None else repeat(topic, count)
    made = map(tuple.__new__, repeat(TopicPartition), zip(names, numbers, strict=False))
    return cast(Iterator[TopicPartition], made)


#: One run of a :class:`PartitionRuns`: topics (in increasing order) x partition numbers (a
#: range of positive step), standing for ``product(topics, numbers)``.
PartitionRun = tuple[tuple[str, ...], range]


class PartitionRuns(Sequence[TopicPartition]):
    """One member's sorted partitions held as *runs*, standing for the tuple of them.

    A run ``(topics, numbers)`` is the partitions ``numbers`` (a ``range`` of any positive
    step) of each of ``topics``, topic by topic. A range assignor gives a member one contiguous
    range of every topic it shares with the same others, and a round-robin deal gives it every
    ``n``-th partition (a range of step ``n``), so 1,000,000 partitions over 2,000 members are
    2,000 runs rather than a million :class:`TopicPartition` objects; those are made in C when
    the sequence is iterated (a piece at a time, the cyclic collector paused meanwhile) or one
    when it is indexed, and never stored: each pass over it makes them again.

    Invariants (the constructor trusts them; :meth:`of` builds valid runs from any blocks):
    every run has at least one topic, in strictly increasing order, and a non-empty range of
    positive step (any step when it holds one number); each run's last partition comes before
    the next run's first in :class:`TopicPartition` order. So the sequence is sorted, without
    duplicates. Ranges compare as the numbers they hold (``range(2, 3) == range(2, 9, 7)``).

    It is immutable and behaves as the tuple of its partitions: equal to that tuple (``==``,
    the same ``hash``), the same ``len``, iteration, ``reversed``, indexing, slicing (a slice
    is a tuple), ``in``, ``index`` and ``count``. ``len``, ``in``, ``index`` and indexing take
    O(runs), not O(partitions). It is not a tuple: ``+``, ``json`` and ordering comparisons
    want ``tuple(runs)``.
    """

    __slots__ = ("_hash", "_length", "runs")
    runs: tuple[PartitionRun, ...]
    _length: int
    _hash: int | None

    def __init__(self, runs: Iterable[PartitionRun] = ()) -> None:
        runs = tuple(runs)
        object.__setattr__(self, "runs", runs)
        topics, numbers = map(len, map(itemgetter(0), runs)), map(len, map(itemgetter(1), runs))
        object.__setattr__(self, "_length", sum(map(mul, topics, numbers)))  # in C
        object.__setattr__(self, "_hash", None)

    @classmethod
    def of(cls, blocks: Iterable[PartitionRun]) -> PartitionRuns:
        """The partitions of ``blocks`` (each: topics in strictly increasing order x a range of
        positive step; either may be empty) in order. Blocks that follow one another stay whole
        runs; blocks that interleave are cut into one run per topic, merged (:func:`_merged`),
        and consecutive topics with the same numbers joined again. Raises ``ValueError`` if two
        blocks share a partition or a range's step is negative."""
        kept = sorted((b for b in blocks if b[0] and b[1]), key=_run_start)
        if any(numbers.step < 0 for _, numbers in kept):
            raise ValueError("a block's range of partition numbers must have a positive step")
        if all(map(_precedes, kept, islice(kept, 1, None))):
            return cls(kept)
        return cls(_merged(kept))

    def __len__(self) -> int:
        return self._length

    def __iter__(self) -> Iterator[TopicPartition]:
        """The partitions, made in C a batch (at most :data:`PIECE` of them, :func:`_batches`)
        at a time, the cyclic collector paused while each batch is made (:func:`_made`)."""
        return chain.from_iterable(map(_made, _batches(self.runs)))

    def __reversed__(self) -> Iterator[TopicPartition]:
        backwards = (product(t[::-1], n[::-1]) for t, n in reversed(self.runs))
        pairs = chain.from_iterable(backwards)
        return cast(Iterator[TopicPartition], map(tuple.__new__, repeat(TopicPartition), pairs))

    @overload
    def __getitem__(self, index: SupportsIndex) -> TopicPartition: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[TopicPartition, ...]: ...

    def __getitem__(
        self, index: SupportsIndex | slice
    ) -> TopicPartition | tuple[TopicPartition, ...]:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._length)
            return tuple(islice(self, start, stop)) if step == 1 else tuple(self)[index]
        position = operator_index(index)
        if position < 0:
            position += self._length
        if not 0 <= position < self._length:
            raise IndexError("PartitionRuns index out of range")
        for topics, numbers in self.runs:
            size = len(topics) * len(numbers)
            if position < size:
                topic, number = divmod(position, len(numbers))
                return TopicPartition(topics[topic], numbers[number])
            position -= size
        raise AssertionError("runs shorter than their length")  # pragma: no cover

    def _position(self, item: object) -> int | None:
        """The index of ``item`` (a ``(topic, partition)`` pair), or ``None``; O(runs)."""
        if not isinstance(item, tuple) or len(item) != 2:
            return None
        topic, number = item
        if not isinstance(topic, str) or not isinstance(number, int):
            return None
        offset = 0
        for topics, numbers in self.runs:
            if number in numbers:
                at = bisect_left(topics, topic)
                if at < len(topics) and topics[at] == topic:
                    return offset + at * len(numbers) + numbers.index(number)
            offset += len(topics) * len(numbers)
        return None

    def __contains__(self, item: object) -> bool:
        return self._position(item) is not None

    def count(self, value: object) -> int:
        return 0 if self._position(value) is None else 1

    def index(
        self, value: object, start: SupportsIndex = 0, stop: SupportsIndex | None = None
    ) -> int:
        first, last, _ = slice(start, stop).indices(self._length)
        position = self._position(value)
        if position is None or not first <= position < last:
            raise ValueError(f"{value!r} is not in the partitions")
        return position

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PartitionRuns):
            if self.runs == other.runs:
                return True
        elif not isinstance(other, tuple):
            return NotImplemented
        return self._length == len(other) and all(map(eq, self, other))

    def __hash__(self) -> int:
        if self._hash is None:
            object.__setattr__(self, "_hash", hash(tuple(self)))
        return cast(int, self._hash)

    def __repr__(self) -> str:
        return f"PartitionRuns({self.runs!r})"

    def __reduce__(self) -> tuple[type[PartitionRuns], tuple[tuple[PartitionRun, ...]]]:
        return (PartitionRuns, (self.runs,))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("PartitionRuns is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("PartitionRuns is immutable")


#: The most partitions :class:`PartitionRuns` makes at once while it is iterated.
PIECE = 16_384


def _made(batch: Sequence[PartitionRun]) -> tuple[TopicPartition, ...]:
    """The partitions of ``batch``'s runs, built in C with the cyclic collector paused
    (:func:`~assignors.gc_pause.paused_gc`). ``TopicPartition`` is a tuple subclass, which the
    collector never untracks: made with it running, a million of them cost four times as much
    (young collections promoting them, then full ones walking them)."""
    with paused_gc():
        pairs = chain.from_iterable(starmap(product, batch))
        return tuple(
            cast(Iterator[TopicPartition], map(tuple.__new__, repeat(TopicPartition), pairs))
        )


def _batches(runs: Iterable[PartitionRun]) -> Iterator[list[PartitionRun]]:
    """``runs`` cut into pieces (:func:`_pieces`) and gathered, in order, into batches of at
    most :data:`PIECE` partitions: pausing the collector costs about 10 microseconds, which
    once per run made a run of a few partitions ten times dearer to read than its partitions."""
    batch: list[PartitionRun] = []
    size = 0
    for piece in chain.from_iterable(map(_pieces, runs)):
        count = len(piece[0]) * len(piece[1])
        if batch and size + count > PIECE:
            yield batch
            batch, size = [], 0
        batch.append(piece)
        size += count
    if batch:
        yield batch


def _pieces(run: PartitionRun) -> Iterator[PartitionRun]:
    """``run`` cut into runs of at most :data:`PIECE` partitions (a topic's range cut only when
    it alone is longer), in order."""
    topics, numbers = run
    if len(topics) * len(numbers) <= PIECE:
        yield run
    elif len(numbers) > PIECE:
        for topic in topics:
            for start in range(0, len(numbers), PIECE):
                yield (topic,), numbers[start : start + PIECE]
    else:
        step = PIECE // len(numbers)
        for start in range(0, len(topics), step):
            yield topics[start : start + step], numbers


def _run_start(run: PartitionRun) -> tuple[str, int]:
    return run[0][0], run[1].start


def _precedes(run: PartitionRun, following: PartitionRun) -> bool:
    """Whether ``run``'s last partition comes before ``following``'s first."""
    return (run[0][-1], run[1][-1]) < (following[0][0], following[1].start)


def _merged(blocks: Iterable[PartitionRun]) -> list[PartitionRun]:
    """Blocks cut into one ``(topic, numbers)`` per topic, in order, each topic's numbers as
    few ranges as :func:`_topic_ranges` makes them; then consecutive topics with equal numbers
    grouped into one run."""
    by_topic: dict[str, list[range]] = {}
    for topics, numbers in blocks:
        for topic in topics:
            by_topic.setdefault(topic, []).append(numbers)
    joined = [
        (topic, numbers)
        for topic in sorted(by_topic)
        for numbers in _topic_ranges(topic, by_topic[topic])
    ]
    grouped = groupby(joined, key=itemgetter(1))
    return [(tuple(topic for topic, _ in group), numbers) for numbers, group in grouped]


def _topic_ranges(topic: str, pieces: list[range]) -> list[range]:
    """One topic's ranges (positive steps, none empty) in order, each joined to the one before
    when together they are one progression (:func:`_joined`). Ranges that interleave (a number
    of one between two of another) are recut from their numbers (:func:`_progressions`).
    Raises ``ValueError`` if two share a number."""
    pieces = sorted(pieces, key=attrgetter("start"))
    out: list[range] = []
    for numbers in pieces:
        if not out:
            out.append(numbers)
        elif numbers.start <= out[-1][-1]:
            return _progressions(topic, pieces)
        else:
            joined = _joined(out[-1], numbers)
            if joined is None:
                out.append(numbers)
            else:
                out[-1] = joined
    return out


def _joined(before: range, after: range) -> range | None:
    """``before`` then ``after`` (which starts past ``before``'s last number) as one range, when
    they make one progression: the step of whichever holds two numbers or more (both the same),
    1 when both hold one; else ``None``."""
    step = before.step if len(before) > 1 else after.step if len(after) > 1 else 1
    if after.start - before[-1] != step or (len(after) > 1 and after.step != step):
        return None
    return range(before.start, after[-1] + 1, step)


def _progressions(topic: str, pieces: list[range]) -> list[range]:
    """The numbers of ``pieces`` sorted, cut greedily into the longest progressions from the
    left (a last lone number is a range of its own). Raises ``ValueError`` on a number held
    twice."""
    numbers = sorted(chain.from_iterable(pieces))
    for number, following in zip(numbers, islice(numbers, 1, None), strict=False):
        if number == following:
            raise ValueError(f"partition {topic}-{number} is in two blocks")
    out: list[range] = []
    first = 0
    while first < len(numbers):
        last = first + 1
        if last < len(numbers):
            step = numbers[last] - numbers[first]
            while last + 1 < len(numbers) and numbers[last + 1] - numbers[last] == step:
                last += 1
            out.append(range(numbers[first], numbers[last] + 1, step))
        else:
            out.append(range(numbers[first], numbers[first] + 1))
        first = last + 1
    return out


_Partitions = TypeVar("_Partitions", bound=Sequence[TopicPartition])


class SortedAnswer(dict[str, _Partitions]):
    """A strategy's answer (member id -> partitions) whose every list is already in
    :class:`TopicPartition` order, as the strategy built it: :meth:`Assignment.of` takes the
    lists as they are instead of sorting them (at 1,000,000 partitions the sort is a tenth of
    a fast strategy's time), and tuples without even a copy. Return one only where the order
    is certain by construction."""


def _frozen_partitions(
    partitions: Mapping[str, Iterable[TopicPartition]], presorted: bool = False
) -> Mapping[str, Sequence[TopicPartition]]:
    """Each member's partitions as a sorted tuple; :class:`PartitionRuns` stay as they are
    (sorted by their invariants, immutable, never materialized)."""
    frozen = tuple if presorted else _sorted_tuple
    return MappingProxyType(
        {
            member: tps if isinstance(tps, PartitionRuns) else frozen(tps)
            for member, tps in partitions.items()
        }
    )


def _sorted_tuple(partitions: Iterable[TopicPartition]) -> tuple[TopicPartition, ...]:
    return tuple(sorted(partitions))


@dataclass(frozen=True, slots=True)
class Assignment:
    """Member id -> sorted partitions, for every member of the scenario.

    Each member's partitions are an immutable sorted sequence: a tuple, or a
    :class:`PartitionRuns` (equal to the tuple it stands for; its ``len`` costs O(runs), so
    prefer ``len`` to counting by iteration). ``warnings`` carries notes a person should see
    (for example a claim on a partition that no longer exists, which Kafka ignores). Build one
    with :meth:`of`.
    """

    partitions: Mapping[str, Sequence[TopicPartition]]
    warnings: tuple[str, ...] = field(default=())

    @classmethod
    def of(
        cls,
        members: Iterable[str],
        partitions: Mapping[str, Iterable[TopicPartition]],
        warnings: Iterable[str] = (),
    ) -> Assignment:
        """An assignment listing every member in ``members`` (empty where none given).

        Each member's partitions are read once (sorted into a tuple), never copied first; a
        :class:`SortedAnswer`'s lists are taken in their order, and :class:`PartitionRuns` as
        they are."""
        complete = {member: partitions.get(member, ()) for member in members}
        extra = set(partitions) - set(complete)
        if extra:
            raise ValueError(f"assignment names members not in the group: {sorted(extra)}")
        presorted = isinstance(partitions, SortedAnswer)
        return cls(_frozen_partitions(complete, presorted), tuple(warnings))

    def materialized(self) -> Assignment:
        """The same assignment (equal to this one) with every member's partitions a tuple of
        :class:`TopicPartition` objects; this one when they all are. For readers that pass over
        every partition several times, which would make a :class:`PartitionRuns`' partitions
        again on each pass."""
        if not any(isinstance(tps, PartitionRuns) for tps in self.partitions.values()):
            return self
        tuples = {member: tuple(tps) for member, tps in self.partitions.items()}
        return Assignment(MappingProxyType(tuples), self.warnings)

    def owner_of(self) -> dict[TopicPartition, str]:
        """Partition -> the member it is assigned to."""
        return {tp: member for member, tps in self.partitions.items() for tp in tps}

    def to_json(self) -> dict[str, list[list[str | int]]]:
        """The wire form: ``{member_id: [[topic, partition], ...]}``."""
        return {
            member: [[tp.topic, tp.partition] for tp in tps]
            for member, tps in self.partitions.items()
        }

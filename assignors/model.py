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
* ``Assignment.partitions`` lists every member of the scenario, each with a sorted tuple of
  partitions (possibly empty).
* ``Scenario.reconciliation`` (a live KIP-848 group read mid-rebalance) names only members of
  the scenario, each at most once; a member's ``current`` is ``None`` exactly when it holds its
  target (its ``owned_partitions``).

Nothing here imports outside the standard library.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from types import MappingProxyType
from typing import Literal, NamedTuple, TypeVar, cast

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


_Partitions = TypeVar("_Partitions", bound=Sequence[TopicPartition])


class SortedAnswer(dict[str, _Partitions]):
    """A strategy's answer (member id -> partitions) whose every list is already in
    :class:`TopicPartition` order, as the strategy built it: :meth:`Assignment.of` takes the
    lists as they are instead of sorting them (at 1,000,000 partitions the sort is a tenth of
    a fast strategy's time), and tuples without even a copy. Return one only where the order
    is certain by construction."""


def _frozen_partitions(
    partitions: Mapping[str, Iterable[TopicPartition]], presorted: bool = False
) -> Mapping[str, tuple[TopicPartition, ...]]:
    if presorted:
        return MappingProxyType({member: tuple(tps) for member, tps in partitions.items()})
    return MappingProxyType({member: tuple(sorted(tps)) for member, tps in partitions.items()})


@dataclass(frozen=True, slots=True)
class Assignment:
    """Member id -> sorted partitions, for every member of the scenario.

    ``warnings`` carries notes a person should see (for example a claim on a partition that no
    longer exists, which Kafka ignores). Build one with :meth:`of`.
    """

    partitions: Mapping[str, tuple[TopicPartition, ...]]
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
        :class:`SortedAnswer`'s lists are taken in their order."""
        complete = {member: partitions.get(member, ()) for member in members}
        extra = set(partitions) - set(complete)
        if extra:
            raise ValueError(f"assignment names members not in the group: {sorted(extra)}")
        presorted = isinstance(partitions, SortedAnswer)
        return cls(_frozen_partitions(complete, presorted), tuple(warnings))

    def owner_of(self) -> dict[TopicPartition, str]:
        """Partition -> the member it is assigned to."""
        return {tp: member for member, tps in self.partitions.items() for tp in tps}

    def to_json(self) -> dict[str, list[list[str | int]]]:
        """The wire form: ``{member_id: [[topic, partition], ...]}``."""
        return {
            member: [[tp.topic, tp.partition] for tp in tps]
            for member, tps in self.partitions.items()
        }

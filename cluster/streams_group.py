"""A Kafka Streams group (KIP-1071) as StreamsGroupDescribe reports it: plain frozen data.

:func:`streams_group_from_response` turns one ``DescribedGroup`` of the response (kafka-python
objects, :mod:`cluster.protocol`) into a :class:`StreamsGroupDescription`; nothing here sends a
request. Tasks are ``(subtopology id, partition)`` pairs as the broker writes them (subtopology
ids are strings: ``"0"``, ``"1"`` for an ordinary topology), sorted.

A member is one Streams consumer; several members with the same ``process_id`` are the stream
threads of one Kafka Streams instance. ``assignment`` is what a member runs now,
``target_assignment`` what the group's assignor gave it at the assignment epoch; they differ
while it reconciles. ``warmup`` tasks are standby tasks the assignor uses to move a stateful task
without a long restore (KIP-441).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

StreamsTask = tuple[str, int]


@dataclass(frozen=True, slots=True)
class StreamsTasks:
    """A member's tasks: active, standby and warm-up (each sorted)."""

    active: tuple[StreamsTask, ...] = ()
    standby: tuple[StreamsTask, ...] = ()
    warmup: tuple[StreamsTask, ...] = ()


@dataclass(frozen=True, slots=True)
class Subtopology:
    """One subtopology: the topics it reads and writes; stateful when it has changelogs."""

    subtopology_id: str
    source_topics: tuple[str, ...]
    repartition_source_topics: tuple[tuple[str, int], ...]
    repartition_sink_topics: tuple[str, ...]
    changelog_topics: tuple[str, ...]

    @property
    def stateful(self) -> bool:
        return bool(self.changelog_topics)


@dataclass(frozen=True, slots=True)
class StreamsMemberDescription:
    """A Streams group member: identity, epochs, changelog offsets per task, and its tasks."""

    member_id: str
    member_epoch: int
    process_id: str
    instance_id: str | None
    rack: str | None
    client_id: str
    host: str
    topology_epoch: int
    client_tags: Mapping[str, str]
    task_offsets: Mapping[StreamsTask, int]
    task_end_offsets: Mapping[StreamsTask, int]
    assignment: StreamsTasks
    target_assignment: StreamsTasks
    is_classic: bool


@dataclass(frozen=True, slots=True)
class StreamsGroupDescription:
    """A Streams group: state, epochs, topology (``None`` until initialised) and members."""

    group_id: str
    state: str
    group_epoch: int
    assignment_epoch: int
    topology_epoch: int | None
    subtopologies: tuple[Subtopology, ...] | None
    members: tuple[StreamsMemberDescription, ...]

    @property
    def reconciling(self) -> tuple[str, ...]:
        """Ids of the members whose current tasks are not yet their target."""
        return tuple(
            m.member_id
            for m in self.members
            if m.assignment != m.target_assignment or m.member_epoch != self.assignment_epoch
        )


def _tasks(entries: Any) -> tuple[StreamsTask, ...]:
    return tuple(
        sorted(
            (str(entry.subtopology_id), int(partition))
            for entry in entries or ()
            for partition in entry.partitions or ()
        )
    )


def _assignment(raw: Any) -> StreamsTasks:
    return StreamsTasks(
        active=_tasks(raw.active_tasks),
        standby=_tasks(raw.standby_tasks),
        warmup=_tasks(raw.warmup_tasks),
    )


def _offsets(entries: Any) -> dict[StreamsTask, int]:
    return {
        (str(entry.subtopology_id), int(entry.partition)): int(entry.offset)
        for entry in entries or ()
    }


def _member(raw: Any) -> StreamsMemberDescription:
    return StreamsMemberDescription(
        member_id=str(raw.member_id),
        member_epoch=int(raw.member_epoch),
        process_id=str(raw.process_id),
        instance_id=raw.instance_id or None,
        rack=raw.rack_id or None,
        client_id=str(raw.client_id),
        host=str(raw.client_host),
        topology_epoch=int(raw.topology_epoch),
        client_tags={str(tag.key): str(tag.value) for tag in raw.client_tags or ()},
        task_offsets=_offsets(raw.task_offsets),
        task_end_offsets=_offsets(raw.task_end_offsets),
        assignment=_assignment(raw.assignment),
        target_assignment=_assignment(raw.target_assignment),
        is_classic=bool(raw.is_classic),
    )


def _subtopology(raw: Any) -> Subtopology:
    return Subtopology(
        subtopology_id=str(raw.subtopology_id),
        source_topics=tuple(sorted(str(t) for t in raw.source_topics or ())),
        repartition_source_topics=tuple(
            sorted((str(t.name), int(t.partitions)) for t in raw.repartition_source_topics or ())
        ),
        repartition_sink_topics=tuple(sorted(str(t) for t in raw.repartition_sink_topics or ())),
        changelog_topics=tuple(sorted(str(t.name) for t in raw.state_changelog_topics or ())),
    )


def streams_group_from_response(group_id: str, raw: Any) -> StreamsGroupDescription:
    """One described group of a StreamsGroupDescribe response (error code already checked)."""
    topology = raw.topology
    subtopologies = None
    if topology is not None and topology.subtopologies is not None:
        subtopologies = tuple(_subtopology(s) for s in topology.subtopologies)
    return StreamsGroupDescription(
        group_id=group_id,
        state=str(raw.group_state),
        group_epoch=int(raw.group_epoch),
        assignment_epoch=int(raw.assignment_epoch),
        topology_epoch=None if topology is None else int(topology.epoch),
        subtopologies=subtopologies,
        members=tuple(_member(member) for member in raw.members),
    )

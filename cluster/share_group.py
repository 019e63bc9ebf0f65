"""A share group (KIP-932) as ShareGroupDescribe reports it: plain frozen data.

:func:`share_group_from_response` turns one ``DescribedGroup`` of the response into a
:class:`ShareGroupDescription`; nothing here sends a request. Unlike a consumer group, several
members may hold the same partition (records are handed out one by one), and a share group has
no target assignment in the response: ``assignment`` is what each member holds now.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

TopicPartitionKey = tuple[str, int]


@dataclass(frozen=True, slots=True)
class ShareMemberDescription:
    """A share consumer: identity, epoch, subscription and the partitions it holds."""

    member_id: str
    member_epoch: int
    rack: str | None
    client_id: str
    host: str
    subscribed_topics: tuple[str, ...]
    assignment: tuple[TopicPartitionKey, ...]


@dataclass(frozen=True, slots=True)
class ShareGroupDescription:
    """A share group: its assignor (``simple`` by default), epochs and members."""

    group_id: str
    state: str
    group_epoch: int
    assignment_epoch: int
    assignor: str
    members: tuple[ShareMemberDescription, ...]


def assignment_pairs(assignment: Any) -> tuple[TopicPartitionKey, ...]:
    """A described member's assignment (``topic_partitions`` of topic names and partition
    numbers, as ConsumerGroupDescribe and ShareGroupDescribe give it) as sorted pairs."""
    return tuple(
        sorted(
            (str(entry.topic_name), int(partition))
            for entry in assignment.topic_partitions
            for partition in entry.partitions
        )
    )


def _member(raw: Any) -> ShareMemberDescription:
    return ShareMemberDescription(
        member_id=str(raw.member_id),
        member_epoch=int(raw.member_epoch),
        rack=raw.rack_id or None,
        client_id=str(raw.client_id),
        host=str(raw.client_host),
        subscribed_topics=tuple(sorted(str(t) for t in raw.subscribed_topic_names or ())),
        assignment=assignment_pairs(raw.assignment),
    )


def share_group_from_response(group_id: str, raw: Any) -> ShareGroupDescription:
    """One described group of a ShareGroupDescribe response (error code already checked)."""
    return ShareGroupDescription(
        group_id=group_id,
        state=str(raw.group_state),
        group_epoch=int(raw.group_epoch),
        assignment_epoch=int(raw.assignment_epoch),
        assignor=str(raw.assignor_name),
        members=tuple(_member(member) for member in raw.members),
    )

"""A live consumer group -> :class:`~assignors.model.Scenario`, through the one loader.

Steps of :func:`snapshot_group`:

1. Describe the group (members, decoded subscriptions and assignments, chosen assignor). A share
   group (KIP-932) is described by ShareGroupDescribe: its assignor (``simple`` ->
   ``share-simple``), epochs, and per member what it holds as ``owned_partitions`` (several
   members may hold one partition); DescribeShareGroupOffsets gives its share-partition start
   offsets (written as ``committed_offsets``) and Kafka's lag per partition (``lags``). A
   Kafka Streams group is not a consumer-group scenario (:func:`read_group` reads it as a Streams
   scenario). A KIP-848 group (``group.protocol=consumer``) is described by
   ConsumerGroupDescribe instead:
   its server assignor (``uniform`` or ``server-range``), epochs, and per member the target
   assignment (as ``owned_partitions``); the scenario's ``reconciliation`` keeps the group
   epoch, the target assignment epoch, each member's epoch and, where it differs from the
   target, its current assignment (:func:`consumer_reconciliation_json`). A missing group or a
   missing permission stops here with a specific error.
2. Topics: every topic a member subscribes to or is assigned, plus every topic the group has
   committed offsets for; those that exist get their partition count and topic id.
3. Replica racks: each partition's replica brokers mapped to the brokers' racks (from the
   bootstrap metadata); left out entirely when no broker has a rack.
4. Offsets: committed (``null`` where the group has none), log-start and log-end per partition.
5. Optionally (``sample_seconds > 0``) read the log-end and committed offsets again after that
   many seconds: ``produce_rates`` per partition is the log-end growth per second, and each
   member's ``consume_rate`` the committed growth per second over the partitions it is assigned.
6. Members: id, client id, host, instance id, rack (subscription v3), subscription, and as
   ``owned_partitions`` the current assignment; ``generation`` from the subscription (v2+) or
   from the sticky assignor's user data; ``priority`` from the failover assignor's user data.
7. The Kafka version: the release line the brokers run (:meth:`ClusterReader.kafka_release`,
   read once per snapshot unless the caller read it already) becomes the scenario's
   ``kafka_version`` (the nearest reproduced line; the description says what was read). The
   broker-side assignors (``uniform``, ``server-range``, ``share-simple``) run in the brokers,
   so this is the version they answer as. A classic group's assignment is computed by the
   leader's client library, whose version the brokers do not report: its description says so,
   and the version stays the brokers' until the user names the client's.
8. The JSON object is validated by :func:`assignors.io.scenario.parse_scenario` (which first runs
   the JSON gate's value checks: no NaN, no huge number, no lone surrogate in a name), so a
   snapshot and a file obey the same rules; its warnings come back with the scenario. The size
   limits are also checked on the cluster's answers before step 2 builds anything
   (:func:`check_sizes`), so a huge group is refused before its offsets are asked for.

Invariant: nothing here sends a request; :class:`~cluster.reader.ClusterReader` does, and it
only reads.
"""

from __future__ import annotations

import re
import struct
import time
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from assignors import (
    MAX_MEMBERS,
    MAX_PARTITIONS_PER_TOPIC,
    MAX_TOPICS,
    MAX_TOTAL_PARTITIONS,
    Scenario,
    ScenarioError,
    StreamsScenario,
    parse_scenario,
)
from cluster.errors import (
    ClusterError,
    ConsumerProtocolGroupError,
    GroupNotFoundError,
    ShareGroupError,
    StreamsGroupError,
)
from cluster.kafka_release import KafkaRelease
from cluster.reader import (
    ClusterReader,
    ConsumerGroupDescription,
    GroupDescription,
    MemberDescription,
    TopicMetadata,
    TopicPartitionKey,
)
from cluster.share_group import ShareGroupDescription

MAX_SAMPLE_SECONDS = 300.0


def decode_sticky_user_data(data: bytes) -> tuple[list[TopicPartitionKey], int | None] | None:
    """The StickyAssignor's user data: (previous assignment, generation or None); None if not.

    Layout (big-endian), as Java's StickyAssignor writes it: int32 topic count; per topic an
    int16-length UTF-8 name, an int32 partition count and that many int32 partitions; then, in
    version 1, an int32 generation. kafka-python 3 puts an int16 version (0 or 1) in front;
    both forms are read.
    """
    decoded = _decode_sticky(data)
    if decoded is None and len(data) >= 2 and data[:2] in (b"\x00\x00", b"\x00\x01"):
        decoded = _decode_sticky(data[2:])
    return decoded


def _decode_sticky(data: bytes) -> tuple[list[TopicPartitionKey], int | None] | None:
    try:
        offset = 0
        (topics,) = struct.unpack_from(">i", data, offset)
        offset += 4
        if topics < 0 or topics > len(data):
            return None
        pairs: list[TopicPartitionKey] = []
        for _ in range(topics):
            (length,) = struct.unpack_from(">h", data, offset)
            offset += 2
            if length < 0:
                return None
            name = data[offset : offset + length].decode("utf-8")
            offset += length
            (count,) = struct.unpack_from(">i", data, offset)
            offset += 4
            if count < 0 or offset + 4 * count > len(data):
                return None
            partitions = struct.unpack_from(f">{count}i", data, offset)
            offset += 4 * count
            pairs.extend((name, p) for p in partitions)
        generation = None
        if len(data) - offset == 4:
            (generation,) = struct.unpack_from(">i", data, offset)
            offset += 4
        if offset != len(data):
            return None
        return pairs, generation
    except (struct.error, UnicodeDecodeError):
        return None


def _generation(member: MemberDescription, protocol: str) -> int | None:
    if member.generation is not None:
        return member.generation
    if protocol == "sticky" and member.subscription_user_data:
        decoded = decode_sticky_user_data(member.subscription_user_data)
        if decoded is not None and decoded[1] is not None and decoded[1] >= 0:
            return decoded[1]
    return None


def _priority(member: MemberDescription, protocol: str) -> int | None:
    if protocol == "failover" and len(member.subscription_user_data) == 4:
        return int(struct.unpack(">i", member.subscription_user_data)[0])
    return None


def _member_json(member: MemberDescription, protocol: str) -> dict[str, Any]:
    item: dict[str, Any] = {"member_id": member.member_id, "topics": sorted(set(member.topics))}
    optional = {
        "client_id": member.client_id,
        "host": member.host,
        "group_instance_id": member.group_instance_id,
        "rack": member.rack,
        "generation": _generation(member, protocol),
        "priority": _priority(member, protocol),
    }
    item.update({key: value for key, value in optional.items() if value is not None})
    if member.assignment:
        item["owned_partitions"] = [[topic, partition] for topic, partition in member.assignment]
    return item


def snapshot_group(
    reader: ClusterReader,
    group_id: str,
    *,
    sample_seconds: float = 0.0,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    release: KafkaRelease | None = None,
) -> tuple[Scenario, tuple[str, ...]]:
    """Steps 1-8 of the module docstring; returns the scenario and the loader's warnings.
    ``release``: the brokers' release as the caller read it (read here when ``None``)."""
    if not 0 <= sample_seconds <= MAX_SAMPLE_SECONDS:
        raise ClusterError(
            f"the sampling interval must be 0 to {MAX_SAMPLE_SECONDS:g} s, got {sample_seconds:g}"
        )
    group, consumer_group = describe_any_group(reader, group_id)
    lags: dict[TopicPartitionKey, int] = {}
    if isinstance(consumer_group, ShareGroupDescription):
        note = share_group_note(consumer_group)
        committed, lags = share_offsets(reader, group)
    else:
        note = "" if consumer_group is None else consumer_group_note(consumer_group)
        committed = reader.committed_offsets(group_id)
    if not group.members and not committed:
        raise GroupNotFoundError(group_id)
    raw = scenario_json(reader, group, committed, sample_seconds, sleep, clock, lags)
    raw["description"] += note
    release = release if release is not None else reader.kafka_release()
    raw["description"] += " " + version_note(release, classic=consumer_group is None)
    if release.kafka_version is not None:
        raw["kafka_version"] = release.kafka_version
    if isinstance(consumer_group, ConsumerGroupDescription):
        raw["reconciliation"] = consumer_reconciliation_json(consumer_group)
    return parse_scenario(raw, path="")


def consumer_reconciliation_json(group: ConsumerGroupDescription) -> dict[str, Any]:
    """The scenario's ``reconciliation`` object for a KIP-848 group: epochs, and per member its
    epoch and, where it is not its target yet, what it owns now."""
    members = []
    for member in group.members:
        item: dict[str, Any] = {"member_id": member.member_id, "member_epoch": member.member_epoch}
        if set(member.assignment) != set(member.target_assignment):
            item["current"] = [[topic, partition] for topic, partition in member.assignment]
        members.append(item)
    return {
        "group_epoch": group.group_epoch,
        "assignment_epoch": group.assignment_epoch,
        "members": members,
    }


def version_note(release: KafkaRelease, *, classic: bool) -> str:
    """The description's sentence on the Kafka version (step 7): what the brokers run and, for
    a classic group, that its client library decides."""
    if not classic:
        return release.sentence()
    return (
        f"{release.sentence()} A classic group's assignment is computed by its leader's client"
        " library, not by the brokers: set kafka_version to the client's Kafka version for the"
        " client-side strategies."
    )


def read_group(
    reader: ClusterReader, group_id: str, release: KafkaRelease | None = None
) -> tuple[Scenario | StreamsScenario, tuple[str, ...]]:
    """Any group as the scenario of its kind: a Kafka Streams group (KIP-1071) as a Streams
    scenario (:func:`cluster.streams_snapshot.snapshot_streams_group`), every other kind
    (classic, KIP-848, share) as a consumer-group scenario (:func:`snapshot_group`). The
    brokers' release is read once (unless given) and carried by either."""
    release = release if release is not None else reader.kafka_release()
    try:
        return snapshot_group(reader, group_id, release=release)
    except StreamsGroupError:
        from cluster.streams_snapshot import snapshot_streams_group

        return snapshot_streams_group(reader, group_id, release=release)


def describe_any_group(
    reader: ClusterReader, group_id: str
) -> tuple[GroupDescription, ConsumerGroupDescription | ShareGroupDescription | None]:
    """A classic group as DescribeGroups says, a KIP-848 group as ConsumerGroupDescribe says or
    a share group as ShareGroupDescribe says (then also its full description); see
    :func:`consumer_group_as_description` and :func:`share_group_as_description`. A Streams
    group raises :class:`~cluster.errors.StreamsGroupError` (it has tasks, not partitions per
    member: :func:`read_group` reads it)."""
    try:
        return reader.describe_group(group_id), None
    except ShareGroupError:
        share_group = reader.describe_share_group(group_id)
        return share_group_as_description(share_group), share_group
    except ConsumerProtocolGroupError:
        consumer_group = reader.describe_consumer_group(group_id)
    regex = any(member.subscribed_regex for member in consumer_group.members)
    names = reader.topic_names() if regex else []
    return consumer_group_as_description(consumer_group, names), consumer_group


#: KIP-848 assignor names (``group.remote.assignor``) -> this project's strategy names.
SERVER_ASSIGNORS = {"uniform": "uniform", "range": "server-range"}


def consumer_group_as_description(
    group: ConsumerGroupDescription, topic_names: Iterable[str]
) -> GroupDescription:
    """A KIP-848 group in the shape :func:`scenario_json` reads.

    Each member's subscription is its topic names plus the existing topics its regex matches
    (Java's ``Pattern.matches``: the whole name); ``owned_partitions`` will be its *target*
    assignment, the source of the server assignors' stickiness. The current assignment stays in
    ``group`` (see :func:`consumer_group_note`).
    """
    names = sorted(set(topic_names))
    members = []
    for member in group.members:
        topics = set(member.subscribed_topics)
        if member.subscribed_regex:
            pattern = re.compile(member.subscribed_regex)
            topics.update(name for name in names if pattern.fullmatch(name))
        members.append(
            MemberDescription(
                member_id=member.member_id,
                client_id=member.client_id or None,
                host=member.host or None,
                group_instance_id=member.instance_id,
                topics=tuple(sorted(topics)),
                subscription_user_data=b"",
                owned_partitions=(),
                generation=None,
                rack=member.rack,
                assignment=member.target_assignment,
                assignment_user_data=b"",
            )
        )
    return GroupDescription(
        group_id=group.group_id,
        state=group.state,
        protocol_type="consumer",
        protocol=SERVER_ASSIGNORS.get(group.assignor, group.assignor),
        members=tuple(members),
    )


#: Share-group assignor names (``group.share.assignors``) -> this project's strategy names.
SHARE_ASSIGNORS = {"simple": "share-simple"}


def share_group_as_description(group: ShareGroupDescription) -> GroupDescription:
    """A share group in the shape :func:`scenario_json` reads: each member's subscription and,
    as ``owned_partitions``, what it holds (two members may hold one partition)."""
    members = tuple(
        MemberDescription(
            member_id=member.member_id,
            client_id=member.client_id or None,
            host=member.host or None,
            group_instance_id=None,
            topics=member.subscribed_topics,
            subscription_user_data=b"",
            owned_partitions=(),
            generation=None,
            rack=member.rack,
            assignment=member.assignment,
            assignment_user_data=b"",
        )
        for member in group.members
    )
    return GroupDescription(
        group_id=group.group_id,
        state=group.state,
        protocol_type="share",
        protocol=SHARE_ASSIGNORS.get(group.assignor, group.assignor),
        members=members,
    )


def share_offsets(
    reader: ClusterReader, group: GroupDescription
) -> tuple[dict[TopicPartitionKey, int | None], dict[TopicPartitionKey, int]]:
    """A share group's share-partition start offsets (as ``committed_offsets``: where the group
    resumes) and Kafka's own lag per partition, over every partition of its topics."""
    metadata = reader.topics(topics_of(group.members))
    keys = [(name, p) for name, topic in metadata.items() for p in range(topic.partitions)]
    offsets = reader.share_group_offsets(group.group_id, keys)
    committed: dict[TopicPartitionKey, int | None] = {k: s for k, (s, _) in offsets.items()}
    lags = {key: lag for key, (_, lag) in offsets.items() if lag is not None}
    return committed, lags


def share_group_note(group: ShareGroupDescription) -> str:
    """One sentence for a share group's scenario description."""
    shared = _shared_partitions(group)
    return (
        f" Share group (KIP-932, assignor {group.assignor}, group epoch {group.group_epoch},"
        f" assignment epoch {group.assignment_epoch}): {shared} partition(s) held by more than"
        " one member; owned_partitions are what each member holds, committed_offsets the"
        " share-partition start offsets and lags Kafka's own share-group lag."
    )


def _shared_partitions(group: ShareGroupDescription) -> int:
    holders: dict[TopicPartitionKey, int] = {}
    for member in group.members:
        for key in member.assignment:
            holders[key] = holders.get(key, 0) + 1
    return sum(1 for count in holders.values() if count > 1)


def consumer_group_note(group: ConsumerGroupDescription) -> str:
    """One sentence for the scenario's description: protocol, epochs, who still reconciles."""
    pending = group.reconciling
    state = (
        f"{len(pending)} member(s) still reconciling toward their target"
        if pending
        else "every member holds its target"
    )
    return (
        f" KIP-848 group (assignor {group.assignor}, group epoch {group.group_epoch}, target"
        f" assignment epoch {group.assignment_epoch}): {state}; owned_partitions are the"
        " targets, reconciliation holds the epochs and what each member owns now."
    )


def scenario_json(
    reader: ClusterReader,
    group: GroupDescription,
    committed: dict[TopicPartitionKey, int | None],
    sample_seconds: float = 0.0,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    lags: Mapping[TopicPartitionKey, int] | None = None,
) -> dict[str, Any]:
    """Steps 2-6: the scenario JSON object for a described group; ``lags`` (a share group's,
    as Kafka computes them) are written for each topic that has one for every partition."""
    wanted = topics_of(group.members) | {topic for topic, _ in committed}
    check_sizes(group, wanted, {})
    metadata = reader.topics(wanted)
    check_sizes(group, wanted, metadata)
    partitions = [
        (name, p) for name, topic in sorted(metadata.items()) for p in range(topic.partitions)
    ]
    racks = reader.broker_racks()
    any_rack = any(rack is not None for rack in racks.values())
    first_read = clock()
    starts, ends = reader.log_offsets(partitions)
    produce_rates: dict[TopicPartitionKey, float] = {}
    consume_rates: dict[str, float] = {}
    if sample_seconds > 0:
        sleep(sample_seconds)
        _, later_ends = reader.log_offsets(partitions)
        later_committed = reader.committed_offsets(group.group_id)
        elapsed = max(clock() - first_read, 1e-3)
        produce_rates = {
            tp: max(later_ends.get(tp, end) - end, 0) / elapsed for tp, end in ends.items()
        }
        for member in group.members:
            moved = sum(
                max((later_committed.get(tp) or 0) - (committed.get(tp) or 0), 0)
                for tp in member.assignment
                if committed.get(tp) is not None and later_committed.get(tp) is not None
            )
            consume_rates[member.member_id] = moved / elapsed
        committed, ends = later_committed, later_ends
    topics: list[dict[str, Any]] = []
    for name, topic in sorted(metadata.items()):
        keys = [(name, p) for p in range(topic.partitions)]
        entry: dict[str, Any] = {"name": name, "partitions": topic.partitions}
        if topic.topic_id is not None:
            entry["id"] = topic.topic_id
        if any_rack:
            entry["replica_racks"] = [
                sorted({rack for node in replicas if (rack := racks.get(node)) is not None})
                for replicas in topic.replicas
            ]
        if all(key in starts and key in ends for key in keys):
            entry["log_start_offsets"] = [starts[key] for key in keys]
            entry["log_end_offsets"] = [ends[key] for key in keys]
        entry["committed_offsets"] = [committed.get(key) for key in keys]
        if lags and all(key in lags for key in keys):
            entry["lags"] = [lags[key] for key in keys]
        if produce_rates:
            entry["produce_rates"] = [round(produce_rates.get(key, 0.0), 3) for key in keys]
        topics.append(entry)
    members = [_member_json(member, group.protocol) for member in group.members]
    for item in members:
        if item["member_id"] in consume_rates:
            item["consume_rate"] = round(consume_rates[item["member_id"]], 3)
    taken = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%SZ")
    kind = "share" if group.protocol_type == "share" else "consumer"
    raw: dict[str, Any] = {
        "name": f"Group {group.group_id}",
        "description": (
            f"Snapshot of {kind} group {group.group_id} ({group.state or 'unknown state'},"
            f" {len(members)} members) taken {taken}."
        ),
        "group_id": group.group_id,
        "topics": topics,
        "members": members,
    }
    if group.protocol:
        raw["assignor"] = group.protocol
    return raw


def check_sizes(
    group: GroupDescription, wanted: set[str], metadata: Mapping[str, TopicMetadata]
) -> None:
    """The scenario format's size limits, checked on the cluster's answers before any list is
    built or any offset is asked for (the loader checks them again on the finished object)."""
    problems: list[str] = []
    if len(group.members) > MAX_MEMBERS:
        problems.append(f"members: the group has {len(group.members):,}; at most {MAX_MEMBERS:,}")
    if len(wanted) > MAX_TOPICS:
        problems.append(f"topics: the group reads {len(wanted):,}; at most {MAX_TOPICS:,}")
    for name, topic in sorted(metadata.items()):
        if topic.partitions > MAX_PARTITIONS_PER_TOPIC:
            problems.append(
                f"topics.{name:.60}: the cluster reports {topic.partitions:,} partitions;"
                f" at most {MAX_PARTITIONS_PER_TOPIC:,} per topic"
            )
    total = sum(topic.partitions for topic in metadata.values())
    if total > MAX_TOTAL_PARTITIONS:
        problems.append(f"topics: {total:,} partitions in all; at most {MAX_TOTAL_PARTITIONS:,}")
    if problems:
        raise ScenarioError([f"group {group.group_id}: {problem}" for problem in problems])


def topics_of(members: Iterable[MemberDescription]) -> set[str]:
    """Every topic the members subscribe to or are assigned."""
    found: set[str] = set()
    for member in members:
        found.update(member.topics)
        found.update(topic for topic, _ in member.assignment)
    return found

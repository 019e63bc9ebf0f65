"""The read-only requests: list groups, describe one, read metadata and offsets.

Everything here only *reads*. The admin client sends exactly the Kafka requests in
:data:`ALLOWED_API_KEYS` (the test ``tests/cluster/test_read_only.py`` proves it by recording
every request header through a TCP proxy); it never joins a group, heartbeats, commits, fetches
records or writes anything, so reading a production group cannot trigger a rebalance or move an
offset.

What each call returns (plain frozen data, no kafka-python types leak out):

1. :meth:`ClusterReader.list_groups` -> :class:`GroupListing` per group: id, state, protocol
   type, group type (``classic``, ``consumer``, ``streams`` or ``share`` as the broker says) and
   member count (from one DescribeGroups per coordinator, or the group type's own Describe;
   ``None`` for groups it cannot describe).
2. :meth:`ClusterReader.describe_group` -> :class:`GroupDescription`: state, protocol type,
   chosen assignor and, per member, id, client id, host, instance id and the decoded consumer
   protocol subscription (topics, user data, owned partitions, generation, rack) and assignment.
   :meth:`ClusterReader.describe_consumer_group`, :meth:`ClusterReader.describe_streams_group`
   and :meth:`ClusterReader.describe_share_group` read the groups DescribeGroups cannot (KIP-848,
   KIP-1071 and KIP-932 groups) with ConsumerGroupDescribe, StreamsGroupDescribe and
   ShareGroupDescribe (:mod:`cluster.protocol`); :meth:`ClusterReader.share_group_offsets` reads
   a share group's start offsets and lag (DescribeShareGroupOffsets).
3. :meth:`ClusterReader.topics` -> :class:`TopicMetadata` per existing topic (partition count,
   replica broker ids per partition, topic id); :meth:`ClusterReader.broker_racks` -> rack per
   broker id (from the bootstrap Metadata; no extra request).
4. :meth:`ClusterReader.committed_offsets` (OffsetFetch) and :meth:`ClusterReader.log_offsets`
   (ListOffsets, earliest and latest).
5. :meth:`ClusterReader.group_configs` -> a group's settings (DescribeConfigs on the group,
   e.g. a Streams group's ``streams.num.standby.replicas``).
6. :meth:`ClusterReader.kafka_release` -> the Kafka release line the brokers run
   (:mod:`cluster.kafka_release`), from one ApiVersions answer's feature levels and the API
   version ranges the connection already holds.

Every call is bounded by the settings' timeout; every failure is a
:class:`~cluster.errors.ClusterError`.
"""

from __future__ import annotations

import base64
import contextlib
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from cluster import internals
from cluster.connection import (
    ConnectionSettings,
    describe_error,
    not_authorized,
    open_admin,
    translate_error,
)
from cluster.errors import (
    ClusterError,
    ConsumerProtocolGroupError,
    GroupNotFoundError,
    NotAuthorizedError,
    ShareGroupError,
    StreamsGroupError,
)
from cluster.kafka_release import METADATA_VERSION, FeatureLevels, KafkaRelease, detect_release
from cluster.share_group import (
    ShareGroupDescription,
    assignment_pairs,
    share_group_from_response,
)
from cluster.share_group import (
    TopicPartitionKey as TopicPartitionKey,
)
from cluster.streams_group import StreamsGroupDescription, streams_group_from_response

#: Kafka API keys the reader may send, by name (see the module docstring).
ALLOWED_API_KEYS: Mapping[str, int] = {
    "ListOffsets": 2,
    "Metadata": 3,
    "OffsetFetch": 9,
    "FindCoordinator": 10,
    "DescribeGroups": 15,
    "ListGroups": 16,
    "SaslHandshake": 17,
    "ApiVersions": 18,
    "DescribeConfigs": 32,
    "SaslAuthenticate": 36,
    "DescribeCluster": 60,
    "ConsumerGroupDescribe": 69,
    "ShareGroupDescribe": 77,
    "StreamsGroupDescribe": 89,
    "DescribeShareGroupOffsets": 90,
}
#: Requests that would change a group or data; the reader must never send them.
FORBIDDEN_API_KEYS: Mapping[str, int] = {
    "Produce": 0,
    "Fetch": 1,
    "OffsetCommit": 8,
    "JoinGroup": 11,
    "Heartbeat": 12,
    "LeaveGroup": 13,
    "SyncGroup": 14,
    "CreateTopics": 19,
    "DeleteTopics": 20,
    "DeleteRecords": 21,
    "OffsetDelete": 47,
    "ConsumerGroupHeartbeat": 68,
    "ShareGroupHeartbeat": 76,
    "ShareFetch": 78,
    "ShareAcknowledge": 79,
    "StreamsGroupHeartbeat": 88,
}

_TOPIC_AUTHORIZATION_FAILED = 29
_GROUP_AUTHORIZATION_FAILED = 30
_GROUP_ID_NOT_FOUND = 69
_CLUSTER_AUTHORIZATION_FAILED = 31


@dataclass(frozen=True, slots=True)
class GroupListing:
    """One line of ``groups``: what ListGroups (and DescribeGroups) say about a group."""

    group_id: str
    state: str
    protocol_type: str
    group_type: str | None
    members: int | None


@dataclass(frozen=True, slots=True)
class MemberDescription:
    """A member as DescribeGroups reports it, consumer protocol decoded."""

    member_id: str
    client_id: str | None
    host: str | None
    group_instance_id: str | None
    topics: tuple[str, ...]
    subscription_user_data: bytes
    owned_partitions: tuple[TopicPartitionKey, ...]
    generation: int | None
    rack: str | None
    assignment: tuple[TopicPartitionKey, ...]
    assignment_user_data: bytes


@dataclass(frozen=True, slots=True)
class GroupDescription:
    """A classic group: state, protocol type, chosen assignor (``protocol``) and members."""

    group_id: str
    state: str
    protocol_type: str
    protocol: str
    members: tuple[MemberDescription, ...]


@dataclass(frozen=True, slots=True)
class ConsumerMemberDescription:
    """A KIP-848 member as ConsumerGroupDescribe reports it.

    ``assignment`` is what the member owns now; ``target_assignment`` is what the assignor gave it
    at the group's assignment epoch. They differ while the member reconciles.
    """

    member_id: str
    instance_id: str | None
    rack: str | None
    member_epoch: int
    client_id: str
    host: str
    subscribed_topics: tuple[str, ...]
    subscribed_regex: str | None
    assignment: tuple[TopicPartitionKey, ...]
    target_assignment: tuple[TopicPartitionKey, ...]


@dataclass(frozen=True, slots=True)
class ConsumerGroupDescription:
    """A KIP-848 consumer group: its server-side assignor, epochs and members."""

    group_id: str
    state: str
    group_epoch: int
    assignment_epoch: int
    assignor: str
    members: tuple[ConsumerMemberDescription, ...]

    @property
    def reconciling(self) -> tuple[str, ...]:
        """Ids of the members whose current assignment is not yet their target."""
        return tuple(
            m.member_id
            for m in self.members
            if set(m.assignment) != set(m.target_assignment)
            or m.member_epoch != self.assignment_epoch
        )


@dataclass(frozen=True, slots=True)
class TopicMetadata:
    """An existing topic: partition count, replica broker ids per partition, topic id."""

    name: str
    partitions: int
    replicas: tuple[tuple[int, ...], ...]
    topic_id: str | None


def _field(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _bytes(value: Any) -> bytes:
    """User data as bytes: kafka-python gives bytes, or base64 text in its dict form."""
    if value is None:
        return b""
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    if isinstance(value, str):
        try:
            return base64.b64decode(value, validate=True)
        except ValueError:
            return value.encode("utf-8")
    return b""


def _pairs(entries: Any) -> tuple[TopicPartitionKey, ...]:
    pairs: list[TopicPartitionKey] = []
    for entry in entries or ():
        if isinstance(entry, list | tuple) and len(entry) == 2:
            topic, partitions = entry
        else:
            topic, partitions = _field(entry, "topic"), _field(entry, "partitions", ())
        pairs.extend((str(topic), int(p)) for p in partitions or ())
    return tuple(sorted(pairs))


def _member(raw: Any) -> MemberDescription:
    subscription = _field(raw, "member_metadata")
    assignment = _field(raw, "member_assignment")
    if isinstance(subscription, bytes | bytearray) or isinstance(assignment, bytes | bytearray):
        raise ClusterError(
            f"member {_field(raw, 'member_id')!r} does not speak the consumer protocol"
            " (its subscription could not be decoded)"
        )
    generation = _field(subscription, "generation_id")
    return MemberDescription(
        member_id=str(_field(raw, "member_id")),
        client_id=_field(raw, "client_id") or None,
        host=_field(raw, "client_host") or None,
        group_instance_id=_field(raw, "group_instance_id") or None,
        topics=tuple(_field(subscription, "topics") or ()),
        subscription_user_data=_bytes(_field(subscription, "user_data")),
        owned_partitions=_pairs(_field(subscription, "owned_partitions")),
        generation=generation if isinstance(generation, int) and generation >= 0 else None,
        rack=_field(subscription, "rack_id") or None,
        assignment=_pairs(_field(assignment, "assigned_partitions")),
        assignment_user_data=_bytes(_field(assignment, "user_data")),
    )


def kafka_topic_id(value: Any) -> str | None:
    """A topic id as Kafka writes it (``Uuid.toString``: URL-safe base64 of the 16 bytes, no
    padding; 22 characters), from kafka-python's ``uuid.UUID`` or text; None for none or zero."""
    if value is None:
        return None
    if isinstance(value, uuid.UUID) or (isinstance(value, str) and len(value) == 36):
        raw = uuid.UUID(str(value)).bytes
        text = base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")
    else:
        text = str(value)
    return None if text == "AAAAAAAAAAAAAAAAAAAAAA" else text


def feature_levels(described: Mapping[str, Any]) -> FeatureLevels:
    """kafka-python's ``describe_features`` answer (feature -> ``{"supported": (min, max),
    "finalized": (min, max)}``) as :class:`~cluster.kafka_release.FeatureLevels`; a feature
    finalized at level 0 or less is left out (it is off)."""
    finalized: dict[str, int] = {}
    supported: dict[str, tuple[int, int]] = {}
    for name, entry in described.items():
        if not isinstance(entry, Mapping):
            continue
        if isinstance(entry.get("finalized"), tuple | list) and int(entry["finalized"][1]) > 0:
            finalized[str(name)] = int(entry["finalized"][1])
        if isinstance(entry.get("supported"), tuple | list):
            low, high = entry["supported"]
            supported[str(name)] = (int(low), int(high))
    return FeatureLevels(finalized=finalized, supported=supported)


def _ranges(api_versions: Mapping[Any, tuple[int, int]]) -> dict[int, tuple[int, int]]:
    return {int(key): (int(low), int(high)) for key, (low, high) in api_versions.items()}


def _consumer_member(raw: Any) -> ConsumerMemberDescription:
    return ConsumerMemberDescription(
        member_id=str(raw.member_id),
        instance_id=raw.instance_id or None,
        rack=raw.rack_id or None,
        member_epoch=int(raw.member_epoch),
        client_id=str(raw.client_id),
        host=str(raw.client_host),
        subscribed_topics=tuple(sorted(str(t) for t in raw.subscribed_topic_names or ())),
        subscribed_regex=raw.subscribed_topic_regex or None,
        assignment=assignment_pairs(raw.assignment),
        target_assignment=assignment_pairs(raw.target_assignment),
    )


class ClusterReader:
    """A read-only view of one cluster; use as a context manager (closes the connection)."""

    def __init__(self, settings: ConnectionSettings, admin: Any | None = None) -> None:
        self.settings = settings
        self._admin = admin if admin is not None else open_admin(settings)

    def __enter__(self) -> ClusterReader:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        # Closing a broken connection must not hide the real error.
        with contextlib.suppress(Exception):
            self._admin.close()

    def _call(
        self,
        during: str,
        method: str,
        *args: Any,
        group: str | None = None,
        **kwargs: Any,
    ) -> Any:
        try:
            return getattr(self._admin, method)(*args, **kwargs)
        except Exception as error:
            name = type(error).__name__
            if group is not None and name == "GroupAuthorizationFailedError":
                raise self._denied("group", group, "GROUP_AUTHORIZATION_FAILED") from None
            if name == "ClusterAuthorizationFailedError":
                raise self._denied("cluster", "", "CLUSTER_AUTHORIZATION_FAILED") from None
            raise translate_error(error, self.settings, during=during) from None

    def _denied(self, resource_type: str, name: str, code: str) -> NotAuthorizedError:
        return not_authorized(self.settings, "Describe", resource_type, name, code)

    # 1. groups -------------------------------------------------------------------------------

    def list_groups(self) -> list[GroupListing]:
        """Every group on the cluster with state, protocol type and member count."""
        listed = self._call("listing groups", "list_groups")
        ids = [str(_field(group, "group_id")) for group in listed]
        described: dict[str, Any] = {}
        if ids:
            try:
                described = dict(self._admin.describe_groups(ids))
            except Exception as error:
                translated = translate_error(error, self.settings, during="describing groups")
                if not isinstance(translated, NotAuthorizedError):
                    raise translated from None
        result = []
        for group in listed:
            group_id = str(_field(group, "group_id"))
            description = described.get(group_id)
            members = None
            if description is not None and not _field(description, "error"):
                members = len(_field(description, "members") or ())
            elif _field(group, "group_type") in self._DESCRIBE_BY_TYPE:
                describe = getattr(self, self._DESCRIBE_BY_TYPE[_field(group, "group_type")])
                with contextlib.suppress(ClusterError):
                    members = len(describe(group_id).members)
            result.append(
                GroupListing(
                    group_id=group_id,
                    state=str(
                        _field(group, "group_state") or _field(description, "group_state") or ""
                    ),
                    protocol_type=str(_field(group, "protocol_type") or ""),
                    group_type=_field(group, "group_type") or None,
                    members=members,
                )
            )
        return sorted(result, key=lambda listing: listing.group_id)

    # 2. one group ----------------------------------------------------------------------------

    def describe_group(self, group_id: str) -> GroupDescription:
        """The group's members with their decoded subscription and assignment.

        Raises GroupNotFoundError, NotAuthorizedError, or ConsumerProtocolGroupError for a
        KIP-848 group (which DescribeGroups cannot describe). A classic group that DescribeGroups
        did not know yet but ListGroups lists (it formed between the two reads) is described
        once more.
        """
        for attempt in (1, 2):
            described = self._describe_classic(group_id, last_attempt=attempt == 2)
            if described is not None:
                return described
        raise AssertionError("unreachable: the last attempt describes or raises")

    def _describe_classic(self, group_id: str, last_attempt: bool) -> GroupDescription | None:
        """One DescribeGroups; None when the group formed after it (the caller reads again)."""
        answer = self._call(
            f"describing group {group_id!r}", "describe_groups", [group_id], group=group_id
        )
        raw = dict(answer).get(group_id)
        error = _field(raw, "error") if raw is not None else None
        if error:
            text = str(error)
            if "GroupAuthorizationFailed" in text:
                raise self._denied("group", group_id, "GROUP_AUTHORIZATION_FAILED")
            if not ("GroupIdNotFound" in text or "not a classic group" in text.lower()):
                raise ClusterError(f"describing group {group_id!r} failed: {text}")
        state = str(_field(raw, "group_state") or "")
        members_raw = list(_field(raw, "members") or ())
        unknown = bool(error) or raw is None or (state == "Dead" and not members_raw)
        if unknown and self._unknown_group_is_forming(group_id) and not last_attempt:
            return None
        protocol_type = str(_field(raw, "protocol_type") or "")
        if members_raw and protocol_type != "consumer":
            raise ClusterError(
                f"group {group_id!r} has protocol type {protocol_type!r}; only consumer groups"
                " (protocol type 'consumer') can be read as a scenario"
            )
        return GroupDescription(
            group_id=group_id,
            state=state,
            protocol_type=protocol_type,
            protocol=str(_field(raw, "protocol_data") or ""),
            members=tuple(_member(member) for member in members_raw),
        )

    def _unknown_group_is_forming(self, group_id: str) -> bool:
        """A group DescribeGroups does not know, as ListGroups says: a Streams or share group,
        or KIP-848, raise; not found if ListGroups does not have it either. True for a classic
        group with members (it formed after DescribeGroups answered), False for an empty one
        (members none, offsets may exist). Before ListGroups named group types (Kafka 3.8), a
        group DescribeGroups cannot describe that is not Dead is taken as KIP-848."""
        listed = {group.group_id: group for group in self._listing_only()}
        group = listed.get(group_id)
        if group is None:
            raise GroupNotFoundError(group_id, known=list(listed))
        if group.group_type == "streams":
            raise StreamsGroupError(group_id)
        if group.group_type == "share":
            raise ShareGroupError(group_id)
        alive = group.state not in ("Dead", "Empty", "")
        if group.group_type == "consumer" or (group.group_type is None and alive):
            raise ConsumerProtocolGroupError(group_id)
        return alive

    def _listing_only(self) -> list[GroupListing]:
        listed = self._call("listing groups", "list_groups")
        return [
            GroupListing(
                group_id=str(_field(g, "group_id")),
                state=str(_field(g, "group_state") or ""),
                protocol_type=str(_field(g, "protocol_type") or ""),
                group_type=_field(g, "group_type") or None,
                members=None,
            )
            for g in listed
        ]

    #: ListGroups' group type -> the method that describes such a group.
    _DESCRIBE_BY_TYPE: Mapping[str, str] = {
        "consumer": "describe_consumer_group",
        "streams": "describe_streams_group",
        "share": "describe_share_group",
    }

    def _describe_new_group(self, request: Any, group_id: str, kind: str) -> Any:
        """Send ``request`` (a ConsumerGroupDescribe, StreamsGroupDescribe or ShareGroupDescribe
        for ``group_id`` alone) to the group's coordinator; its one described group, errors
        checked."""
        from kafka import errors as kafka_errors

        internals.require("reader.admin_manager")
        admin = self._admin
        during = f"describing {kind} group {group_id!r}"

        async def send() -> Any:
            coordinator = (await admin._find_coordinator_ids([group_id]))[group_id]
            return await admin._manager.send(request, node_id=coordinator)

        try:
            response = admin._manager.run(send)
        except Exception as error:
            if type(error).__name__ == "GroupAuthorizationFailedError":
                raise self._denied("group", group_id, "GROUP_AUTHORIZATION_FAILED") from None
            raise translate_error(error, self.settings, during=during) from None
        (group,) = response.groups
        if group.error_code == _GROUP_AUTHORIZATION_FAILED:
            raise self._denied("group", group_id, "GROUP_AUTHORIZATION_FAILED")
        if group.error_code == _TOPIC_AUTHORIZATION_FAILED:
            raise self._denied("topic", "(a topic of the group)", "TOPIC_AUTHORIZATION_FAILED")
        if group.error_code == _GROUP_ID_NOT_FOUND:
            raise GroupNotFoundError(group_id)
        if group.error_code:
            failure = kafka_errors.for_code(group.error_code)(group.error_message or "")
            raise ClusterError(f"{during} failed: {describe_error(failure)}")
        return group

    def describe_consumer_group(self, group_id: str) -> ConsumerGroupDescription:
        """A KIP-848 group through ConsumerGroupDescribe (sent to the group's coordinator)."""
        internals.require("protocol.api_message")
        from cluster.protocol import ConsumerGroupDescribeRequest

        request = ConsumerGroupDescribeRequest(
            group_ids=[group_id], include_authorized_operations=False
        )
        group = self._describe_new_group(request, group_id, "consumer")
        return ConsumerGroupDescription(
            group_id=group_id,
            state=str(group.group_state),
            group_epoch=int(group.group_epoch),
            assignment_epoch=int(group.assignment_epoch),
            assignor=str(group.assignor_name),
            members=tuple(_consumer_member(member) for member in group.members),
        )

    def describe_streams_group(self, group_id: str) -> StreamsGroupDescription:
        """A Kafka Streams group (KIP-1071) through StreamsGroupDescribe: topology, epochs and
        each member's current and target active, standby and warm-up tasks."""
        internals.require("protocol.api_message")
        from cluster.protocol import StreamsGroupDescribeRequest

        request = StreamsGroupDescribeRequest(
            group_ids=[group_id], include_authorized_operations=False
        )
        group = self._describe_new_group(request, group_id, "Streams")
        return streams_group_from_response(group_id, group)

    def describe_share_group(self, group_id: str) -> ShareGroupDescription:
        """A share group (KIP-932) through ShareGroupDescribe: assignor, epochs, members."""
        internals.require("protocol.api_message")
        from cluster.protocol import ShareGroupDescribeRequest

        request = ShareGroupDescribeRequest(
            group_ids=[group_id], include_authorized_operations=False
        )
        group = self._describe_new_group(request, group_id, "share")
        return share_group_from_response(group_id, group)

    def share_group_offsets(
        self, group_id: str, partitions: Iterable[TopicPartitionKey]
    ) -> dict[TopicPartitionKey, tuple[int, int | None]]:
        """A share group's (share-partition start offset, lag) per partition, through
        DescribeShareGroupOffsets; the lag is Kafka's own (``None`` where the broker gives none)
        and partitions whose share state is not initialised are left out."""
        internals.require("protocol.api_message")
        from cluster.protocol import DescribeShareGroupOffsetsRequest as Request

        by_topic: dict[str, list[int]] = {}
        for topic, partition in sorted(set(partitions)):
            by_topic.setdefault(topic, []).append(partition)
        if not by_topic:
            return {}
        topics = [
            Request.DescribeShareGroupOffsetsRequestGroup.DescribeShareGroupOffsetsRequestTopic(
                topic_name=topic, partitions=numbers
            )
            for topic, numbers in by_topic.items()
        ]
        request = Request(
            groups=[Request.DescribeShareGroupOffsetsRequestGroup(group_id=group_id, topics=topics)]
        )
        group = self._describe_new_group(request, group_id, "the offsets of share")
        offsets: dict[TopicPartitionKey, tuple[int, int | None]] = {}
        for topic in group.topics:
            for entry in topic.partitions:
                if entry.error_code == _TOPIC_AUTHORIZATION_FAILED:
                    raise self._denied("topic", str(topic.topic_name), "TOPIC_AUTHORIZATION_FAILED")
                if entry.error_code or entry.start_offset < 0:
                    continue
                lag = getattr(entry, "lag", -1)
                key = (str(topic.topic_name), int(entry.partition_index))
                offsets[key] = (int(entry.start_offset), int(lag) if lag >= 0 else None)
        return offsets

    def group_configs(self, group_id: str, names: Iterable[str]) -> dict[str, str | None]:
        """The group's settings ``names`` (DescribeConfigs on the group resource, Kafka 4.0+):
        the group's own value, else the broker default it falls back to; a setting the broker
        does not know is left out. Needs DESCRIBE_CONFIGS on the group (NotAuthorizedError
        says how to grant it)."""
        from kafka.admin import ConfigResourceType

        internals.require("reader.admin_manager")
        internals.require("reader.describe_configs_request")
        from kafka.protocol.admin import DescribeConfigsRequest

        admin = self._admin
        during = f"reading the settings of group {group_id!r}"
        request = DescribeConfigsRequest(
            resources=[(int(ConfigResourceType.GROUP), group_id, sorted(set(names)))],
            include_synonyms=False,
        )

        async def send() -> Any:
            return await admin._manager.send(request)

        try:
            response = admin._manager.run(send)
        except Exception as error:
            raise translate_error(error, self.settings, during=during) from None
        (result,) = response.results
        if result.error_code in (_GROUP_AUTHORIZATION_FAILED, _CLUSTER_AUTHORIZATION_FAILED):
            raise not_authorized(
                self.settings, "DescribeConfigs", "group", group_id, "GROUP_AUTHORIZATION_FAILED"
            )
        if result.error_code:
            from kafka import errors as kafka_errors

            failure = kafka_errors.for_code(result.error_code)(result.error_message or "")
            raise ClusterError(f"{during} failed: {describe_error(failure)}")
        return {str(entry.name): entry.value for entry in result.configs or ()}

    def kafka_release(self) -> KafkaRelease:
        """The release line the brokers run, from one ApiVersions (v3+: the feature levels, as
        kafka-python's ``describe_features`` asks) and, only when that names no
        ``metadata.version``, the API version ranges (:meth:`api_version_ranges`). Never
        raises: a failed read gives a release whose ``line`` is ``None`` and whose ``why`` says
        what failed."""
        levels, why = None, ""
        try:
            levels = feature_levels(self._admin.describe_features())
        except Exception as error:
            why = f"ApiVersions failed: {describe_error(error)}"
        ranges = None
        if levels is None or METADATA_VERSION not in {*levels.finalized, *levels.supported}:
            ranges = self.api_version_ranges()
        return detect_release(levels, ranges, why=why)

    def api_version_ranges(self) -> dict[int, tuple[int, int]] | None:
        """API key -> (oldest, newest) version, as a broker answered ApiVersions when
        kafka-python connected; ``None`` when the settings fix ``broker_version`` (kafka-python
        then holds its own table, not the broker's answer) or none can be had."""
        if self.settings.broker_version is not None:
            return None
        try:
            return _ranges(self._admin.api_versions())
        except ValueError:  # kafka-python names only the API keys it knows; newer brokers have more
            pass
        try:  # the same answer, kept per broker with the keys as numbers
            brokers = _field(self._admin.describe_cluster(), "brokers") or ()
            node = min(int(_field(b, "node_id", _field(b, "broker_id"))) for b in brokers)
            return _ranges(self._admin.get_broker_version_data(node).api_versions)
        except Exception:
            return None

    def topic_names(self) -> list[str]:
        """Every topic on the cluster the principal may describe (Metadata for all topics)."""
        return sorted(str(name) for name in self._call("listing topics", "list_topics"))

    # 3. metadata -----------------------------------------------------------------------------

    def topics(self, names: Iterable[str]) -> dict[str, TopicMetadata]:
        """Metadata of the topics in ``names`` that exist (absent ones are left out)."""
        wanted = sorted(set(names))
        if not wanted:
            return {}
        described = self._call("reading topic metadata", "describe_topics", wanted)
        result: dict[str, TopicMetadata] = {}
        for topic in described:
            if _field(topic, "error_code", 0) == _TOPIC_AUTHORIZATION_FAILED:
                raise self._denied(
                    "topic", str(_field(topic, "name")), "TOPIC_AUTHORIZATION_FAILED"
                )
            if _field(topic, "error_code", 0):
                continue  # an unknown topic: treated as absent
            partitions = sorted(
                _field(topic, "partitions") or (), key=lambda p: int(_field(p, "partition_index"))
            )
            topic_id = _field(topic, "topic_id")
            result[str(_field(topic, "name"))] = TopicMetadata(
                name=str(_field(topic, "name")),
                partitions=len(partitions),
                replicas=tuple(tuple(_field(p, "replica_nodes") or ()) for p in partitions),
                topic_id=kafka_topic_id(topic_id),
            )
        return result

    def broker_racks(self) -> dict[int, str | None]:
        """Rack of every broker, from the metadata the client already holds."""
        brokers = []
        if internals.applies("reader.admin_manager"):  # else: one DescribeCluster request
            brokers = list(self._admin._manager.cluster.brokers())
        if not brokers:
            described = self._call("describing the cluster", "describe_cluster")
            brokers = list(_field(described, "brokers") or ())
        racks: dict[int, str | None] = {}
        for broker in brokers:
            node_id = _field(broker, "node_id", _field(broker, "broker_id"))
            racks[int(node_id)] = _field(broker, "rack") or None
        return racks

    # 4. offsets ------------------------------------------------------------------------------

    def committed_offsets(self, group_id: str) -> dict[TopicPartitionKey, int | None]:
        """The group's committed offsets (``None`` where the broker says none)."""
        answer = self._call(
            f"reading the committed offsets of group {group_id!r}",
            "list_group_offsets",
            group_id,
            group=group_id,
        )
        offsets: dict[TopicPartitionKey, int | None] = {}
        for tp, meta in dict(answer).get(group_id, {}).items():
            offset = _field(meta, "offset")
            offsets[(str(tp.topic), int(tp.partition))] = (
                int(offset) if offset is not None and offset >= 0 else None
            )
        return offsets

    def log_offsets(
        self, partitions: Iterable[TopicPartitionKey]
    ) -> tuple[dict[TopicPartitionKey, int], dict[TopicPartitionKey, int]]:
        """(log-start, log-end) offsets of ``partitions``, one ListOffsets per leader each."""
        from kafka import OffsetSpec
        from kafka.structs import TopicPartition

        keys = [TopicPartition(t, p) for t, p in sorted(set(partitions))]
        if not keys:
            return {}, {}
        timeout_ms = int(self.settings.timeout_s * 1000)

        def read(spec: Any, what: str) -> dict[TopicPartitionKey, int]:
            answer = self._call(
                f"reading {what} offsets",
                "list_partition_offsets",
                {tp: spec for tp in keys},
                timeout_ms=timeout_ms,
            )
            return {(tp.topic, tp.partition): int(_field(o, "offset")) for tp, o in answer.items()}

        return read(OffsetSpec.EARLIEST, "log-start"), read(OffsetSpec.LATEST, "log-end")

"""Our strategies inside real kafka-python consumers: one adapter per client-side strategy.

The only module under ``assignors/`` that imports kafka-python (a runtime dependency of the
distribution, not of the core): nothing else in the core imports this module. Use an adapter as::

    from adapters.kafka_python import CooperativeStickyAssignor
    consumer = KafkaConsumer("orders", group_id="billing",
                             partition_assignment_strategy=[CooperativeStickyAssignor])

Every adapter is a ``kafka.coordinator.assignors.abstract.AbstractPartitionAssignor`` that

1. sends, in its subscription (``metadata``), what Kafka's Java assignor of the same protocol name
   sends, in the same byte layout, so a Python member can share a group with Java members;
2. when its consumer is the group leader (``assign``), decodes every member's subscription into a
   :class:`~assignors.model.Member`, reads partition counts (and replica racks) from the
   consumer's cluster metadata into :class:`~assignors.model.Topic` objects, builds a
   :class:`~assignors.model.Scenario`, runs the registry's strategy on it, and encodes the answer
   (plus any assignment user data) for SyncGroup;
3. remembers what it was given (``on_assignment``), because the next subscription reports it.

Adapters (class: protocol name -> registry strategy, rebalance protocol, subscription user data):

* ``RangeAssignor``: ``range`` -> range, eager, none
* ``RoundRobinAssignor``: ``roundrobin`` -> roundrobin, eager, none
* ``StickyAssignor``: ``sticky`` -> sticky, eager, StickyAssignorUserData v1
* ``CooperativeStickyAssignor``: ``cooperative-sticky`` -> cooperative-sticky, cooperative,
  INT32 generation
* ``LagAwareAssignor``: ``lag`` -> lag-aware, eager, none
* ``FailoverAssignor``: ``failover`` -> failover, eager, INT32 priority
* ``StreamJoinStickyAssignor``: ``sticky-join`` -> stream-join-sticky, eager, INT32 array of
  partition numbers then INT32 epoch

Byte layouts (Kafka protocol types: big-endian INT16/INT32, STRING = INT16 length + UTF-8,
ARRAY = INT32 count + elements):

* ``sticky``: Kafka's ``StickyAssignorUserData`` version 1: ARRAY of (topic STRING, partitions
  ARRAY of INT32), then the INT32 generation of that assignment. Version 0 (no generation) is
  read too, and so is kafka-python's ``StickyPartitionAssignor`` layout (an INT16 version in
  front of Java's), which ``StickyAssignor(user_data_layout="kafka-python")`` also writes. A
  member with no assignment yet sends no user data (null), as Java does.
* ``cooperative-sticky``: the subscription's own ``owned_partitions`` and ``generation_id``
  fields (ConsumerProtocolSubscription v2+) carry the claim; the user data repeats the generation
  as one INT32 (Java's ``CooperativeStickyAssignor`` user data, read when a member's subscription
  is older than v2).
* ``failover``: the member's priority as one INT32 (4 bytes, big-endian). Absent or short: the
  lowest priority.
* ``sticky-join``: ARRAY of INT32 partition numbers owned, then the INT32 epoch of that
  assignment; the assignment's user data is one INT32, the new epoch (highest epoch + 1).
* ``lag``, ``range``, ``roundrobin``: no user data (null).

Subscriptions are ConsumerProtocolSubscription version 3 (topics, user data, owned partitions,
generation id, rack id), as the Java client sends them; assignments are version 3 too.
``owned_partitions`` is empty except for the cooperative adapter, because under the eager
protocol a member revokes everything before it joins.

Limits: the cooperative adapter supports only the COOPERATIVE protocol (kafka-python refuses to
mix it with eager assignors in one consumer). ``LagAwareAssignor`` reads offsets when its
consumer leads a rebalance, from a lag source; see the class. Topics a member subscribes to that
the leader's metadata does not know are ignored, as in Kafka.
"""

from __future__ import annotations

import logging
import struct
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, Literal, TypeVar

from kafka.coordinator.assignors.abstract import AbstractPartitionAssignor, RebalanceProtocol
from kafka.protocol.consumer.metadata import (
    ConsumerProtocolAssignment,
    ConsumerProtocolSubscription,
)

from assignors import (
    LOWEST_PRIORITY,
    Assignment,
    AssignmentExplorerError,
    AutoOffsetReset,
    Member,
    PartitionStrategy,
    Scenario,
    Topic,
    TopicPartition,
    next_epoch,
    registry,
)

log = logging.getLogger(__name__)

#: ConsumerProtocolSubscription / ConsumerProtocolAssignment version we write (Java's latest).
PROTOCOL_VERSION = 3
#: Kafka's generation for "no generation" (``AbstractStickyAssignor.DEFAULT_GENERATION``).
DEFAULT_GENERATION = -1
#: The ``sticky`` user-data layouts: Java's ``StickyAssignor`` (ours by default) and kafka-python's
#: ``StickyPartitionAssignor`` (an INT16 version in front of Java's layout).
StickyLayout = Literal["java", "kafka-python"]
STICKY_LAYOUTS: tuple[StickyLayout, ...] = ("java", "kafka-python")
#: The version kafka-python 3.0.12's ``StickyPartitionAssignor`` writes in front of its user data.
KAFKA_PYTHON_STICKY_VERSION = 1


class AdapterConfigError(AssignmentExplorerError, ValueError):
    """An adapter was built with settings it cannot work with."""


class UserDataError(AssignmentExplorerError, ValueError):
    """A member's user data does not follow the layout its protocol name promises."""


# --- byte layouts ------------------------------------------------------------------------------


class _Reader:
    """Reads Kafka protocol primitives from bytes; raises UserDataError when they run out."""

    def __init__(self, data: bytes, what: str) -> None:
        self.data = data
        self.offset = 0
        self.what = what

    def take(self, size: int) -> bytes:
        if size < 0 or self.offset + size > len(self.data):
            raise UserDataError(
                f"{self.what}: needs {size} more bytes at offset {self.offset}, "
                f"has {len(self.data) - self.offset}"
            )
        chunk = self.data[self.offset : self.offset + size]
        self.offset += size
        return chunk

    def int16(self) -> int:
        return int(struct.unpack(">h", self.take(2))[0])

    def int32(self) -> int:
        return int(struct.unpack(">i", self.take(4))[0])

    def string(self) -> str:
        length = self.int16()
        if length < 0:
            raise UserDataError(f"{self.what}: null string at offset {self.offset - 2}")
        return self.take(length).decode("utf-8")

    def int32_array(self) -> list[int]:
        count = self.int32()
        return [] if count < 0 else [self.int32() for _ in range(count)]

    @property
    def remaining(self) -> int:
        return len(self.data) - self.offset


def _int16(value: int) -> bytes:
    return struct.pack(">h", value)


def _int32(value: int) -> bytes:
    return struct.pack(">i", value)


def _int32_array(values: Sequence[int]) -> bytes:
    return _int32(len(values)) + b"".join(_int32(v) for v in values)


def _string(text: str) -> bytes:
    encoded = text.encode("utf-8")
    return struct.pack(">h", len(encoded)) + encoded


def _by_topic(partitions: Iterable[TopicPartition]) -> list[tuple[str, list[int]]]:
    grouped: dict[str, list[int]] = defaultdict(list)
    for tp in partitions:
        grouped[tp.topic].append(tp.partition)
    return [(topic, sorted(numbers)) for topic, numbers in sorted(grouped.items())]


def encode_sticky_user_data(
    owned: Iterable[TopicPartition], generation: int, layout: StickyLayout = "java"
) -> bytes:
    """Kafka's StickyAssignorUserData v1: [(topic, [partition])] then INT32 generation.

    ``layout="kafka-python"`` puts kafka-python's INT16 version (1) in front, which is what
    kafka-python's own ``StickyPartitionAssignor`` writes and the only layout it reads.
    """
    grouped = _by_topic(owned)
    body = b"".join(_string(topic) + _int32_array(numbers) for topic, numbers in grouped)
    java = _int32(len(grouped)) + body + _int32(generation)
    return java if layout == "java" else _int16(KAFKA_PYTHON_STICKY_VERSION) + java


def decode_sticky_user_data(data: bytes) -> tuple[list[TopicPartition], int | None]:
    """Owned partitions and generation (``None`` for version 0 data, which has none).

    Reads both layouts a ``sticky`` member may send, told apart by structure: Java's (ARRAY of
    claims, then the INT32 generation in version 1, nothing in version 0) and kafka-python's (an
    INT16 version, 0 or 1, then Java's layout of that version). A layout matches only if it
    accounts for every byte; Java's is tried first. The two cannot both match data of a sane
    size: kafka-python's version bytes ``00 01`` read as the start of Java's topic count announce
    at least 65,536 topics, and Java's count read after a 2-byte version announces at least
    65,536 topics or leaves bytes over. Raises :class:`UserDataError` when neither matches,
    naming what each reading tripped on.
    """
    try:
        return _decode_java_sticky(_Reader(data, "Java's layout"))
    except (UserDataError, UnicodeDecodeError) as java_problem:
        reader = _Reader(data, "kafka-python's layout")
        try:
            version = reader.int16()
            if version not in (0, 1):
                raise UserDataError(f"kafka-python's layout: unknown version {version}") from None
            owned, generation = _decode_java_sticky(reader)
            if (generation is None) != (version == 0):
                raise UserDataError(
                    f"kafka-python's layout: version {version} "
                    f"{'has no' if version == 0 else 'needs a'} generation"
                ) from None
            return owned, generation
        except (UserDataError, UnicodeDecodeError) as kafka_python_problem:
            raise UserDataError(
                f"sticky user data in neither layout: {java_problem}; {kafka_python_problem}"
            ) from None


def _decode_java_sticky(reader: _Reader) -> tuple[list[TopicPartition], int | None]:
    """Java's StickyAssignorUserData (v0 or v1) from the reader's position to the very end."""
    owned: list[TopicPartition] = []
    for _ in range(max(reader.int32(), 0)):
        topic = reader.string()
        owned.extend(TopicPartition(topic, p) for p in reader.int32_array())
    generation = reader.int32() if reader.remaining >= 4 else None
    if reader.remaining:
        raise UserDataError(f"{reader.what}: {reader.remaining} unexpected trailing bytes")
    return owned, generation


def encode_int32(value: int) -> bytes:
    """One big-endian INT32: failover priority, cooperative generation, sticky-join epoch."""
    return _int32(value)


def decode_int32(data: bytes, what: str) -> int:
    reader = _Reader(data, what)
    value = reader.int32()
    if reader.remaining:
        raise UserDataError(f"{what}: {reader.remaining} unexpected trailing bytes")
    return value


def encode_stream_join_user_data(numbers: Iterable[int], epoch: int) -> bytes:
    """sticky-join subscription user data: INT32 array of owned numbers, then INT32 epoch."""
    return _int32_array(sorted(set(numbers))) + _int32(epoch)


def decode_stream_join_user_data(data: bytes) -> tuple[list[int], int]:
    reader = _Reader(data, "sticky-join user data")
    numbers = reader.int32_array()
    epoch = reader.int32()
    if reader.remaining:
        raise UserDataError(f"sticky-join user data: {reader.remaining} unexpected trailing bytes")
    return numbers, epoch


# --- the generic adapter -----------------------------------------------------------------------


def _user_data_bytes(subscription: Any) -> bytes:
    raw = getattr(subscription, "user_data", None)
    if raw is None:
        return b""
    if isinstance(raw, bytes | bytearray | memoryview):
        return bytes(raw)
    return bytes(raw.encode())  # an ApiData some other assignor left undecoded


def _owned_from_subscription(subscription: Any) -> list[TopicPartition]:
    owned = getattr(subscription, "owned_partitions", None) or ()
    return [TopicPartition(entry.topic, p) for entry in owned for p in entry.partitions]


def _replica_racks(cluster: Any, topic: str, count: int) -> tuple[tuple[str, ...], ...] | None:
    """Racks of each partition's replicas per the leader's metadata; None if no broker has one."""
    brokers = [b for b in cluster.brokers() if getattr(b, "rack", None)]
    if not brokers:
        return None
    from kafka.structs import TopicPartition as KafkaTopicPartition

    racks = []
    for partition in range(count):
        tp = KafkaTopicPartition(topic, partition)
        racks.append(
            tuple(sorted({b.rack for b in brokers if cluster.is_replica_node(tp, b.node_id)}))
        )
    return tuple(racks)


def topics_from_cluster(cluster: Any, names: Iterable[str]) -> list[Topic]:
    """Topics the consumer's cluster metadata knows, with partition counts and replica racks."""
    topics = []
    for name in sorted(set(names)):
        partitions = cluster.partitions_for_topic(name)
        if not partitions:
            log.debug("no partition metadata for topic %s; it is left out", name)
            continue
        count = max(partitions) + 1
        topics.append(Topic(name, count, replica_racks=_replica_racks(cluster, name, count)))
    return topics


class ScenarioAssignor(AbstractPartitionAssignor):  # type: ignore[misc]
    """Runs a registry strategy as a kafka-python assignor; subclasses set the protocol details.

    Subclasses set ``name`` (the protocol name members agree on), ``strategy_name`` (the
    registry's name) and override the ``*_user_data`` / ``member_from_subscription`` hooks.
    After each ``assign`` the leader keeps the scenario it built and the answer in
    ``last_scenario`` and ``last_assignment`` (for logging and diagnostics).
    """

    name: ClassVar[str] = ""
    strategy_name: ClassVar[str] = ""
    rebalance_protocols: ClassVar[tuple[RebalanceProtocol, ...]] = (RebalanceProtocol.EAGER,)

    def __init__(self, client_rack: str | None = None) -> None:
        self.client_rack = client_rack
        self.owned_partitions: list[TopicPartition] | None = None
        self.generation = DEFAULT_GENERATION
        self.last_scenario: Scenario | None = None
        self.last_assignment: Assignment | None = None

    # kafka-python's interface ------------------------------------------------------------

    def supported_protocols(self) -> list[RebalanceProtocol]:
        return list(self.rebalance_protocols)

    def metadata(self, topics: Iterable[str]) -> Any:
        cooperative = RebalanceProtocol.COOPERATIVE in self.rebalance_protocols
        owned = _by_topic(self.owned_partitions or ()) if cooperative else []
        return ConsumerProtocolSubscription(
            version=PROTOCOL_VERSION,
            topics=sorted(topics),
            user_data=self.subscription_user_data(),
            owned_partitions=[
                ConsumerProtocolSubscription.TopicPartition(topic=topic, partitions=numbers)
                for topic, numbers in owned
            ],
            generation_id=self.generation,
            rack_id=self.client_rack,
        )

    def assign(self, cluster: Any, members: Sequence[Any]) -> dict[str, Any]:
        group = tuple(
            self.member_from_subscription(
                member.member_id, getattr(member, "group_instance_id", None), member.metadata
            )
            for member in members
        )
        topics = self.topics_for(cluster, {t for member in group for t in member.topics})
        scenario = Scenario(
            tuple(topics), group, auto_offset_reset=self.auto_offset_reset(), assignor=self.name
        )
        answer = self.strategy().assign(scenario)
        user_data = self.assignment_user_data(scenario)
        self.last_scenario, self.last_assignment = scenario, answer
        return {
            member_id: ConsumerProtocolAssignment(
                version=PROTOCOL_VERSION,
                assigned_partitions=_by_topic(partitions),
                user_data=user_data,
            )
            for member_id, partitions in answer.partitions.items()
        }

    def on_assignment(self, assignment: Any, generation: int) -> None:
        self.owned_partitions = [
            TopicPartition(tp.topic, tp.partition) for tp in assignment.partitions()
        ]
        self.generation = generation

    # hooks -------------------------------------------------------------------------------

    @classmethod
    def strategy(cls) -> PartitionStrategy:
        strategy = registry.get(cls.strategy_name)
        if not isinstance(strategy, PartitionStrategy):  # pragma: no cover - registry mistake
            raise AdapterConfigError(f"{cls.strategy_name!r} does not assign partitions")
        return strategy

    def subscription_user_data(self) -> bytes | None:
        return None

    def assignment_user_data(self, scenario: Scenario) -> bytes | None:
        return None

    def auto_offset_reset(self) -> AutoOffsetReset:
        return "latest"

    def topics_for(self, cluster: Any, names: Iterable[str]) -> list[Topic]:
        return topics_from_cluster(cluster, names)

    def member_from_subscription(
        self, member_id: str, group_instance_id: str | None, subscription: Any
    ) -> Member:
        return Member(
            member_id,
            tuple(subscription.topics),
            rack=getattr(subscription, "rack_id", None),
            group_instance_id=group_instance_id,
        )


class RangeAssignor(ScenarioAssignor):
    """Kafka's ``RangeAssignor`` (protocol ``range``), computed by :mod:`assignors.client.range`."""

    name = "range"
    strategy_name = "range"


class RoundRobinAssignor(ScenarioAssignor):
    """Kafka's ``RoundRobinAssignor`` (protocol ``roundrobin``)."""

    name = "roundrobin"
    strategy_name = "roundrobin"


class StickyAssignor(ScenarioAssignor):
    """Kafka's eager ``StickyAssignor`` (protocol ``sticky``); claims travel in user data.

    As leader it reads claims in Java's layout and in kafka-python's (see
    :func:`decode_sticky_user_data`), so members running kafka-python's own
    ``StickyPartitionAssignor`` keep their partitions too. It writes Java's layout, or with
    ``user_data_layout="kafka-python"`` kafka-python's: kafka-python's leader reads only that one
    (it drops Java-layout claims as unparsable), so a group moving between kafka-python's
    assignor and ours stays sticky whoever leads only with that setting; Java members in turn
    read only Java's layout.
    """

    name = "sticky"
    strategy_name = "sticky"

    def __init__(
        self, user_data_layout: StickyLayout = "java", client_rack: str | None = None
    ) -> None:
        if user_data_layout not in STICKY_LAYOUTS:
            raise AdapterConfigError(
                f"user_data_layout {user_data_layout!r}: use one of {', '.join(STICKY_LAYOUTS)}"
            )
        super().__init__(client_rack)
        self.user_data_layout: StickyLayout = user_data_layout

    def subscription_user_data(self) -> bytes | None:
        if self.owned_partitions is None:
            return None
        return encode_sticky_user_data(
            self.owned_partitions, self.generation, self.user_data_layout
        )

    def member_from_subscription(
        self, member_id: str, group_instance_id: str | None, subscription: Any
    ) -> Member:
        member = super().member_from_subscription(member_id, group_instance_id, subscription)
        claim = _read_user_data(member_id, subscription, decode_sticky_user_data, "sticky")
        return member if claim is None else _with_claim(member, *claim)


class CooperativeStickyAssignor(ScenarioAssignor):
    """Kafka's ``CooperativeStickyAssignor`` (protocol ``cooperative-sticky``), KIP-429.

    The answer of one round leaves out partitions that move between members; their owners revoke
    them, kafka-python rejoins, and the second round hands them to their new owners.
    """

    name = "cooperative-sticky"
    strategy_name = "cooperative-sticky"
    rebalance_protocols = (RebalanceProtocol.COOPERATIVE,)

    def subscription_user_data(self) -> bytes | None:
        return encode_int32(self.generation)

    def member_from_subscription(
        self, member_id: str, group_instance_id: str | None, subscription: Any
    ) -> Member:
        member = super().member_from_subscription(member_id, group_instance_id, subscription)
        generation: int | None = getattr(subscription, "generation_id", DEFAULT_GENERATION)
        if (subscription.version or 0) < 2:  # no generation field: Java's fallback, user data
            data = _user_data_bytes(subscription)
            try:
                generation = decode_int32(data, "cooperative-sticky user data") if data else None
            except UserDataError as exc:
                log.warning("member %s: ignoring unreadable user data: %s", member_id, exc)
                generation = None
        return _with_claim(member, _owned_from_subscription(subscription), generation)


class FailoverAssignor(ScenarioAssignor):
    """Active/passive (protocol ``failover``): each topic to its highest-priority subscriber.

    ``priority`` travels as 4 big-endian bytes; the default is the lowest priority, so a member
    that forgets to set one never takes over from a configured one.
    """

    name = "failover"
    strategy_name = "failover"

    def __init__(self, priority: int = LOWEST_PRIORITY, client_rack: str | None = None) -> None:
        if not -(2**31) <= priority < 2**31:
            raise AdapterConfigError(f"priority {priority} does not fit a 32-bit signed integer")
        super().__init__(client_rack)
        self.priority = priority

    def subscription_user_data(self) -> bytes | None:
        return encode_int32(self.priority)

    def member_from_subscription(
        self, member_id: str, group_instance_id: str | None, subscription: Any
    ) -> Member:
        member = super().member_from_subscription(member_id, group_instance_id, subscription)
        data = _user_data_bytes(subscription)
        priority = LOWEST_PRIORITY
        if len(data) >= 4:  # the prototype reads the first 4 bytes and ignores the rest
            priority = int(struct.unpack(">i", data[:4])[0])
        return Member(
            member.member_id,
            member.topics,
            rack=member.rack,
            group_instance_id=member.group_instance_id,
            priority=priority,
        )


class StreamJoinStickyAssignor(ScenarioAssignor):
    """KIP-315 stream-join sticky (protocol ``sticky-join``): numbers and epoch in user data."""

    name = "sticky-join"
    strategy_name = "stream-join-sticky"

    def __init__(self, client_rack: str | None = None) -> None:
        super().__init__(client_rack)
        self.epoch = 0

    def subscription_user_data(self) -> bytes | None:
        numbers = {tp.partition for tp in self.owned_partitions or ()}
        return encode_stream_join_user_data(numbers, self.epoch)

    def assignment_user_data(self, scenario: Scenario) -> bytes | None:
        return encode_int32(next_epoch(scenario.members))

    def on_assignment(self, assignment: Any, generation: int) -> None:
        super().on_assignment(assignment, generation)
        data = _user_data_bytes(assignment)
        if data:
            try:
                self.epoch = decode_int32(data, "sticky-join assignment user data")
            except UserDataError as exc:
                log.warning("ignoring unreadable sticky-join assignment user data: %s", exc)

    def member_from_subscription(
        self, member_id: str, group_instance_id: str | None, subscription: Any
    ) -> Member:
        member = super().member_from_subscription(member_id, group_instance_id, subscription)
        claim = _read_user_data(
            member_id, subscription, decode_stream_join_user_data, "sticky-join"
        )
        if claim is None:
            return member
        numbers, epoch = claim
        # The strategy reads only the numbers of a claim; spell them out for each topic.
        owned = [TopicPartition(topic, n) for n in numbers for topic in member.topics]
        return _with_claim(member, owned, epoch)


_Claim = TypeVar("_Claim")


def _read_user_data(
    member_id: str, subscription: Any, decode: Callable[[bytes], _Claim], what: str
) -> _Claim | None:
    """A member's decoded subscription user data; ``None`` when it has none or it is unreadable
    (then a warning is logged: one member's bad bytes must not fail the group's rebalance)."""
    data = _user_data_bytes(subscription)
    if not data:
        return None
    try:
        return decode(data)
    except UserDataError as exc:
        log.warning("member %s: ignoring unreadable %s user data: %s", member_id, what, exc)
        return None


def _with_claim(member: Member, owned: Sequence[TopicPartition], generation: int | None) -> Member:
    return Member(
        member.member_id,
        member.topics,
        rack=member.rack,
        group_instance_id=member.group_instance_id,
        owned_partitions=tuple(owned),
        generation=generation,
    )


# --- lag-aware and its lag sources --------------------------------------------------------------

#: Given the partition count of every topic being assigned, the facts to compute lags from: a
#: :class:`~assignors.model.Topic` per topic with ``lags`` or log-start / log-end / committed
#: offsets. Topics it leaves out count as lag 0.
LagSource = Callable[[Mapping[str, int]], Mapping[str, Topic]]


def static_lags(lags_by_topic: Mapping[str, Sequence[int]]) -> LagSource:
    """A lag source that always answers the given lags (tests, what-if runs, external feeds)."""

    def source(partition_counts: Mapping[str, int]) -> Mapping[str, Topic]:
        return {
            topic: Topic(topic, count, lags=tuple(lags_by_topic[topic]))
            for topic, count in partition_counts.items()
            if topic in lags_by_topic and len(lags_by_topic[topic]) == count
        }

    return source


class BrokerOffsetsLagSource:
    """Reads log-start, log-end and the group's committed offsets from the cluster, read-only.

    Opens a short-lived ``KafkaAdminClient`` with the consumer's connection settings
    (``bootstrap_servers``, security, SASL, SSL, ...) for each rebalance it serves: ListOffsets
    for the earliest and latest offsets and OffsetFetch for the group's commits. It never joins
    the group and never commits (the KAFKA-5337 prototype opened a second consumer with the
    group's id instead).
    """

    def __init__(self, group_id: str, **connection_configs: Any) -> None:
        from kafka import KafkaAdminClient

        if not group_id:
            raise AdapterConfigError("the lag source needs the consumer's group_id")
        if not connection_configs.get("bootstrap_servers"):
            raise AdapterConfigError("the lag source needs the consumer's bootstrap_servers")
        known = set(KafkaAdminClient.DEFAULT_CONFIG)
        self.group_id = group_id
        self.connection_configs = {k: v for k, v in connection_configs.items() if k in known}
        self.connection_configs.setdefault("client_id", f"lag-reader-{group_id}")

    def __call__(self, partition_counts: Mapping[str, int]) -> Mapping[str, Topic]:
        from kafka import KafkaAdminClient, OffsetSpec
        from kafka import TopicPartition as KafkaTopicPartition

        partitions = [
            KafkaTopicPartition(topic, p)
            for topic, count in sorted(partition_counts.items())
            for p in range(count)
        ]
        if not partitions:
            return {}
        admin = KafkaAdminClient(**self.connection_configs)
        try:
            starts = admin.list_partition_offsets(dict.fromkeys(partitions, OffsetSpec.EARLIEST))
            ends = admin.list_partition_offsets(dict.fromkeys(partitions, OffsetSpec.LATEST))
            committed = admin.list_group_offsets({self.group_id: partitions}).get(self.group_id, {})
        finally:
            admin.close()

        def commit_of(tp: Any) -> int | None:
            found = committed.get(tp)
            offset = None if found is None else found.offset
            return None if offset is None or offset < 0 else int(offset)

        topics = {}
        for topic, count in partition_counts.items():
            tps = [KafkaTopicPartition(topic, p) for p in range(count)]
            start = tuple(int(starts[tp].offset) for tp in tps)
            end = tuple(max(int(ends[tp].offset), s) for tp, s in zip(tps, start, strict=True))
            topics[topic] = Topic(
                topic,
                count,
                log_start_offsets=start,
                log_end_offsets=end,
                committed_offsets=tuple(commit_of(tp) for tp in tps),
            )
        return topics


class LagAwareAssignor(ScenarioAssignor):
    """KAFKA-5337 lag-aware (protocol ``lag``): the leader reads lags when it assigns.

    Build it with the consumer's own settings, which gives the default, read-only
    :class:`BrokerOffsetsLagSource`, or with any ``lag_source``::

        configs = dict(bootstrap_servers="...", group_id="billing", auto_offset_reset="earliest")
        consumer = KafkaConsumer("orders", **configs,
                                 partition_assignment_strategy=[LagAwareAssignor(**configs)])

    If the lag source fails, the rebalance still completes with every lag counted as 0 (a warning
    is logged): a group that cannot read offsets should still consume.

    The leader spends the offset read (a few requests, tens to hundreds of milliseconds) inside
    the rebalance. With kafka-python 3.0.12, poll with a ``timeout_ms`` longer than that (a
    second is plenty): a leader whose assignment outlasts its poll on a rejoin that metadata
    started never resumes heartbeats, and the broker drops it from the group.
    """

    name = "lag"
    strategy_name = "lag-aware"

    def __init__(
        self,
        lag_source: LagSource | None = None,
        *,
        auto_offset_reset: AutoOffsetReset | None = None,
        client_rack: str | None = None,
        **consumer_configs: Any,
    ) -> None:
        super().__init__(client_rack)
        reset = auto_offset_reset or consumer_configs.get("auto_offset_reset", "latest")
        if reset not in ("latest", "earliest", "none"):
            raise AdapterConfigError(
                f"auto_offset_reset must be 'latest', 'earliest' or 'none', got {reset!r}"
            )
        self._auto_offset_reset: AutoOffsetReset = reset
        if lag_source is None:
            if "group_id" not in consumer_configs or "bootstrap_servers" not in consumer_configs:
                raise AdapterConfigError(
                    "LagAwareAssignor needs a lag source: pass the consumer's settings "
                    "(LagAwareAssignor(**consumer_configs), with bootstrap_servers and group_id) "
                    "or lag_source=... (for example static_lags({...}))"
                )
            configs = dict(consumer_configs)
            lag_source = BrokerOffsetsLagSource(configs.pop("group_id"), **configs)
        self.lag_source = lag_source

    def auto_offset_reset(self) -> AutoOffsetReset:
        return self._auto_offset_reset

    def topics_for(self, cluster: Any, names: Iterable[str]) -> list[Topic]:
        topics = topics_from_cluster(cluster, names)
        try:
            facts = self.lag_source({t.name: t.partitions for t in topics})
        except Exception as exc:  # a rebalance must finish even when offsets cannot be read
            log.warning("lag source failed (%s); assigning with every lag 0", exc)
            return topics
        merged = []
        for topic in topics:
            found = facts.get(topic.name)
            if found is None or found.partitions != topic.partitions:
                merged.append(topic)
                continue
            merged.append(
                Topic(
                    topic.name,
                    topic.partitions,
                    replica_racks=topic.replica_racks,
                    lags=found.lags,
                    log_start_offsets=found.log_start_offsets,
                    log_end_offsets=found.log_end_offsets,
                    committed_offsets=found.committed_offsets,
                )
            )
        return merged


#: Every adapter, by the registry strategy it runs.
ADAPTERS: dict[str, type[ScenarioAssignor]] = {
    adapter.strategy_name: adapter
    for adapter in (
        RangeAssignor,
        RoundRobinAssignor,
        StickyAssignor,
        CooperativeStickyAssignor,
        LagAwareAssignor,
        FailoverAssignor,
        StreamJoinStickyAssignor,
    )
}

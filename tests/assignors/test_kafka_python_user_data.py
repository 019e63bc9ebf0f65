"""Byte layouts of the kafka-python adapters, checked against Kafka's schema definitions.

Each expected byte string below is written out by hand from the schema it names (Kafka protocol
types: INT16/INT32 big-endian, STRING = INT16 length + UTF-8 bytes, ARRAY = INT32 count + items,
nullable BYTES = INT32 length (-1 for null) + bytes, nullable STRING = INT16 length (-1 for null)),
so a change in our encoders that a Java member would misread fails here.
"""

from __future__ import annotations

import pytest
from kafka.protocol.consumer.metadata import (
    ConsumerProtocolAssignment,
    ConsumerProtocolSubscription,
)
from kafka.structs import TopicPartition as KafkaTopicPartition

from adapters import kafka_python as adapters
from assignors.model import LOWEST_PRIORITY, TopicPartition


def hexbytes(text: str) -> bytes:
    """Bytes from hex written with spaces between fields for reading."""
    return bytes.fromhex(text.replace(" ", ""))


# StickyAssignorUserData v1 (clients/.../StickyAssignor.java, STICKY_ASSIGNOR_USER_DATA_V1):
#   previous_assignment: ARRAY(topic: STRING, partitions: ARRAY(INT32)), generation: INT32
STICKY_V1 = hexbytes(
    "00000002"  # two topics
    "0006 636c69636b73"  # "clicks"
    "00000001 00000001"  # [1]
    "0006 6f7264657273"  # "orders"
    "00000002 00000000 00000003"  # [0, 3]
    "00000007"  # generation 7
)
STICKY_V0 = STICKY_V1[:-4]  # version 0 has no generation


class _AssignmentStub:
    """The two attributes kafka-python's coordinator hands ``on_assignment``."""

    def __init__(self, partitions: list[tuple[str, int]], user_data: bytes | None = None) -> None:
        self._partitions = partitions
        self.user_data = user_data

    def partitions(self) -> list[KafkaTopicPartition]:
        return [KafkaTopicPartition(t, p) for t, p in self._partitions]


def test_sticky_user_data_layout() -> None:
    owned = [TopicPartition("orders", 3), TopicPartition("clicks", 1), TopicPartition("orders", 0)]
    assert adapters.encode_sticky_user_data(owned, 7) == STICKY_V1
    assert adapters.decode_sticky_user_data(STICKY_V1) == (sorted(owned), 7)


def test_sticky_user_data_version_0_has_no_generation() -> None:
    owned, generation = adapters.decode_sticky_user_data(STICKY_V0)
    assert owned == [
        TopicPartition("clicks", 1),
        TopicPartition("orders", 0),
        TopicPartition("orders", 3),
    ]
    assert generation is None


@pytest.mark.parametrize(
    ("data", "problem"),
    [(STICKY_V1[:5], "needs"), (STICKY_V1 + b"\x00", "trailing")],
)
def test_truncated_or_padded_user_data_is_reported(data: bytes, problem: str) -> None:
    with pytest.raises(adapters.UserDataError, match=problem):
        adapters.decode_sticky_user_data(data)


@pytest.mark.parametrize(
    ("value", "layout"),
    [(10, "0000000a"), (-2, "fffffffe"), (LOWEST_PRIORITY, "80000000"), (-1, "ffffffff")],
)
def test_int32_user_data_layout(value: int, layout: str) -> None:
    # failover priority, cooperative-sticky generation (COOPERATIVE_STICKY_ASSIGNOR_USER_DATA_V0),
    # sticky-join assignment epoch: one big-endian INT32 each.
    assert adapters.encode_int32(value) == hexbytes(layout)
    assert adapters.decode_int32(hexbytes(layout), "test") == value


def test_stream_join_subscription_user_data_layout() -> None:
    layout = hexbytes("00000003 00000000 00000004 0000000800000003")  # [0, 4, 8], epoch 3
    assert adapters.encode_stream_join_user_data([8, 0, 4], 3) == layout
    assert adapters.decode_stream_join_user_data(layout) == ([0, 4, 8], 3)
    assert adapters.encode_stream_join_user_data([], 0) == hexbytes("00000000 00000000")


def test_failover_subscription_bytes_match_consumer_protocol_v3() -> None:
    # ConsumerProtocolSubscription v3: version INT16, topics ARRAY(STRING), user_data BYTES,
    # owned_partitions ARRAY(topic STRING, partitions ARRAY(INT32)), generation_id INT32,
    # rack_id nullable STRING.
    assignor = adapters.FailoverAssignor(priority=10)
    expected = hexbytes(
        "0003"
        "00000002 0006 636c69636b73 0006 6f7264657273"  # ["clicks", "orders"]
        "00000004 0000000a"  # user data: priority 10
        "00000000"  # no owned partitions (eager)
        "ffffffff"  # generation -1
        "ffff"  # rack null
    )
    assert assignor.metadata({"orders", "clicks"}).encode() == expected


def test_cooperative_subscription_reports_owned_partitions_and_generation() -> None:
    assignor = adapters.CooperativeStickyAssignor(client_rack="r1")
    assignor.on_assignment(_AssignmentStub([("orders", 2), ("orders", 0)]), 5)
    expected = hexbytes(
        "0003"
        "00000001 0006 6f7264657273"  # ["orders"]
        "00000004 00000005"  # user data: generation 5
        "00000001 0006 6f7264657273 00000002 00000000 00000002"  # owned orders [0, 2]
        "00000005"  # generation 5
        "0002 7231"  # rack "r1"
    )
    assert assignor.metadata({"orders"}).encode() == expected


def test_sticky_subscription_carries_user_data_only_after_an_assignment() -> None:
    assignor = adapters.StickyAssignor()
    assert assignor.metadata({"orders"}).user_data is None  # Java sends null before the first
    assignor.on_assignment(_AssignmentStub([("orders", 0), ("orders", 3), ("clicks", 1)]), 7)
    assert assignor.metadata({"orders", "clicks"}).user_data == STICKY_V1


def test_stream_join_remembers_numbers_and_epoch_from_its_assignment() -> None:
    assignor = adapters.StreamJoinStickyAssignor()
    assignor.on_assignment(
        _AssignmentStub(
            [("clicks", 0), ("impressions", 0), ("clicks", 4), ("impressions", 4)],
            user_data=hexbytes("00000006"),
        ),
        12,
    )
    assert assignor.metadata({"clicks", "impressions"}).user_data == hexbytes(
        "00000002 00000000 00000004 00000006"
    )


def subscription_from_java(
    version: int, user_data: bytes | None, owned: bytes = b"", tail: bytes = b""
) -> ConsumerProtocolSubscription:
    """Decode subscription bytes laid out as a Java member of that version sends them."""
    body = hexbytes("0006 6f7264657273")  # topic "orders"
    data = (
        b"\xff\xff\xff\xff" if user_data is None else len(user_data).to_bytes(4, "big") + user_data
    )
    raw = version.to_bytes(2, "big") + hexbytes("00000001") + body + data + owned + tail
    return ConsumerProtocolSubscription.decode(raw)


def test_reads_a_java_sticky_member() -> None:
    subscription = subscription_from_java(
        3, STICKY_V1, hexbytes("00000000"), hexbytes("ffffffff ffff")
    )
    member = adapters.StickyAssignor().member_from_subscription("java-1", "static-1", subscription)
    assert member.topics == ("orders",)
    assert member.group_instance_id == "static-1"
    assert set(member.owned_partitions) == {
        TopicPartition("clicks", 1),
        TopicPartition("orders", 0),
        TopicPartition("orders", 3),
    }
    assert member.generation == 7


def test_reads_cooperative_generation_from_user_data_when_the_subscription_is_v1() -> None:
    owned = hexbytes("00000001 0006 6f7264657273 00000001 00000002")  # orders [2]
    subscription = subscription_from_java(1, hexbytes("00000009"), owned)
    member = adapters.CooperativeStickyAssignor().member_from_subscription("m", None, subscription)
    assert member.owned_partitions == (TopicPartition("orders", 2),)
    assert member.generation == 9


def test_reads_failover_priority_and_defaults_to_the_lowest() -> None:
    assignor = adapters.FailoverAssignor()
    with_priority = subscription_from_java(0, hexbytes("00000007"))
    assert assignor.member_from_subscription("m", None, with_priority).priority == 7
    without = subscription_from_java(0, None)
    assert assignor.member_from_subscription("m", None, without).priority == LOWEST_PRIORITY


def test_assignment_bytes_match_consumer_protocol_assignment_v3() -> None:
    # ConsumerProtocolAssignment v3: version INT16,
    # assigned_partitions ARRAY(topic STRING, partitions ARRAY(INT32)), user_data BYTES.
    encoded = ConsumerProtocolAssignment(
        version=adapters.PROTOCOL_VERSION,
        assigned_partitions=[("orders", [1, 5])],
        user_data=adapters.encode_int32(4),
    ).encode()
    assert encoded == hexbytes(
        "0003 00000001 0006 6f7264657273 00000002 00000001 00000005 00000004 00000004"
    )


def test_protocol_names_equal_javas() -> None:
    assert {name: adapter.name for name, adapter in adapters.ADAPTERS.items()} == {
        "range": "range",
        "roundrobin": "roundrobin",
        "sticky": "sticky",
        "cooperative-sticky": "cooperative-sticky",
        "lag-aware": "lag",
        "failover": "failover",
        "stream-join-sticky": "sticky-join",
    }


def test_lag_aware_without_a_lag_source_explains_what_to_pass() -> None:
    with pytest.raises(adapters.AdapterConfigError, match="group_id"):
        adapters.LagAwareAssignor()
    with pytest.raises(adapters.AdapterConfigError, match="auto_offset_reset"):
        adapters.LagAwareAssignor(adapters.static_lags({}), auto_offset_reset="smallest")  # type: ignore[arg-type]

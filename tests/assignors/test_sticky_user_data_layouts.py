"""``sticky`` user data in both layouts a member may send: Java's and kafka-python's.

kafka-python 3.0.12's ``StickyPartitionAssignor`` announces the protocol name ``sticky`` like
Java's StickyAssignor and our adapter, but encodes its ``StickyAssignorUserData`` with
kafka-python's generic data header: an INT16 version (1) in front of Java's layout. The expected
bytes below are written out by hand; kafka-python's own encoder and reader are used as they ship,
to show what each side reads of the other.
"""

from __future__ import annotations

import logging

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor
from kafka.coordinator.assignors.sticky.user_data import StickyAssignorUserData
from kafka.protocol.consumer.metadata import ConsumerProtocolSubscription
from kafka.structs import TopicPartition as KafkaTopicPartition

from adapters import kafka_python as adapters
from assignors.model import TopicPartition
from tests.assignors.test_kafka_python_user_data import STICKY_V0, STICKY_V1, hexbytes

#: kafka-python's layout: INT16 version 1, then Java's StickyAssignorUserData v1.
KAFKA_PYTHON_V1 = hexbytes("0001") + STICKY_V1
#: kafka-python's layout, version 0: INT16 version 0, then Java's v0 (no generation).
KAFKA_PYTHON_V0 = hexbytes("0000") + STICKY_V0
OWNED = [TopicPartition("clicks", 1), TopicPartition("orders", 0), TopicPartition("orders", 3)]


def test_kafka_python_layout_is_read() -> None:
    assert adapters.decode_sticky_user_data(KAFKA_PYTHON_V1) == (OWNED, 7)
    assert adapters.decode_sticky_user_data(KAFKA_PYTHON_V0) == (OWNED, None)


def test_java_layout_is_still_read() -> None:
    assert adapters.decode_sticky_user_data(STICKY_V1) == (OWNED, 7)
    assert adapters.decode_sticky_user_data(STICKY_V0) == (OWNED, None)


def test_empty_claims_in_either_layout() -> None:
    java_empty = hexbytes("00000000 00000004")  # no topics, generation 4
    assert adapters.decode_sticky_user_data(java_empty) == ([], 4)
    assert adapters.decode_sticky_user_data(hexbytes("0001") + java_empty) == ([], 4)
    assert adapters.decode_sticky_user_data(hexbytes("0000 00000000")) == ([], None)


def test_kafka_pythons_own_encoder_is_read() -> None:
    encoded = StickyAssignorUserData([("orders", [0, 3]), ("clicks", [1])], 7).encode()
    assert encoded[:2] == hexbytes("0001")  # its header: version 1
    owned, generation = adapters.decode_sticky_user_data(encoded)
    assert (sorted(owned), generation) == (OWNED, 7)


def test_a_kafka_python_member_subscription_gives_its_claim_to_our_leader() -> None:
    # What kafka-python's StickyPartitionAssignor sends after an assignment in generation 7,
    # as our leader's consumer decodes it from the JoinGroup response.
    owned = [KafkaTopicPartition("orders", 0), KafkaTopicPartition("orders", 3)]
    sent = StickyPartitionAssignor._metadata(["orders"], owned, 7).encode()
    subscription = ConsumerProtocolSubscription.decode(sent)
    member = adapters.StickyAssignor().member_from_subscription("k-1", None, subscription)
    assert member.owned_partitions == (TopicPartition("orders", 0), TopicPartition("orders", 3))
    assert member.generation == 7


def test_our_kafka_python_layout_is_what_kafka_python_writes_and_reads() -> None:
    assert adapters.encode_sticky_user_data(OWNED, 7, "kafka-python") == KAFKA_PYTHON_V1
    ours = adapters.StickyAssignor(user_data_layout="kafka-python")
    ours.on_assignment(_Assignment(OWNED), 7)
    sent = ours.metadata({"orders", "clicks"}).encode()
    read = StickyPartitionAssignor.parse_member_metadata(ConsumerProtocolSubscription.decode(sent))
    assert sorted(read.partitions) == [KafkaTopicPartition(tp.topic, tp.partition) for tp in OWNED]
    assert read.generation == 7


def test_kafka_pythons_reader_drops_claims_in_javas_layout() -> None:
    # Why docs/adapters.md says our default (Java's layout) is lost on a kafka-python leader: its
    # reader takes Java's first two bytes for a version and fails, then ignores the member's claim.
    ours = adapters.StickyAssignor()
    ours.on_assignment(_Assignment(OWNED), 7)
    sent = ours.metadata({"orders", "clicks"}).encode()
    read = StickyPartitionAssignor.parse_member_metadata(ConsumerProtocolSubscription.decode(sent))
    assert read.partitions == []
    assert read.generation == -1


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (hexbytes("0002") + STICKY_V1, "unknown version 2"),
        (hexbytes("0001") + STICKY_V0, "version 1 needs a generation"),
        (hexbytes("0000") + STICKY_V1, "version 0 has no generation"),
        (KAFKA_PYTHON_V1[:-1], "needs"),
        (KAFKA_PYTHON_V1 + b"\x00", "trailing"),
        (hexbytes("0001 00000001 0002 ffff 00000000 00000001"), "utf-8"),
        (hexbytes("ffff"), "needs"),
    ],
)
def test_malformed_sticky_user_data_names_both_readings(data: bytes, why: str) -> None:
    with pytest.raises(adapters.UserDataError, match="neither layout") as raised:
        adapters.decode_sticky_user_data(data)
    assert "Java's layout" in str(raised.value)
    assert why in str(raised.value)


def test_a_member_with_malformed_user_data_is_kept_without_its_claim(
    caplog: pytest.LogCaptureFixture,
) -> None:
    subscription = ConsumerProtocolSubscription(
        version=0, topics=["orders"], user_data=hexbytes("0002") + STICKY_V1
    )
    with caplog.at_level(logging.WARNING, logger=adapters.__name__):
        member = adapters.StickyAssignor().member_from_subscription("m", None, subscription)
    assert member.topics == ("orders",)
    assert member.owned_partitions == ()
    assert "ignoring unreadable sticky user data" in caplog.text


def test_an_unknown_layout_setting_is_refused() -> None:
    with pytest.raises(adapters.AdapterConfigError, match="java, kafka-python"):
        adapters.StickyAssignor(user_data_layout="python")  # type: ignore[arg-type]


claims = st.lists(
    st.builds(
        TopicPartition,
        st.text(alphabet="abcxyz-._", min_size=1, max_size=12),
        st.integers(min_value=0, max_value=2**31 - 1),
    ),
    unique=True,
    max_size=20,
)
generations = st.integers(min_value=-1, max_value=2**31 - 1)


@settings(deadline=None)  # a loaded 2-core CI machine is slow, not wrong
@given(claims, generations, st.sampled_from(adapters.STICKY_LAYOUTS))
def test_either_layout_round_trips(
    owned: list[TopicPartition], generation: int, layout: adapters.StickyLayout
) -> None:
    data = adapters.encode_sticky_user_data(owned, generation, layout)
    assert adapters.decode_sticky_user_data(data) == (sorted(owned), generation)


@settings(deadline=None)  # a loaded 2-core CI machine is slow, not wrong
@given(claims, generations)
def test_kafka_python_reads_our_kafka_python_layout_as_we_meant_it(
    owned: list[TopicPartition], generation: int
) -> None:
    data = adapters.encode_sticky_user_data(owned, generation, "kafka-python")
    decoded = StickyAssignorUserData.decode(data)
    read = {TopicPartition(t, p) for t, ps in decoded.previous_assignment for p in ps}
    assert (read, decoded.generation) == (set(owned), generation)


@settings(deadline=None)  # a loaded 2-core CI machine is slow, not wrong
@given(st.binary(max_size=64))
def test_any_bytes_decode_or_raise_user_data_error(data: bytes) -> None:
    try:
        owned, generation = adapters.decode_sticky_user_data(data)
    except adapters.UserDataError:
        return
    assert all(isinstance(tp, TopicPartition) for tp in owned)
    assert generation is None or isinstance(generation, int)


class _Assignment:
    """The part of kafka-python's assignment that ``on_assignment`` reads."""

    def __init__(self, owned: list[TopicPartition]) -> None:
        self._owned = owned

    def partitions(self) -> list[KafkaTopicPartition]:
        return [KafkaTopicPartition(tp.topic, tp.partition) for tp in self._owned]

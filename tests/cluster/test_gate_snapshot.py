"""A cluster's answers fed garbage: the snapshot is a scenario, or refused in the project's words.

:func:`cluster.snapshot.snapshot_group` turns what the reader returns into a scenario through the
same gate and loader as a file. The reader here is a stand-in that returns the reader's own
answer types (:class:`~cluster.reader.GroupDescription`, :class:`~cluster.reader.TopicMetadata`,
offsets) filled with generated values: a real broker cannot be made to answer with arbitrary
garbage, and the code under test starts where the reader's answers end.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assignors import MAX_PARTITIONS_PER_TOPIC, ScenarioError
from cluster.kafka_release import KafkaRelease
from cluster.reader import GroupDescription, MemberDescription, TopicMetadata, TopicPartitionKey
from cluster.snapshot import snapshot_group
from tests.garbage import is_ours

GARBAGE = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@dataclass
class AnsweringReader:
    """Stand-in for :class:`cluster.reader.ClusterReader`: fixed answers of the reader's types."""

    group: GroupDescription
    metadata: dict[str, TopicMetadata]
    committed: dict[TopicPartitionKey, int | None] = field(default_factory=dict)
    starts: dict[TopicPartitionKey, int] = field(default_factory=dict)
    ends: dict[TopicPartitionKey, int] = field(default_factory=dict)
    racks: dict[int, str | None] = field(default_factory=dict)
    asked_offsets: int = 0

    def describe_group(self, group_id: str) -> GroupDescription:
        return self.group

    def committed_offsets(self, group_id: str) -> dict[TopicPartitionKey, int | None]:
        return self.committed

    def topics(self, names: object) -> dict[str, TopicMetadata]:
        return self.metadata

    def broker_racks(self) -> dict[int, str | None]:
        return self.racks

    def log_offsets(
        self, partitions: object
    ) -> tuple[dict[TopicPartitionKey, int], dict[TopicPartitionKey, int]]:
        self.asked_offsets += 1
        return self.starts, self.ends

    def kafka_release(self) -> KafkaRelease:
        return KafkaRelease(None, None, why="a stand-in reader has no brokers")


def _member(member_id: str, **fields: object) -> MemberDescription:
    values: dict[str, object] = {
        "member_id": member_id,
        "client_id": None,
        "host": None,
        "group_instance_id": None,
        "topics": ("t0",),
        "subscription_user_data": b"",
        "owned_partitions": (),
        "generation": None,
        "rack": None,
        "assignment": (),
        "assignment_user_data": b"",
    }
    values.update(fields)
    return MemberDescription(**values)  # type: ignore[arg-type]


def _group(*members: MemberDescription, protocol: str = "range") -> GroupDescription:
    return GroupDescription("g", "Stable", "consumer", protocol, tuple(members))


def test_a_topic_over_the_limit_is_refused_before_offsets_are_asked_for() -> None:
    """Before: the snapshot built per-partition lists and asked for every partition's offsets."""
    huge = MAX_PARTITIONS_PER_TOPIC + 1
    reader = AnsweringReader(_group(_member("m")), {"t0": TopicMetadata("t0", huge, (), None)})
    with pytest.raises(ScenarioError, match=r"topics\.t0: the cluster reports 1,000,001"):
        snapshot_group(reader, "g")  # type: ignore[arg-type]
    assert reader.asked_offsets == 0


def test_a_member_id_with_a_lone_surrogate_is_refused_with_its_path() -> None:
    metadata = {"t0": TopicMetadata("t0", 1, ((),), None)}
    reader = AnsweringReader(_group(_member("m\udcff")), metadata)
    with pytest.raises(ScenarioError, match=r"members\[0\]\.member_id: text with a lone"):
        snapshot_group(reader, "g")  # type: ignore[arg-type]


TEXT = st.one_of(st.sampled_from(["m0", "m1", "t0", "", "x" * 5_000, "a\nb"]), st.text(max_size=6))
NUMBERS = st.one_of(st.integers(-3, 50), st.sampled_from([2**31, 2**63, -(2**63), 10**30]))


@st.composite
def answers(draw: st.DrawFn) -> AnsweringReader:
    names = draw(st.lists(TEXT, min_size=1, max_size=3))
    counts = {name: draw(st.integers(0, 4)) for name in names}
    members = [
        _member(
            draw(TEXT),
            client_id=draw(st.one_of(st.none(), TEXT)),
            topics=tuple(draw(st.lists(st.sampled_from(names), max_size=2))),
            group_instance_id=draw(st.one_of(st.none(), TEXT)),
            rack=draw(st.one_of(st.none(), TEXT)),
            generation=draw(st.one_of(st.none(), NUMBERS)),
            subscription_user_data=draw(
                st.one_of(
                    st.binary(max_size=40), NUMBERS.map(lambda n: struct.pack(">q", n % 2**63))
                )
            ),
            assignment=tuple(
                draw(st.lists(st.tuples(st.sampled_from(names), NUMBERS), max_size=3))
            ),
        )
        for _ in range(draw(st.integers(0, 3)))
    ]
    keys = [(name, p) for name, count in counts.items() for p in range(count)]
    return AnsweringReader(
        _group(*members, protocol=draw(st.sampled_from(["range", "sticky", "failover", ""]))),
        {
            name: TopicMetadata(name, count, tuple((1,) for _ in range(count)), draw(TEXT))
            for name, count in counts.items()
        },
        committed={key: draw(st.one_of(st.none(), NUMBERS)) for key in keys},
        starts={key: draw(NUMBERS) for key in keys},
        ends={key: draw(NUMBERS) for key in keys},
        racks={1: draw(st.one_of(st.none(), TEXT))},
    )


@GARBAGE
@given(answers())
def test_garbage_answers_give_a_scenario_or_our_error(reader: AnsweringReader) -> None:
    try:
        snapshot_group(reader, "g")  # type: ignore[arg-type]
    except Exception as error:  # the test: nothing but the project's errors escapes
        assert is_ours(error), f"{type(error).__name__}: {error}"

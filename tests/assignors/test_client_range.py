"""The ``range`` strategy: Kafka's client-side ``RangeAssignor``, rack-aware as in KIP-881.

Worked examples (Kafka's own documentation example, the design document's, static members, Java
string order, rack matching) and properties checked on generated groups. Parity with Kafka on
recorded cases is ``test_conformance.py``'s job.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assignors import registry
from assignors.client.range import kafka_member_order
from assignors.io.scenario import parse_scenario
from assignors.model import Assignment, Member, Scenario

RANGE = registry.partition_strategies()["range"]


def assign(strategy_name: str, scenario: dict[str, Any] | Scenario) -> dict[str, list[str]]:
    """Run a registered strategy; answer member -> ``["topic-p", ...]`` in sorted order."""
    if isinstance(scenario, dict):
        scenario, _ = parse_scenario(scenario)
    assignment = registry.partition_strategies()[strategy_name].assign(scenario)
    return {member: [str(tp) for tp in tps] for member, tps in assignment.partitions.items()}


def member(member_id: str, topics: list[str], **extra: object) -> dict[str, object]:
    return {"member_id": member_id, "topics": topics, **extra}


TWO_TOPICS_OF_THREE = [{"name": "t0", "partitions": 3}, {"name": "t1", "partitions": 3}]


@pytest.mark.parametrize(
    ("scenario", "expected"),
    [
        pytest.param(
            {
                "topics": TWO_TOPICS_OF_THREE,
                "members": [member("C1", ["t0", "t1"]), member("C0", ["t0", "t1"])],
            },
            {"C0": ["t0-0", "t0-1", "t1-0", "t1-1"], "C1": ["t0-2", "t1-2"]},
            id="kafka-doc-two-topics-three-partitions-two-consumers",
        ),
        pytest.param(
            {
                "topics": [{"name": "A", "partitions": 2}, {"name": "B", "partitions": 2}],
                "members": [member(c, ["A", "B"]) for c in ("C1", "C2", "C3")],
            },
            {"C1": ["A-0", "B-0"], "C2": ["A-1", "B-1"], "C3": []},
            id="seed-001-co-partitioned-third-consumer-idle",
        ),
        pytest.param(
            {
                "topics": [{"name": "t", "partitions": 3}],
                "members": [
                    member("m-a", ["t"]),
                    member("m-b", ["t"], group_instance_id="z"),
                    member("m-c", ["t"], group_instance_id="y"),
                ],
            },
            {"m-c": ["t-0"], "m-b": ["t-1"], "m-a": ["t-2"]},
            id="static-members-by-instance-id-before-dynamic",
        ),
        pytest.param(
            {
                "topics": [{"name": "t", "partitions": 1}],
                "members": [member("\uffff", ["t"]), member("\U0001f600", ["t"])],
            },
            {"\U0001f600": ["t-0"], "\uffff": []},
            id="java-string-order-surrogate-pair-before-uffff",
        ),
        pytest.param(
            {
                "topics": [{"name": "t0", "partitions": 5}, {"name": "t1", "partitions": 2}],
                "members": [
                    member("a", ["t0", "t1"]),
                    member("b", ["t0"]),
                    member("c", ["t0", "gone"]),
                ],
            },
            {"a": ["t0-0", "t0-1", "t1-0", "t1-1"], "b": ["t0-2", "t0-3"], "c": ["t0-4"]},
            id="per-topic-subscribers-and-missing-topic-ignored",
        ),
        pytest.param(
            {
                "topics": [
                    {"name": "t", "partitions": 4, "replica_racks": [["a"], ["b"], ["a"], ["b"]]}
                ],
                "members": [member("c0", ["t"], rack="a"), member("c1", ["t"], rack="b")],
            },
            {"c0": ["t-0", "t-2"], "c1": ["t-1", "t-3"]},
            id="rack-aware-each-consumer-takes-its-rack",
        ),
        pytest.param(
            {
                "topics": [
                    {"name": "t", "partitions": 4, "replica_racks": [["a"], ["a"], ["a"], ["b"]]}
                ],
                "members": [member("c0", ["t"], rack="b"), member("c1", ["t"], rack="a")],
            },
            {"c0": ["t-2", "t-3"], "c1": ["t-0", "t-1"]},
            id="rack-aware-balance-wins-over-rack-one-partition-crosses",
        ),
        pytest.param(
            {
                "topics": [
                    {"name": "t", "partitions": 4, "replica_racks": [["a"], ["a"], ["b"], ["b"]]}
                ],
                "members": [member("c0", ["t"]), member("c1", ["t"], rack="a")],
            },
            {"c0": ["t-0", "t-1"], "c1": ["t-2", "t-3"]},
            id="rack-aware-consumer-without-rack-matches-anything",
        ),
        pytest.param(
            {
                "topics": [
                    {"name": "t1", "partitions": 2, "replica_racks": [["b"], ["a"]]},
                    {"name": "t2", "partitions": 2, "replica_racks": [["b"], ["a"]]},
                ],
                "members": [
                    member("c0", ["t1", "t2"], rack="a"),
                    member("c1", ["t1", "t2"], rack="b"),
                ],
            },
            {"c0": ["t1-1", "t2-1"], "c1": ["t1-0", "t2-0"]},
            id="rack-aware-co-partitioned-topics-move-together",
        ),
        pytest.param(
            {
                "topics": [
                    {"name": "t", "partitions": 4, "replica_racks": [["a"], ["b"], ["a"], ["b"]]}
                ],
                "members": [member("c0", ["t"]), member("c1", ["t"])],
            },
            {"c0": ["t-0", "t-1"], "c1": ["t-2", "t-3"]},
            id="no-member-racks-plain-range",
        ),
        pytest.param(
            {
                "topics": [{"name": "t", "partitions": 4, "replica_racks": [["a", "b"]] * 4}],
                "members": [member("c0", ["t"], rack="b"), member("c1", ["t"], rack="a")],
            },
            {"c0": ["t-0", "t-1"], "c1": ["t-2", "t-3"]},
            id="every-partition-on-every-rack-plain-range",
        ),
    ],
)
def test_worked_examples(scenario: dict[str, Any], expected: dict[str, list[str]]) -> None:
    assert assign("range", scenario) == expected


def test_describes_itself_for_people() -> None:
    assert RANGE.name == "range"
    assert RANGE.protocol == "eager"
    assert RANGE.consumer_config.endswith("org.apache.kafka.clients.consumer.RangeAssignor")
    assert RANGE.summary and RANGE.when_to_use


def test_member_order_is_static_by_instance_id_then_dynamic_by_member_id() -> None:
    members = [
        Member("d2", ()),
        Member("s1", (), group_instance_id="b"),
        Member("d1", ()),
        Member("s2", (), group_instance_id="a"),
    ]
    assert [m.member_id for m in kafka_member_order(members)] == ["s2", "s1", "d1", "d2"]


def test_shared_instance_ids_keep_java_hash_map_order_of_member_ids() -> None:
    # Java sorts stably from a HashMap keyed by member id: "q" (hash 113, bucket 1) comes
    # before "b" (hash 98, bucket 2), although "b" sorts first as text and is listed first.
    members = [Member("b", (), group_instance_id="x"), Member("q", (), group_instance_id="x")]
    assert [m.member_id for m in kafka_member_order(members)] == ["q", "b"]


# --- generated groups ---------------------------------------------------------------------------

TOPIC_NAMES = ["t0", "t1", "t2", "t3"]
RACKS = ["a", "b", "c"]


@st.composite
def groups(draw: st.DrawFn, equal_subscriptions: bool = False) -> Scenario:
    """Small consumer groups: some topics (some with replica racks), members with subscriptions
    (sometimes to a topic that does not exist), optional racks and unique static ids."""
    topic_count = draw(st.integers(1, len(TOPIC_NAMES)))
    topics = []
    for name in TOPIC_NAMES[:topic_count]:
        partitions = draw(st.integers(0, 12))
        racks = draw(
            st.none()
            | st.lists(
                st.lists(st.sampled_from(RACKS), min_size=1, max_size=2, unique=True),
                min_size=partitions,
                max_size=partitions,
            )
        )
        topics.append({"name": name, "partitions": partitions, "replica_racks": racks})
    universe = [*TOPIC_NAMES[:topic_count], "missing"]
    shared = draw(st.lists(st.sampled_from(universe), min_size=1, unique=True))
    member_count = draw(st.integers(1, 9))
    ids = draw(
        st.lists(
            st.text("cmx-9", min_size=1, max_size=4),
            min_size=member_count,
            max_size=member_count,
            unique=True,
        )
    )
    instance_ids = draw(
        st.lists(
            st.text("ik", min_size=1, max_size=3),
            min_size=member_count,
            max_size=member_count,
            unique=True,
        )
    )
    members = []
    for member_id, instance_id in zip(ids, instance_ids, strict=True):
        subscription = (
            shared
            if equal_subscriptions
            else draw(st.lists(st.sampled_from(universe), min_size=1, unique=True))
        )
        extra: dict[str, object] = {}
        if draw(st.booleans()):
            extra["group_instance_id"] = instance_id
        rack = draw(st.none() | st.sampled_from(RACKS))
        if rack is not None:
            extra["rack"] = rack
        members.append(member(member_id, subscription, **extra))
    scenario, _ = parse_scenario(
        {
            "topics": [{k: v for k, v in t.items() if v is not None} for t in topics],
            "members": members,
        }
    )
    return scenario


def check_every_partition_once_to_a_subscriber(scenario: Scenario, assignment: Assignment) -> None:
    """Every partition of a subscribed, existing topic goes to exactly one of its subscribers."""
    subscribers: dict[str, set[str]] = defaultdict(set)
    for m in scenario.members:
        for topic in m.topics:
            subscribers[topic].add(m.member_id)
    wanted = Counter(
        (topic.name, p)
        for topic in scenario.topics
        if subscribers[topic.name]
        for p in range(topic.partitions)
    )
    got = Counter((tp.topic, tp.partition) for tps in assignment.partitions.values() for tp in tps)
    assert got == wanted
    for member_id, tps in assignment.partitions.items():
        for tp in tps:
            assert member_id in subscribers[tp.topic], f"{member_id} got {tp} without subscribing"


def without_member_racks(scenario: Scenario) -> Scenario:
    members = tuple(
        Member(m.member_id, m.topics, group_instance_id=m.group_instance_id)
        for m in scenario.members
    )
    return Scenario(scenario.topics, members)


def shuffled(scenario: Scenario, seed: int) -> Scenario:
    members = list(scenario.members)
    random.Random(seed).shuffle(members)
    return Scenario(scenario.topics, tuple(reversed(members)))


@settings(max_examples=300, deadline=None)
@given(groups())
def test_every_partition_assigned_exactly_once_to_a_subscriber(scenario: Scenario) -> None:
    check_every_partition_once_to_a_subscriber(scenario, RANGE.assign(scenario))


@settings(max_examples=300, deadline=None)
@given(groups())
def test_per_topic_counts_of_subscribers_differ_by_at_most_one(scenario: Scenario) -> None:
    # Rack matching never trades this away, and it holds whatever the subscriptions.
    assignment = RANGE.assign(scenario)
    for topic in scenario.topics:
        subscribers = [m.member_id for m in scenario.members if topic.name in m.topics]
        if not subscribers:
            continue
        counts = Counter({s: 0 for s in subscribers})
        counts.update(
            s for s in subscribers for tp in assignment.partitions[s] if tp.topic == topic.name
        )
        assert max(counts.values()) - min(counts.values()) <= 1


@settings(max_examples=200, deadline=None)
@given(groups(equal_subscriptions=True))
def test_without_racks_the_first_members_get_the_extra_partition(scenario: Scenario) -> None:
    # With rack matching the extra partitions go wherever the racks allow (see the examples).
    assignment = RANGE.assign(without_member_racks(scenario))
    order = [m.member_id for m in kafka_member_order(scenario.members)]
    for topic in scenario.topics:
        if topic.name not in scenario.members[0].topics:
            continue
        counts = [sum(tp.topic == topic.name for tp in assignment.partitions[m]) for m in order]
        assert counts == sorted(counts, reverse=True)
        assert max(counts) - min(counts) <= 1


@settings(max_examples=200, deadline=None)
@given(groups(equal_subscriptions=True))
def test_without_racks_equal_topics_are_co_partitioned(scenario: Scenario) -> None:
    owner = RANGE.assign(without_member_racks(scenario)).owner_of()
    subscribed = [t for t in scenario.topics if t.name in scenario.members[0].topics]
    for first in subscribed:
        for second in subscribed:
            if first.partitions == second.partitions:
                for p in range(first.partitions):
                    assert owner[first.topic_partitions()[p]] == owner[second.topic_partitions()[p]]


@settings(max_examples=200, deadline=None)
@given(groups(), st.integers(0, 2**32))
def test_deterministic_and_independent_of_member_order(scenario: Scenario, seed: int) -> None:
    first = RANGE.assign(scenario)
    assert RANGE.assign(scenario) == first
    assert RANGE.assign(shuffled(scenario, seed)).partitions == first.partitions


def test_large_group_leaves_members_past_the_partition_count_idle() -> None:
    topics = tuple(f"topic-{i:03d}" for i in range(50))
    scenario, _ = parse_scenario(
        {
            "topics": [{"name": t, "partitions": 200} for t in topics],
            "members": [member(f"consumer-{i:04d}", list(topics)) for i in range(300)],
        }
    )
    assignment = RANGE.assign(scenario)
    check_every_partition_once_to_a_subscriber(scenario, assignment)
    counts = sorted(len(tps) for tps in assignment.partitions.values())
    # 200 partitions over 300 members: the first 200 members get partition i of every topic.
    assert counts == [0] * 100 + [50] * 200

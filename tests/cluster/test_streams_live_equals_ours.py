"""Live equals ours for a Kafka Streams group (KIP-1071): the broker's task assignment is
``streams-group-sticky``'s answer on the scenario the reader built.

A real Kafka Streams application (``tests/kafka_cluster/java/StreamsApp.java``,
``group.protocol=streams``) forms a group on Apache Kafka 4.4.0: instance ``s1`` with one stream
thread and ``s2`` with two (two members of one process), the group's own
``streams.num.standby.replicas`` set to 2 (the cluster's default is 1), subtopology 0 stateful
(4 tasks) and subtopology 1 stateless. Then an instance joins, one leaves and the stateless
subtopology's source topic grows (3 -> 5 partitions: two more tasks).

After each change the group coordinator computes a new target assignment with its
``StickyTaskAssignor`` from each member's process id, the active and standby tasks it runs at
that moment, the changelog offset sums it reported, the topology (tasks per subtopology,
stateful or not) and ``streams.num.standby.replicas``. The group was at rest before the change
(every member running its target), so what each member ran then is what the coordinator read.
The test waits until the group is at rest again, reads it with the reader
(``cluster.snapshot.read_group``: topology, members, offset sums, the group setting through
DescribeConfigs), sets each member's previous tasks and offset sums to what the reading before
the change said (none for the member that joined) and checks that ``streams-group-sticky``'s
answer is, member by member, the broker's target: active, standby and warm-up tasks (the 4.4.0
coordinator hands out no warm-ups, and neither do we).

Offset sums come from the reading before the change too: members report them as a rebalance
reaches them (on the test cluster the reading after a join shows sums the members sent only
after the new target was computed). Not visible to the reader, so not tested: sums a member
sent between the reading before the change and the computation (the test produces no records
and makes the change right after that reading), and the coordinator's member order for member
ids in one Java HashMap bucket (the scenario keeps the response's order).

The ``reader`` principal, which may not DESCRIBE_CONFIGS the group, gets the standby replicas
read off the target instead, and the description says why and how to grant it.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from types import MappingProxyType

import pytest

from assignors import StreamsScenario, registry, streams_scenario_to_json
from assignors.streams.group_sticky import StreamsGroupAssignment
from assignors.streams.model import TaskId
from cluster.connection import ConnectionSettings
from cluster.reader import ClusterReader
from cluster.snapshot import read_group
from cluster.streams_group import StreamsGroupDescription, StreamsTask
from tests.cluster.test_consumer_groups import grow
from tests.cluster.test_streams_groups import agreed, instance_of
from tests.kafka_broker import unique_name
from tests.kafka_cluster.cluster import KafkaCluster
from tests.kafka_cluster.java_streams import StreamsApplication

pytestmark = pytest.mark.broker

Tasks = tuple[frozenset[str], frozenset[str], frozenset[str]]


def _ids(tasks: tuple[StreamsTask, ...]) -> tuple[TaskId, ...]:
    return tuple(sorted(TaskId(int(sub), partition) for sub, partition in tasks))


def _texts(tasks: tuple[StreamsTask, ...]) -> frozenset[str]:
    return frozenset(f"{sub}_{partition}" for sub, partition in tasks)


def set_group_config(cluster: KafkaCluster, group_id: str, configs: dict[str, str]) -> None:
    """Set the group's own settings (IncrementalAlterConfigs, as the super user)."""
    from kafka.admin import ConfigResource, ConfigResourceType

    admin = cluster.admin()
    try:
        result = admin.alter_configs(
            [ConfigResource(ConfigResourceType.GROUP, group_id, configs)],
            raise_on_unknown=False,
            incremental=True,
        )
    finally:
        admin.close()
    assert result == {"group": {group_id: "OK"}}, result


def as_before(scenario: StreamsScenario, before: StreamsGroupDescription) -> StreamsScenario:
    """The scenario with each member's previous tasks and offset sums set to what the reading
    ``before`` (the group at rest before the change) said, none for a member not there then."""
    known = {task.id for task in scenario.tasks}
    was = {m.member_id: m for m in before.members}
    clients = []
    for client in scenario.clients:
        members = []
        for member in client.members:
            then = was.get(member.member_id)
            if then is None:
                members.append(dataclasses.replace(
                    member, prev_active=(), prev_standby=(), task_offsets=MappingProxyType({})
                ))  # fmt: skip
                continue
            offsets = {TaskId(int(s), p): o for (s, p), o in then.task_offsets.items()}
            members.append(dataclasses.replace(
                member,
                prev_active=_ids(then.assignment.active),
                prev_standby=_ids(then.assignment.standby),
                task_offsets=MappingProxyType({t: o for t, o in offsets.items() if t in known}),
            ))  # fmt: skip
        active = {t for m in members for t in m.prev_active}
        clients.append(
            dataclasses.replace(
                client,
                members=tuple(members),
                prev_active=tuple(sorted(active)),
                prev_standby=tuple(sorted({t for m in members for t in m.prev_standby} - active)),
            )
        )
    return dataclasses.replace(scenario, clients=tuple(clients))


def ours(scenario: StreamsScenario) -> dict[str, Tasks]:
    strategy = registry.task_strategies()["streams-group-sticky"]
    answer = strategy.compute(scenario)
    assert isinstance(answer, StreamsGroupAssignment)
    return {
        member_id: (frozenset(map(str, t.active)), frozenset(map(str, t.standby)), frozenset())
        for member_id, t in answer.members.items()
    }


def live(group: StreamsGroupDescription) -> dict[str, Tasks]:
    return {
        m.member_id: (
            _texts(m.target_assignment.active),
            _texts(m.target_assignment.standby),
            _texts(m.target_assignment.warmup),
        )
        for m in group.members
    }


def assert_live_equals_ours(scenario: StreamsScenario, after: StreamsGroupDescription) -> None:
    answer, target = ours(scenario), live(after)
    if answer != target:
        print("scenario:", json.dumps(streams_scenario_to_json(scenario)))
        print("ours:", sorted((k, [sorted(s) for s in v]) for k, v in answer.items()))
        print("live:", sorted((k, [sorted(s) for s in v]) for k, v in target.items()))
        print("Kafka's StickyTaskAssignor on the same scenario:", _oracle(scenario))
    assert answer == target


def _oracle(scenario: StreamsScenario) -> object:
    """Kafka's own assignor on ``scenario`` (tells a wrong reading from a wrong assignor)."""
    from tests.oracle import Oracle

    request = {"id": 1, "strategy": "streams-group-sticky"}
    try:
        with Oracle() as oracle:
            return oracle.answer({**request, "scenario": streams_scenario_to_json(scenario)})
    except Exception as error:  # a diagnostic only: the assertion that follows decides
        return f"(the oracle could not run: {error})"


def test_a_streams_groups_task_assignment_live_equals_streams_group_sticky(
    kafka_cluster: KafkaCluster, tmp_path: Path
) -> None:
    counted, piped = unique_name("counted"), unique_name("piped")
    kafka_cluster.create_topics(
        {counted: 4, piped: 3, f"{counted}-counts": 4, f"{piped}-upper": 3}, replication_factor=1
    )
    group_id = unique_name("streams-live")
    set_group_config(kafka_cluster, group_id, {"streams.num.standby.replicas": "2"})
    settings = ConnectionSettings(kafka_cluster.bootstrap, timeout_s=10.0)
    with (
        StreamsApplication(kafka_cluster, group_id, counted, piped, ["s1", "s2:2"],
                           tmp_path) as app,
        ClusterReader(settings) as reader,
    ):  # fmt: skip
        before = agreed(reader, group_id, app, 3)
        scenario, warnings = read_group(reader, group_id)
        assert warnings == () and isinstance(scenario, StreamsScenario)
        assert scenario.config.num_standby_replicas == 2  # the group's setting, not the default
        assert "is the group's streams.num.standby.replicas" in (scenario.description or "")
        threads = {instance_of(m.client_id): 0 for m in before.members}
        for m in before.members:
            threads[instance_of(m.client_id)] += 1
        assert threads == {"s1": 1, "s2": 2}
        assert sorted(c.capacity for c in scenario.clients) == [1, 2]
        assert {m.member_id for c in scenario.clients for m in c.members} == {
            m.member_id for m in before.members
        }
        # Two processes: each stateful task gets one standby, not two (no process holds two
        # replicas of a task), so reading the setting off the target would say 1.
        holders = _standby_holders(before)
        assert sorted(holders) == [("0", p) for p in range(4)]
        assert all(len(members) == 1 for members in holders.values())
        _the_reader_principal_falls_back_and_says_why(kafka_cluster, group_id)
        before = agreed(reader, group_id, app, 3)  # read again just before the first change

        steps: list[tuple[str, Callable[[], None], int]] = [
            ("an instance joins", lambda: app.start("s3"), 4),
            ("an instance leaves", lambda: app.stop("s1"), 3),
            ("a source topic grows", lambda: grow(kafka_cluster, piped, 5), 3),
        ]
        for name, change, members in steps:
            print("step:", name)
            change()
            after = agreed(reader, group_id, app, members, after_epoch=before.group_epoch)
            assert after.group_epoch == before.group_epoch + 1, (
                f"{name}: the group epoch went {before.group_epoch} -> {after.group_epoch}; the"
                " target was computed more than once, so its inputs are not the reading before"
            )
            scenario, _ = read_group(reader, group_id)
            assert isinstance(scenario, StreamsScenario)
            assert_live_equals_ours(as_before(scenario, before), after)
            before = after
        assert sorted(str(t.id) for t in scenario.tasks)[-5:] == [
            "1_0", "1_1", "1_2", "1_3", "1_4",
        ]  # fmt: skip


def _standby_holders(group: StreamsGroupDescription) -> dict[StreamsTask, list[str]]:
    holders: dict[StreamsTask, list[str]] = {}
    for m in group.members:
        for task in m.target_assignment.standby:
            holders.setdefault(task, []).append(m.member_id)
    return holders


def _the_reader_principal_falls_back_and_says_why(cluster: KafkaCluster, group_id: str) -> None:
    with ClusterReader(cluster.secure_settings("reader")) as reader:
        scenario, _ = read_group(reader, group_id)
    assert isinstance(scenario, StreamsScenario)
    assert scenario.config.num_standby_replicas == 1
    description = scenario.description or ""
    assert "read off the target assignment" in description
    assert "not allowed to DESCRIBECONFIGS group" in description
    assert "--operation DescribeConfigs --group" in description

"""A Streams group description -> the Streams scenario, without a broker (pure function).

The live path is tested in ``test_streams_groups.py``; here the rules of
:func:`cluster.streams_snapshot.streams_scenario_json` on groups a real application rarely shows
on demand: two members (stream threads) of one instance, a member still reconciling, changelog
offsets behind, and a subtopology without an integer id.
"""

from __future__ import annotations

import pytest

from assignors import LATEST_OFFSET, UNKNOWN_OFFSET, parse_streams_scenario
from cluster.errors import ClusterError
from cluster.streams_group import (
    StreamsGroupDescription,
    StreamsMemberDescription,
    StreamsTasks,
    Subtopology,
)
from cluster.streams_snapshot import StandbySetting, streams_scenario_json

PROCESS_A = "0b7e4c1e-1111-4a4a-9b9b-000000000001"
PROCESS_B = "0b7e4c1e-2222-4a4a-9b9b-000000000002"


def member(
    member_id: str,
    process_id: str,
    current: StreamsTasks,
    target: StreamsTasks | None = None,
    offsets: dict[tuple[str, int], tuple[int, int]] | None = None,
    epoch: int = 7,
) -> StreamsMemberDescription:
    offsets = offsets or {}
    return StreamsMemberDescription(
        member_id=member_id,
        member_epoch=epoch,
        process_id=process_id,
        instance_id=None,
        rack=None,
        client_id=f"{member_id}-consumer",
        host="/127.0.0.1",
        topology_epoch=0,
        client_tags={},
        task_offsets={task: offset for task, (offset, _) in offsets.items()},
        task_end_offsets={task: end for task, (_, end) in offsets.items()},
        assignment=current,
        target_assignment=current if target is None else target,
        is_classic=False,
    )


def group(
    *members: StreamsMemberDescription, sub_ids: tuple[str, str] = ("0", "1")
) -> StreamsGroupDescription:
    return StreamsGroupDescription(
        group_id="app",
        state="Stable",
        group_epoch=7,
        assignment_epoch=7,
        topology_epoch=0,
        subtopologies=(
            Subtopology(sub_ids[0], ("counted",), (), (), ("app-counts-changelog",)),
            Subtopology(sub_ids[1], ("piped",), (), (), ()),
        ),
        members=members,
    )


PARTITIONS = {"counted": 2, "piped": 1}


def test_threads_of_one_instance_are_one_client_with_their_capacity() -> None:
    described = group(
        member("a1", PROCESS_A, StreamsTasks(active=(("0", 0),), standby=(("0", 1),))),
        member("a2", PROCESS_A, StreamsTasks(active=(("1", 0),))),
        member("b1", PROCESS_B, StreamsTasks(active=(("0", 1),), standby=(("0", 0),)),
               offsets={("0", 0): (40, 100)}),
    )  # fmt: skip
    scenario = parse_streams_scenario(streams_scenario_json(described, PARTITIONS))
    assert [str(t.id) for t in scenario.tasks] == ["0_0", "0_1", "1_0"]
    assert [str(t) for t in scenario.stateful_tasks] == ["0_0", "0_1"]
    clients = {c.process_id: c for c in scenario.clients}
    a, b = clients[PROCESS_A], clients[PROCESS_B]
    assert (a.capacity, b.capacity) == (2, 1)
    assert [str(t) for t in a.prev_active] == ["0_0", "1_0"]
    assert [str(t) for t in a.prev_standby] == ["0_1"]
    # Active: caught up; behind by end - offset; no offsets reported: unknown.
    assert {str(t): lag for t, lag in b.task_lags.items()} == {"0_0": 60, "0_1": LATEST_OFFSET}
    assert {str(t): lag for t, lag in a.task_lags.items()} == {
        "0_0": LATEST_OFFSET, "0_1": UNKNOWN_OFFSET,
    }  # fmt: skip
    assert scenario.config.num_standby_replicas == 1
    assert "every member runs its target tasks" in (scenario.description or "")


def test_a_reconciling_member_keeps_what_it_runs_and_the_description_names_its_target() -> None:
    described = group(
        member("a1", PROCESS_A, StreamsTasks(active=(("0", 0), ("0", 1), ("1", 0)))),
        member("b1", PROCESS_B, StreamsTasks(), target=StreamsTasks(active=(("0", 1),)), epoch=6),
    )
    scenario = parse_streams_scenario(streams_scenario_json(described, PARTITIONS))
    clients = {c.process_id: c for c in scenario.clients}
    assert [str(t) for t in clients[PROCESS_B].prev_active] == []
    assert "1 member(s) still reconciling" in (scenario.description or "")
    assert "b1-consumer" in (scenario.description or "") and "active 0_1" in (
        scenario.description or ""
    )
    assert scenario.config.num_standby_replicas == 0
    # The reconciliation keeps the epochs and, for b1, its target beside what it runs now.
    reconciliation = scenario.reconciliation
    assert reconciliation is not None
    assert (reconciliation.group_epoch, reconciliation.assignment_epoch) == (7, 7)
    a1, b1 = reconciliation.members
    assert (a1.member_epoch, a1.pending, b1.member_epoch, b1.pending) == (7, False, 6, True)
    assert [str(t) for t in b1.current.active] == []
    assert [str(t) for t in b1.target.active] == ["0_1"]


def test_a_subtopology_without_an_integer_id_is_refused_with_a_message() -> None:
    described = group(member("a1", PROCESS_A, StreamsTasks()), sub_ids=("orders", "1"))
    with pytest.raises(ClusterError, match="subtopology 'orders' has no integer id"):
        streams_scenario_json(described, PARTITIONS)


def test_each_member_carries_what_the_coordinators_assignor_reads() -> None:
    """Clients in the order of their first member in the response, members in the response's
    order; each member's previous tasks are what it runs *now* (not its target), without its
    warm-ups, and its offset sums for the topology's tasks."""
    described = group(
        member("b1", PROCESS_B, StreamsTasks(active=(("0", 1),)),
               target=StreamsTasks(active=(("0", 0),)),
               offsets={("0", 0): (40, 100), ("0", 9): (5, 5)}),
        member("a2", PROCESS_A, StreamsTasks(active=(("1", 0),), warmup=(("0", 0),))),
        member("a1", PROCESS_A, StreamsTasks(active=(("0", 0),), standby=(("0", 1),))),
    )  # fmt: skip
    scenario = parse_streams_scenario(streams_scenario_json(described, PARTITIONS))
    assert [c.process_id for c in scenario.clients] == [PROCESS_B, PROCESS_A]
    a = scenario.clients[1]
    assert [m.member_id for m in a.members] == ["a2", "a1"] and a.capacity == 2
    by_id = {m.member_id: m for c in scenario.clients for m in c.members}
    assert [str(t) for t in by_id["b1"].prev_active] == ["0_1"]  # runs 0_1, target 0_0
    assert {str(t): o for t, o in by_id["b1"].task_offsets.items()} == {"0_0": 40}
    assert [str(t) for t in by_id["a2"].prev_standby] == []  # a warm-up is not a standby
    assert [str(t) for t in by_id["a1"].prev_standby] == ["0_1"]
    assert [str(t) for t in a.prev_active] == ["0_0", "1_0"]
    reconciliation = scenario.reconciliation
    assert reconciliation is not None
    a2 = next(e for e in reconciliation.members if e.member_id == "a2")
    assert [str(t) for t in a2.current.warmup] == ["0_0"]


def test_num_standby_replicas_is_the_group_setting_or_read_off_the_target_with_the_reason() -> None:
    described = group(
        member("a1", PROCESS_A, StreamsTasks(active=(("0", 0), ("1", 0)), standby=(("0", 1),))),
        member("b1", PROCESS_B, StreamsTasks(active=(("0", 1),), standby=(("0", 0),))),
    )
    read = parse_streams_scenario(streams_scenario_json(described, PARTITIONS, StandbySetting(2)))
    assert read.config.num_standby_replicas == 2
    assert "num_standby_replicas 2 is the group's streams.num.standby.replicas" in (
        read.description or ""
    )
    denied = StandbySetting(None, "User:reader is not allowed to DESCRIBECONFIGS group 'app'")
    fallback = parse_streams_scenario(streams_scenario_json(described, PARTITIONS, denied))
    assert fallback.config.num_standby_replicas == 1
    assert "read off the target assignment" in (fallback.description or "")
    assert "not allowed to DESCRIBECONFIGS" in (fallback.description or "")

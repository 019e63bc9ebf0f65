"""A live Kafka Streams group (KIP-1071) -> :class:`~assignors.StreamsScenario`.

Steps of :func:`snapshot_streams_group`:

1. Describe the group (StreamsGroupDescribe): topology, epochs, members with their tasks.
2. Read the partition counts of every source topic and repartition source topic (Metadata).
3. :func:`streams_scenario_json` builds the Streams scenario object, pure:

   - tasks: per subtopology (its id must be an integer, as in an ordinary topology), one task
     per partition of its widest source topic, ``stateful`` when it has changelog topics; tasks
     an assignment names beyond that are kept too.
   - clients: one per ``process_id`` (one Kafka Streams instance); its ``capacity`` is the number
     of members (stream threads) it has in the group; ``prev_active`` / ``prev_standby`` are
     what its members run *now* (warm-ups count as standby, as in the scenario format).
   - ``task_lags``: :data:`~assignors.LATEST_OFFSET` for a stateful task it runs as
     active; else the end offset minus the offset its members reported for the task's
     changelogs (``TaskEndOffsets`` - ``TaskOffsets``, at least 0); else
     :data:`~assignors.UNKNOWN_OFFSET`.
   - config: ``num_standby_replicas`` is the most standby holders of any task in the *target*
     assignment (the broker's ``streams.num.standby.replicas`` is a group config the response
     does not carry); the other settings are Kafka's defaults.
   - the description says the state, the epochs, how many members still reconcile, and each
     instance's target tasks where they differ from what it runs.
   - ``reconciliation``: the group epoch, the target assignment epoch and, per member, its
     epoch, its process, the tasks it runs now and (where they differ) its target tasks
     (:func:`streams_reconciliation_json`).

4. The object goes through :func:`assignors.parse_streams_scenario`, the loader every Streams
   file goes through.

Invariant: nothing here sends a request except through the reader, which only reads.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from assignors import LATEST_OFFSET, UNKNOWN_OFFSET, StreamsScenario, parse_streams_scenario
from cluster.errors import ClusterError, GroupNotFoundError
from cluster.reader import ClusterReader
from cluster.streams_group import (
    StreamsGroupDescription,
    StreamsMemberDescription,
    StreamsTask,
    StreamsTasks,
)


def _task_text(task: StreamsTask) -> str:
    subtopology, partition = task
    if not subtopology.isdigit():
        raise ClusterError(
            f"subtopology {subtopology!r} has no integer id (a named topology?): the Streams"
            " scenario numbers tasks <subtopology>_<partition>"
        )
    return f"{int(subtopology)}_{partition}"


def _order(task: str) -> tuple[int, int]:
    subtopology, partition = task.split("_")
    return int(subtopology), int(partition)


def _all_tasks(group: StreamsGroupDescription, partitions: Mapping[str, int]) -> dict[str, bool]:
    """Task text -> stateful, from the topology and from every assignment."""
    tasks: dict[str, bool] = {}
    stateful_subtopologies = set()
    for sub in group.subtopologies or ():
        counts = [partitions.get(topic, 0) for topic in sub.source_topics]
        counts += [n or partitions.get(name, 0) for name, n in sub.repartition_source_topics]
        if sub.stateful:
            stateful_subtopologies.add(sub.subtopology_id)
        for partition in range(max(counts, default=0)):
            tasks[_task_text((sub.subtopology_id, partition))] = sub.stateful
    for member in group.members:
        for tasks_of in (member.assignment, member.target_assignment):
            for task in (*tasks_of.active, *tasks_of.standby, *tasks_of.warmup):
                tasks.setdefault(_task_text(task), task[0] in stateful_subtopologies)
    return dict(sorted(tasks.items(), key=lambda item: _order(item[0])))


def _lag(task: str, active: set[str], members: list[StreamsMemberDescription]) -> int:
    if task in active:
        return LATEST_OFFSET
    for member in members:
        for key, offset in member.task_offsets.items():
            end = member.task_end_offsets.get(key)
            if _task_text(key) == task and end is not None:
                return max(end - offset, 0)
    return UNKNOWN_OFFSET


def _clients(group: StreamsGroupDescription, tasks: Mapping[str, bool]) -> list[dict[str, Any]]:
    by_process: dict[str, list[StreamsMemberDescription]] = {}
    for member in sorted(group.members, key=lambda m: (m.process_id, m.member_id)):
        by_process.setdefault(member.process_id, []).append(member)
    clients = []
    for process_id, members in by_process.items():
        active = {_task_text(t) for m in members for t in m.assignment.active}
        standby = {
            _task_text(t) for m in members for t in (*m.assignment.standby, *m.assignment.warmup)
        } - active
        clients.append(
            {
                "process_id": process_id.lower(),
                "capacity": len(members),
                "prev_active": sorted(active, key=_order),
                "prev_standby": sorted(standby, key=_order),
                "task_lags": {
                    task: _lag(task, active, members)
                    for task, stateful in tasks.items()
                    if stateful
                },
            }
        )
    return clients


def _standby_replicas(group: StreamsGroupDescription) -> int:
    holders: dict[StreamsTask, int] = {}
    for member in group.members:
        for task in (*member.target_assignment.standby, *member.target_assignment.warmup):
            holders[task] = holders.get(task, 0) + 1
    return max(holders.values(), default=0)


def _target_note(group: StreamsGroupDescription) -> str:
    pending = [m for m in group.members if m.member_id in set(group.reconciling)]
    if not pending:
        return "every member runs its target tasks."
    shown = "; ".join(
        f"{m.client_id} ({m.process_id[:8]}) -> active"
        f" {','.join(_task_text(t) for t in m.target_assignment.active) or '-'} standby"
        f" {','.join(_task_text(t) for t in m.target_assignment.standby) or '-'}"
        for m in pending
    )
    return (
        f"{len(pending)} member(s) still reconciling (prev_active/prev_standby are what they run"
        f" now; their targets: {shown})."
    )


def streams_scenario_json(
    group: StreamsGroupDescription, partitions: Mapping[str, int]
) -> dict[str, Any]:
    """Step 3 of the module docstring: the Streams scenario object of a described group."""
    tasks = _all_tasks(group, partitions)
    subtopologies = len(group.subtopologies or ())
    description = (
        f"Snapshot of Kafka Streams group {group.group_id} (KIP-1071, {group.state}, group"
        f" epoch {group.group_epoch}, target assignment epoch {group.assignment_epoch}, topology"
        f" epoch {group.topology_epoch if group.topology_epoch is not None else 'none'},"
        f" {subtopologies} subtopologies, {len(group.members)} members):"
        f" {_target_note(group)} num_standby_replicas is read off the target assignment."
    )
    return {
        "name": f"Streams group {group.group_id}",
        "description": description[:4096],
        "tasks": [{"id": task, "stateful": stateful} for task, stateful in tasks.items()],
        "clients": _clients(group, tasks),
        "config": {"num_standby_replicas": _standby_replicas(group)},
        "reconciliation": streams_reconciliation_json(group),
    }


def _tasks_json(tasks: StreamsTasks) -> dict[str, list[str]]:
    """Broker tasks as the scenario writes them (``standby`` includes the warm-ups)."""

    def texts(items: Iterable[StreamsTask]) -> list[str]:
        return sorted({_task_text(task) for task in items}, key=_order)

    return {
        "active": texts(tasks.active),
        "standby": texts((*tasks.standby, *tasks.warmup)),
        "warmup": texts(tasks.warmup),
    }


def streams_reconciliation_json(group: StreamsGroupDescription) -> dict[str, Any]:
    """The Streams scenario's ``reconciliation`` object (step 3 of the module docstring)."""
    members = []
    for member in group.members:
        item: dict[str, Any] = {
            "member_id": member.member_id,
            "process_id": member.process_id.lower(),
            "member_epoch": member.member_epoch,
            "current": _tasks_json(member.assignment),
        }
        target = _tasks_json(member.target_assignment)
        if target != item["current"]:
            item["target"] = target
        members.append(item)
    return {
        "group_epoch": group.group_epoch,
        "assignment_epoch": group.assignment_epoch,
        "members": members,
    }


def snapshot_streams_group(
    reader: ClusterReader, group_id: str
) -> tuple[StreamsScenario, tuple[str, ...]]:
    """Steps 1-4: the Streams scenario of a live Streams group, and the loader's warnings."""
    group = reader.describe_streams_group(group_id)
    if not group.members and group.subtopologies is None:
        raise GroupNotFoundError(group_id)
    wanted = {
        topic
        for sub in group.subtopologies or ()
        for topic in (*sub.source_topics, *(name for name, _ in sub.repartition_source_topics))
    }
    partitions = {name: meta.partitions for name, meta in reader.topics(wanted).items()}
    scenario = parse_streams_scenario(streams_scenario_json(group, partitions), path="")
    return scenario, scenario.warnings

"""A live Kafka Streams group (KIP-1071) -> :class:`~assignors.StreamsScenario`.

Steps of :func:`snapshot_streams_group`:

1. Describe the group (StreamsGroupDescribe): topology, epochs, members with their tasks and the
   changelog offset sums they reported.
2. Read the partition counts of every source topic and repartition source topic (Metadata), and
   the group's setting ``streams.num.standby.replicas`` (DescribeConfigs on the group; the
   broker answers the group's own value or the default it falls back to,
   ``group.streams.num.standby.replicas``).
3. :func:`streams_scenario_json` builds the Streams scenario object, pure:

   - tasks: per subtopology (its id must be an integer, as in an ordinary topology), one task
     per partition of its widest source topic, ``stateful`` when it has changelog topics; tasks
     an assignment names beyond that are kept too.
   - clients: one per ``process_id`` (one Kafka Streams instance), in the order the response
     lists their first member; its ``members`` are its group members (stream threads) in the
     response's order, so its ``capacity`` is their number. Each member carries what the group
     coordinator's assignor (``streams-group-sticky``) reads of it: ``prev_active`` and
     ``prev_standby``, the active and standby tasks it runs *now* (the coordinator computes a
     new target from each member's current tasks, not from its previous target), and
     ``task_offsets``, the changelog offset sums it reported (for tasks of the topology). The
     client's own previous tasks are the union of its members' (warm-ups are not among them:
     the assignor does not read them, and Kafka 4.4.0 hands out none; a member's warm-ups stay
     in ``reconciliation``).
   - ``task_lags``: :data:`~assignors.LATEST_OFFSET` for a stateful task it runs as
     active; else the end offset minus the offset its members reported for the task's
     changelogs (``TaskEndOffsets`` - ``TaskOffsets``, at least 0); else
     :data:`~assignors.UNKNOWN_OFFSET`.
   - config: ``num_standby_replicas`` is the group's ``streams.num.standby.replicas`` when step 2
     could read it (:class:`StandbySetting`); else the most standby holders of any task in the
     *target* assignment (a lower bound when instances are too few for every replica), and the
     description says why; the other settings are Kafka's defaults.
   - the description says the state, the epochs, how many members still reconcile, and each
     instance's target tasks where they differ from what it runs.
   - ``reconciliation``: the group epoch, the target assignment epoch and, per member, its
     epoch, its process, the tasks it runs now and (where they differ) its target tasks
     (:func:`streams_reconciliation_json`).

4. The brokers' release line (:meth:`ClusterReader.kafka_release`) becomes the scenario's
   ``kafka_version`` (the brokers run a Streams group's task assignor) and its sentence ends
   the description; then the object goes through :func:`assignors.parse_streams_scenario`, the
   loader every Streams file goes through.

What the reading cannot see (``streams-group-sticky`` on the scenario answers what the
coordinator would compute from the group *as read*): the inputs of the computation that made the
target shown. The coordinator computed it from each member's tasks at that moment; once members
reconcile they run the new target, so the scenario equals those inputs only until then (or, for
a group at rest, when the sticky assignor gives back what members run). Offset sums reported
after that computation, the assignor the group is configured with (``streams.assignor.name``;
the scenario assumes Kafka's default sticky one) and, for member ids in one Java ``HashMap``
bucket, the coordinator's own member order (the scenario keeps the response's) are not visible
either.

Invariant: nothing here sends a request except through the reader, which only reads.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from assignors import LATEST_OFFSET, UNKNOWN_OFFSET, StreamsScenario, parse_streams_scenario
from cluster.errors import ClusterError, GroupNotFoundError
from cluster.kafka_release import KafkaRelease
from cluster.reader import ClusterReader
from cluster.streams_group import (
    StreamsGroupDescription,
    StreamsMemberDescription,
    StreamsTask,
    StreamsTasks,
)

#: The group setting the coordinator's Streams assignor reads for its standby replicas.
STANDBY_REPLICAS_CONFIG = "streams.num.standby.replicas"


@dataclass(frozen=True, slots=True)
class StandbySetting:
    """The group's ``streams.num.standby.replicas`` as read (``value``), or why it is not."""

    value: int | None
    why_not: str = ""


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


def _member_json(member: StreamsMemberDescription, tasks: Mapping[str, bool]) -> dict[str, Any]:
    """What the coordinator's assignor reads of one member: current tasks and offset sums."""
    offsets = {_task_text(key): offset for key, offset in member.task_offsets.items()}
    return {
        "member_id": member.member_id,
        "prev_active": sorted({_task_text(t) for t in member.assignment.active}, key=_order),
        "prev_standby": sorted({_task_text(t) for t in member.assignment.standby}, key=_order),
        "task_offsets": {
            task: offsets[task] for task in sorted(offsets, key=_order) if task in tasks
        },
    }


def _clients(group: StreamsGroupDescription, tasks: Mapping[str, bool]) -> list[dict[str, Any]]:
    by_process: dict[str, list[StreamsMemberDescription]] = {}
    for member in group.members:  # the response's order: the group's member table's
        by_process.setdefault(member.process_id, []).append(member)
    clients = []
    for process_id, members in by_process.items():
        active = {_task_text(t) for m in members for t in m.assignment.active}
        clients.append(
            {
                "process_id": process_id.lower(),
                "capacity": len(members),
                "members": [_member_json(member, tasks) for member in members],
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


def _standby_config(
    group: StreamsGroupDescription, standby: StandbySetting | None
) -> tuple[int, str]:
    """``num_standby_replicas`` and where it comes from (a sentence of the description)."""
    if standby is not None and standby.value is not None:
        return standby.value, (
            f"num_standby_replicas {standby.value} is the group's {STANDBY_REPLICAS_CONFIG}."
        )
    why = f" ({standby.why_not})" if standby is not None and standby.why_not else ""
    replicas = _standby_replicas(group)
    return replicas, (
        f"num_standby_replicas {replicas} is read off the target assignment (the most standby"
        f" holders of a task): the group's {STANDBY_REPLICAS_CONFIG} was not read{why}."
    )


def streams_scenario_json(
    group: StreamsGroupDescription,
    partitions: Mapping[str, int],
    standby: StandbySetting | None = None,
) -> dict[str, Any]:
    """Step 3 of the module docstring: the Streams scenario object of a described group."""
    tasks = _all_tasks(group, partitions)
    subtopologies = len(group.subtopologies or ())
    replicas, replicas_note = _standby_config(group, standby)
    description = (
        f"Snapshot of Kafka Streams group {group.group_id} (KIP-1071, {group.state}, group"
        f" epoch {group.group_epoch}, target assignment epoch {group.assignment_epoch}, topology"
        f" epoch {group.topology_epoch if group.topology_epoch is not None else 'none'},"
        f" {subtopologies} subtopologies, {len(group.members)} members):"
        f" {_target_note(group)} {replicas_note}"
    )
    return {
        "name": f"Streams group {group.group_id}",
        "description": description[:4096],
        "tasks": [{"id": task, "stateful": stateful} for task, stateful in tasks.items()],
        "clients": _clients(group, tasks),
        "config": {"num_standby_replicas": replicas},
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


def read_standby_setting(reader: ClusterReader, group_id: str) -> StandbySetting:
    """The group's ``streams.num.standby.replicas`` (step 2), or why it could not be read."""
    try:
        configs = reader.group_configs(group_id, [STANDBY_REPLICAS_CONFIG])
    except ClusterError as error:  # NotAuthorizedError included: no DESCRIBE_CONFIGS ACL
        return StandbySetting(None, str(error))
    value = configs.get(STANDBY_REPLICAS_CONFIG)
    if value is None or not value.strip().isdigit():
        return StandbySetting(None, f"the broker does not report {STANDBY_REPLICAS_CONFIG}")
    return StandbySetting(int(value))


def snapshot_streams_group(
    reader: ClusterReader, group_id: str, release: KafkaRelease | None = None
) -> tuple[StreamsScenario, tuple[str, ...]]:
    """Steps 1-4: the Streams scenario of a live Streams group, and the loader's warnings. The
    brokers' release (``release``, read here when ``None``) becomes its ``kafka_version``: the
    brokers run a Streams group's task assignor."""
    group = reader.describe_streams_group(group_id)
    if not group.members and group.subtopologies is None:
        raise GroupNotFoundError(group_id)
    wanted = {
        topic
        for sub in group.subtopologies or ()
        for topic in (*sub.source_topics, *(name for name, _ in sub.repartition_source_topics))
    }
    partitions = {name: meta.partitions for name, meta in reader.topics(wanted).items()}
    standby = read_standby_setting(reader, group_id)
    raw = streams_scenario_json(group, partitions, standby)
    release = release if release is not None else reader.kafka_release()
    raw["description"] = f"{raw['description']} {release.sentence()}"[:4096]
    if release.kafka_version is not None:
        raw["kafka_version"] = release.kafka_version
    scenario = parse_streams_scenario(raw, path="")
    return scenario, scenario.warnings

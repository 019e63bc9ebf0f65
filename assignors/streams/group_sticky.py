"""The broker-side task assignor of Kafka Streams groups (KIP-1071), as Kafka 4.4.0 runs it.

With ``group.protocol=streams`` (Kafka 4.1 and later) the group coordinator, not a Streams
client, assigns the tasks: its ``StickyTaskAssignor`` (package
``org.apache.kafka.coordinator.group.streams.assignor``). The unit it assigns to is a *member*
(one stream thread); members of one *process* (a Streams instance, the scenario's client) share
a load. Inputs per member: its current target active and standby tasks and the offset sums it
reported per task; the topology gives each subtopology's partition count and whether it is
stateful; the group config gives ``num.standby.replicas``.

Definitions. A task is ``(subtopology id, partition)``; subtopology ids are *strings* (``"10"``
sorts before ``"2"``). A process's *load* is its tasks (active + standby) divided by its number
of members. A member's *count* is its tasks so far. Two quotas, each ``ceil(tasks / members)``,
start over all members: the *active quota* (active tasks) and the *total quota* (active tasks
plus, for stateful subtopologies, ``num.standby.replicas`` standbys each). Whenever a member's
count, right after it gets a task, equals a quota exactly, that member and its count leave that
quota's sums and the quota is recomputed (this is what lets the quota shrink as members fill).
*Member order* is the ``HashMap`` order of member ids; *process order* is the order of a
``HashMap`` sized for the members, filled with ``computeIfAbsent`` in member order. A process
queue is a Java ``PriorityQueue`` by load alone (equal loads come out in heap order); inside a
process, a member queue is one by count alone, built from the member map when first needed and
dropped whenever a task goes to a named member of the process.

Steps:

1. Previous owners. *Active owner* of a task: the last member in member order listing it as
   active. *Standby candidates* of a task: the members listing it as standby, then those that
   reported an offset sum for it without it being their standby, in member order; then sorted
   (stably) standbys first, then by offset sum, highest first (a standby without an offset sum
   counts 0).
2. Actives, sticky: all tasks ordered by (partition, subtopology); each goes back to its active
   owner while the owner's count is under the active quota. Then each remaining task (same order)
   goes to the *least loaded candidate*: walking its standby candidates, the first one, replaced
   by a later one only when both its process load and its own count are strictly lower; if under
   the active quota.
3. Actives, the rest, ordered by (subtopology, partition): each to the least-loaded member of the
   least-loaded process (both from their queues; the process goes back into its queue).
4. Standbys (only when ``num.standby.replicas > 0``): stateful tasks ordered by (partition,
   subtopology), highest first. For each, up to ``num.standby.replicas`` times: to its active
   owner when that owner's process does not hold the task yet and the owner is under the total
   quota; else to the least loaded candidate among its standby candidates whose process does not
   hold the task, when under the total quota; else the remaining replicas wait for step 5.
5. Waiting standbys, ordered by (subtopology, partition), highest first, one replica at a time:
   poll processes from a fresh process queue until one does not hold the task, give it to that
   process's least-loaded member, and put the polled processes back (the last polled first). A
   replica with no such process is dropped (Kafka logs that capacity is short), as are that
   task's remaining replicas.

Invariants: every task is active on exactly one member; no process holds two replicas (active
or standby) of one task; at most ``num.standby.replicas`` standbys per stateful task, none for
stateless ones; the answer lists every member. Kafka 4.1 to 4.3 rank standby candidates by
previous standbys only (reported offsets are not read) and pick the least loaded candidate
slightly differently; this module follows 4.4.0, which the oracle checks.

Scenario: the Streams scenario (:mod:`.model`). A client is a process; its ``members`` (one per
thread) carry the previous tasks and offset sums. A client without ``members`` stands for
``capacity`` members ``<process_id>-StreamThread-<n>`` (n from 1) over which its previous active
tasks, then its previous standbys, are dealt in task order, and which report no offsets. Each
subtopology's tasks must be partitions ``0..n-1`` with one ``stateful`` flag (Kafka describes a
subtopology by its partition count and whether it has state).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter
from types import MappingProxyType
from typing import Any

from assignors.errors import ScenarioError
from assignors.java_order import JavaHashMapOrder, JavaKeyedPriorityQueue, string_hash
from assignors.strategy import TaskStrategy
from assignors.streams.model import (
    StreamsClient,
    StreamsMember,
    StreamsScenario,
    StreamsTask,
    TaskId,
    parse_streams_scenario,
)

#: A task as Kafka's coordinator sees it: (subtopology id as text, partition).
_Task = tuple[str, int]


@dataclass(frozen=True, slots=True)
class MemberTasks:
    """What one member of a Streams group runs (task lists in task order)."""

    process_id: str
    active: tuple[TaskId, ...] = ()
    standby: tuple[TaskId, ...] = ()


@dataclass(frozen=True, slots=True)
class StreamsGroupAssignment:
    """The broker's target assignment: per member id (every member of the scenario)."""

    members: Mapping[str, MemberTasks]
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class _Member:
    member_id: str
    process_id: str


class _Process:
    """Kafka's ``ProcessState``: one Streams instance's members and what they hold."""

    __slots__ = ("active", "counts", "member_order", "queue", "standby", "task_count", "tasks")

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.member_order: JavaHashMapOrder[str] = JavaHashMapOrder(string_hash)
        self.task_count = 0
        self.tasks: set[_Task] = set()
        self.active: dict[str, set[_Task]] = {}
        self.standby: dict[str, set[_Task]] = {}
        self.queue: JavaKeyedPriorityQueue[list[Any]] | None = None

    def add_member(self, member_id: str) -> None:
        self.counts[member_id] = 0
        self.member_order.put(member_id)

    def load(self) -> float:
        return self.task_count / len(self.counts)

    def add_task(self, member_id: str, task: _Task, active: bool) -> int:
        """To a named member; drops the member queue. The member's new count."""
        self.queue = None
        return self._add(member_id, task, active)

    def add_to_least_loaded(self, task: _Task, active: bool) -> int:
        """To the member at the head of the member queue. The member's new count."""
        if len(self.counts) == 1:
            return self._add(next(iter(self.counts)), task, active)
        if self.queue is None:
            self.queue = JavaKeyedPriorityQueue(key=itemgetter(1))
            for member_id in self.member_order:
                self.queue.offer([member_id, self.counts[member_id]])
        entry = self.queue.poll()
        assert entry is not None  # a process has at least one member
        entry[1] = self._add(entry[0], task, active)
        self.queue.offer(entry)
        return int(entry[1])

    def _add(self, member_id: str, task: _Task, active: bool) -> int:
        self.task_count += 1
        self.tasks.add(task)
        (self.active if active else self.standby).setdefault(member_id, set()).add(task)
        self.counts[member_id] += 1
        return self.counts[member_id]


def _tasks_per_member(tasks: int, members: int) -> int:
    """``ceil(tasks / members)`` with Java's ``int`` division (0 without members)."""
    if members == 0:
        return 0
    quotient = abs(tasks) // abs(members)
    if (tasks < 0) != (members < 0):
        quotient = -quotient
    return quotient + 1 if tasks - quotient * members > 0 else quotient


class _Quota:
    """One of the two quotas: ``per_member`` shrinks as members reach it exactly."""

    __slots__ = ("members", "per_member", "tasks")

    def __init__(self, tasks: int, members: int) -> None:
        self.tasks = tasks
        self.members = members
        self.per_member = _tasks_per_member(tasks, members)

    def reached(self, count: int) -> None:
        if count == self.per_member:
            self.members -= 1
            self.tasks -= count
            self.per_member = _tasks_per_member(self.tasks, self.members)


class _Assignor:
    """One run of the algorithm of the module docstring over (members, topology, standbys)."""

    def __init__(
        self,
        members: Sequence[tuple[_Member, StreamsMember]],
        partitions: Mapping[str, int],
        stateful: Mapping[str, bool],
        standby_replicas: int,
        task_ids: Mapping[str, Sequence[TaskId]],
    ) -> None:
        self.partitions = partitions
        self.task_ids = task_ids  # the answer's task ids: per subtopology, by partition
        self.stateful = stateful
        self.standby_replicas = standby_replicas
        member_order: JavaHashMapOrder[str] = JavaHashMapOrder(string_hash)
        by_id = {member.member_id: (member, spec) for member, spec in members}
        member_order.put_all(by_id)
        self.member_ids = list(member_order)
        self.process_of = {member.member_id: member.process_id for member, _ in members}
        total_active = sum(partitions.values())
        total = total_active + sum(
            n * standby_replicas for sub, n in partitions.items() if stateful[sub]
        )
        self.active_quota = _Quota(total_active, len(self.member_ids))
        self.total_quota = _Quota(total, len(self.member_ids))
        process_order: JavaHashMapOrder[str] = JavaHashMapOrder(string_hash, len(self.member_ids))
        self.processes: dict[str, _Process] = {}
        self.active_owner: dict[_Task, _Member] = {}
        candidates: dict[_Task, list[tuple[_Member, bool, int]]] = {}
        for member_id in self.member_ids:
            member, spec = by_id[member_id]
            process_order.put_first(member.process_id)
            self.processes.setdefault(member.process_id, _Process()).add_member(member_id)
            for task in spec.prev_active:
                self.active_owner[(str(task.subtopology), task.partition)] = member
            standby = set(spec.prev_standby)
            for task in spec.prev_standby:
                offset = spec.task_offsets.get(task, 0)
                candidates.setdefault(_key(task), []).append((member, True, offset))
            for task, offset in spec.task_offsets.items():
                if task not in standby:
                    candidates.setdefault(_key(task), []).append((member, False, offset))
        self.process_order = [self.processes[p] for p in process_order]
        self.standby_candidates = {
            task: [c[0] for c in sorted(found, key=lambda c: (not c[1], -c[2]))]
            for task, found in candidates.items()
        }

    def run(self) -> dict[str, MemberTasks]:
        self._assign_active()
        if self.standby_replicas > 0:
            self._assign_standby()
        return self._answer()

    def _process(self, member: _Member) -> _Process:
        return self.processes[member.process_id]

    def _gave(self, count: int, active: bool) -> None:
        if active:
            self.active_quota.reached(count)
        self.total_quota.reached(count)

    def _least_loaded_candidate(
        self, members: Sequence[_Member] | None, standby_task: _Task | None
    ) -> _Member | None:
        """Kafka's ``findPrevMemberWithLeastLoad`` (4.4.0)."""
        candidate: _Member | None = None
        best_process = best_member = 0.0
        for member in members or ():
            process = self._process(member)
            if standby_task is not None and standby_task in process.tasks:
                continue
            process_load = process.load()
            member_load = float(process.counts[member.member_id])
            if candidate is not None and not (
                process_load < best_process and member_load < best_member
            ):
                continue
            candidate, best_process, best_member = member, process_load, member_load
        return candidate

    def _assign_active(self) -> None:
        tasks = sorted(
            ((sub, p) for sub, n in self.partitions.items() for p in range(n)),
            key=itemgetter(1, 0),  # by (partition, subtopology)
        )
        # A task without an owner (or without candidates) skips the sticky attempt at once.
        owners, candidates = self.active_owner, self.standby_candidates
        remaining = [t for t in tasks if t not in owners or not self._give_sticky(owners[t], t)]
        rest = [
            t
            for t in remaining
            if t not in candidates
            or not self._give_sticky(self._least_loaded_candidate(candidates[t], None), t)
        ]
        # A process's load changes only while it is out of the queue (polled, then offered).
        queue: JavaKeyedPriorityQueue[_Process] = JavaKeyedPriorityQueue(key=_Process.load)
        for process in self.process_order:
            queue.offer(process)
        for task in sorted(rest):
            least_loaded = queue.poll()
            assert least_loaded is not None  # the scenario has at least one client
            self._gave(least_loaded.add_to_least_loaded(task, True), active=True)
            queue.offer(least_loaded)

    def _give_sticky(self, owner: _Member | None, task: _Task) -> bool:
        if owner is None:
            return False
        process = self._process(owner)
        if process.counts[owner.member_id] >= self.active_quota.per_member:
            return False
        self._gave(process.add_task(owner.member_id, task, True), active=True)
        return True

    def _assign_standby(self) -> None:
        stateful = [
            (sub, p) for sub, n in self.partitions.items() if self.stateful[sub] for p in range(n)
        ]
        waiting: list[tuple[_Task, int]] = []
        for task in sorted(stateful, key=lambda task: (task[1], task[0]), reverse=True):
            for replica in range(self.standby_replicas):
                if not self._give_standby_sticky(task):
                    waiting.append((task, self.standby_replicas - replica))
                    break
        # A process's load changes only while it is out of the queue (polled, then offered).
        queue: JavaKeyedPriorityQueue[_Process] = JavaKeyedPriorityQueue(key=_Process.load)
        for process in self.process_order:
            queue.offer(process)
        for task, replicas in sorted(waiting, reverse=True):
            for _ in range(replicas):
                if not self._give_standby_least_loaded(queue, task):
                    break  # Kafka logs that there is not enough capacity for the standbys

    def _give_standby_sticky(self, task: _Task) -> bool:
        owner = self.active_owner.get(task)
        if owner is not None:
            process = self._process(owner)
            if task not in process.tasks and self._under_total_quota(process, owner):
                self._gave(process.add_task(owner.member_id, task, False), active=False)
                return True
        candidate = self._least_loaded_candidate(self.standby_candidates.get(task), task)
        if candidate is not None:
            process = self._process(candidate)
            if self._under_total_quota(process, candidate):
                self._gave(process.add_task(candidate.member_id, task, False), active=False)
                return True
        return False

    def _under_total_quota(self, process: _Process, member: _Member) -> bool:
        return process.counts[member.member_id] < self.total_quota.per_member

    def _give_standby_least_loaded(
        self, queue: JavaKeyedPriorityQueue[_Process], task: _Task
    ) -> bool:
        """Kafka's recursive ``assignStandbyToMemberWithLeastLoad``, as a loop."""
        polled: list[_Process] = []
        found = False
        while (head := queue.poll()) is not None:
            polled.append(head)
            if task not in head.tasks:
                self._gave(head.add_to_least_loaded(task, False), active=False)
                found = True
                break
            if not len(queue):
                break
        for process in reversed(polled):
            queue.offer(process)
        return found

    def _answer(self) -> dict[str, MemberTasks]:
        answer = {}
        for member_id in self.member_ids:
            process_id = self.process_of[member_id]
            process = self.processes[process_id]
            answer[member_id] = MemberTasks(
                process_id,
                _task_ids(process.active.get(member_id, ()), self.task_ids),
                _task_ids(process.standby.get(member_id, ()), self.task_ids),
            )
        return answer


def _key(task: TaskId) -> _Task:
    return (str(task.subtopology), task.partition)


def _task_ids(tasks: Iterable[_Task], ids: Mapping[str, Sequence[TaskId]]) -> tuple[TaskId, ...]:
    """The tasks as the scenario's own task ids (``ids``: per subtopology, by partition)."""
    return tuple(sorted(ids[sub][partition] for sub, partition in tasks))


def _ids_by_subtopology(scenario: StreamsScenario) -> dict[str, list[TaskId]]:
    """Each subtopology's task ids by partition (:func:`_topology` checked they are 0..n-1)."""
    ids: dict[str, list[TaskId]] = {}
    for number, run in groupby(scenario.tasks, key=_subtopology_of):
        ids.setdefault(str(number), []).extend(task.id for task in run)
    return {sub: sorted(listed) for sub, listed in ids.items()}  # sorted already, as parsed


def _subtopology_of(task: StreamsTask) -> int:
    return task.id.subtopology


def group_members(client: StreamsClient) -> tuple[StreamsMember, ...]:
    """The client's members; for a client without any, the ``capacity`` members it stands for."""
    if client.members:
        return client.members
    threads = range(client.capacity)
    active: list[list[TaskId]] = [[] for _ in threads]
    standby: list[list[TaskId]] = [[] for _ in threads]
    for index, task in enumerate(client.prev_active):
        active[index % client.capacity].append(task)
    for index, task in enumerate(client.prev_standby):
        standby[index % client.capacity].append(task)
    return tuple(
        StreamsMember(
            f"{client.process_id}-StreamThread-{n + 1}",
            tuple(active[n]),
            tuple(standby[n]),
            MappingProxyType({}),
        )
        for n in threads
    )


def _topology(scenario: StreamsScenario) -> tuple[dict[str, int], dict[str, bool]]:
    """Partition count and statefulness per subtopology; ScenarioError if tasks do not fit."""
    partitions: dict[str, list[int]] = {}
    stateful: dict[str, set[bool]] = {}
    for number, run in groupby(scenario.tasks, key=_subtopology_of):
        tasks = list(run)
        sub = str(number)
        partitions.setdefault(sub, []).extend(task.id.partition for task in tasks)
        stateful.setdefault(sub, set()).update(task.stateful for task in tasks)
    problems = []
    for sub, numbers in partitions.items():
        if sorted(numbers) != list(range(len(numbers))):
            problems.append(
                f"scenario.tasks: subtopology {sub} has partitions {sorted(numbers)[:10]}; "
                "a Streams group's subtopology runs one task per partition 0..n-1"
            )
        if len(stateful[sub]) > 1:
            problems.append(
                f"scenario.tasks: subtopology {sub} mixes stateful and stateless tasks; "
                "statefulness belongs to a subtopology (all its tasks or none)"
            )
    if problems:
        raise ScenarioError(problems)
    return {sub: len(n) for sub, n in partitions.items()}, {
        sub: flags.pop() for sub, flags in stateful.items()
    }


def assign_streams_group_sticky(scenario: StreamsScenario) -> StreamsGroupAssignment:
    """Run the Streams-group sticky assignor (see the module docstring) on a parsed scenario.

    Raises :class:`ScenarioError` when the tasks do not describe subtopologies (see the module
    docstring). The answer lists every member, clients in scenario order, members in theirs.
    """
    partitions, stateful = _topology(scenario)
    members = [
        (_Member(member.member_id, client.process_id), member)
        for client in scenario.clients
        for member in group_members(client)
    ]
    replicas, ids = scenario.config.num_standby_replicas, _ids_by_subtopology(scenario)
    assigned = _Assignor(members, partitions, stateful, replicas, ids).run()
    return StreamsGroupAssignment(
        {member.member_id: assigned[member.member_id] for member, _ in members},
        scenario.warnings,
    )


def streams_group_assignment_to_json(answer: StreamsGroupAssignment) -> dict[str, Any]:
    """``{"members": {member_id: {"process_id", "active", "standby"}}, "clients": ...}``.

    ``clients`` sums the members per process in the shape of ``streams-ha``'s answer (no
    warm-ups: the broker-side assignor hands out none); ``warnings`` only when there are some.
    """
    clients: dict[str, tuple[list[TaskId], list[TaskId]]] = {}
    for tasks in answer.members.values():
        active, standby = clients.setdefault(tasks.process_id, ([], []))
        active += tasks.active
        standby += tasks.standby
    result: dict[str, Any] = {
        "members": {
            member_id: {
                "process_id": tasks.process_id,
                "active": [str(task) for task in tasks.active],
                "standby": [str(task) for task in tasks.standby],
            }
            for member_id, tasks in answer.members.items()
        },
        "clients": {
            process_id: {
                "active": [str(task) for task in sorted(active)],
                "standby": [str(task) for task in sorted(standby)],
                "warmup": [],
            }
            for process_id, (active, standby) in clients.items()
        },
    }
    if answer.warnings:
        result["warnings"] = list(answer.warnings)
    return result


STRATEGY = TaskStrategy(
    name="streams-group-sticky",
    summary=(
        "The group coordinator's task assignor for Kafka Streams groups (KIP-1071, "
        "group.protocol=streams): each member keeps its previous active tasks up to an even "
        "share, then standbys go back to previous owners, the rest to the least-loaded "
        "instance."
    ),
    when_to_use=(
        "Kafka Streams 4.1+ applications on the streams rebalance protocol: the broker assigns, "
        "so this is the assignment such a group gets; compare it with streams-ha (the classic "
        "protocol's client-side assignor, which uses lags and warm-ups instead)."
    ),
    consumer_config=(
        "Kafka Streams: group.protocol=streams (Kafka 4.1+); standbys: the group config "
        "streams.num.standby.replicas (broker default group.streams.num.standby.replicas=0)"
    ),
    protocol="consumer",
    parse=parse_streams_scenario,
    compute=assign_streams_group_sticky,
    to_json=streams_group_assignment_to_json,
)

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

Less work, same answers (Kafka 4.4.0 does every step task by task): tasks are numbers (in task
order), so sets, sorts and lookups run on integers. Step 2: when every member owns fewer tasks than
the active quota, no count can reach a quota, so each owner gets all its tasks back at once. Step
3: only the loads decide the process queue, so its polls are worked out first; whenever all
queued loads are equal and all processes have as many members, each process is polled once per
round in an order the heap's layout alone decides, so one round replayed on numbers gives every
later round (:meth:`~assignors.java_order.JavaKeyedPriorityQueue.poll_rounds`). The tasks are
then handed out in bulk; the total quota is replayed task by task only when some member's count
passes its ``per_member`` (the active quota is not read after step 2).

Invariants: every task is active on exactly one member; no process holds two replicas (active
or standby) of one task; at most ``num.standby.replicas`` standbys per stateful task, none for
stateless ones; the answer lists every member.

Kafka 4.2 and 4.3 (``kafka_version``; :class:`LineRules`), each checked against its own
classes: step 1 reads no offset sums, so a task's standby candidates are only the members listing
it as standby, in member order; processes join their map with ``putIfAbsent`` (a new one at the
end of its bucket), which changes process order. 4.3 also picks the least loaded candidate its
own way: the first candidate starts as the pick even when its process holds the task, a later
one replaces it only from a process without the task and with both loads strictly lower, and
there is no pick when the first candidate's process holds the task. Kafka 4.1 ran an earlier
algorithm whose ties fall to Java identity hash codes (its ``Member`` class has no
``hashCode``), so the same group gets different answers in one broker: refused.

Scenario: the Streams scenario (:mod:`.model`). A client is a process; its ``members`` (one per
thread) carry the previous tasks and offset sums. A client without ``members`` stands for
``capacity`` members ``<process_id>-StreamThread-<n>`` (n from 1) over which its previous active
tasks, then its previous standbys, are dealt in task order, and which report no offsets. Each
subtopology's tasks must be partitions ``0..n-1`` with one ``stateful`` flag (Kafka describes a
subtopology by its partition count and whether it has state).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from itertools import compress, filterfalse, repeat
from operator import add, attrgetter, gt, itemgetter, lt
from types import MappingProxyType
from typing import Any

from assignors.errors import ScenarioError
from assignors.gc_pause import paused_gc
from assignors.java_order import (
    JavaHashMapOrder,
    JavaKeyedPriorityQueue,
    hash_order,
    string_hash,
)
from assignors.kafka_versions import KafkaLines, at_least, release_line
from assignors.strategy import TaskStrategy
from assignors.streams.model import (
    StreamsClient,
    StreamsMember,
    StreamsScenario,
    TaskId,
    parse_streams_scenario,
)


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
class _Topology:
    """The tasks as numbers: task ``i`` is ``ids[i]`` (the scenario's tasks, in task order).

    ``by_subtopology`` and ``by_partition`` are the numbers in Kafka's two orders of its
    ``TaskId(String subtopology, int partition)``: by (subtopology id as text, partition) and by
    (partition, subtopology id as text).
    """

    ids: tuple[TaskId, ...]
    stateful: Sequence[bool]
    by_subtopology: Sequence[int]
    by_partition: Sequence[int]
    first: Mapping[int, int]  # per subtopology (its number): the number of its partition 0
    size: Mapping[int, int]  # per subtopology: its partition count

    def number(self, task: TaskId) -> int | None:
        """The task's number; None when the topology does not have the task."""
        size = self.size.get(task.subtopology, 0)
        return self.first[task.subtopology] + task.partition if 0 <= task.partition < size else None

    def numbers(self, tasks: Sequence[TaskId]) -> list[int]:
        """The numbers of those of ``tasks`` the topology has, in their order (all at once when
        the topology has them all)."""
        if not tasks:
            return []
        subtopologies, partitions = zip(*tasks, strict=True)
        if (
            all(map(self.size.__contains__, subtopologies))
            and min(partitions) >= 0
            and all(map(lt, partitions, map(self.size.__getitem__, subtopologies)))
        ):
            return list(map(add, map(self.first.__getitem__, subtopologies), partitions))
        return [number for number in map(self.number, tasks) if number is not None]

    @property
    def standby_tasks(self) -> int:
        """How many tasks may have standbys (those of stateful subtopologies)."""
        return sum(self.stateful)


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

    def reached(self, count: int) -> int:
        """A member's count right after it got a task; the quota's ``per_member`` afterwards."""
        if count == self.per_member:
            self.members -= 1
            self.tasks -= count
            self.per_member = _tasks_per_member(self.tasks, self.members)
        return self.per_member


@dataclass(frozen=True, slots=True)
class LineRules:
    """What a release line's ``StickyTaskAssignor`` does differently (the module docstring's
    "Kafka 4.2 and 4.3"): ``processes_at_head``, processes join their map with
    ``computeIfAbsent`` (4.4) rather than ``putIfAbsent``; ``offsets_rank``, reported offset
    sums make and rank standby candidates (4.4); ``first_candidate_stays``, 4.3's
    ``findPrevMemberWithLeastLoad``."""

    processes_at_head: bool
    offsets_rank: bool
    first_candidate_stays: bool


KAFKA_44 = LineRules(processes_at_head=True, offsets_rank=True, first_candidate_stays=False)
#: The earlier lines answered for, by line.
_EARLIER = {
    "4.2": LineRules(processes_at_head=False, offsets_rank=False, first_candidate_stays=False),
    "4.3": LineRules(processes_at_head=False, offsets_rank=False, first_candidate_stays=True),
}


class _Run:
    """One run of the algorithm of the module docstring, over numbers.

    Members are numbered in member order, processes in process order, tasks as in
    :class:`_Topology`. Per member: its count and its active and standby tasks; per process: its
    members (in the order they joined), its task count (its load is that over its members), the
    tasks it holds (only stateful ones are asked for, and step 3 records only those) and its
    member queue (built when first needed, dropped by a named member's task). A process of one
    member (``single``) needs no member queue.
    """

    def __init__(
        self,
        members: Sequence[tuple[str, str, StreamsMember]],
        topology: _Topology,
        replicas: int,
        line: LineRules = KAFKA_44,
    ) -> None:
        self.topology = topology
        self.replicas = replicas
        self.line = line
        specs = {member_id: (process_id, spec) for member_id, process_id, spec in members}
        member_order: JavaHashMapOrder[str] = JavaHashMapOrder(string_hash)
        member_order.put_all(specs)
        self.member_ids = list(member_order)
        total = len(self.member_ids)
        process_order: JavaHashMapOrder[str] = JavaHashMapOrder(string_hash, total)
        add_process = process_order.put_first if line.processes_at_head else process_order.put
        for member_id in self.member_ids:
            add_process(specs[member_id][0])
        self.process_ids = list(process_order)
        number = {process_id: p for p, process_id in enumerate(self.process_ids)}
        self.process_of = [number[specs[member_id][0]] for member_id in self.member_ids]
        self.members_of: list[list[int]] = [[] for _ in self.process_ids]
        for m, p in enumerate(self.process_of):
            self.members_of[p].append(m)
        self.capacity = [len(listed) for listed in self.members_of]
        self.single = [listed[0] if len(listed) == 1 else -1 for listed in self.members_of]
        self.task_count = [0] * len(self.process_ids)
        self.holds: list[set[int]] = [set() for _ in self.process_ids]
        self.member_queue: list[JavaKeyedPriorityQueue[list[int]] | None] = [None] * len(
            self.process_ids
        )
        self.count = [0] * total
        self.active: list[list[int]] = [[] for _ in range(total)]
        self.standby: list[list[int]] = [[] for _ in range(total)]
        tasks = len(topology.ids)
        self.active_quota = _Quota(tasks, total)
        self.total_quota = _Quota(tasks + replicas * topology.standby_tasks, total)
        self.active_owner, self.owned, self.candidates = _previous_owners(
            [specs[member_id][1] for member_id in self.member_ids], topology, line.offsets_rank
        )

    def load(self, process: int) -> float:
        return self.task_count[process] / self.capacity[process]

    def give(self, member: int, task: int, active: bool) -> None:
        """To a named member (drops its process's member queue)."""
        self.member_queue[self.process_of[member]] = None
        self._record(member, task, active)

    def give_least_loaded(self, process: int, task: int, active: bool) -> None:
        """To the head of the process's member queue."""
        self._record(self.least_loaded_member(process), task, active)

    def _record(self, member: int, task: int, active: bool) -> None:
        process = self.process_of[member]
        self.task_count[process] += 1
        self.holds[process].add(task)
        (self.active if active else self.standby)[member].append(task)
        count = self.count[member] + 1
        self.count[member] = count
        if active:
            self.active_quota.reached(count)
        self.total_quota.reached(count)

    def least_loaded_member(self, process: int) -> int:
        """The head of the process's member queue, whose count is about to grow by one."""
        member = self.single[process]
        if member >= 0:
            return member
        queue = self.member_queue[process]
        if queue is None:
            queue = JavaKeyedPriorityQueue(key=itemgetter(1))
            listed = self.members_of[process]
            ids = {self.member_ids[m]: m for m in listed}
            for member_id in hash_order(list(ids), string_hash):
                queue.offer([ids[member_id], self.count[ids[member_id]]])
            self.member_queue[process] = queue
        entry = queue.poll()
        assert entry is not None  # a process has at least one member
        entry[1] += 1
        queue.offer(entry)
        return entry[0]

    def least_loaded_candidate(self, members: Sequence[int], standby_task: int) -> int:
        """Kafka's ``findPrevMemberWithLeastLoad`` (4.4.0); -1 for none.

        ``standby_task`` -1: for an active task; else candidates whose process holds it are
        skipped.
        """
        if self.line.first_candidate_stays:
            return self._least_loaded_candidate_43(members, standby_task)
        candidate = -1
        best_process = best_member = 0.0
        for member in members:
            process = self.process_of[member]
            if standby_task >= 0 and standby_task in self.holds[process]:
                continue
            process_load = self.task_count[process] / self.capacity[process]
            member_load = float(self.count[member])
            if candidate >= 0 and not (process_load < best_process and member_load < best_member):
                continue
            candidate, best_process, best_member = member, process_load, member_load
        return candidate

    def _least_loaded_candidate_43(self, members: Sequence[int], standby_task: int) -> int:
        """Kafka 4.3's ``findPrevMemberWithLeastLoad``: the first candidate starts as the pick
        even when its process holds the task; a later one replaces the pick when its process
        does not hold it and both loads are strictly lower; and the answer is none (-1) whenever
        the *first* candidate's process holds the task (4.3 checks it, not the pick's)."""
        if not members:
            return -1
        candidate = members[0]
        first_process = self.process_of[candidate]
        best_process = self.load(first_process)
        best_member = float(self.count[candidate])
        for member in members[1:]:
            process = self.process_of[member]
            process_load = self.load(process)
            if process_load < best_process and (
                standby_task < 0 or standby_task not in self.holds[process]
            ):
                member_load = float(self.count[member])
                if member_load < best_member:
                    candidate, best_process, best_member = member, process_load, member_load
        if standby_task >= 0 and standby_task in self.holds[first_process]:
            return -1
        return candidate

    def answer(self) -> dict[str, MemberTasks]:
        ids = self.topology.ids.__getitem__
        return {
            member_id: MemberTasks(
                self.process_ids[self.process_of[m]],
                tuple(map(ids, sorted(self.active[m]))),
                tuple(map(ids, sorted(self.standby[m]))),
            )
            for m, member_id in enumerate(self.member_ids)
        }


def _previous_owners(
    specs: Sequence[StreamsMember], topology: _Topology, offsets_rank: bool = True
) -> tuple[dict[int, int], list[list[int]], dict[int, list[int]]]:
    """Step 1: per task its active owner; per member the tasks it owns; per task its standby
    candidates, ranked (``offsets_rank`` false, Kafka 4.2 and 4.3: only the members listing it as
    standby, in member order).

    Tasks the topology does not have are left out: nothing asks for them.
    """
    if not any(spec.prev_active or spec.prev_standby or spec.task_offsets for spec in specs):
        return {}, [[] for _ in specs], {}
    owner: dict[int, int] = {}
    owned: list[list[int]] = []
    found: dict[int, list[tuple[int, bool, int]]] = {}
    for member, spec in enumerate(specs):
        owned.append(topology.numbers(spec.prev_active))
        owner.update(zip(owned[-1], repeat(member)))  # the last owner in member order wins
        offsets = spec.task_offsets if offsets_rank else {}
        for task_id in spec.prev_standby:
            task = topology.number(task_id)
            if task is not None:
                found.setdefault(task, []).append((member, True, offsets.get(task_id, 0)))
        if offsets:
            standby = set(spec.prev_standby)
            for task_id, offset in offsets.items():
                task = topology.number(task_id)
                if task is not None and task_id not in standby:
                    found.setdefault(task, []).append((member, False, offset))
    if sum(map(len, owned)) != len(owner):  # tasks claimed twice: only the last owner has them
        owned = [[t for t in dict.fromkeys(ts) if owner[t] == m] for m, ts in enumerate(owned)]
    return (
        owner,
        owned,
        {
            task: [c[0] for c in sorted(listed, key=lambda c: (not c[1], -c[2]))]
            for task, listed in found.items()
        },
    )


def _assign_active(run: _Run) -> None:
    """Steps 2 and 3: actives back to their owners, to candidates, then to the least loaded."""
    rest = []
    for task in _assign_to_owners(run):
        listed = run.candidates.get(task)
        if listed is not None:
            member = run.least_loaded_candidate(listed, -1)
            if member >= 0 and run.count[member] < run.active_quota.per_member:
                run.give(member, task, True)
                continue
        rest.append(task)
    _assign_to_least_loaded(run, _in_kafka_order(run.topology, rest))


def _assign_to_owners(run: _Run) -> list[int]:
    """Step 2's first pass: each task back to its owner while under the active quota.

    The tasks left, in (partition, subtopology) order. When every member owns fewer tasks than
    the active quota, no count can reach either quota, so every owner gets all its tasks back,
    whatever the order: they are handed over per member.
    """
    owner, owned = run.active_owner, run.owned
    if max(map(len, owned), default=0) >= run.active_quota.per_member:
        return _assign_to_owners_in_turn(run)
    for member, tasks in enumerate(owned):
        if tasks:
            process = run.process_of[member]
            run.member_queue[process] = None
            run.task_count[process] += len(tasks)
            run.holds[process].update(tasks)
            run.active[member] += tasks
            run.count[member] += len(tasks)
    return list(filterfalse(owner.__contains__, run.topology.by_partition))


def _assign_to_owners_in_turn(run: _Run) -> list[int]:
    """Step 2's first pass task by task (:meth:`_Run.give` inlined: it runs for most tasks)."""
    owner, count, process_of = run.active_owner.get, run.count, run.process_of
    task_count, holds, active, queues = run.task_count, run.holds, run.active, run.member_queue
    active_quota, total_quota = run.active_quota, run.total_quota
    per_member, per_member_total = active_quota.per_member, total_quota.per_member
    remaining = []
    for task in run.topology.by_partition:
        member = owner(task)
        if member is None or count[member] >= per_member:
            remaining.append(task)
            continue
        process = process_of[member]
        queues[process] = None
        task_count[process] += 1
        holds[process].add(task)
        active[member].append(task)
        tasks_now = count[member] + 1
        count[member] = tasks_now
        if tasks_now == per_member:
            per_member = active_quota.reached(tasks_now)
        if tasks_now == per_member_total:
            per_member_total = total_quota.reached(tasks_now)
    return remaining


def _assign_to_least_loaded(run: _Run, tasks: Sequence[int]) -> None:
    """Step 3: each task to the least-loaded member of the least-loaded process, in turn.

    The active quota is not kept here: nothing reads it after step 2.
    """
    processes = _least_loaded_processes(run, len(tasks))  # counts the processes' new tasks
    single = run.single
    if min(single) >= 0:  # processes of one member each
        members = list(map(single.__getitem__, processes))
    else:
        members = [single[p] if single[p] >= 0 else run.least_loaded_member(p) for p in processes]
    active = run.active
    for member, task in zip(members, tasks, strict=True):
        active[member].append(task)
    holds, stateful = run.holds, run.topology.stateful
    # Only standbys, which are stateful, ask what a process holds.
    given = zip(tasks, processes, strict=True)
    for task, process in compress(given, map(stateful.__getitem__, tasks)):
        holds[process].add(task)
    _count_in_turn(run, members)


def _count_in_turn(run: _Run, members: Sequence[int]) -> None:
    """One task more for each of ``members``, in turn, and the total quota kept.

    A member's count reaches the quota's ``per_member`` only if it passes it: when no member
    does, the quota stays and the counts are added per member.
    """
    count, quota = run.count, run.total_quota
    added = Counter(members)
    per_member = quota.per_member
    if all(not count[m] < per_member <= count[m] + n for m, n in added.items()):
        for member, n in added.items():
            count[member] += n
        return
    for member in members:
        tasks_now = count[member] + 1
        count[member] = tasks_now
        if tasks_now == per_member:
            per_member = quota.reached(tasks_now)


def _least_loaded_processes(run: _Run, polls: int) -> list[int]:
    """Kafka's process queue in step 3: the process polled for each task, in turn.

    Each poll takes one task, so the polled process's task count grows by one (done here)
    before it is offered back. Whenever all queued loads are equal and all processes have as
    many members, every process is polled once before any is polled again, in an order the
    queue's layout alone decides: whole rounds are then taken at once
    (:meth:`JavaKeyedPriorityQueue.poll_rounds`), the same order as step by step.
    """
    task_count, load = run.task_count, run.load
    queue: JavaKeyedPriorityQueue[int] = JavaKeyedPriorityQueue(key=load)
    for process in range(len(task_count)):
        queue.offer(process)
    even = len(set(run.capacity)) == 1
    highest = max(map(load, range(len(task_count))), default=0.0)
    polled: list[int] = []
    while len(polled) < polls:
        rounds = (polls - len(polled)) // len(task_count)
        if even and rounds and queue.head_key() == highest:
            task_count[:] = [tasks + rounds for tasks in task_count]
            highest = load(0)
            polled += queue.poll_rounds(rounds, highest)
            continue
        process = _poll(queue)
        task_count[process] += 1
        queue.offer(process)
        highest = max(highest, load(process))
        polled.append(process)
    return polled


def _poll(queue: JavaKeyedPriorityQueue[int]) -> int:
    head = queue.poll()
    assert head is not None  # the scenario has at least one client
    return head


def _in_kafka_order(topology: _Topology, tasks: Collection[int]) -> list[int]:
    """Distinct ``tasks`` ordered by (subtopology id as text, partition)."""
    if len(tasks) == len(topology.ids):  # all of them
        return list(topology.by_subtopology)
    if len(tasks) * 16 < len(topology.ids):  # a few: sorted by their own keys
        ids = topology.ids
        return sorted(tasks, key=lambda task: (str(ids[task].subtopology), ids[task].partition))
    chosen = set(tasks)
    return list(
        compress(topology.by_subtopology, map(chosen.__contains__, topology.by_subtopology))
    )


def _assign_standby(run: _Run) -> None:
    """Steps 4 and 5: standbys back to previous owners, the rest to the least loaded."""
    topology, replicas = run.topology, run.replicas
    waiting: dict[int, int] = {}
    for task in reversed(topology.by_partition):
        if not topology.stateful[task]:
            continue
        for replica in range(replicas):
            if not _give_standby_sticky(run, task):
                waiting[task] = replicas - replica
                break
    queue: JavaKeyedPriorityQueue[int] = JavaKeyedPriorityQueue(key=run.load)
    for process in range(len(run.task_count)):
        queue.offer(process)
    for task in reversed(_in_kafka_order(topology, waiting)):
        for _ in range(waiting[task]):
            if not _give_standby_least_loaded(run, queue, task):
                break  # Kafka logs that there is not enough capacity for the standbys


def _give_standby_sticky(run: _Run, task: int) -> bool:
    owner = run.active_owner.get(task, -1)
    if owner >= 0:
        holds = run.holds[run.process_of[owner]]
        if task not in holds and run.count[owner] < run.total_quota.per_member:
            run.give(owner, task, False)
            return True
    candidate = run.least_loaded_candidate(run.candidates.get(task, ()), task)
    if candidate >= 0 and run.count[candidate] < run.total_quota.per_member:
        run.give(candidate, task, False)
        return True
    return False


def _give_standby_least_loaded(run: _Run, queue: JavaKeyedPriorityQueue[int], task: int) -> bool:
    """Kafka's recursive ``assignStandbyToMemberWithLeastLoad``, as a loop."""
    polled: list[int] = []
    found = False
    while (head := queue.poll()) is not None:
        polled.append(head)
        if task not in run.holds[head]:
            run.give_least_loaded(head, task, False)
            found = True
            break
        if not len(queue):
            break
    for process in reversed(polled):
        queue.offer(process)
    return found


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


def _subtopology_runs(
    ids: Sequence[TaskId], stateful: Sequence[bool]
) -> tuple[dict[str, tuple[int, int]] | None, list[str]]:
    """Per subtopology (id as text): its first task and its task count; what is wrong with them.

    ``None`` when the subtopologies are not in order. Ascending subtopologies whose partitions
    run ``0..n-1`` are tasks in task order.
    """
    subtopologies, partitions = list(map(itemgetter(0), ids)), list(map(itemgetter(1), ids))
    if any(map(gt, subtopologies, subtopologies[1:])):
        return None, []
    runs: dict[str, tuple[int, int]] = {}
    problems = []
    for number in dict.fromkeys(subtopologies):
        start = bisect_left(subtopologies, number)
        end = bisect_right(subtopologies, number, start)
        sub = str(number)
        runs[sub] = (start, end - start)
        if partitions[start:end] != list(range(end - start)):
            problems.append(
                f"scenario.tasks: subtopology {sub} has partitions {partitions[start:end][:10]}; "
                "a Streams group's subtopology runs one task per partition 0..n-1"
            )
        if len(set(stateful[start:end])) > 1:
            problems.append(
                f"scenario.tasks: subtopology {sub} mixes stateful and stateless tasks; "
                "statefulness belongs to a subtopology (all its tasks or none)"
            )
    return runs, problems


def _topology(scenario: StreamsScenario) -> _Topology:
    """The tasks as numbers (:class:`_Topology`); ScenarioError if they are not subtopologies.

    Kafka describes a subtopology by its partition count and whether it has state: its tasks
    must be partitions ``0..n-1``, all stateful or none.
    """
    ids = tuple(map(attrgetter("id"), scenario.tasks))
    stateful = list(map(attrgetter("stateful"), scenario.tasks))
    runs, problems = _subtopology_runs(ids, stateful)
    if runs is None or (problems and any(map(gt, ids, ids[1:]))):  # not in task order
        order = sorted(range(len(ids)), key=ids.__getitem__)  # (the parser sorts them)
        ids, stateful = tuple(ids[i] for i in order), [stateful[i] for i in order]
        runs, problems = _subtopology_runs(ids, stateful)
    if problems or runs is None:
        raise ScenarioError(problems)
    in_text_order = [runs[sub] for sub in sorted(runs)]
    by_subtopology: list[int] = []
    for first, n in in_text_order:
        by_subtopology += range(first, first + n)
    by_partition: list[int] = []
    firsts = [first for first, _ in in_text_order]
    lengths = {n for _, n in in_text_order}
    for partition in range(max(lengths, default=0)):
        if partition in lengths:
            firsts = [first for first, n in in_text_order if n > partition]
        by_partition += map(add, firsts, repeat(partition))
    numbers = {int(sub): run for sub, run in runs.items()}
    return _Topology(
        ids,
        stateful,
        by_subtopology,
        by_partition,
        {sub: start for sub, (start, _) in numbers.items()},
        {sub: n for sub, (_, n) in numbers.items()},
    )


def assign_streams_group_sticky(scenario: StreamsScenario) -> StreamsGroupAssignment:
    """Run the Streams-group sticky assignor (see the module docstring) on a parsed scenario.

    Raises :class:`ScenarioError` when the tasks do not describe subtopologies (see the module
    docstring). The answer lists every member, clients in scenario order, members in theirs.
    """
    topology = _topology(scenario)
    members = [
        (member.member_id, client.process_id, member)
        for client in scenario.clients
        for member in group_members(client)
    ]
    with paused_gc():
        version = scenario.kafka_version
        line = KAFKA_44 if at_least(version, "4.4") else _EARLIER[release_line(version or "")]
        run = _Run(members, topology, scenario.config.num_standby_replicas, line)
        _assign_active(run)
        if run.replicas > 0:
            _assign_standby(run)
        assigned = run.answer()
    return StreamsGroupAssignment(
        {member_id: assigned[member_id] for member_id, _, _ in members}, scenario.warnings
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


#: Streams groups came with 4.1 (KIP-1071). 4.2 and 4.3 are answered (:class:`LineRules`); 4.1
#: ran an earlier algorithm whose answers are not a function of the group (below).
STREAMS_GROUP_LINES = KafkaLines(
    first="4.1",
    arrived="Streams groups (KIP-1071)",
    refused=(
        (
            "4.1",
            "that line's StickyTaskAssignor breaks ties by iterating hash sets of objects "
            "without their own hash code, so its answer to one group depends on what the broker "
            "did before (asked in reverse order, 260 of 500 generated groups got another answer "
            "from Kafka 4.1.2); no answer of ours could match it",
        ),
    ),
)

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
    older_kafka=(
        (
            "4.2",
            "reported offset sums are not read: a task's standby candidates are only its "
            "previous standbys, in member order; processes are ordered as putIfAbsent fills "
            "their map",
        ),
        (
            "4.3",
            "as 4.2, and the least loaded standby candidate is chosen by 4.3's own rule (no "
            "pick when the first candidate's instance already holds the task)",
        ),
    ),
    kafka_lines=STREAMS_GROUP_LINES,
)

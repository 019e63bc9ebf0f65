"""Kafka Streams' client-side ``StickyTaskAssignor`` (KIP-924), as Kafka 4.4.0 or 3.9 runs it.

The assignor a Kafka Streams application on the classic protocol gets with
``task.assignor.class=org.apache.kafka.streams.processor.assignment.assignors.StickyTaskAssignor``
(package ``org.apache.kafka.streams.processor.assignment.assignors``). It reads no lags: a task
sticks to the client that ran it, within a per-thread quota, and new placements prefer clients
where the task makes a *new pair* with the tasks already there (so that the tasks of one
client vary). Rack-aware optimisation is off (no rack strategy configured), as here.

Definitions. A client's *load* is its tasks (active + standby) divided by its threads. *Client
order* is the ``HashMap`` order of the clients' ``ProcessId`` (``UUID.hashCode``); a *client
set* iterates in ``HashSet`` order; tasks hash as Kafka's ``TaskId`` (``Objects.hash(subtopology,
partition, null)``). A client's *quota* is ``ceil(tasks * its threads / all threads)`` active
tasks; with ``kafka_version`` 3.9 it is ``its threads * (tasks // all threads)``, as Kafka 3.8
to 4.3 computed it (the only difference between the two; a quota of 0 sends every task to
step 3). *Pairs*: every
time a task goes to a client, it forms a pair with each task the client already holds; a
client offers a *new pair* for a task when one of those pairs has not been formed yet (and not
every possible pair has).

*Least-loaded client* of a set, for a task: walking the set in order, the first client with no
task at all; else the one with the smallest load (the first of equals) among those that offer a
new pair; if none offers one, the first one with the smallest load. *Best client* of a set: the
only one if there is one; else its previous active owner when in the set, or else the
least-loaded of its previous standby owners in the set; when there is neither, the least-loaded
client of the set. A previous owner whose load is at least 1 while some client has a lower load
gives way to the least-loaded previous standby owner (if that one does not need to give way
too), else to the least-loaded client of the set.

Steps:

1. Actives back to their previous owners: in ``HashMap`` order of the previously active tasks
   (the last client in client order listing a task owns it), each task goes back while its
   owner has fewer active tasks than its quota.
2. Then each task still unassigned (``HashSet`` order of all tasks) goes to the first of its
   previous standby owners (set order) under its quota.
3. The rest, in task order, each to the best client among all clients.
4. Standbys: for each stateful task (``HashSet`` order), ``num_standby_replicas`` times, to the
   best client among those not holding the task yet; when every client holds it, its remaining
   replicas are dropped (Kafka logs that capacity is short).

Kafka's limit: before step 1 Kafka sizes its set of task pairs as ``tasks * (tasks - 1) / 2``
in a Java ``int``; from 46,342 tasks the product overflows, and wherever it wraps below zero
(46,342 to 65,536 tasks, and bands above) ``new HashSet<>(negative)`` throws
``IllegalArgumentException: Illegal initial capacity``. Ours raises
:class:`StreamsStickyTaskLimitError` with the same message on exactly those sizes
(:func:`task_pairs_capacity`).

Invariants: every task is active on exactly one client; no client holds two replicas of one
task; at most ``num_standby_replicas`` standbys per stateful task; no warm-ups, no probing
rebalance. Kafka's own ``DefaultTaskInfo`` hashes by identity, so the order of step 4 in a
real application is arbitrary; this module (and the oracle, which gives Kafka value-hashed task
infos) walks the stateful tasks in the order their ``TaskId`` hashes give.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from typing import NamedTuple

from assignors.errors import AssignmentExplorerError
from assignors.java_order import (
    JavaHashMapOrder,
    hash_order,
    hash_set_copy_capacity,
    java_util_uuid_hash,
    java_uuid_halves,
    to_int32,
)
from assignors.kafka_versions import KafkaLines, at_least
from assignors.strategy import TaskStrategy
from assignors.streams.model import (
    ClientAssignment,
    StreamsAssignment,
    StreamsScenario,
    TaskId,
    parse_streams_scenario,
    streams_assignment_to_json,
)


class StreamsStickyTaskLimitError(AssignmentExplorerError, ValueError):
    """Kafka's ``StickyTaskAssignor`` throws on this many tasks (an ``int`` overflow in Kafka)."""


def task_pairs_capacity(task_count: int) -> int:
    """Kafka's ``maxPairs``: ``tasks * (tasks - 1) / 2`` in Java ``int`` arithmetic (the product
    wraps to 32 bits, the division truncates toward zero). Negative from 46,342 tasks on, in
    bands; Kafka then fails to make its ``HashSet`` of that initial capacity."""
    return int(to_int32(task_count * (task_count - 1)) / 2)


def check_kafka_task_limit(task_count: int) -> None:
    """Raise :class:`StreamsStickyTaskLimitError` where Kafka's assignor throws on the size."""
    capacity = task_pairs_capacity(task_count)
    if capacity < 0:
        raise StreamsStickyTaskLimitError(
            f"Illegal initial capacity: {capacity}. This is Kafka's limit, not the scenario's: "
            f"Kafka Streams' StickyTaskAssignor sizes its set of task pairs as tasks x (tasks - 1)"
            f" / 2 in a Java int, which overflows for {task_count:,} tasks, so Kafka throws "
            "IllegalArgumentException and the group cannot be assigned; use fewer tasks (at "
            "most 46,341) or another task assignor (streams-ha)"
        )


def task_id_hash(task: TaskId) -> int:
    """Kafka Streams' ``TaskId.hashCode``: ``Objects.hash(subtopology, partition, null)``."""
    return to_int32(((31 + task.subtopology) * 31 + task.partition) * 31)


def _ordered(keys: Iterable[TaskId], initial_capacity: int | None = None) -> list[TaskId]:
    return hash_order(keys, task_id_hash, initial_capacity)


class _Candidates(NamedTuple):
    """The clients a task may go to, in ``HashSet`` order: ``listed``, or, when ``listed`` is
    ``None``, every client but ``excluded`` in the clients' own set order (:attr:`_State.order`),
    which lets :meth:`_State.least_loaded` walk the clients by load instead of all of them."""

    listed: list[int] | None
    excluded: AbstractSet[int] = frozenset()


class _State:
    """Kafka's ``AssignmentState``: the assignment so far, per client (an index).

    Kafka records every pair of tasks that have shared a client (``TaskPairs``); tasks are never
    taken back here, so a pair has formed exactly when some client holds both tasks now, and only
    the number of pairs is kept (:attr:`pair_count`, for Kafka's "every pair formed" test). The
    clients are also kept sorted by (load, position in :attr:`order`) (:attr:`by_load`).
    """

    def __init__(self, scenario: StreamsScenario) -> None:
        self.ids = [client.process_id for client in scenario.clients]
        self._hash_of = [
            java_util_uuid_hash(*java_uuid_halves(pid)) for pid in self.ids
        ].__getitem__
        self.order = self.client_set(range(len(self.ids)))  # the clients map's order
        self.position = [0] * len(self.ids)
        for position, client in enumerate(self.order):
            self.position[client] = position
        self.by_load = [(0.0, position) for position in range(len(self.ids))]
        self.capacity = [client.capacity for client in scenario.clients]
        # Kafka 4.4 rounds the quota up over the client's share of threads; 3.8-4.3 rounded the
        # per-thread share down first.
        self.rounded_up_quota = at_least(scenario.kafka_version, "4.4")
        self.tasks: list[dict[TaskId, bool]] = [{} for _ in self.ids]  # task -> active
        self.active_count = [0] * len(self.ids)
        self.locations: dict[TaskId, set[int]] = {}
        self.previous_active: JavaHashMapOrder[TaskId] = JavaHashMapOrder(task_id_hash)
        self.owner: dict[TaskId, int] = {}
        self.previous_standby: dict[TaskId, list[int]] = {}
        for client in self.order:
            for task in scenario.clients[client].prev_active:
                self.previous_active.put(task)
                self.owner[task] = client
        for client in self.order:
            for task in scenario.clients[client].prev_standby:
                self.previous_standby.setdefault(task, []).append(client)
        self.max_pairs = task_pairs_capacity(len(scenario.tasks))
        self.pair_count = 0

    def client_set(self, clients: Iterable[int], initial_capacity: int | None = None) -> list[int]:
        """A ``HashSet<ProcessId>`` filled with ``clients`` in that order, in its order."""
        return hash_order(clients, self._hash_of, initial_capacity)

    def all_but(self, excluded: AbstractSet[int]) -> _Candidates:
        """``new HashSet`` of the clients (in :attr:`order`) not in ``excluded``."""
        size = len(self.order) - len(excluded)
        if size > 0 and _set_capacity(size) == _set_capacity(len(self.order)) >= 64:
            # Same table: the order is the clients' own order less the excluded ones.
            return _Candidates(None, excluded)
        return _Candidates(self.client_set(c for c in self.order if c not in excluded))

    def paired_with(self, task: TaskId) -> set[TaskId]:
        """Every task that has shared a client with ``task`` (``task`` too, once placed)."""
        places = self.locations.get(task)
        if not places:
            return set()
        return set().union(*(self.tasks[c].keys() for c in places))

    def finalize(self, task: TaskId, client: int, active: bool) -> None:
        held = self.tasks[client]
        if held:
            elsewhere = self.locations.get(task)
            known = held.keys() & self.paired_with(task) if elsewhere else ()
            self.pair_count += len(held) - len(known)
        position = self.position[client]
        del self.by_load[bisect_left(self.by_load, (self.load(client), position))]
        held[task] = active
        insort(self.by_load, (self.load(client), position))
        self.active_count[client] += active
        self.locations.setdefault(task, set()).add(client)

    def load(self, client: int) -> float:
        return len(self.tasks[client]) / self.capacity[client]

    def has_room_for_active(self, client: int, task_count: int, threads: int) -> bool:
        """Under the client's quota of active tasks (Java ints; see the module docstring)."""
        actives = self.active_count[client]
        if not self.rounded_up_quota:
            return actives < to_int32(self.capacity[client] * (task_count // threads))
        limit = to_int32(to_int32(task_count * self.capacity[client]) + threads - 1)
        return actives < int(limit / threads)

    def has_new_pair(self, client: int, paired: AbstractSet[TaskId]) -> bool:
        """Kafka's ``TaskPairs.hasNewPair`` for the task ``paired`` lists the partners of."""
        return self.pair_count != self.max_pairs and not self.tasks[client].keys() <= paired

    def least_loaded(self, task: TaskId, clients: _Candidates) -> int | None:
        """Kafka's ``findLeastLoadedClient``: the first client (set order) with no task; else
        the least loaded (first of equals) that makes a new pair; else the least loaded."""
        if clients.listed is not None:
            return self._least_loaded_of(task, clients.listed)
        # Every client but the excluded, walked by (load, set order): the same answer.
        order, excluded, paired = self.order, clients.excluded, None
        first: int | None = None
        for load, position in self.by_load:
            client = order[position]
            if client in excluded:
                continue
            if load == 0:
                return client
            if first is None:
                first = client
            if paired is None:
                paired = self.paired_with(task)
            if self.has_new_pair(client, paired):
                return client
        return first

    def _least_loaded_of(self, task: TaskId, clients: Sequence[int]) -> int | None:
        best: int | None = None
        paired: set[TaskId] | None = None
        for client in clients:
            load = self.load(client)
            if load == 0:
                return client
            if best is None or load < self.load(best):
                paired = self.paired_with(task) if paired is None else paired
                if self.has_new_pair(client, paired):
                    best = client
        if best is not None:
            return best
        for client in clients:
            if best is None or self.load(client) < self.load(best):
                best = client
        return best

    def least_loaded_standby_owner(self, task: TaskId, within: _Candidates) -> int | None:
        owners = self.previous_standby.get(task)
        if not owners:
            return None
        copied = self.client_set(owners, hash_set_copy_capacity(len(owners)))
        return self._least_loaded_of(task, [c for c in copied if _inside(c, within)])

    def should_balance(self, client: int) -> bool:
        load = self.load(client)
        return load >= 1 and self.by_load[0][0] < load

    def best_client(self, task: TaskId, within: _Candidates) -> int | None:
        """Kafka's ``findBestClientForTask``."""
        if within.listed is not None and len(within.listed) == 1:
            return within.listed[0]
        if within.listed is None and len(self.order) - len(within.excluded) == 1:
            return next(c for c in self.order if c not in within.excluded)
        previous = self.owner.get(task)
        if previous is None or not _inside(previous, within):
            previous = self.least_loaded_standby_owner(task, within)
        if previous is None:
            return self.least_loaded(task, within)
        if self.should_balance(previous):
            standby = self.least_loaded_standby_owner(task, within)
            if standby is None or self.should_balance(standby):
                return self.least_loaded(task, within)
            return standby
        return previous


def _inside(client: int, clients: _Candidates) -> bool:
    if clients.listed is None:
        return client not in clients.excluded
    return client in clients.listed


def _set_capacity(size: int) -> int:
    """The buckets of a default ``HashSet`` after ``size`` adds (no ``treeifyBin`` growth)."""
    capacity = 16
    while size > capacity * 3 // 4:
        capacity <<= 1
    return capacity


def _assign_active(state: _State, all_tasks: list[TaskId]) -> None:
    threads = sum(state.capacity)
    task_count = len(all_tasks)
    unassigned = _ordered(all_tasks, hash_set_copy_capacity(len(all_tasks)))
    known = set(all_tasks)
    placed: set[TaskId] = set()
    for task in state.previous_active:
        owner = state.owner[task]
        if task in known and state.has_room_for_active(owner, task_count, threads):
            state.finalize(task, owner, True)
            placed.add(task)
    for task in unassigned:
        if task in placed:
            continue
        for client in state.client_set(state.previous_standby.get(task, [])):
            if state.has_room_for_active(client, task_count, threads):
                state.finalize(task, client, True)
                placed.add(task)
                break
    everyone = state.client_set(state.order)
    within = _Candidates(None) if everyone == state.order else _Candidates(everyone)
    for task in sorted(known - placed):
        best = state.best_client(task, within)
        assert best is not None  # a scenario has at least one client
        state.finalize(task, best, True)


def _assign_standby(state: _State, stateful: list[TaskId], replicas: int) -> None:
    for task in _ordered(stateful):
        for _ in range(replicas):
            candidates = state.all_but(state.locations.get(task, set()))
            if candidates.listed == []:
                break  # Kafka logs that there is not enough capacity for the standbys
            best = state.best_client(task, candidates)
            assert best is not None
            state.finalize(task, best, False)


def assign_streams_sticky(scenario: StreamsScenario) -> StreamsAssignment:
    """Run the KIP-924 sticky task assignor (see the module docstring) on a parsed scenario.

    The answer lists every client, in the scenario's order; it has no warm-ups and never asks
    for a probing rebalance. :class:`StreamsStickyTaskLimitError` on the task counts Kafka's
    assignor throws on.
    """
    check_kafka_task_limit(len(scenario.tasks))
    state = _State(scenario)
    # The oracle hands Kafka its tasks as a HashMap filled in task order.
    all_tasks = _ordered(task.id for task in scenario.tasks)
    _assign_active(state, all_tasks)
    if scenario.config.num_standby_replicas > 0:
        stateful_ids = set(scenario.stateful_tasks)
        stateful = [task for task in all_tasks if task in stateful_ids]
        _assign_standby(state, stateful, scenario.config.num_standby_replicas)
    clients = {}
    for index, client in enumerate(scenario.clients):
        held = state.tasks[index]
        clients[client.process_id] = ClientAssignment.of(
            (t for t, active in held.items() if active),
            (t for t, active in held.items() if not active),
        )
    return StreamsAssignment(clients, False, 0, scenario.warnings)


#: The public ``StickyTaskAssignor`` came with KIP-924 in 3.8.
STREAMS_STICKY_LINES = KafkaLines(
    first="3.8", arrived="the public task assignor StickyTaskAssignor (KIP-924)"
)

STRATEGY = TaskStrategy(
    name="streams-sticky",
    summary=(
        "Kafka Streams' StickyTaskAssignor (KIP-924): every task stays on the instance that "
        "ran it, within an even share per thread; the rest go to the least-loaded instance, "
        "preferring a mix of tasks. No lags, no warm-ups."
    ),
    when_to_use=(
        "Kafka Streams on the classic protocol when moving tasks costs more than a short "
        "imbalance (state restores are slow, or instances are rolled one by one); streams-ha "
        "balances sooner with warm-ups."
    ),
    consumer_config=(
        "Kafka Streams (StreamsConfig): task.assignor.class="
        "org.apache.kafka.streams.processor.assignment.assignors.StickyTaskAssignor; "
        "num.standby.replicas=0 (default shown)"
    ),
    protocol="cooperative",
    parse=parse_streams_scenario,
    compute=assign_streams_sticky,
    to_json=streams_assignment_to_json,
    older_kafka=(
        (
            "3.8-4.3",
            "a client's quota of active tasks is its threads x (tasks // all threads), rounded "
            "down (Kafka 4.4: ceil(tasks x its threads / all threads))",
        ),
    ),
    kafka_lines=STREAMS_STICKY_LINES,
)

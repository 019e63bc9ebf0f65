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

Invariants: every task is active on exactly one client; no client holds two replicas of one
task; at most ``num_standby_replicas`` standbys per stateful task; no warm-ups, no probing
rebalance. Kafka's own ``DefaultTaskInfo`` hashes by identity, so the order of step 4 in a
real application is arbitrary; this module (and the oracle, which gives Kafka value-hashed task
infos) walks the stateful tasks in the order their ``TaskId`` hashes give.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from assignors.java_order import (
    JavaHashMapOrder,
    hash_set_copy_capacity,
    java_util_uuid_hash,
    java_uuid_halves,
    to_int32,
)
from assignors.kafka_versions import at_least
from assignors.strategy import TaskStrategy
from assignors.streams.model import (
    ClientAssignment,
    StreamsAssignment,
    StreamsScenario,
    TaskId,
    parse_streams_scenario,
    streams_assignment_to_json,
)


def task_id_hash(task: TaskId) -> int:
    """Kafka Streams' ``TaskId.hashCode``: ``Objects.hash(subtopology, partition, null)``."""
    return to_int32(((31 + task.subtopology) * 31 + task.partition) * 31)


def _ordered(keys: Iterable[TaskId], initial_capacity: int | None = None) -> list[TaskId]:
    table: JavaHashMapOrder[TaskId] = JavaHashMapOrder(task_id_hash, initial_capacity)
    table.put_all(keys)
    return list(table)


class _State:
    """Kafka's ``AssignmentState``: the assignment so far, per client (an index)."""

    def __init__(self, scenario: StreamsScenario) -> None:
        self.ids = [client.process_id for client in scenario.clients]
        hashes = [java_util_uuid_hash(*java_uuid_halves(pid)) for pid in self.ids]
        self._hash_of = hashes.__getitem__
        self.order = self.client_set(range(len(self.ids)))  # the clients map's order
        self.capacity = [client.capacity for client in scenario.clients]
        # Kafka 4.4 rounds the quota up over the client's share of threads; 3.8-4.3 rounded the
        # per-thread share down first.
        self.rounded_up_quota = at_least(scenario.kafka_version, "4.4")
        self.tasks: list[dict[TaskId, bool]] = [{} for _ in self.ids]  # task -> active
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
        count = len(scenario.tasks)
        self.max_pairs = int(to_int32(count * (count - 1)) / 2)
        self.pairs: set[tuple[TaskId, TaskId]] = set()

    def client_set(self, clients: Iterable[int], initial_capacity: int | None = None) -> list[int]:
        """A ``HashSet<ProcessId>`` filled with ``clients`` in that order, in its order."""
        table: JavaHashMapOrder[int] = JavaHashMapOrder(self._hash_of, initial_capacity)
        table.put_all(clients)
        return list(table)

    def finalize(self, task: TaskId, client: int, active: bool) -> None:
        for held in self.tasks[client]:
            self.pairs.add((min(held, task), max(held, task)))
        self.tasks[client][task] = active
        self.locations.setdefault(task, set()).add(client)

    def load(self, client: int) -> float:
        return len(self.tasks[client]) / self.capacity[client]

    def has_room_for_active(self, client: int, task_count: int, threads: int) -> bool:
        """Under the client's quota of active tasks (Java ints; see the module docstring)."""
        actives = sum(1 for active in self.tasks[client].values() if active)
        if not self.rounded_up_quota:
            return actives < to_int32(self.capacity[client] * (task_count // threads))
        limit = to_int32(to_int32(task_count * self.capacity[client]) + threads - 1)
        return actives < int(limit / threads)

    def has_new_pair(self, task: TaskId, held: Iterable[TaskId]) -> bool:
        if len(self.pairs) == self.max_pairs:
            return False
        return any((min(t, task), max(t, task)) not in self.pairs for t in held)

    def least_loaded(self, task: TaskId, clients: Sequence[int]) -> int | None:
        """Kafka's ``findLeastLoadedClient``."""
        best: int | None = None
        for client in clients:
            load = self.load(client)
            if load == 0:
                return client
            if (best is None or load < self.load(best)) and self.has_new_pair(
                task, self.tasks[client]
            ):
                best = client
        if best is not None:
            return best
        for client in clients:
            if best is None or self.load(client) < self.load(best):
                best = client
        return best

    def least_loaded_standby_owner(self, task: TaskId, within: Sequence[int]) -> int | None:
        owners = self.previous_standby.get(task, [])
        inside = set(within)
        copied = self.client_set(owners, hash_set_copy_capacity(len(owners)))
        return self.least_loaded(task, [c for c in copied if c in inside])

    def should_balance(self, client: int) -> bool:
        load = self.load(client)
        return load >= 1 and any(self.load(other) < load for other in self.order)

    def best_client(self, task: TaskId, within: Sequence[int]) -> int | None:
        """Kafka's ``findBestClientForTask``."""
        if len(within) == 1:
            return within[0]
        previous = self.owner.get(task)
        if previous is None or previous not in within:
            previous = self.least_loaded_standby_owner(task, within)
        if previous is None:
            return self.least_loaded(task, within)
        if self.should_balance(previous):
            standby = self.least_loaded_standby_owner(task, within)
            if standby is None or self.should_balance(standby):
                return self.least_loaded(task, within)
            return standby
        return previous


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
    for task in sorted(known - placed):
        best = state.best_client(task, everyone)
        assert best is not None  # a scenario has at least one client
        state.finalize(task, best, True)


def _assign_standby(state: _State, stateful: list[TaskId], replicas: int) -> None:
    for task in _ordered(stateful):
        for _ in range(replicas):
            holders = state.locations.get(task, set())
            candidates = state.client_set(c for c in state.order if c not in holders)
            if not candidates:
                break  # Kafka logs that there is not enough capacity for the standbys
            best = state.best_client(task, candidates)
            assert best is not None
            state.finalize(task, best, False)


def assign_streams_sticky(scenario: StreamsScenario) -> StreamsAssignment:
    """Run the KIP-924 sticky task assignor (see the module docstring) on a parsed scenario.

    The answer lists every client, in the scenario's order; it has no warm-ups and never asks
    for a probing rebalance.
    """
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
            "3.9",
            "a client's quota of active tasks is its threads x (tasks // all threads), rounded "
            "down (Kafka 4.4: ceil(tasks x its threads / all threads))",
        ),
    ),
)

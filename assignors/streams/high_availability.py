"""Kafka Streams' high-availability task assignor (KIP-441), as Kafka 3.9 / trunk runs it.

The strategy Kafka Streams uses by default since 2.6 (``HighAvailabilityTaskAssignor``, rack
awareness off). It first computes a *balanced* assignment ignoring state, then walks back every
placement that would make a client restore a lot of state, keeping the task on a client that is
already caught up and sending a *warm-up* replica to the intended client instead. A follow-up
*probing rebalance* (after ``probing.rebalance.interval.ms``) re-runs the assignor; once the
warm-ups have caught up, their clients count as caught up and the balanced placement sticks.

Definitions. Clients are ordered by ``UUID.compareTo`` (high 64 bits, then low 64 bits, each as
signed numbers). A client's *load* is its assigned tasks (active + standby) divided by its
capacity (threads); its *active load* counts active tasks only. A client is *caught up* on a
stateful task when its lag is ``-2`` (it ran the task as active) or between ``0`` and
``acceptable_recovery_lag``. *Lag order* of a task: clients by lag (``-3`` < ``-2`` < 0 < ...),
then by UUID. A *least-loaded set* is Kafka's ``ConstrainedPrioritySet``: a Java
``PriorityQueue`` of clients ordered by (load, UUID), reading each client's load at every
comparison. Polling takes clients out until one satisfies the constraints, then offers the
rejected ones back in ``HashSet`` order (by ``UUID.hashCode`` bucket); offering a client already
queued removes and re-inserts it. In steps 2 and 5 no queued client's load changes, the heap
stays in order, and a poll answers the least-loaded client (by load, then UUID) that satisfies
the constraints (:class:`_LeastLoadedSet`). In steps 3 and 4 the destination of a move (and a
most-caught-up source that was never polled) changes load while it sits in the queue, and the
``offerAll(source, destination)`` that follows sifts other clients past its new load before
re-placing it: the heap can end out of order, and a later poll then answers the client Java's
exact layout puts first, not always the least loaded. Those steps keep Java's heap array
(:class:`_JavaLeastLoadedQueue`).

Steps:

1. Active stateful tasks, balanced: deal the stateful tasks (in task order) round-robin over the
   clients (in UUID order). Then *balance over threads*: repeat passes over every ordered pair
   (source, destination) of clients until a pass moves nothing; within a pair, walk the source's
   active tasks in task order and move a task the destination does not hold while moving one
   task would reduce the load difference without reversing it (compare ``load(source) -
   load(destination)`` with the same difference after the move, per thread).
2. Standby replicas (only when ``num_standby_replicas > 0``): for each stateful task in order,
   ``num_standby_replicas`` times, poll the least-loaded set (all clients, by load) for a client
   that does not hold the task yet and give it a standby (fewer if no client qualifies). Then
   balance the standbys over threads as in step 1.
3. Active task movements. A *movement* is scheduled for every active stateful task whose client
   is not caught up while the first client in its lag order has a smaller lag. Movements are
   taken from a priority queue by (number of caught-up clients, task). For each, the task goes
   back to, in order of preference: (a) the least-loaded caught-up client holding a standby of
   it (the two swap: the intended client keeps a standby); (b) the least-loaded caught-up client
   (active there); (c) the first client in lag order ahead of the intended client (swapping if
   it holds a standby). In (b) and (c) without a swap, while warm-up slots remain
   (``max_warmup_replicas`` in all), the intended client keeps a *warm-up* (a standby);
   otherwise it keeps nothing of the task.
4. Standby task movements: the same for standbys that are not warm-ups: a standby on a client
   that is not caught up while a more caught-up client exists moves to the least-loaded caught-up
   client not holding the task, else to the first client in lag order ahead of it that does not
   hold it; with a warm-up slot left the original standby stays as a warm-up, otherwise it is
   dropped. A standby with nowhere to go stays.
5. Stateless tasks, in task order, each to the client with the least active load (least-loaded
   set by active load).
6. A probing rebalance is needed when step 3 scheduled any movement or step 4 moved any standby.

Invariants: every task is active on exactly one client; no client holds two replicas (active,
standby) of one task; at most ``max_warmup_replicas`` warm-ups; at most
``num_standby_replicas`` non-warm-up standbys per task; the answer depends only on the
scenario (not on the order of clients or tasks in the input). ``prev_active`` and
``prev_standby`` are not read: the stickiness comes from the lags.

The answer's ``warmup`` lists, per client, the replicas that exist because a warm-up slot was
spent on them (steps 3 and 4); they are also listed in ``standby``.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from functools import partial
from heapq import heappop, heappush
from itertools import repeat
from operator import itemgetter, le
from struct import Struct

from assignors.java_order import (
    JavaPriorityQueue,
    java_util_uuid_hash,
    java_uuid_halves,
    spread,
)
from assignors.kafka_versions import KafkaLines
from assignors.strategy import TaskStrategy
from assignors.streams.model import (
    LATEST_OFFSET,
    ClientAssignment,
    StreamsAssignment,
    StreamsClient,
    StreamsScenario,
    TaskId,
    parse_streams_scenario,
    streams_assignment_to_json,
)

_JAVA_LONG_MAX = 2**63 - 1
#: A poll looks at a task's candidate clients one by one when they are at most this many, else
#: walks the queued clients from the least loaded (about clients / candidates of them).
_SCAN_CANDIDATES = 64
_DOUBLE = Struct("<d")
_DOUBLE_BITS = Struct("<q").unpack


class _ClientStates:
    """The mutable assignment under construction; clients are indices in UUID order."""

    __slots__ = ("active", "active_count", "capacity", "count", "standby")

    def __init__(self, capacities: Sequence[int]) -> None:
        self.capacity = list(capacities)
        self.active: list[set[TaskId]] = [set() for _ in capacities]
        self.standby: list[set[TaskId]] = [set() for _ in capacities]
        self.count = [0] * len(capacities)  # active + standby
        self.active_count = [0] * len(capacities)

    def load(self, client: int) -> float:
        return self.count[client] / self.capacity[client]

    def holds(self, client: int, task: TaskId) -> bool:
        return task in self.active[client] or task in self.standby[client]

    def assign_active(self, client: int, task: TaskId) -> None:
        if self.holds(client, task):
            raise AssertionError(f"client {client} already holds {task}")
        self.active[client].add(task)
        self.count[client] += 1
        self.active_count[client] += 1

    def unassign_active(self, client: int, task: TaskId) -> None:
        self.active[client].remove(task)
        self.count[client] -= 1
        self.active_count[client] -= 1

    def assign_standby(self, client: int, task: TaskId) -> None:
        if self.holds(client, task):
            raise AssertionError(f"client {client} already holds {task}")
        self.standby[client].add(task)
        self.count[client] += 1

    def unassign_standby(self, client: int, task: TaskId) -> None:
        self.standby[client].remove(task)
        self.count[client] -= 1


class _LeastLoadedSet:
    """Kafka's ``ConstrainedPrioritySet`` where no queued client's load changes (steps 2, 5).

    There the assignor offers back every client it polled before it polls again and changes no
    other client's load, so Java's heap stays in order: a poll answers the least-loaded client
    (by current load, then UUID) that satisfies the constraints, and the heap's layout decides
    nothing. This class keeps the queued clients as a sorted list of their (load, client) keys:
    a poll walks it from the least loaded, or, when ``candidates`` (the clients that can satisfy
    the constraint for a task) are few, takes the least key among those. (Commit 3b1cecb used
    it in the movement steps too, where loads of queued clients do change: it then differed
    from Kafka on groups whose heap went out of order; see :class:`_JavaLeastLoadedQueue`.)
    """

    __slots__ = ("_candidates", "_capacities", "_constraint", "_counts", "_key_of", "_keys")

    def __init__(
        self,
        constraint: Callable[[int, TaskId], bool],
        load_counts: list[int],
        capacities: list[int],
        candidates: Callable[[TaskId], Collection[int]] | None = None,
    ) -> None:
        self._constraint = constraint
        self._counts = load_counts  # read at every offer: the loads change as tasks move
        self._capacities = capacities
        self._candidates = candidates
        self._keys: list[tuple[float, int]] = []  # sorted: the least-loaded client first
        self._key_of: dict[int, tuple[float, int]] = {}

    def poll(self, task: TaskId, extra: Callable[[int], bool] | None = None) -> int | None:
        """The least-loaded queued client that satisfies the constraints (taken out of the set),
        or ``None``."""
        constraint, key_of = self._constraint, self._key_of
        candidates = None if self._candidates is None else self._candidates(task)
        found: tuple[float, int] | None = None
        if candidates is not None and len(candidates) <= _SCAN_CANDIDATES:
            for client in candidates:
                key = key_of.get(client)
                if key is None or (found is not None and found < key):
                    continue
                if constraint(client, task) and (extra is None or extra(client)):
                    found = key
        else:
            for key in self._keys:
                if constraint(key[1], task) and (extra is None or extra(key[1])):
                    found = key
                    break
        if found is None:
            return None
        del self._keys[bisect_left(self._keys, found)]
        del key_of[found[1]]
        return found[1]

    def offer(self, client: int) -> None:
        old = self._key_of.get(client)
        if old is not None:
            del self._keys[bisect_left(self._keys, old)]
        key = (self._counts[client] / self._capacities[client], client)
        insort(self._keys, key)
        self._key_of[client] = key

    def offer_all(self, clients: Iterable[int]) -> None:
        for client in clients:
            self.offer(client)


class _JavaLeastLoadedQueue:
    """Kafka's ``ConstrainedPrioritySet`` as the movement steps (3 and 4) use it: Java's heap.

    Kafka keeps a ``java.util.PriorityQueue`` of clients ordered by (load, UUID) and reads each
    client's load at every comparison. In the movement steps a client's load changes while it
    sits in the queue (the destination of a move, and a most-caught-up source that was not
    polled); the next ``offerAll(source, destination)`` then sifts clients past a key that is no
    longer where the heap put it, and can leave the heap out of order, so that a later poll
    answers a client that is not the least loaded. Which one depends on the heap's exact layout,
    so this class keeps Java's array: ``_heap`` holds each queued client's current key at its
    Java index, and every operation moves entries as ``PriorityQueue.offer`` / ``poll`` /
    ``removeAt`` do. A poll takes clients out until one satisfies the constraints and offers the
    rejected ones back in ``java.util.HashSet`` order (by ``UUID.hashCode`` bucket).

    A key is one integer ordered as Java's comparator orders clients: the bits of the load (a
    non-negative double, whose IEEE bits order as the numbers do), then the client (UUID order).
    While the heap is in order (``_ordered``, checked after every change), Java's sift moves are
    those of :mod:`heapq` (the path of smaller children only grows, so sifting to the bottom and
    back up ends where Java's sift stops), and the polled client is the least key that satisfies
    the constraints, found in ``_keys`` (the queued keys, sorted) or among the task's few
    candidates: the clients before it are polled out and offered back in C. Out of order, every
    move is made step by step.
    """

    __slots__ = (
        "_buckets",
        "_candidates",
        "_capacities",
        "_client_of",
        "_constraint",
        "_counts",
        "_heap",
        "_key_of",
        "_keys",
        "_ordered",
        "_shift",
        "_spread",
    )

    def __init__(
        self,
        constraint: Callable[[int, TaskId], bool],
        load_counts: list[int],
        capacities: list[int],
        spread_hashes: Sequence[int],
        candidates: Callable[[TaskId], Collection[int]] | None = None,
    ) -> None:
        self._constraint = constraint
        self._counts = load_counts
        self._capacities = capacities
        self._spread = spread_hashes  # HashMap.hash(UUID.hashCode()) per client
        self._candidates = candidates
        self._shift = max(1, len(capacities).bit_length())
        self._buckets: dict[int, list[int]] = {}  # per HashSet capacity: each client's bucket
        self._heap: list[int] = []  # Java's array: the key of the client at each index
        self._keys: list[int] = []  # the same keys, sorted
        self._key_of: dict[int, int] = {}
        self._client_of: dict[int, int] = {}  # key -> client, for the queued clients
        self._ordered = True

    def _current_key(self, client: int) -> int:
        load = self._counts[client] / self._capacities[client]
        bits: int = _DOUBLE_BITS(_DOUBLE.pack(load))[0]
        return (bits << self._shift) | client

    def poll(self, task: TaskId, extra: Callable[[int], bool] | None = None) -> int | None:
        """``ConstrainedPrioritySet.poll(task, extra)``: the client Java's heap answers."""
        if not self._ordered:
            return self._poll_step_by_step(task, extra)
        found = self._least_satisfying(task, extra)
        heap = self._heap
        if found is None:
            rejected = self._keys[:]
            heap.clear()
        else:
            rejected = list(map(heappop, repeat(heap, bisect_left(self._keys, found) + 1)))
            rejected.pop()  # found itself
        self._offer_back(rejected)
        return None if found is None else self._taken(found)

    def _taken(self, key: int) -> int:
        del self._keys[bisect_left(self._keys, key)]
        client = self._client_of.pop(key)
        del self._key_of[client]
        return client

    def _least_satisfying(self, task: TaskId, extra: Callable[[int], bool] | None) -> int | None:
        constraint, key_of, client_of = self._constraint, self._key_of, self._client_of
        candidates = None if self._candidates is None else self._candidates(task)
        found: int | None = None
        if candidates is not None and len(candidates) <= _SCAN_CANDIDATES:
            for client in candidates:
                key = key_of.get(client)
                if key is None or (found is not None and found < key):
                    continue
                if constraint(client, task) and (extra is None or extra(client)):
                    found = key
            return found
        for key in self._keys:
            client = client_of[key]
            if constraint(client, task) and (extra is None or extra(client)):
                return key
        return None

    def _offer_back(self, rejected: list[int]) -> None:
        """Offer polled clients back (none is queued) in the order of a new ``HashSet`` of
        them: by bucket, then in the order they were added (a stable sort)."""
        if not rejected:
            return
        capacity = 16
        while len(rejected) > capacity * 3 // 4:
            capacity <<= 1
        bucket_of = self._buckets.get(capacity)
        if bucket_of is None:
            bucket_of = self._buckets[capacity] = [h & (capacity - 1) for h in self._spread]
        buckets = list(map(bucket_of.__getitem__, map(self._client_of.__getitem__, rejected)))
        order = sorted(range(len(rejected)), key=buckets.__getitem__)
        deque(map(heappush, repeat(self._heap), map(rejected.__getitem__, order)), maxlen=0)

    def _poll_step_by_step(self, task: TaskId, extra: Callable[[int], bool] | None) -> int | None:
        heap, constraint, client_of = self._heap, self._constraint, self._client_of
        rejected: list[int] = []
        found: int | None = None
        while heap:
            key = heap[0]
            last = heap.pop()
            if heap:
                _java_sift_down(heap, 0, last)
            client = client_of[key]
            if constraint(client, task) and (extra is None or extra(client)):
                found = key
                break
            rejected.append(key)
        self._offer_back(rejected)
        self._ordered = _in_heap_order(heap)
        return None if found is None else self._taken(found)

    def offer(self, client: int) -> None:
        """``ConstrainedPrioritySet.offer``: a queued client is removed first, then offered."""
        self.offer_all((client,))

    def offer_all(self, clients: Iterable[int]) -> None:
        """``offerAll`` after the loads of ``clients`` changed: the new loads are in the heap
        before its first comparison, as Java reads them there."""
        clients = tuple(clients)
        heap, key_of, keys, client_of = self._heap, self._key_of, self._keys, self._client_of
        changed = []
        for client in clients:
            old, new = key_of.get(client), self._current_key(client)
            if old is not None and old != new:
                index = heap.index(old)
                heap[index] = new
                changed.append(index)
                del keys[bisect_left(keys, old)]
                insort(keys, new)
                key_of[client] = new
                del client_of[old]
                client_of[new] = client
        if self._ordered and changed:
            self._ordered = all(_in_order_at(heap, index) for index in changed)
        for client in clients:
            key = key_of.get(client)
            if key is not None:
                _java_remove_at(heap, heap.index(key))
                del keys[bisect_left(keys, key)]
                del client_of[key]
            key = self._current_key(client)
            heappush(heap, key)  # Java's siftUp, step for step, in or out of order
            insort(keys, key)
            key_of[client] = key
            client_of[key] = client
        if not self._ordered:
            self._ordered = _in_heap_order(heap)


def _java_sift_down(heap: list[int], index: int, key: int) -> None:
    """``PriorityQueue.siftDownUsingComparator``: ``key`` into ``index``, towards the leaves."""
    size = len(heap)
    half = size >> 1
    while index < half:
        child = 2 * index + 1
        smaller = heap[child]
        right = child + 1
        if right < size and heap[right] < smaller:
            child, smaller = right, heap[right]
        if key <= smaller:
            break
        heap[index] = smaller
        index = child
    heap[index] = key


def _java_sift_up(heap: list[int], index: int, key: int) -> None:
    while index > 0:
        parent = (index - 1) >> 1
        above = heap[parent]
        if key >= above:
            break
        heap[index] = above
        index = parent
    heap[index] = key


def _java_remove_at(heap: list[int], index: int) -> None:
    """``PriorityQueue.removeAt``: the last entry fills the hole, sifted down, else up."""
    moved = heap.pop()
    if index == len(heap):
        return
    _java_sift_down(heap, index, moved)
    if heap[index] is moved:
        _java_sift_up(heap, index, moved)


def _in_order_at(heap: list[int], index: int) -> bool:
    """Whether the entry at ``index`` is ordered against its parent and children."""
    key, size = heap[index], len(heap)
    if index > 0 and heap[(index - 1) >> 1] > key:
        return False
    child = 2 * index + 1
    return all(key <= heap[c] for c in (child, child + 1) if c < size)


def _in_heap_order(heap: list[int]) -> bool:
    """Whether every entry is ordered against its children (in C: a few slices and maps)."""
    return all(map(le, heap, heap[1::2])) and all(map(le, heap, heap[2::2]))


class _Movement:
    """A scheduled movement of ``task`` away from ``destination`` (the balanced placement)."""

    __slots__ = ("caught_up_count", "destination", "task")

    def __init__(self, task: TaskId, destination: int, caught_up_count: int) -> None:
        self.task = task
        self.destination = destination
        self.caught_up_count = caught_up_count


def _movement_less(a: _Movement, b: _Movement) -> bool:
    return (a.caught_up_count, a.task) < (b.caught_up_count, b.task)


def _should_move_a_task(states: _ClientStates, source: int, destination: int) -> bool:
    skew = states.load(source) - states.load(destination)
    if skew <= 0:
        return False
    proposed_at_destination = (states.count[destination] + 1.0) / states.capacity[destination]
    proposed_at_source = (states.count[source] - 1.0) / states.capacity[source]
    proposed_skew = proposed_at_source - proposed_at_destination
    # A move that only creates an imbalance the other way, or does not improve, is refused.
    return 0 <= proposed_skew < skew


def _balance_over_threads(
    states: _ClientStates,
    tasks_of: list[set[TaskId]],
    unassign: Callable[[int, TaskId], None],
    assign: Callable[[int, TaskId], None],
) -> None:
    clients = range(len(states.capacity))
    count, capacity = states.count, states.capacity
    keep_balancing = True
    while keep_balancing:
        keep_balancing = False
        for source in clients:
            # Only a less-loaded destination can take a task. While ``source`` gives tasks away
            # its load only falls and the others' only rise, so a client not less loaded now
            # never becomes a destination in this round; the rest are checked in order as before.
            load = count[source] / capacity[source]
            lighter = [d for d in clients if count[d] / capacity[d] < load]
            for destination in lighter:
                if not _should_move_a_task(states, source, destination):
                    continue
                for task in sorted(tasks_of[source]):
                    if not _should_move_a_task(states, source, destination):
                        break
                    if not states.holds(destination, task):
                        unassign(source, task)
                        assign(destination, task)
                        keep_balancing = True


class _Assignor:
    """One run of the algorithm of the module docstring over a parsed scenario."""

    def __init__(self, scenario: StreamsScenario) -> None:
        config = scenario.config
        ordered = sorted(scenario.clients, key=lambda c: java_uuid_halves(c.process_id))
        self.clients = ordered
        self.spread = [
            spread(java_util_uuid_hash(*java_uuid_halves(c.process_id))) for c in ordered
        ]
        self.states = _ClientStates([c.capacity for c in ordered])
        self.stateful = sorted(scenario.stateful_tasks)
        self.stateless = sorted(scenario.stateless_tasks)
        self.config = config
        self.remaining_warmups = config.max_warmup_replicas
        self.warmups: list[set[TaskId]] = [set() for _ in ordered]
        self.lag = _lags_by_task(self.stateful, ordered)
        self.by_lag: dict[TaskId, list[int]] = {
            task: _lag_order(lags) for task, lags in self.lag.items()
        }
        self.caught_up: dict[TaskId, set[int]] = {
            task: _caught_up(lags, self.by_lag[task], config.acceptable_recovery_lag)
            for task, lags in self.lag.items()
        }

    # -- helpers ---------------------------------------------------------------------------

    def _caught_up_set(self) -> _JavaLeastLoadedQueue:
        caught_up = self.caught_up
        return _JavaLeastLoadedQueue(
            lambda client, task: client in caught_up[task],
            self.states.count,
            self.states.capacity,
            self.spread,
            caught_up.__getitem__,
        )

    def _needs_movement(self, task: TaskId, client: int) -> bool:
        if client in self.caught_up[task]:
            return False
        lags = self.lag[task]
        return lags[self.by_lag[task][0]] < lags[client]

    def _most_caught_up(
        self, task: TaskId, destination: int, eligible: Callable[[int], bool] | None = None
    ) -> int | None:
        for client in self.by_lag[task]:
            if client == destination:
                break
            if eligible is None or eligible(client):
                return client
        return None

    def _take_warmup_slot(self) -> bool:
        # Kafka's AtomicInteger.getAndDecrement() > 0: the counter keeps going below zero.
        available = self.remaining_warmups > 0
        self.remaining_warmups -= 1
        return available

    def _swap_standby_and_active(self, task: TaskId, source: int, destination: int) -> None:
        states = self.states
        states.unassign_standby(source, task)
        states.assign_active(source, task)
        states.unassign_active(destination, task)
        states.assign_standby(destination, task)

    def _move_active_and_try_to_warm_up(self, task: TaskId, source: int, destination: int) -> None:
        states = self.states
        states.assign_active(source, task)
        states.unassign_active(destination, task)
        if self._take_warmup_slot():
            states.assign_standby(destination, task)
            self.warmups[destination].add(task)

    # -- steps -----------------------------------------------------------------------------

    def assign_active_stateful(self) -> None:
        states = self.states
        for position, task in enumerate(self.stateful):
            states.assign_active(position % len(self.clients), task)
        _balance_over_threads(states, states.active, states.unassign_active, states.assign_active)

    def assign_standbys(self) -> None:
        replicas = self.config.num_standby_replicas
        if replicas == 0:
            return
        states = self.states
        least_loaded = _LeastLoadedSet(
            lambda client, task: not states.holds(client, task),
            states.count,
            states.capacity,
        )
        least_loaded.offer_all(range(len(self.clients)))
        for task in self.stateful:
            for _ in range(replicas):
                client = least_loaded.poll(task)
                if client is None:
                    break
                states.assign_standby(client, task)
                least_loaded.offer(client)
        _balance_over_threads(
            states, states.standby, states.unassign_standby, states.assign_standby
        )

    def move_active_tasks(self) -> int:
        states = self.states
        caught_up_set = self._caught_up_set()
        movements: JavaPriorityQueue[_Movement] = JavaPriorityQueue(_movement_less)
        for client in range(len(self.clients)):
            for task in sorted(states.active[client]):
                if self._needs_movement(task, client):
                    movements.offer(_Movement(task, client, len(self.caught_up[task])))
            caught_up_set.offer(client)
        needed = len(movements)
        for movement in _drain(movements):
            task, destination = movement.task, movement.destination
            source = caught_up_set.poll(task, partial(_holds_standby, states, task))
            if source is not None:
                self._swap_standby_and_active(task, source, destination)
            else:
                source = caught_up_set.poll(task)
                if source is not None:
                    self._move_active_and_try_to_warm_up(task, source, destination)
                else:
                    source = self._most_caught_up(task, destination)
                    if source is None:
                        raise AssertionError(f"no more caught-up client for scheduled {task}")
                    if task in states.standby[source]:
                        self._swap_standby_and_active(task, source, destination)
                    else:
                        self._move_active_and_try_to_warm_up(task, source, destination)
            caught_up_set.offer_all((source, destination))
        return needed

    def move_standby_tasks(self) -> int:
        states = self.states
        caught_up_set = self._caught_up_set()
        movements: JavaPriorityQueue[_Movement] = JavaPriorityQueue(_movement_less)
        for destination in range(len(self.clients)):
            for task in sorted(states.standby[destination]):
                if task in self.warmups[destination]:
                    continue
                if self._needs_movement(task, destination):
                    movements.offer(_Movement(task, destination, len(self.caught_up[task])))
            caught_up_set.offer(destination)
        moved = 0
        for movement in _drain(movements):
            task, destination = movement.task, movement.destination

            def eligible(client: int, task: TaskId = task) -> bool:
                return not states.holds(client, task)

            source = caught_up_set.poll(task, eligible)
            if source is None:
                source = self._most_caught_up(task, destination, eligible)
            if source is None:
                continue  # every better client already holds a replica: nowhere to move it
            states.assign_standby(source, task)
            if self._take_warmup_slot():
                self.warmups[destination].add(task)
            else:
                states.unassign_standby(destination, task)
            caught_up_set.offer_all((source, destination))
            moved += 1
        return moved

    def assign_stateless(self) -> None:
        states = self.states
        least_loaded = _LeastLoadedSet(
            lambda client, task: True, states.active_count, states.capacity
        )
        least_loaded.offer_all(range(len(self.clients)))
        for task in self.stateless:
            client = least_loaded.poll(task)
            assert client is not None
            states.assign_active(client, task)
            least_loaded.offer(client)

    def run(self) -> StreamsAssignment:
        self.assign_active_stateful()
        self.assign_standbys()
        active_movements = self.move_active_tasks()
        standby_movements = self.move_standby_tasks()
        self.assign_stateless()
        states = self.states
        answer = {
            client.process_id: ClientAssignment.of(
                states.active[index], states.standby[index], self.warmups[index]
            )
            for index, client in enumerate(self.clients)
        }
        return StreamsAssignment(
            clients=answer,
            probing_rebalance_needed=active_movements + standby_movements > 0,
            warmup_count=sum(len(w) for w in self.warmups),
        )


def _lags_by_task(
    stateful: Sequence[TaskId], clients: Sequence[StreamsClient]
) -> dict[TaskId, list[int]]:
    """Each stateful task's lags, one per client (in the order of ``clients``)."""
    if len(stateful) < 2:  # itemgetter of one key answers the value, not a tuple
        return {task: [client.task_lags[task] for client in clients] for task in stateful}
    pick = itemgetter(*stateful)
    rows = [pick(client.task_lags) for client in clients]
    return dict(zip(stateful, map(list, zip(*rows, strict=True)), strict=True))


def _lag_order(lags: Sequence[int]) -> list[int]:
    """Client indices by lag (the markers -3 and -2 first), then UUID order (the index: the
    sort is stable)."""
    return sorted(range(len(lags)), key=lags.__getitem__)


def _caught_up(
    lags: Sequence[int], by_lag: Sequence[int], acceptable_recovery_lag: int
) -> set[int]:
    """The clients caught up on a task: lag ``-2``, or ``0`` to ``acceptable_recovery_lag``
    (any lag, ``-3`` included, when that is a Java ``Long.MAX_VALUE``). Lags are ``-3``, ``-2``
    or at least 0, so in lag order those are one run, from the first ``-2`` on."""
    if acceptable_recovery_lag == _JAVA_LONG_MAX:
        return set(by_lag)
    in_order = [lags[client] for client in by_lag]
    first = bisect_left(in_order, LATEST_OFFSET)
    return set(by_lag[first : bisect_right(in_order, acceptable_recovery_lag)])


def _holds_standby(states: _ClientStates, task: TaskId, client: int) -> bool:
    return task in states.standby[client]


def _drain(movements: JavaPriorityQueue[_Movement]) -> Iterator[_Movement]:
    """Poll the movements one by one (older Kafka versions walked the heap's array instead;
    the recorded trunk cases agree with polling)."""
    while (movement := movements.poll()) is not None:
        yield movement


def assign_streams_ha(scenario: StreamsScenario) -> StreamsAssignment:
    """Run the high-availability assignor (see the module docstring) on a parsed scenario.

    The answer lists every client of the scenario, in the scenario's order, and carries the
    scenario's parse warnings.
    """
    result = _Assignor(scenario).run()
    ordered = {client.process_id: result.clients[client.process_id] for client in scenario.clients}
    return StreamsAssignment(
        clients=ordered,
        probing_rebalance_needed=result.probing_rebalance_needed,
        warmup_count=result.warmup_count,
        warnings=scenario.warnings,
    )


#: Checked against Kafka's own ``HighAvailabilityTaskAssignor`` from 3.8 (the oracle drives it
#: through the task-assignment interface of KIP-924, new in 3.8); older lines are not checked.
STREAMS_HA_LINES = KafkaLines(
    refused=tuple(
        (
            line,
            "the oracle drives Kafka's task assignors through the KIP-924 interface that came "
            "with 3.8, so no answer of that line is checked",
        )
        for line in ("3.0", "3.1", "3.2", "3.3", "3.4", "3.5", "3.6", "3.7")
    ),
)

STRATEGY = TaskStrategy(
    name="streams-ha",
    summary=(
        "Kafka Streams' default task assignor (KIP-441): balanced over threads, but a task stays "
        "on a caught-up instance while a warm-up replica restores its state on the instance that "
        "should own it; probing rebalances finish the move."
    ),
    when_to_use=(
        "Kafka Streams applications with state stores: scaling out or replacing an instance "
        "without a long restoration pause. Pair with num.standby.replicas >= 1 for fast failover."
    ),
    consumer_config=(
        "Kafka Streams (StreamsConfig; the default assignor since 2.6): "
        "num.standby.replicas=0, max.warmup.replicas=2, acceptable.recovery.lag=10000, "
        "probing.rebalance.interval.ms=600000 (defaults shown)"
    ),
    protocol="cooperative",
    parse=parse_streams_scenario,
    compute=assign_streams_ha,
    to_json=streams_assignment_to_json,
    kafka_lines=STREAMS_HA_LINES,
)

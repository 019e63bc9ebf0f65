"""The ``streams-ha`` strategy: Kafka Streams' ``HighAvailabilityTaskAssignor`` (KIP-441).

Worked examples traced by hand from the algorithm's steps (see
``assignors/streams/high_availability.py``), the scenario parser's error messages, and properties on
generated applications. Parity with Kafka on the 300 recorded cases is ``test_conformance.py``'s
job.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assignors import registry
from assignors.errors import ScenarioError
from assignors.java_order import (
    JavaPriorityQueue,
    hash_order,
    hash_set_order,
    java_util_uuid_hash,
    java_uuid_halves,
    spread,
)
from assignors.strategy import TaskStrategy
from assignors.streams.high_availability import (
    _JavaLeastLoadedQueue,
    _LeastLoadedSet,
    assign_streams_ha,
)
from assignors.streams.model import (
    MAX_TASKS,
    TaskId,
    parse_streams_scenario,
    streams_assignment_to_json,
    streams_scenario_to_json,
)

STREAMS_HA = registry.get("streams-ha")

A = "00000000-0000-0000-0000-00000000000a"
B = "00000000-0000-0000-0000-00000000000b"
C = "00000000-0000-0000-0000-00000000000c"
#: Sorts before A, B and C in Java: UUID.compareTo reads the high 64 bits as a signed number.
HIGH = "80000000-0000-0000-0000-000000000000"

FAR_BEHIND = 1_000_000


def client(process_id: str, lags: dict[str, int], capacity: int = 1) -> dict[str, Any]:
    return {"process_id": process_id, "capacity": capacity, "task_lags": lags}


def tasks(*ids: str, stateful: bool = True) -> list[dict[str, Any]]:
    return [{"id": task, "stateful": stateful} for task in ids]


def run(scenario: dict[str, Any]) -> dict[str, Any]:
    assert isinstance(STREAMS_HA, TaskStrategy)
    return STREAMS_HA.to_json(STREAMS_HA.compute(STREAMS_HA.parse(scenario)))


def test_registered_as_a_task_strategy() -> None:
    assert isinstance(STREAMS_HA, TaskStrategy)
    assert STREAMS_HA.name == "streams-ha"
    assert STREAMS_HA.protocol == "cooperative"
    assert "num.standby.replicas" in STREAMS_HA.consumer_config
    assert "max.warmup.replicas" in STREAMS_HA.consumer_config
    assert "acceptable.recovery.lag" in STREAMS_HA.consumer_config
    assert "probing.rebalance.interval.ms" in STREAMS_HA.consumer_config


@pytest.mark.parametrize(
    ("scenario", "expected"),
    [
        pytest.param(
            {
                "tasks": tasks("0_0", "0_1", "0_2", "0_3", stateful=False),
                "clients": [client(A, {}), client(HIGH, {})],
            },
            {
                "clients": {
                    A: {"active": ["0_1", "0_3"], "standby": [], "warmup": []},
                    HIGH: {"active": ["0_0", "0_2"], "standby": [], "warmup": []},
                },
                "probing_rebalance_needed": False,
                "warmup_count": 0,
            },
            # Stateless tasks go to the least active load; ties to the first client in Java
            # UUID order, which is HIGH (its high half is negative as a signed long).
            id="stateless-ties-broken-by-signed-uuid-order",
        ),
        pytest.param(
            {
                "tasks": tasks("0_0", "0_1"),
                "clients": [
                    client(A, {"0_0": -2, "0_1": -2}),
                    client(B, {"0_0": FAR_BEHIND, "0_1": FAR_BEHIND}),
                ],
            },
            {
                "clients": {
                    A: {"active": ["0_0", "0_1"], "standby": [], "warmup": []},
                    B: {"active": [], "standby": ["0_1"], "warmup": ["0_1"]},
                },
                "probing_rebalance_needed": True,
                "warmup_count": 1,
            },
            # Balanced: A 0_0, B 0_1. B is far behind on 0_1 and A ran it: 0_1 stays on A and
            # B warms it up; a probing rebalance will hand it over once B caught up.
            id="new-instance-gets-a-warmup-not-the-task",
        ),
        pytest.param(
            {
                "tasks": tasks("0_0", "0_1"),
                "clients": [
                    client(A, {"0_0": -2, "0_1": -2}),
                    client(B, {"0_0": 500, "0_1": 500}),
                ],
            },
            {
                "clients": {
                    A: {"active": ["0_0"], "standby": [], "warmup": []},
                    B: {"active": ["0_1"], "standby": [], "warmup": []},
                },
                "probing_rebalance_needed": False,
                "warmup_count": 0,
            },
            # 500 <= acceptable.recovery.lag (10,000): B counts as caught up, the balanced
            # assignment stands.
            id="caught-up-within-acceptable-recovery-lag",
        ),
        pytest.param(
            {
                "tasks": tasks("0_0", "0_1", "0_2", "0_3"),
                "clients": [
                    client(A, dict.fromkeys(("0_0", "0_1", "0_2", "0_3"), -2)),
                    client(B, dict.fromkeys(("0_0", "0_1", "0_2", "0_3"), FAR_BEHIND)),
                ],
                "config": {"max_warmup_replicas": 1},
            },
            {
                "clients": {
                    A: {"active": ["0_0", "0_1", "0_2", "0_3"], "standby": [], "warmup": []},
                    B: {"active": [], "standby": ["0_1"], "warmup": ["0_1"]},
                },
                "probing_rebalance_needed": True,
                "warmup_count": 1,
            },
            # B should get 0_1 and 0_3; both stay on A. One warm-up slot: 0_1 (task order)
            # gets it, 0_3 waits for a later probing rebalance.
            id="warmups-capped-by-max-warmup-replicas",
        ),
        pytest.param(
            {
                "tasks": tasks("0_0"),
                "clients": [
                    client(A, {"0_0": 0}),
                    client(B, {"0_0": 0}),
                    client(C, {"0_0": 0}),
                ],
                "config": {"num_standby_replicas": 1},
            },
            {
                "clients": {
                    A: {"active": ["0_0"], "standby": [], "warmup": []},
                    B: {"active": [], "standby": ["0_0"], "warmup": []},
                    C: {"active": [], "standby": [], "warmup": []},
                },
                "probing_rebalance_needed": False,
                "warmup_count": 0,
            },
            # The standby goes to the least-loaded client not holding the task; B and C tie,
            # B comes first in UUID order.
            id="standby-to-least-loaded-other-client",
        ),
        pytest.param(
            {
                "tasks": tasks("0_0", "0_1"),
                "clients": [
                    client(A, {"0_0": -2, "0_1": 0}),
                    client(B, {"0_0": 0, "0_1": FAR_BEHIND}),
                ],
                "config": {"num_standby_replicas": 1},
            },
            {
                "clients": {
                    A: {"active": ["0_0", "0_1"], "standby": [], "warmup": []},
                    B: {"active": [], "standby": ["0_0", "0_1"], "warmup": []},
                },
                "probing_rebalance_needed": True,
                "warmup_count": 0,
            },
            # Balanced: A active 0_0 + standby 0_1, B active 0_1 + standby 0_0. B is far behind
            # on 0_1 while A holds a caught-up standby of it: the two swap (no warm-up slot).
            id="caught-up-standby-swaps-with-active",
        ),
    ],
)
def test_worked_examples(scenario: dict[str, Any], expected: dict[str, Any]) -> None:
    assert run(scenario) == expected


# ---------------------------------------------------------------------------------------------
# Parser errors: every problem, with its JSON path and what to do.


def _one_task_app(**client_fields: Any) -> dict[str, Any]:
    entry = {"process_id": A, "capacity": 1, "task_lags": {"0_0": 0}, **client_fields}
    return {"tasks": tasks("0_0"), "clients": [entry]}


@pytest.mark.parametrize(
    ("scenario", "message"),
    [
        pytest.param(
            {"tasks": tasks("0_0", "0_1"), "clients": [client(A, {"0_1": 5})]},
            "scenario.clients[0].task_lags: no lag for stateful task 0_0; every client needs a "
            "lag for every stateful task (-2 if it ran the task as active, -3 if unknown, else "
            "the number of records its state is behind)",
            id="missing-lag",
        ),
        pytest.param(
            _one_task_app(process_id="instance-1"),
            'scenario.clients[0].process_id: "instance-1" is not a UUID; expected 32 hex digits '
            "in the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
            id="bad-uuid",
        ),
        pytest.param(
            _one_task_app(process_id=A.upper()),
            f'scenario.clients[0].process_id: "{A.upper()}" must be written in lower case, as '
            "Kafka Streams prints it",
            id="upper-case-uuid",
        ),
        pytest.param(
            {**_one_task_app(), "config": {"max_warmup_replicas": 0}},
            "scenario.config.max_warmup_replicas: expected an integer from 1 to 2,147,483,647, "
            "got 0 (max.warmup.replicas must be at least 1)",
            id="max-warmup-replicas-zero",
        ),
        pytest.param(
            {**_one_task_app(), "config": {"probing_rebalance_interval_ms": 30_000}},
            "scenario.config.probing_rebalance_interval_ms: expected an integer from 60,000 to "
            "9,223,372,036,854,775,807, got 30,000 (probing.rebalance.interval.ms must be at "
            "least one minute)",
            id="probing-interval-below-a-minute",
        ),
        pytest.param(
            {"tasks": tasks("0_0"), "clients": [client(A, {"0_0": 0}), client(A, {"0_0": 1})]},
            f'scenario.clients[1].process_id: duplicate client "{A}" (first at '
            "scenario.clients[0]); each instance appears once",
            id="duplicate-client",
        ),
        pytest.param(
            {"tasks": tasks("0_0", "0_0"), "clients": [client(A, {"0_0": 0})]},
            'scenario.tasks[1].id: duplicate task "0_0" (first at scenario.tasks[0])',
            id="duplicate-task",
        ),
        pytest.param(
            _one_task_app(prev_active=["0_0", "3_1"]),
            'scenario.clients[0].prev_active[1]: unknown task "3_1"; it is not in scenario.tasks',
            id="unknown-prev-active",
        ),
        pytest.param(
            _one_task_app(capacity="2"),
            "scenario.clients[0].capacity: expected an integer, got a string",
            id="capacity-wrong-type",
        ),
        pytest.param(
            _one_task_app(capacity=1_000_000),
            "scenario.clients[0].capacity: expected an integer from 1 to 10,000, got 1,000,000 "
            "(the number of stream threads)",
            id="capacity-absurd",
        ),
        pytest.param(
            _one_task_app(task_lags={"0_0": -7}),
            "scenario.clients[0].task_lags.0_0: lag -7 is not valid; use a record count >= 0, "
            "-2 (ran the task as active last time) or -3 (offset unknown)",
            id="negative-lag",
        ),
        pytest.param(
            {"tasks": [{"id": "0_0", "stateful": False}], "clients": [client(A, {"0_0": 0})]},
            'scenario.clients[0].task_lags.0_0: task "0_0" is stateless; lags exist only for '
            'stateful tasks (remove this entry or mark the task "stateful": true)',
            id="lag-for-stateless-task",
        ),
        pytest.param(
            {"tasks": [{"id": "0-1", "stateful": True}], "clients": [client(A, {})]},
            'scenario.tasks[0].id: "0-1" is not a task id; expected "<subtopology>_<partition>" '
            'with two non-negative integers, e.g. "0_3"',
            id="malformed-task-id",
        ),
        pytest.param(
            {"tasks": [], "clients": []},
            "scenario.clients: no clients; an application needs at least one instance",
            id="no-clients",
        ),
        pytest.param(
            [],
            "scenario: expected a JSON object, got a list",
            id="not-an-object",
        ),
    ],
)
def test_parser_rejects_with_an_actionable_message(scenario: object, message: str) -> None:
    with pytest.raises(ScenarioError) as error:
        parse_streams_scenario(scenario)
    assert error.value.problems == (message,)


def test_parser_refuses_absurd_sizes() -> None:
    raw = {"tasks": [{"id": f"0_{p}"} for p in range(MAX_TASKS + 1)], "clients": [client(A, {})]}
    with pytest.raises(ScenarioError) as error:
        parse_streams_scenario(raw)
    assert error.value.problems == (
        f"scenario.tasks: {MAX_TASKS + 1:,} tasks; at most {MAX_TASKS:,}",
    )


def test_parser_reports_every_problem_at_once() -> None:
    scenario = {
        "tasks": tasks("0_0", "0_1"),
        "clients": [
            {"process_id": "x", "capacity": 0, "task_lags": {"0_0": 1}},
            client(B, {"0_0": 1, "0_1": True}),
        ],
        "config": {"max_warmup_replicas": 0, "probing_rebalance_interval_ms": 1},
    }
    with pytest.raises(ScenarioError) as error:
        parse_streams_scenario(scenario)
    paths = [problem.split(": ", 1)[0] for problem in error.value.problems]
    assert paths == [
        "scenario.config.max_warmup_replicas",
        "scenario.config.probing_rebalance_interval_ms",
        "scenario.clients[0].process_id",
        "scenario.clients[0].capacity",
        "scenario.clients[0].task_lags",
        "scenario.clients[1].task_lags.0_1",
    ]


def test_unknown_fields_are_warnings_carried_to_the_answer() -> None:
    scenario = {**_one_task_app(), "config": {"num_standbys": 1}}
    answer = run(scenario)
    assert answer["warnings"] == [
        "scenario.config.num_standbys: unknown field, ignored (known fields: "
        "num_standby_replicas, acceptable_recovery_lag, max_warmup_replicas, "
        "probing_rebalance_interval_ms)"
    ]


def test_task_ids_order_numerically() -> None:
    assert sorted(map(TaskId.parse, ["0_10", "1_0", "0_2"])) == [
        TaskId(0, 2),
        TaskId(0, 10),
        TaskId(1, 0),
    ]


# ---------------------------------------------------------------------------------------------
# Properties on generated applications.


@st.composite
def applications(draw: st.DrawFn) -> dict[str, Any]:
    subtopologies = draw(st.integers(1, 3))
    task_ids = [f"{s}_{p}" for s in range(subtopologies) for p in range(draw(st.integers(1, 8)))]
    stateful = {task: draw(st.booleans()) for task in task_ids}
    process_ids = draw(st.lists(st.uuids().map(str), min_size=1, max_size=6, unique=True))
    lag_values = st.one_of(
        st.sampled_from([-2, -3]), st.integers(0, 200), st.integers(10_001, 2_000_000)
    )
    clients = [
        {
            "process_id": process_id,
            "capacity": draw(st.integers(1, 4)),
            "task_lags": {task: draw(lag_values) for task in task_ids if stateful[task]},
        }
        for process_id in process_ids
    ]
    config = {
        "num_standby_replicas": draw(st.integers(0, 3)),
        "acceptable_recovery_lag": draw(st.sampled_from([0, 100, 10_000])),
        "max_warmup_replicas": draw(st.integers(1, 4)),
    }
    return {
        "tasks": [{"id": task, "stateful": stateful[task]} for task in task_ids],
        "clients": clients,
        "config": config,
    }


@settings(max_examples=300, deadline=None)
@given(applications())
def test_every_poll_sees_the_current_load_of_every_queued_client(raw: dict[str, Any]) -> None:
    """Why a sorted list answers like Kafka's heap in steps 2 and 5 (``_LeastLoadedSet``): no
    queued client's load changes there, so Java's heap stays in order. (The movement steps
    change queued loads, and there the heap's layout decides: ``_JavaLeastLoadedQueue``.)"""
    original = _LeastLoadedSet.poll

    def checked(
        self: _LeastLoadedSet, task: TaskId, extra: Callable[[int], bool] | None = None
    ) -> int | None:
        for client, key in self._key_of.items():
            assert key == (self._counts[client] / self._capacities[client], client)
        return original(self, task, extra)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_LeastLoadedSet, "poll", checked)
        assign_streams_ha(parse_streams_scenario(raw))


@settings(max_examples=300, deadline=None)
@given(applications())
def test_properties(raw: dict[str, Any]) -> None:
    scenario = parse_streams_scenario(raw)
    answer = assign_streams_ha(scenario)
    config = scenario.config
    assert list(answer.clients) == [c["process_id"] for c in raw["clients"]]

    # Every task is active on exactly one client.
    actives = [task for tasks_of in answer.clients.values() for task in tasks_of.active]
    assert sorted(actives) == sorted(task.id for task in scenario.tasks)

    # No client holds two replicas of one task; warm-ups are standbys of stateful tasks.
    stateful = set(scenario.stateful_tasks)
    for tasks_of in answer.clients.values():
        replicas = list(tasks_of.active) + list(tasks_of.standby)
        assert len(replicas) == len(set(replicas))
        assert set(tasks_of.warmup) <= set(tasks_of.standby) <= stateful

    # Warm-ups never exceed max_warmup_replicas; real standbys never exceed the setting.
    assert answer.warmup_count == sum(len(t.warmup) for t in answer.clients.values())
    assert answer.warmup_count <= config.max_warmup_replicas
    for task in stateful:
        standbys = sum(task in t.standby and task not in t.warmup for t in answer.clients.values())
        assert standbys <= config.num_standby_replicas

    # A warm-up is only ever handed out with a follow-up probing rebalance.
    assert answer.probing_rebalance_needed or answer.warmup_count == 0

    # Deterministic, whatever the order of the clients and tasks in the input.
    shuffled = dict(raw)
    rng = random.Random(len(raw["clients"]))
    shuffled["clients"] = rng.sample(raw["clients"], len(raw["clients"]))
    shuffled["tasks"] = rng.sample(raw["tasks"], len(raw["tasks"]))
    again = assign_streams_ha(parse_streams_scenario(shuffled))
    assert dict(again.clients) == dict(answer.clients)
    assert again.probing_rebalance_needed == answer.probing_rebalance_needed
    assert streams_assignment_to_json(answer) == streams_assignment_to_json(
        assign_streams_ha(scenario)
    )


@settings(max_examples=100, deadline=None)
@given(applications())
def test_scenario_json_round_trip(raw: dict[str, Any]) -> None:
    scenario = parse_streams_scenario(raw)
    assert parse_streams_scenario(streams_scenario_to_json(scenario)) == scenario


def test_a_full_probe_of_unbalanced_lags_still_balances_actives() -> None:
    # Every client caught up everywhere: the balanced assignment stands, 2 tasks per thread.
    ids = [f"{s}_{p}" for s in range(2) for p in range(6)]
    raw = {
        "tasks": tasks(*ids),
        "clients": [client(pid, dict.fromkeys(ids, 0), capacity=2) for pid in (A, B, C)],
    }
    answer = assign_streams_ha(parse_streams_scenario(raw))
    assert [len(t.active) for t in answer.clients.values()] == [4, 4, 4]
    assert not answer.probing_rebalance_needed


# ---------------------------------------------------------------------------------------------
# The Java orders the assignor relies on.


@pytest.mark.parametrize(
    ("smaller", "larger"),
    [
        ("ffffffff-ffff-ffff-ffff-ffffffffffff", "00000000-0000-0000-0000-000000000000"),
        ("80000000-0000-0000-0000-000000000000", "7fffffff-ffff-ffff-ffff-ffffffffffff"),
        ("00000000-0000-0000-8000-000000000000", "00000000-0000-0000-0000-000000000000"),
        ("00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000002"),
    ],
)
def test_uuid_order_is_java_compare_to(smaller: str, larger: str) -> None:
    assert java_uuid_halves(smaller) < java_uuid_halves(larger)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2**32 - 1), unique=True, max_size=60))
def test_hash_set_order_matches_the_hash_map_model(codes: list[int]) -> None:
    keys = list(range(len(codes)))
    assert hash_set_order(keys, codes) == hash_order(keys, codes.__getitem__)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-50, 50)))
def test_java_priority_queue_polls_in_order_when_keys_do_not_change(values: list[int]) -> None:
    queue: JavaPriorityQueue[int] = JavaPriorityQueue(lambda a, b: a < b)
    for value in values:
        queue.offer(value)
    polled = [queue.poll() for _ in values]
    assert polled == sorted(values)
    assert queue.poll() is None


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(1, 4), min_size=1, max_size=12),
    st.lists(st.tuples(st.sampled_from(["offer", "poll", "remove", "load"]), st.integers(0, 11))),
)
def test_key_ordered_heap_moves_like_a_comparator_heap(
    capacities: list[int], operations: list[tuple[str, int]]
) -> None:
    """Ordering by a key read afresh moves exactly like Java's comparator under changing loads."""
    counts = [0] * len(capacities)

    def less(a: int, b: int) -> bool:
        weight_a, weight_b = counts[a] / capacities[a], counts[b] / capacities[b]
        return weight_a < weight_b or (weight_a == weight_b and a < b)

    model: JavaPriorityQueue[int] = JavaPriorityQueue(less)
    heap: JavaPriorityQueue[int] = JavaPriorityQueue(
        key=lambda client: (counts[client] / capacities[client], client)
    )
    for operation, number in operations:
        client_index = number % len(capacities)
        if operation == "offer":
            model.offer(client_index)
            heap.offer(client_index)
        elif operation == "poll":
            assert heap.poll() == model.poll()
        elif operation == "remove":
            assert heap.remove(client_index) == model.remove(client_index)
        else:
            counts[client_index] += 1  # a load changes while the client sits in the heap
        assert list(heap) == list(model)


class _KafkaConstrainedPrioritySet:
    """Kafka's ``ConstrainedPrioritySet`` written out over the step-for-step Java heap: the
    model :class:`_JavaLeastLoadedQueue` must move exactly like."""

    def __init__(self, counts: list[int], capacities: list[int], hashes: list[int]) -> None:
        def less(a: int, b: int) -> bool:
            return (counts[a] / capacities[a], a) < (counts[b] / capacities[b], b)

        self.queue: JavaPriorityQueue[int] = JavaPriorityQueue(less)
        self.unique: set[int] = set()
        self.hashes = hashes

    def poll(self, satisfies: Callable[[int], bool]) -> int | None:
        invalid: list[int] = []
        found = None
        while len(self.queue):
            candidate = self.queue.poll()
            assert candidate is not None
            self.unique.discard(candidate)
            if satisfies(candidate):
                found = candidate
                break
            invalid.append(candidate)
        for client in hash_set_order(invalid, [self.hashes[c] for c in invalid]):
            self.offer(client)
        return found

    def offer(self, client: int) -> None:
        if client in self.unique:
            self.queue.remove(client)
        else:
            self.unique.add(client)
        self.queue.offer(client)


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 20), st.randoms(use_true_random=False))
def test_the_movement_queue_moves_like_kafkas_heap(size: int, rng: Any) -> None:
    """Sixty movements as steps 3 and 4 make them: a poll under a constraint (``None`` when no
    queued client satisfies it: then a queued client is the source, as the most caught-up one
    is), the source's load grows and often the queued destination's falls, then
    ``offerAll(source, destination)``. The same answers and the same heap array as Java's."""
    capacities = [rng.randint(1, 4) for _ in range(size)]
    counts = [rng.randrange(6) for _ in capacities]
    hashes = [java_util_uuid_hash(rng.getrandbits(64), rng.getrandbits(64)) for _ in capacities]
    model = _KafkaConstrainedPrioritySet(counts, capacities, hashes)
    satisfying: set[int] = set()  # the clients the next poll accepts
    ours = _JavaLeastLoadedQueue(
        lambda client, task: client in satisfying, counts, capacities, [spread(h) for h in hashes]
    )
    for client in range(size):
        model.offer(client)
        ours.offer(client)
    for _ in range(60):
        satisfying.clear()
        satisfying.update(rng.sample(range(size), rng.randint(0, min(size, 3))))
        source = ours.poll(TaskId(0, 0))
        assert source == model.poll(satisfying.__contains__)
        if source is None:
            source = rng.randrange(size)
        destination = rng.randrange(size)
        if source != destination:
            counts[source] += 1
            if counts[destination] > 0 and rng.random() < 0.8:
                counts[destination] -= 1
            model.offer(source)
            model.offer(destination)
            ours.offer_all((source, destination))
        assert [ours._client_of[key] for key in ours._heap] == list(model.queue)

"""The ``streams-sticky`` strategy: Kafka Streams' KIP-924 ``StickyTaskAssignor`` (client side).

A worked example traced by hand from the steps in ``assignors/streams/client_sticky.py`` and
invariants on generated applications. Parity with Kafka itself: the differential test (and
``scripts/differential.py``).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assignors import TaskStrategy, parse_streams_scenario, registry
from assignors.streams.client_sticky import (
    StreamsStickyTaskLimitError,
    assign_streams_sticky,
    check_kafka_task_limit,
    task_id_hash,
    task_pairs_capacity,
)
from assignors.streams.model import TaskId
from tests.differential.generate import streams_scenario

STRATEGY = registry.get("streams-sticky")
A = "00000000-0000-0000-0000-00000000000a"
B = "00000000-0000-0000-0000-00000000000b"


def test_registered_as_a_client_side_task_strategy() -> None:
    assert isinstance(STRATEGY, TaskStrategy)
    assert "task.assignor.class=" in STRATEGY.consumer_config
    assert STRATEGY.protocol == "cooperative"


def test_task_id_hash_is_kafka_streams_objects_hash() -> None:
    # Objects.hash(0, 3, null) = ((31 * 1 + 0) * 31 + 3) * 31 + 0
    assert task_id_hash(TaskId(0, 3)) == 29_884


def test_previous_tasks_stay_up_to_the_quota_in_hash_order() -> None:
    """A ran 0_0..0_2 but its quota is ceil(4 * 1 / 2) = 2. The previous tasks go back in
    HashMap order of their ids (0_3, 0_2, 0_1, 0_0: buckets 12 to 15), so A keeps 0_2 and 0_1;
    0_0 then goes to B: A (load 2) must give way to the less loaded B."""
    scenario = parse_streams_scenario(
        {
            "tasks": [{"id": f"0_{p}"} for p in range(4)],
            "clients": [
                {"process_id": A, "capacity": 1, "prev_active": ["0_0", "0_1", "0_2"]},
                {"process_id": B, "capacity": 1, "prev_active": ["0_3"]},
            ],
        }
    )
    answer = assign_streams_sticky(scenario)
    assert answer.clients[A].active == (TaskId(0, 1), TaskId(0, 2))
    assert answer.clients[B].active == (TaskId(0, 0), TaskId(0, 3))
    assert not answer.probing_rebalance_needed and answer.warmup_count == 0


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_invariants_on_generated_applications(seed: int) -> None:
    scenario = parse_streams_scenario(streams_scenario(random.Random(seed)))
    answer = assign_streams_sticky(scenario)
    assert list(answer.clients) == [client.process_id for client in scenario.clients]
    active = sorted(t for tasks in answer.clients.values() for t in tasks.active)
    assert active == [task.id for task in scenario.tasks]
    standbys = [t for tasks in answer.clients.values() for t in tasks.standby]
    assert set(standbys) <= set(scenario.stateful_tasks)
    for task in set(standbys):
        assert standbys.count(task) <= scenario.config.num_standby_replicas
    for tasks in answer.clients.values():
        assert not set(tasks.active) & set(tasks.standby)
        assert tasks.warmup == ()


def _fresh_tasks(count: int) -> dict[str, object]:
    """``count`` stateless tasks over ten fresh clients (ours answers such a group in ~0.2 s)."""
    return {
        "tasks": [{"id": f"{i // 1000}_{i % 1000}", "stateful": False} for i in range(count)],
        "clients": [
            {"process_id": f"00000000-0000-0000-0000-{c:012d}", "capacity": 1} for c in range(10)
        ],
    }


@pytest.mark.parametrize(
    ("tasks", "kafkas_capacity"),
    # Kafka 4.4.0's and 3.9.2's own messages on these sizes (the oracle's answers).
    [(46_342, -1_073_716_337), (65_536, -32_768)],
)
def test_kafkas_task_limit_raises_kafkas_error(tasks: int, kafkas_capacity: int) -> None:
    scenario = parse_streams_scenario(_fresh_tasks(tasks))
    with pytest.raises(StreamsStickyTaskLimitError) as raised:
        assign_streams_sticky(scenario)
    message = str(raised.value)
    assert message.startswith(f"Illegal initial capacity: {kafkas_capacity}. ")
    assert "Kafka's limit" in message and f"{tasks:,} tasks" in message


@pytest.mark.parametrize("tasks", [46_341, 65_537])
def test_just_inside_kafkas_task_limit_answers(tasks: int) -> None:
    """46,341 is the last size before the overflow; at 65,537 the product wraps back above zero
    and Kafka does not throw either (it sizes its pair set 32,768)."""
    answer = assign_streams_sticky(parse_streams_scenario(_fresh_tasks(tasks)))
    assert sum(len(c.active) for c in answer.clients.values()) == tasks


@given(st.integers(min_value=1, max_value=10**6))
def test_kafka_throws_exactly_where_its_int_product_wraps_negative(tasks: int) -> None:
    """Java's ``tasks * (tasks - 1)`` keeps the low 32 bits as a signed int; Kafka throws when
    that is negative, i.e. when bit 31 of the true product is set."""
    throws = (tasks * (tasks - 1)) >> 31 & 1 == 1
    assert (task_pairs_capacity(tasks) < 0) == throws
    try:
        check_kafka_task_limit(tasks)
    except StreamsStickyTaskLimitError:
        assert throws
    else:
        assert not throws

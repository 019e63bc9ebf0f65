"""Every Streams task strategy on one scenario, per client (``compare_task_strategies``).

Worked examples by hand on a three-client application, and properties on generated Streams
groups (the differential test's generator): each comparison is its strategy's own answer per
client, every task runs active exactly once, and a strategy that refuses does not stop the rest.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assignors import (
    AssignmentExplorerError,
    StreamsAssignment,
    TaskStrategy,
    compare_task_strategies,
    parse_streams_scenario,
    registry,
)
from assignors.streams.compare import moved_active
from assignors.streams.model import ClientAssignment, TaskId
from tests.differential.generate import streams_group_scenario

A, B, C = (f"{n}0000000-0000-4000-8000-000000000000" for n in "abc")
THREE_CLIENTS = {
    "tasks": [{"id": f"0_{p}", "stateful": False} for p in range(6)],
    "clients": [
        {"process_id": A, "capacity": 1, "prev_active": ["0_0", "0_1", "0_2"]},
        {"process_id": B, "capacity": 1, "prev_active": ["0_3", "0_4", "0_5"]},
        {"process_id": C, "capacity": 1},
    ],
}


def _t(text: str) -> TaskId:
    return TaskId.parse(text)


def test_moves_count_tasks_whose_active_client_changed() -> None:
    scenario = parse_streams_scenario(THREE_CLIENTS)
    clients = {
        A: ClientAssignment.of([_t("0_0"), _t("0_1")], []),
        B: ClientAssignment.of([_t("0_3"), _t("0_4")], []),
        C: ClientAssignment.of([_t("0_2"), _t("0_5")], []),
    }
    assert moved_active(scenario, clients) == 2  # 0_2 from a, 0_5 from b


def test_a_new_task_is_not_a_move() -> None:
    scenario = parse_streams_scenario(
        {**THREE_CLIENTS, "tasks": [*THREE_CLIENTS["tasks"], {"id": "1_0", "stateful": False}]}
    )
    clients = {
        A: ClientAssignment.of([_t("0_0"), _t("0_1"), _t("0_2")], []),
        B: ClientAssignment.of([_t("0_3"), _t("0_4"), _t("0_5")], []),
        C: ClientAssignment.of([_t("1_0")], []),
    }
    assert moved_active(scenario, clients) == 0


def test_a_joining_client_moves_stateless_tasks_round_robin_under_ha_and_stickily_else() -> None:
    # Six stateless tasks, two clients running three each, a third joins. The high-availability
    # assignor deals stateless tasks out round-robin in task order (a0: 0_0 0_3, b0: 0_1 0_4,
    # c0: 0_2 0_5: four move); the two sticky assignors keep two per old client (two move).
    scenario = parse_streams_scenario(THREE_CLIENTS)
    results = {r.strategy: r for r in compare_task_strategies(scenario, registry.task_strategies())}
    assert list(results) == ["streams-ha", "streams-sticky", "streams-group-sticky"]
    for result in results.values():
        assert result.error is None
        assert [len(held.active) for held in result.clients.values()] == [2, 2, 2]
        assert result.warmups == 0 and not result.probing_rebalance_needed
    assert results["streams-ha"].clients[A].active == (_t("0_0"), _t("0_3"))
    assert {name: r.moved_active for name, r in results.items()} == {
        "streams-ha": 4, "streams-sticky": 2, "streams-group-sticky": 2,
    }  # fmt: skip


def test_a_strategy_that_refuses_leaves_the_others_running() -> None:
    def refuse(scenario: Any) -> Any:
        raise AssignmentExplorerError("not for this application")

    ha = registry.task_strategies()["streams-ha"]
    broken = TaskStrategy(
        "broken", "s", "w", "c", "eager", ha.parse, refuse, ha.to_json
    )  # fmt: skip
    scenario = parse_streams_scenario(THREE_CLIENTS)
    results = compare_task_strategies(scenario, {"broken": broken, "streams-ha": ha})
    assert [r.strategy for r in results] == ["broken", "streams-ha"]
    assert results[0].error == "not for this application" and not results[0].clients
    assert results[1].error is None and results[1].clients


@given(st.integers(min_value=0, max_value=10**9))
def test_each_comparison_is_its_strategys_own_answer_per_client(seed: int) -> None:
    scenario = parse_streams_scenario(streams_group_scenario(random.Random(seed)))
    every_task = sorted(task.id for task in scenario.tasks)
    for result in compare_task_strategies(scenario, registry.task_strategies()):
        assert result.error is None, result.error
        assert list(result.clients) == [c.process_id for c in scenario.clients]
        assert sorted(t for held in result.clients.values() for t in held.active) == every_task
        answer = registry.task_strategies()[result.strategy].compute(scenario)
        if isinstance(answer, StreamsAssignment):
            assert {p: h for p, h in result.clients.items() if h != ClientAssignment()} == {
                p: h for p, h in answer.clients.items() if h != ClientAssignment()
            }
        else:
            for member in answer.members.values():
                held = result.clients[member.process_id]
                assert set(member.active) <= set(held.active)
                assert set(member.standby) <= set(held.standby)
        assert 0 <= result.moved_active <= len(every_task)


@pytest.mark.parametrize("name", sorted(registry.task_strategies()))
def test_every_registered_task_strategy_is_compared(name: str) -> None:
    scenario = parse_streams_scenario(THREE_CLIENTS)
    names = [r.strategy for r in compare_task_strategies(scenario, registry.task_strategies())]
    assert name in names

"""Probing rebalances until a Kafka Streams application settles (``streams_convergence``).

The worked examples are traced by hand in the comments: a fourth instance joins a three-instance
application of six stateful tasks (one thread each, no standbys, two warm-up slots, 10,000
records of acceptable lag). Before the join, round-robin gave A {0_0, 0_3}, B {0_1, 0_4},
C {0_2, 0_5}; every other copy is 1,000,000 records behind. After the join the balanced
placement is A {0_0, 0_4}, B {0_1, 0_5}, C {0_2}, D {0_3}.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assignors.streams.convergence import ConvergenceInputError, simulate_convergence
from assignors.streams.model import StreamsScenario, TaskId, parse_streams_scenario
from tests.assignors.test_streams_ha import applications

A = "00000000-0000-0000-0000-00000000000a"
B = "00000000-0000-0000-0000-00000000000b"
C = "00000000-0000-0000-0000-00000000000c"
D = "00000000-0000-0000-0000-00000000000d"
FULL = 1_000_000
TASKS = [f"0_{p}" for p in range(6)]
BEFORE_JOIN = {A: {"0_0", "0_3"}, B: {"0_1", "0_4"}, C: {"0_2", "0_5"}, D: set()}


def join_scenario(**config: Any) -> StreamsScenario:
    settings_: dict[str, Any] = {"max_warmup_replicas": 2, **config}
    return parse_streams_scenario(
        {
            "tasks": [{"id": task, "stateful": True} for task in TASKS],
            "clients": [
                {
                    "process_id": pid,
                    "capacity": 1,
                    "prev_active": sorted(owned),
                    "task_lags": {task: -2 if task in owned else FULL for task in TASKS},
                }
                for pid, owned in BEFORE_JOIN.items()
            ],
            "config": settings_,
        }
    )


def actives(step_assignment: Any) -> dict[str, list[str]]:
    return {
        pid: [str(task) for task in tasks.active] for pid, tasks in step_assignment.clients.items()
    }


def warmups(step_assignment: Any) -> dict[str, list[str]]:
    return {
        pid: [str(task) for task in tasks.warmup]
        for pid, tasks in step_assignment.clients.items()
        if tasks.warmup
    }


def test_new_instance_joins_three_instance_app() -> None:
    # 1,000 records/s for 600 s restores 600,000 records per interval: a warm-up needs two
    # intervals to get from 1,000,000 to 0.
    run = simulate_convergence(join_scenario(), restore_speed=1_000)
    steps = [step.assignment for step in run.steps]

    # Step 0: 0_3 (for D), 0_4 (for A) and 0_5 (for B) stay where they ran; the two warm-up
    # slots go to 0_3 on D and 0_4 on A (task order); 0_5 must wait.
    assert actives(steps[0]) == {
        A: ["0_0", "0_3"],
        B: ["0_1", "0_4"],
        C: ["0_2", "0_5"],
        D: [],
    }
    assert warmups(steps[0]) == {A: ["0_4"], D: ["0_3"]}
    # Step 1: the warm-ups are 400,000 behind: same answer.
    assert actives(steps[1]) == actives(steps[0])
    assert warmups(steps[1]) == warmups(steps[0])
    assert run.steps[1].lags[D][TaskId(0, 3)] == 400_000
    # Step 2: D and A caught up: D runs 0_3, A runs 0_4; 0_5 now gets a warm-up on B.
    assert actives(steps[2]) == {A: ["0_0", "0_4"], B: ["0_1"], C: ["0_2", "0_5"], D: ["0_3"]}
    assert warmups(steps[2]) == {B: ["0_5"]}
    # Step 3: B is 400,000 behind; step 4: caught up, the balanced placement stands.
    assert actives(steps[3]) == actives(steps[2])
    assert actives(steps[4]) == {A: ["0_0", "0_4"], B: ["0_1", "0_5"], C: ["0_2"], D: ["0_3"]}
    assert [s.probing_rebalance_needed for s in steps] == [True, True, True, True, False]
    assert run.converged
    assert run.probing_rebalances == 4
    # The new instance holds its share (one task) from the second probing rebalance on.
    first_share = next(i for i, s in enumerate(steps) if len(s.clients[D].active) == 1)
    assert first_share == 2
    assert [step.time_ms for step in run.steps] == [0, 600_000, 1_200_000, 1_800_000, 2_400_000]


def test_fast_restore_settles_in_two_probing_rebalances() -> None:
    # 2,000 records/s restores 1,200,000 per interval: every warm-up is done in one interval.
    run = simulate_convergence(join_scenario(), restore_speed=2_000)
    assert run.converged
    assert run.probing_rebalances == 2
    assert actives(run.steps[1].assignment)[D] == ["0_3"]


def test_a_shorter_interval_needs_more_probing_rebalances() -> None:
    # 1,000 records/s for 300 s: 300,000 per interval, four intervals per warm-up.
    run = simulate_convergence(join_scenario(), restore_speed=1_000, probing_interval_ms=300_000)
    assert run.converged
    assert run.probing_rebalances == 8


def test_input_faster_than_restore_never_converges() -> None:
    rates = {TaskId(0, p): 1_000.0 for p in range(6)}
    run = simulate_convergence(
        join_scenario(), restore_speed=1_000, input_rates=rates, max_probing_rebalances=5
    )
    assert not run.converged
    assert run.probing_rebalances == 5
    # D's warm-up of 0_3 never gains on the changelog: still 1,000,000 behind.
    assert run.steps[-1].lags[D][TaskId(0, 3)] == FULL


def test_input_rate_makes_idle_copies_fall_behind() -> None:
    rates = {TaskId(0, 5): 10.0}
    run = simulate_convergence(
        join_scenario(), restore_speed=2_000, input_rates=rates, max_probing_rebalances=1
    )
    # A never held 0_5: 600 s of 10 records/s adds 6,000 records to its lag.
    assert run.steps[1].lags[A][TaskId(0, 5)] == FULL + 6_000


def test_already_balanced_app_needs_no_probing_rebalance() -> None:
    scenario = join_scenario(acceptable_recovery_lag=FULL)
    run = simulate_convergence(scenario, restore_speed=1)
    assert run.converged
    assert run.probing_rebalances == 0


def test_the_input_scenario_is_not_changed() -> None:
    scenario = join_scenario()
    simulate_convergence(scenario, restore_speed=1_000)
    assert scenario == join_scenario()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        pytest.param(
            {"restore_speed": 0},
            "restore_speed: expected a rate greater than 0 records/s, got 0",
            id="restore-speed-zero",
        ),
        pytest.param(
            {"restore_speed": float("nan")},
            "restore_speed: expected a finite number of records/s, got nan",
            id="restore-speed-nan",
        ),
        pytest.param(
            {"restore_speed": 1, "probing_interval_ms": 1_000},
            "probing_interval_ms: 1,000 is below Kafka's minimum of 60,000 "
            "(probing.rebalance.interval.ms)",
            id="interval-too-short",
        ),
        pytest.param(
            {"restore_speed": 1, "input_rates": {TaskId(9, 9): 1.0}},
            "input_rates[9_9]: not a stateful task of the scenario; only stateful tasks have "
            "changelogs",
            id="rate-for-unknown-task",
        ),
        pytest.param(
            {"restore_speed": 1, "input_rates": {TaskId(0, 1): -5.0}},
            "input_rates[0_1]: expected a rate at least 0 records/s, got -5.0",
            id="negative-input-rate",
        ),
    ],
)
def test_rejects_parameters_out_of_range(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(ConvergenceInputError) as error:
        simulate_convergence(join_scenario(), **arguments)
    assert str(error.value) == message


@settings(max_examples=60, deadline=None)
@given(applications(), st.sampled_from([100.0, 5_000.0, 1_000_000.0]))
def test_properties(raw: dict[str, Any], restore_speed: float) -> None:
    scenario = parse_streams_scenario(raw)
    run = simulate_convergence(scenario, restore_speed, max_probing_rebalances=20)
    needed = [step.assignment.probing_rebalance_needed for step in run.steps]
    assert all(needed[:-1])
    assert run.converged == (not needed[-1])
    assert run.probing_rebalances == len(run.steps) - 1 <= 20
    assert run == simulate_convergence(scenario, restore_speed, max_probing_rebalances=20)
    for step in run.steps[1:]:
        for lags in step.lags.values():
            assert all(lag >= 0 or lag in (-2, -3) for lag in lags.values())

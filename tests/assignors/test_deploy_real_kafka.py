"""The deploy planner's predictions against real rolling restarts on the suite's Apache Kafka.

Each plan forms a group of three consumers: kafka-python ones (classic protocol, our adapters),
or Java ones with ``group.protocol=consumer`` (KIP-848) for the broker's ``uniform``. It plays
the deploy for real (tests/kafka_cluster/rolling_deploy.py: closes, waits ``restart_s``, starts
new consumers with the same client ids; or starts two more) and reads from the group itself what
happened: the generations (classic) or group epochs (KIP-848) it went through, the partitions
that changed owner (by client id), how long each partition went unread, and how long each step
took. The planner gets the same group, starting assignment, plan and timings (session timeout,
heartbeat, poll interval, the cluster's initial rebalance delay; the listeners do no work, so
revoking and warming up take 0 s).

Specification: for these deterministic strategies the number of rebalances and of owner changes
is exactly what the planner predicts; the deploy's duration and each partition's unread time are
within ``CLIENT_SLACK_S`` per step of it, either way (what the planner leaves out: client start-up
and when within a heartbeat the members notice; docs/prediction-accuracy.md). The measured table
for more plans comes from ``benchmarks/deploy_accuracy.py``.
"""

from __future__ import annotations

import pytest

from assignors.model import TopicPartition
from tests.kafka_cluster.cluster import KafkaCluster
from tests.kafka_cluster.rolling_deploy import (
    CI_PLANS,
    CLIENT_SLACK_S,
    Comparison,
    Event,
    RealPlan,
    compare,
    replay,
    run_plan,
)

A, B = TopicPartition("t", 0), TopicPartition("t", 1)
ATTEMPTS = 2


@pytest.mark.broker
@pytest.mark.parametrize("plan", CI_PLANS, ids=[plan.name for plan in CI_PLANS])
def test_the_planner_predicts_a_real_deploy(kafka_cluster: KafkaCluster, plan: RealPlan) -> None:
    # A second, fresh run when the first disagrees: on an overloaded machine a consumer can miss
    # its heartbeats (an extra rebalance) or start seconds late. Both runs are real comparisons;
    # the test fails when neither agrees, and says what each found.
    found = []
    for _ in range(ATTEMPTS):
        comparison = compare(run_plan(kafka_cluster, plan))
        if not comparison.problems():
            return
        found.append(comparison.problems())
    pytest.fail(f"{plan.name}: {found}; last {comparison}")


def test_replay_counts_owner_changes_by_client_and_the_time_nobody_holds_a_partition() -> None:
    # m0 restarts (eager): it closes (revokes A), m1 takes A in a rebalance, then both revoke
    # everything and the new m0 gets A back. A changed owner twice and was unread 0.5 + 0.25 s;
    # B was revoked twice and given back to m1 each time (no owner change), unread 0.25 + 0.25 s.
    events = [
        Event(10.0, "m0", "revoked", frozenset({A}), 1),
        Event(10.25, "m1", "revoked", frozenset({B}), 1),
        Event(10.5, "m1", "assigned", frozenset({A, B}), 2),
        Event(12.0, "m1", "revoked", frozenset({A, B}), 2),
        Event(12.25, "m0", "assigned", frozenset({A}), 3),
        Event(12.25, "m1", "assigned", frozenset({B}), 3),
    ]
    moved, pause, end = replay(events, {"m0": {A}, "m1": {B}}, start=9.0)
    assert (moved, end) == (2, 12.25)
    assert pause == {A: 0.75, B: 0.5}


def test_replay_charges_a_partition_never_given_back_until_the_last_event() -> None:
    events = [
        Event(1.0, "m0", "revoked", frozenset({A}), 1),
        Event(3.0, "m1", "assigned", frozenset(), 2),
    ]
    assert replay(events, {"m0": {A}, "m1": set()}, start=0.0) == (0, {A: 2.0}, 3.0)


def _comparison(**changes: object) -> Comparison:
    fields: dict[str, object] = {
        "plan": RealPlan("p", "range", members=2),
        "predicted_rebalances": 4,
        "observed_rebalances": 4,
        "predicted_moved": 6,
        "observed_moved": 6,
        "predicted_duration_s": 5.0,
        "observed_duration_s": 6.0,
        "predicted_pause_s": {A: 0.5, B: 0.0},
        "observed_pause_s": {A: 0.3, B: 0.4},
    }
    fields.update(changes)
    return Comparison(**fields)  # type: ignore[arg-type]


def test_a_comparison_within_the_tolerance_has_no_problem() -> None:
    comparison = _comparison()
    assert comparison.tolerance_s == 2 * CLIENT_SLACK_S  # two batches of one
    assert comparison.problems() == []


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"observed_rebalances": 5}, "rebalances: predicted 4, observed 5"),
        ({"observed_moved": 7}, "moved: predicted 6, observed 7"),
        ({"observed_duration_s": 5.0 + 2 * CLIENT_SLACK_S + 0.1}, "duration: predicted 5.00 s"),
        ({"observed_duration_s": 5.0 - 2 * CLIENT_SLACK_S - 0.1}, "duration: predicted 5.00 s"),
        ({"observed_pause_s": {A: 0.5 + 2 * CLIENT_SLACK_S + 0.1, B: 0.0}}, "pause of 1"),
    ],
)
def test_each_disagreement_is_named(changes: dict[str, object], problem: str) -> None:
    problems = _comparison(**changes).problems()
    assert len(problems) == 1 and problems[0].startswith(problem), problems


def test_kip_848_steps_of_several_members_bound_the_moves_from_above() -> None:
    # Two KIP-848 members leaving or joining together: one epoch each, and a member may skip a
    # target the next one replaced; fewer moves than predicted agree, more do not.
    plan = RealPlan("u", "uniform", batch_size=2)
    assert not plan.exact_moves and RealPlan("u", "uniform").exact_moves
    assert _comparison(plan=plan, observed_moved=5).problems() == []
    problems = _comparison(plan=plan, observed_moved=7).problems()
    assert len(problems) == 1 and problems[0].startswith("moved: predicted 6, observed 7")
    assert _comparison(observed_moved=5).problems() == ["moved: predicted 6, observed 5"]

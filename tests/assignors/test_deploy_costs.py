"""Deploy plans ranked on every cost (issue 38): worked examples from the planner's own group,
then properties of the order on generated costs and weights, and on generated groups."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assignors.simulate.deploy_costs import (
    COST_KEYS,
    DEFAULT_WEIGHTS,
    NEVER_SCALED,
    WeightsError,
    check_weights,
    dominates,
    front,
    order,
    scaled,
)
from assignors.simulate.deploy_plan import DeployPlan, DeploySettings
from assignors.simulate.deploy_rank import rank_deploys
from tests.assignors.test_deploy import CLIENT_STRATEGIES, DYNAMIC, groups, three_members


def _by_label(ranking_labels: list[str]) -> dict[str, int]:
    return {label: place for place, label in enumerate(ranking_labels)}


def test_a_dynamic_restart_ranks_below_the_static_one_that_beats_it_on_every_cost() -> None:
    # three_members, a 5 s restart: batches of 3 with static members pause 6 partitions 5 s and
    # rebalance never; batches of 3 dynamic rebalance once and add 840 records, 2.8x as much.
    ranking = rank_deploys(three_members(), "range", DeployPlan(restart_s=5, settings=DYNAMIC))
    labels = [a.label for a in ranking.alternatives]
    place = _by_label(labels)
    static3, dynamic3 = "batches of 3, static membership", "batches of 3, dynamic membership"
    assert place[static3] < place[dynamic3]
    assert dynamic3 not in ranking.front and static3 in ranking.front
    reason = ranking.reasons[place[dynamic3]]
    assert reason.endswith(f"(beaten on every cost by {static3})")
    asked = ranking.asked
    assert asked.costs is not None and asked.costs["rebalances"] == 6
    # The asked plan's own sentence names its 6 rebalances against the plan above it.
    assert "6 rebalances against" in ranking.reasons[place[asked.label]]
    assert f"ranks {place[asked.label] + 1} of {len(labels)}" in ranking.verdict


def test_weights_reorder_the_same_plans_without_playing_them_again() -> None:
    ranking = rank_deploys(three_members(), "range", DeployPlan(restart_s=5, settings=DYNAMIC))
    on_rebalances = ranking.reordered({k: 0.0 for k in COST_KEYS} | {"rebalances": 1.0})
    first = on_rebalances.alternatives[0]
    assert first.costs is not None and first.costs["rebalances"] == 0
    assert {a.label for a in on_rebalances.alternatives} == {a.label for a in ranking.alternatives}
    assert on_rebalances.weights["rebalances"] == 1.0 and on_rebalances.weights["moved"] == 0.0
    assert ranking.to_json()["weights"] == dict(DEFAULT_WEIGHTS)


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ({"speed": 1.0}, "unknown cost 'speed'"),
        ({"moved": -1.0}, "must be a number >= 0"),
        ({"moved": math.nan}, "must be a number >= 0"),
        (dict.fromkeys(COST_KEYS, 0.0), "at least one cost"),
    ],
)
def test_weights_that_cannot_order_say_what_to_change(
    weights: dict[str, float], message: str
) -> None:
    with pytest.raises(WeightsError, match=message):
        check_weights(weights)


# --- properties on generated costs ----------------------------------------------------------

value = st.one_of(st.integers(0, 5).map(float), st.floats(0, 1e6, allow_nan=False))
plan_costs = st.fixed_dictionaries(
    {k: (st.one_of(value, st.just(math.inf)) if k == "recover_s" else value) for k in COST_KEYS}
)
weight_sets = st.fixed_dictionaries({k: st.sampled_from([0.0, 0.5, 1.0, 3.0]) for k in COST_KEYS})


@settings(max_examples=300, deadline=None)
@given(costs=st.lists(plan_costs, min_size=1, max_size=8), weights=weight_sets)
def test_no_plan_ranks_above_one_that_beats_it_on_every_cost(
    costs: list[dict[str, float]], weights: dict[str, float]
) -> None:
    if not any(weights.values()):
        weights["added_lag"] = 1.0
    ranked = order(costs, weights)
    assert sorted(ranked) == list(range(len(costs)))
    for place, index in enumerate(ranked):
        for later in ranked[place + 1 :]:
            assert not dominates(costs[later], costs[index])


@settings(max_examples=300, deadline=None)
@given(costs=st.lists(plan_costs, min_size=1, max_size=8))
def test_the_front_is_exactly_the_plans_nobody_beats(costs: list[dict[str, float]]) -> None:
    on_front = front(costs)
    assert on_front  # some plan is never beaten (dominance has no cycles)
    for index, mine in enumerate(costs):
        beaten = any(dominates(theirs, mine) for theirs in costs)
        assert (index in on_front) is not beaten
    for level in scaled(costs):
        assert all(0 <= level[k] <= 1 or level[k] == NEVER_SCALED for k in COST_KEYS)


# --- properties on generated groups ---------------------------------------------------------


@settings(max_examples=15, deadline=None)
@given(
    scenario=groups(),
    strategy=st.sampled_from(CLIENT_STRATEGIES),
    batch=st.integers(1, 3),
    static=st.sampled_from([True, False, None]),
    weights=weight_sets,
)
def test_every_plan_gets_a_place_and_a_reason(
    scenario,
    strategy,
    batch,
    static,
    weights,  # type: ignore[no-untyped-def]
) -> None:

    plan = DeployPlan(batch_size=batch, settings=DeploySettings(static_membership=static))
    if not any(weights.values()):
        weights["peak_lag"] = 1.0
    ranking = rank_deploys(scenario, strategy, plan, weights=weights)
    assert sum(a.asked for a in ranking.alternatives) == 1
    assert len(ranking.reasons) == len(ranking.alternatives)
    assert all(reason for reason in ranking.reasons)
    running = [a.costs for a in ranking.alternatives if a.costs is not None]
    for place, mine in enumerate(running):
        assert not any(dominates(theirs, mine) for theirs in running[place + 1 :])
    assert set(ranking.front) <= {a.label for a in ranking.alternatives}
    document = ranking.to_json()
    assert [row["rank"] for row in document["alternatives"]] == list(
        range(1, len(ranking.alternatives) + 1)
    )

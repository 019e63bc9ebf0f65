"""The deploy planner: worked examples computed by hand, then properties on generated groups."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assignors import (
    DeployError,
    DeployPlan,
    DeploySettings,
    evaluate,
)
from assignors.model import Member, Scenario, Topic
from assignors.simulate.deploy import plan_deploy
from assignors.simulate.deploy_costs import dominates
from assignors.simulate.deploy_rank import rank_deploys, short_count, short_seconds

STATIC = DeploySettings(static_membership=True)
DYNAMIC = DeploySettings(static_membership=False)


def three_members() -> Scenario:
    """Six partitions of ``t``, 10 records/s each, no lag; A, B, C read 100 records/s each.

    range gives A t-0,1; B t-2,3; C t-4,5.
    """
    return Scenario(
        (Topic("t", 6, lags=(0,) * 6, produce_rates=(10.0,) * 6),),
        tuple(Member(m, ("t",), consume_rate=100.0) for m in "ABC"),
    )


def test_three_member_eager_restart_by_hand() -> None:
    outcome = plan_deploy(three_members(), "range", DeployPlan(settings=DYNAMIC))
    # Each member leaves (LeaveGroup: an eager rebalance at once) and rejoins 30 s later.
    # Eager rebalance: notice 3 s, revoke and rejoin 1 s, assign 2 s = 6 s.
    # A leaves at 0: B t-0,1,2, C t-3,4,5 (t-0, t-1, t-3 move); back at 30, rejoins 30-36
    # (the same three move back): step 1 is 0-36 s. Steps 2 and 3 likewise: 108 s in all.
    assert [s.rebalances for s in outcome.steps] == [2, 2, 2]
    # Moves: A's leave 3 + back 3; B's leave t-2 to A, t-3 to C + back = 4; C's: 3 + 3.
    assert [s.moved for s in outcome.steps] == [6, 4, 6]
    assert outcome.moved == 16
    assert outcome.deploy_s == 108.0
    assert [(s.start_s, s.end_s) for s in outcome.steps] == [(0, 36), (36, 72), (72, 108)]
    # Backlog: A's two partitions wait from 0 (A is gone): 2 x 10 x 3 = 60 at 3 s; everything is
    # paused 3-4 s: +60 = 120 at 4 s; 4-6 s t-0,1,3 warm up: t-0,1 reach 60 each, t-3
    # 10 + 20 = 30; the rest is read at 100/s: 150 at 6 s, the peak.
    lag_at = {frame.time_s: frame.group_lag for frame in outcome.frames if frame.step == 1}
    assert lag_at[3.0] == pytest.approx(60)
    assert lag_at[4.0] == pytest.approx(120)
    assert lag_at[6.0] == pytest.approx(150)
    assert (outcome.peak_lag, outcome.peak_at_s) == (pytest.approx(150), 6.0)
    # Each rejoin leaves three moved partitions with 10 + 20 = 30 each: 90 at the step's end.
    assert outcome.steps[0].lag_at_end == pytest.approx(90)
    # After C's rejoin: B holds 30 (t-2), C 60 (t-4,5); each reads 100 - 20 = 80/s net:
    # C is done after 60 / 80 = 0.75 s.
    assert outcome.recovered_after_s == pytest.approx(0.75)
    assert outcome.stopped_members == ("A", "B", "C")


def test_three_member_static_restart_shorter_than_the_session_timeout_by_hand() -> None:
    outcome = plan_deploy(three_members(), "range", DeployPlan(restart_s=30, settings=STATIC))
    # 30 s < session.timeout.ms 45 s: no rebalance, nothing moves, only the restarting
    # member's two partitions pause, 30 s each: 2 x 10 x 30 = 600 at the end of each step.
    assert outcome.rebalances == 0
    assert outcome.moved == 0
    assert outcome.after == outcome.before
    assert [s.paused for s in outcome.steps] == [2, 2, 2]
    assert [s.stopped_members for s in outcome.steps] == [("A",), ("B",), ("C",)]
    assert outcome.deploy_s == 90.0
    assert [s.lag_at_end for s in outcome.steps] == pytest.approx([600, 600, 600])
    assert (outcome.peak_lag, outcome.peak_at_s) == (pytest.approx(600), 30.0)
    # C's 600 drains at 100 - 20 = 80/s: 7.5 s after the deploy.
    assert outcome.recovered_after_s == pytest.approx(7.5)


def test_static_restart_longer_than_the_session_timeout_rebalances() -> None:
    outcome = plan_deploy(three_members(), "range", DeployPlan(restart_s=50, settings=STATIC))
    # Dropped after 45 s (detect departure), then a rebalance; back at 50 s, another.
    assert [s.rebalances for s in outcome.steps] == [2, 2, 2]
    first = [f.phase for f in outcome.frames if f.step == 1]
    assert first[0] == "detect departure"
    assert any("session.timeout.ms" in note for note in outcome.notes)


def test_two_bounce_upgrade_phases() -> None:
    outcome = plan_deploy(
        three_members(), "range", DeployPlan(upgrade="eager-to-cooperative", settings=DYNAMIC)
    )
    steps = outcome.steps
    assert [s.action for s in steps] == ["bounce 1"] * 3 + ["bounce 2"] * 3
    # Bounce 1: [cooperative-sticky, range]: still eager; the group selects cooperative-sticky
    # once no member lists range alone (from C's leave on).
    assert [s.strategy for s in steps] == ["range", "range"] + ["cooperative-sticky"] * 4
    # Bounce 2: eager while a member still lists range; C's step is all cooperative.
    assert [s.protocol for s in steps] == ["eager"] * 5 + ["cooperative"]
    assert all(s.rebalances == 2 for s in steps)
    phases = {n: {f.phase for f in outcome.frames if f.step == n} for n in range(1, 7)}
    assert all("revoke and rejoin" in phases[n] for n in range(1, 6))
    assert "revoke and rejoin" not in phases[6]
    assert "join (round 1)" in phases[6]
    assert outcome.final_strategy == "cooperative-sticky"


def test_two_bounce_upgrade_with_static_members_runs_one_rebalance() -> None:
    outcome = plan_deploy(
        three_members(), "range", DeployPlan(upgrade="eager-to-cooperative", settings=STATIC)
    )
    # Only the restart that changes the selected assignor (the last of bounce 1) rebalances.
    assert [s.rebalances for s in outcome.steps] == [0, 0, 1, 0, 0, 0]
    assert outcome.steps[2].protocol == "eager"
    assert outcome.steps[2].strategy == "cooperative-sticky"


def test_classic_to_consumer_converts_at_the_first_member() -> None:
    outcome = plan_deploy(
        three_members(), "range", DeployPlan(upgrade="classic-to-consumer", settings=DYNAMIC)
    )
    assert [s.strategy for s in outcome.steps] == ["uniform"] * 3
    # Classic members are left until C's step: its rejoin is the consumer protocol.
    assert [s.protocol for s in outcome.steps] == ["eager", "eager", "consumer"]


def test_scale_out_and_in() -> None:
    grown = plan_deploy(three_members(), "range", DeployPlan(members=(), scale=2))
    assert [s.action for s in grown.steps] == ["scale out"]
    assert grown.steps[0].members == ("new-1", "new-2")
    assert sorted(grown.after.partitions) == ["A", "B", "C", "new-1", "new-2"]
    shrunk = plan_deploy(three_members(), "range", DeployPlan(members=(), scale=-1))
    assert shrunk.steps[0].members == ("C",)
    assert sorted(shrunk.after.partitions) == ["A", "B"]


def test_a_whole_group_restart_waits_the_initial_rebalance_delay() -> None:
    outcome = plan_deploy(three_members(), "range", DeployPlan(batch_size=3, settings=DYNAMIC))
    phases = [f.phase for f in outcome.frames]
    assert "initial rebalance delay" in phases
    # Nobody is left to rebalance when everyone leaves: one rebalance, when they are back.
    assert outcome.rebalances == 1
    # Everything is paused 30 s (restart) + 3 s (initial delay) + 4 s (notice, revoke).
    assert outcome.peak_lag == pytest.approx(6 * 10 * 37 + 6 * 10 * 2)


def test_scheduled_rebalance_delay_holds_partitions_for_a_cooperative_group() -> None:
    held = DeploySettings(static_membership=False, scheduled_rebalance_max_delay_s=300)
    outcome = plan_deploy(three_members(), "cooperative-sticky", DeployPlan(settings=held))
    assert outcome.moved == 0
    assert outcome.rebalances == 6


@pytest.mark.parametrize(
    ("plan", "message"),
    [
        (DeployPlan(members=("Z",)), "no member 'Z'"),
        (DeployPlan(members=(), scale=-3), "at least one must stay"),
    ],
)
def test_plans_that_do_not_fit(plan: DeployPlan, message: str) -> None:
    with pytest.raises(DeployError, match=message):
        plan_deploy(three_members(), "range", plan)


def test_bad_plans_are_refused_when_built() -> None:
    with pytest.raises(DeployError, match="batch size"):
        DeployPlan(batch_size=0)
    with pytest.raises(DeployError, match="restart_s"):
        DeployPlan(restart_s=float("nan"))
    with pytest.raises(DeployError, match="unknown upgrade"):
        DeployPlan(upgrade="sideways")
    with pytest.raises(DeployError, match="already rebalances"):
        plan_deploy(
            three_members(), "cooperative-sticky", DeployPlan(upgrade="eager-to-cooperative")
        )


def test_evaluate_answers_the_deploy() -> None:
    plan = DeployPlan(settings=STATIC)
    evaluation = evaluate(three_members(), [], ["range"], deploy=plan)
    asked = evaluation.strategy("range").deploy
    assert asked.summary_json() == plan_deploy(three_members(), "range", plan).summary_json()
    ranking = evaluation.strategy("range").deploy_ranking
    assert ranking.asked.plan == plan
    costs = [a.costs for a in ranking.alternatives if a.costs is not None]
    for above, mine in enumerate(costs):  # none ranks above a plan that beats it on every cost
        assert not any(dominates(theirs, mine) for theirs in costs[above + 1 :])
    with pytest.raises(DeployError, match="no deploy plan"):
        _ = evaluate(three_members(), [], ["range"]).strategy("range").deploy


def test_the_ranking_says_which_setting_made_the_difference() -> None:
    # A 5 s restart: static pauses two partitions 5 s; dynamic pauses everything in rebalances.
    ranking = rank_deploys(three_members(), "range", DeployPlan(restart_s=5, settings=DYNAMIC))
    best = ranking.alternatives[0]
    assert best.plan.settings.static_membership is True
    assert "static membership alone saves" in ranking.verdict
    assert dict(ranking.effects)["static membership"] < 0


def test_short_numbers() -> None:
    assert short_count(1_234_567) == "1.2M"
    assert short_count(950) == "950"
    assert short_seconds(272) == "4.5 min"
    assert short_seconds(None) == "never"


# --- properties ---------------------------------------------------------------------------------

CLIENT_STRATEGIES = ("range", "roundrobin", "sticky", "cooperative-sticky", "uniform")


@st.composite
def groups(draw: st.DrawFn, fast_readers: bool = False) -> Scenario:
    topic_count = draw(st.integers(1, 2))
    topics = []
    for index in range(topic_count):
        count = draw(st.integers(1, 6))
        lags = tuple(draw(st.lists(st.integers(0, 500), min_size=count, max_size=count)))
        rates = tuple(draw(st.lists(st.floats(0, 50), min_size=count, max_size=count)))
        topics.append(Topic(f"t{index}", count, lags=lags, produce_rates=rates))
    total_rate = sum(sum(t.produce_rates or ()) for t in topics)
    member_count = draw(st.integers(1, 4))
    names = tuple(t.name for t in topics)
    low = total_rate + 1.0 if fast_readers else 0.0
    members = tuple(
        Member(f"m{i}", names, consume_rate=draw(st.floats(low, low + 200)))
        for i in range(member_count)
    )
    return Scenario(tuple(topics), members)


@settings(max_examples=30, deadline=None)
@given(
    groups(),
    st.sampled_from(CLIENT_STRATEGIES),
    st.integers(1, 4),
    st.floats(0, 44.9),
)
def test_static_restarts_within_the_session_timeout_move_nothing(
    scenario: Scenario, strategy: str, batch: int, restart_s: float
) -> None:
    plan = DeployPlan(batch_size=batch, restart_s=restart_s, settings=STATIC)
    outcome = plan_deploy(scenario, strategy, plan)
    assert outcome.rebalances == 0
    assert outcome.moved == 0
    assert outcome.after == outcome.before


@settings(max_examples=30, deadline=None)
@given(
    groups(),
    st.sampled_from(CLIENT_STRATEGIES),
    st.integers(1, 4),
    st.floats(0, 120),
    st.booleans(),
    st.sampled_from([None, "eager-to-cooperative", "classic-to-consumer"]),
    st.integers(-1, 2),
)
def test_lag_never_goes_negative(
    scenario: Scenario,
    strategy: str,
    batch: int,
    restart_s: float,
    static: bool,
    upgrade: str | None,
    scale: int,
) -> None:
    plan = DeployPlan(
        batch_size=batch,
        restart_s=restart_s,
        settings=DeploySettings(static_membership=static),
        upgrade=upgrade,
        scale=scale,
    )
    try:
        outcome = plan_deploy(scenario, strategy, plan)
    except DeployError:
        return  # an upgrade that does not apply, or scaling the only member away
    for frame in outcome.frames:
        assert frame.partition_lag is not None
        assert min(frame.partition_lag, default=0.0) >= 0
    assert min(outcome.drain.group_lag) >= 0
    assert outcome.peak_lag >= outcome.initial_lag


@settings(max_examples=30, deadline=None)
@given(
    groups(fast_readers=True), st.sampled_from(CLIENT_STRATEGIES), st.integers(1, 4), st.booleans()
)
def test_the_backlog_clears_when_consumers_outpace_producers(
    scenario: Scenario, strategy: str, batch: int, static: bool
) -> None:
    plan = DeployPlan(batch_size=batch, settings=DeploySettings(static_membership=static))
    outcome = plan_deploy(scenario, strategy, plan)
    assert outcome.recovered_at_s is not None
    assert outcome.recovered_at_s >= outcome.deploy_s
    assert outcome.drain.group_clears_at_s is not None


@settings(max_examples=20, deadline=None)
@given(groups(), st.integers(1, 3), st.integers(1, 4))
def test_kip_848_counts_one_rebalance_per_member_that_leaves_or_joins(
    scenario: Scenario, grow: int, batch: int
) -> None:
    # The consumer protocol has no join barrier: each member that joins or leaves bumps the group
    # epoch on its own (measured on Apache Kafka: docs/prediction-accuracy.md); a classic
    # barrier takes a step's members together.
    members = len(scenario.members)
    grown = plan_deploy(scenario, "uniform", DeployPlan(members=(), scale=grow))
    assert grown.rebalances == grow
    assert plan_deploy(scenario, "range", DeployPlan(members=(), scale=grow)).rebalances == 1
    restarted = plan_deploy(scenario, "uniform", DeployPlan(batch_size=batch, settings=DYNAMIC))
    for step in restarted.steps:
        leaves = len(step.members) if len(step.members) < members else 0  # none left to rebalance
        assert step.rebalances == leaves + len(step.members)
    classic = plan_deploy(scenario, "range", DeployPlan(batch_size=batch, settings=DYNAMIC))
    assert all(s.rebalances == (2 if len(s.members) < members else 1) for s in classic.steps)

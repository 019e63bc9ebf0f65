"""Can the group keep up, and what a scale step buys (issue 38): worked examples computed by
hand, then properties on generated groups."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assignors.model import Assignment, Member, Scenario, Topic, TopicPartition
from assignors.simulate.capacity import capacity
from assignors.simulate.changes import current_assignment
from assignors.simulate.deploy_plan import DeployPlan
from assignors.simulate.deploy_scale import scale_options


def _group(rates: tuple[float, ...], produce: tuple[float, ...], lag: int = 0) -> Scenario:
    return Scenario(
        (Topic("t", len(produce), lags=(lag,) * len(produce), produce_rates=produce),),
        tuple(Member(f"m{i}", ("t",), consume_rate=r) for i, r in enumerate(rates)),
        assignor="range",
    )


def test_two_slow_members_by_hand() -> None:
    # 4 partitions x 60 records/s = 240/s; range gives m0 t-0,1 and m1 t-2,3 (120/s each); each
    # reads 100/s: 200/s read, 40/s deficit. Backlog 4 x 1,000 = 4,000: doubles in 100 s.
    # Members needed at 100/s: ceil(240 / 100) = 3, within the 4 partitions.
    group = _group((100.0, 100.0), (60.0,) * 4, lag=1000)
    found = capacity(group, current_assignment(group))
    assert (found.produce_rate, found.read_rate, found.deficit) == (240, 200, 40)
    assert found.doubles_in_s == pytest.approx(100)
    assert (found.members_needed, found.capped_by_partitions, found.keeps_up) == (3, False, False)
    assert found.sentence().startswith(
        "The group cannot keep up: 240 records/s are produced and it reads 200, so the backlog"
        " grows by 40 records/s and doubles every 100 s. It needs at least 3 members at 100"
        " records/s each (it has 2)."
    )


def test_more_members_than_partitions_cannot_help() -> None:
    # 2 partitions x 150/s = 300/s, members read 100/s: 3 members needed, only 2 partitions;
    # each partition alone produces more than a member reads.
    group = _group((100.0,), (150.0, 150.0))
    found = capacity(group, current_assignment(group))
    assert found.capped_by_partitions and found.members_needed == 3
    assert [tp for tp, _ in found.hot_partitions] == [
        TopicPartition("t", 0),
        TopicPartition("t", 1),
    ]
    assert found.doubles_in_s is None  # no backlog yet: nothing to double
    assert "only 2 partitions can be read at once" in found.sentence()


def test_an_unowned_partition_is_not_read() -> None:
    group = _group((1000.0, 1000.0), (10.0, 10.0))
    only_m0 = Assignment({"m0": (TopicPartition("t", 0),), "m1": ()})
    found = capacity(group, only_m0)
    assert (found.read_rate, found.deficit) == (10, 10)


@settings(max_examples=200, deadline=None)
@given(
    rates=st.lists(st.floats(0, 500), min_size=1, max_size=6).map(tuple),
    produce=st.lists(st.floats(0, 300), min_size=1, max_size=12).map(tuple),
    lag=st.integers(0, 10_000),
)
def test_read_rate_is_bounded_and_the_deficit_is_what_is_not_read(
    rates: tuple[float, ...], produce: tuple[float, ...], lag: int
) -> None:
    group = _group(rates, produce, lag)
    found = capacity(group, current_assignment(group))
    assert 0 <= found.read_rate <= found.produce_rate + 1e-9
    if found.keeps_up:
        assert found.deficit == 0 and found.doubles_in_s is None
    else:
        assert found.deficit == pytest.approx(found.produce_rate - found.read_rate)
        # Keeping up needs at least what is produced: the members needed read that much.
        if found.members_needed is not None:
            assert found.members_needed * found.member_rate >= found.produce_rate * (1 - 1e-9)
    per_member = found.member_rate
    assert all(rate > per_member for _, rate in found.hot_partitions)
    assert found.sentence()


# --- what a scale step buys (assignors.simulate.deploy_scale) ------------------------------


def test_scale_sizes_compared_by_hand() -> None:
    # Two members at 100/s, 4 partitions x 60/s: 240/s produced, at least 3 members needed (a
    # lower bound). +1 is asked; +2 (twice the size asked) is tried too, within the 4 partitions.
    # range over 3 members gives one member t-0,1 (120/s > 100/s): +1 still cannot keep up;
    # over 4 members each reads one partition (60/s): +2 keeps up and the backlog clears.
    group = _group((100.0, 100.0), (60.0,) * 4, lag=1000)
    options = [
        o for o in scale_options(group, "range", DeployPlan(members=(), scale=1)) if not o.upgrade
    ]
    assert [(o.scale, o.asked, o.keeps_up) for o in options] == [(1, True, False), (2, False, True)]
    one, two = (o.outcome for o in options)
    assert one is not None and two is not None
    assert one.drained_at_s is None and two.drained_at_s is not None
    at_hour = {o.scale: o.outcome.checkpoints[-1] for o in options if o.outcome is not None}
    assert at_hour[2][0] == 3600
    assert at_hour[2][1] < at_hour[1][1] < at_hour[1][2] == at_hour[2][2]  # same "without"
    # Without the step the backlog grows 40/s from 4,000: 4,000 + 40 x 3,600 at one hour.
    assert at_hour[1][2] == pytest.approx(4000 + 40 * 3600)


def test_a_plan_without_a_scale_step_has_no_scale_options() -> None:
    group = _group((100.0, 100.0), (60.0,) * 4)
    assert scale_options(group, "range", DeployPlan()) == ()


@settings(max_examples=25, deadline=None)
@given(
    members=st.integers(1, 4),
    partitions=st.integers(1, 8),
    rate=st.sampled_from([20.0, 50.0, 100.0]),
    scale=st.integers(1, 3),
)
def test_every_scale_option_reports_its_checkpoints_against_one_baseline(
    members: int, partitions: int, rate: float, scale: int
) -> None:
    group = _group((rate,) * members, (40.0,) * partitions, lag=500)
    options = scale_options(group, "range", DeployPlan(members=(), scale=scale))
    assert sum(o.asked for o in options) == 1
    plain = [o for o in options if o.upgrade is None]
    assert [o.scale for o in plain] == sorted({o.scale for o in plain})
    assert options[: len(plain)] == tuple(plain)  # the upgrades come after the sizes
    assert all(o.scale == scale and not o.asked for o in options[len(plain) :])
    baselines = {tuple(w for _, _, w in o.outcome.checkpoints) for o in options if o.outcome}
    assert len(baselines) <= 1
    for option in options:
        assert option.sentence()
        if option.outcome is not None and option.keeps_up:
            assert option.outcome.drained_at_s is not None


@pytest.mark.parametrize(
    ("strategy", "paths"),
    [
        ("range", ["eager-to-cooperative", "classic-to-consumer"]),
        ("cooperative-sticky", ["classic-to-consumer"]),
        ("uniform", []),
    ],
)
def test_scale_plus_a_strategy_change(strategy: str, paths: list[str]) -> None:
    # The size asked for is also played with each upgrade path that applies to the group's
    # strategy: an eager group can move to cooperative-sticky or to the consumer protocol while
    # it grows, a cooperative one only to the consumer protocol, a KIP-848 group to neither.
    # An upgrade restarts every member; the scale step alone restarts nobody.
    group = _group((100.0, 100.0), (60.0,) * 4, lag=1000)
    options = scale_options(group, strategy, DeployPlan(members=(), scale=1))
    upgraded = [o for o in options if o.upgrade is not None]
    assert [o.upgrade for o in upgraded] == paths
    for option in upgraded:
        assert option.outcome is not None, option.error
        assert option.label == f"+1 member(s) and {option.upgrade}"
        steps = option.outcome.steps
        restarted = {
            m for step in steps if not step.action.startswith("scale") for m in step.members
        }
        assert {"m0", "m1"} <= restarted
    alone = next(o for o in options if o.asked)
    assert alone.outcome is not None
    assert [step.action for step in alone.outcome.steps] == ["scale out"]


def test_a_scale_step_alone_is_played_once_for_the_deploy_and_its_options() -> None:
    from assignors.simulate.evaluate import evaluate

    group = _group((100.0, 100.0), (60.0,) * 4, lag=1000)
    asked = evaluate(group, [], ["range"], deploy=DeployPlan(members=(), scale=1)).strategies[0]
    same = next(o for o in asked.deploy_scale_options if o.asked)
    assert same.outcome is asked.deploy


def test_an_upgrade_too_large_to_play_beside_the_plan_is_listed_not_played() -> None:
    # +1,000 members in batches of 2: an upgrade would restart 1,002 members, 2 bounces each
    # (1,002 restarts of 1,002 members, far over MAX_UPGRADE_WORK): listed with the reason, not
    # played; the sizes themselves (one rebalance each) are played.
    group = _group((100.0, 100.0), (60.0,) * 4, lag=1000)
    options = scale_options(group, "range", DeployPlan(members=(), scale=1000, batch_size=2))
    skipped = [o for o in options if o.skipped]
    assert [o.upgrade for o in skipped] == ["eager-to-cooperative", "classic-to-consumer"]
    assert skipped[0].skipped.startswith("1,002 restarts of 1,002 members")
    assert skipped[1].skipped.startswith("501 restarts of 1,002 members")
    assert skipped[0].sentence().startswith("+1000 member(s) and eager-to-cooperative: not played")
    assert all(o.outcome is not None for o in options if o.upgrade is None)

"""Lag-drain projection: backlogs worked out by hand, then properties on generated groups."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assignors.model import Assignment, Member, Scenario, Topic, TopicPartition
from assignors.simulate.drain import DEFAULT_CONSUME_RATE, DrainError, project_drain
from assignors.simulate.rebalance import plan_rebalance
from tests.assignors.test_metrics import assignment


def one_partition(lag: int, produce: float, consume: float | None) -> Scenario:
    return Scenario(
        (Topic("t", 1, lags=(lag,), produce_rates=(produce,)),),
        (Member("A", ("t",), consume_rate=consume),),
    )


@pytest.mark.parametrize(
    ("produce", "expected_lags", "clears_at", "deficit"),
    [
        # 1,000 records, read at 100/s, nothing produced: gone after 10 s.
        (0.0, [1000, 500, 0, 0, 0], 10.0, 0.0),
        # 50/s produced: the backlog shrinks at 50/s, gone after 20 s.
        (50.0, [1000, 750, 500, 250, 0], 20.0, 0.0),
        # 150/s produced against 100/s read: grows at 50/s forever.
        (150.0, [1000, 1250, 1500, 1750, 2000], None, 50.0),
    ],
)
def test_one_member_one_partition(
    produce: float, expected_lags: list[float], clears_at: float | None, deficit: float
) -> None:
    projection = project_drain(
        one_partition(1000, produce, 100.0),
        assignment=assignment(A="t-0"),
        horizon_s=20,
        step_s=5,
    )
    (member,) = projection.members
    assert projection.times_s == (0, 5, 10, 15, 20)
    assert list(member.lag) == pytest.approx(expected_lags)
    assert member.clears_at_s == clears_at
    assert member.deficit == deficit
    assert projection.group_clears_at_s == clears_at
    assert projection.group_deficit == deficit
    assert projection.members_using_default_rate == ()


def test_the_eager_pause_delays_the_drain() -> None:
    # notice 3 s reading (1000 + 30 - 330 = 700), revoke 1 s paused (+10 = 710), settled at 4 s,
    # then 100/s net: clears at 4 + 7.1 = 11.1 s.
    scenario = one_partition(1000, 10.0, 110.0)
    simulation = plan_rebalance("eager", assignment(A="t-0"), assignment(A="t-0"))
    projection = project_drain(scenario, simulation, horizon_s=12, step_s=1)
    (member,) = projection.members
    assert member.lag[2] == pytest.approx(800)
    assert member.lag[3] == pytest.approx(700)
    assert member.lag[4] == pytest.approx(710)
    assert member.lag[11] == pytest.approx(10)
    assert member.clears_at_s == pytest.approx(11.1)
    assert projection.settled_at_s == 4.0


def test_a_moving_partition_keeps_the_share_its_old_owner_read() -> None:
    # A reads t-0 (300) and t-1 (100) at 40/s for 3 s: 120 read, 3:1 -> t-0 210, t-1 70.
    # Cooperative: t-1 is revoked (4 s) and warms up at B (2 s) while A reads t-0 alone.
    # Settled at 9 s: t-0 empty since 8.25 s, t-1 still 70, which B clears at 9 + 70/40 = 10.75.
    scenario = Scenario(
        (Topic("t", 2, lags=(300, 100)),),
        (Member("A", ("t",), consume_rate=40.0), Member("B", ("t",), consume_rate=40.0)),
    )
    simulation = plan_rebalance(
        "cooperative", assignment(A="t-0 t-1", B=""), assignment(A="t-0", B="t-1")
    )
    projection = project_drain(scenario, simulation, horizon_s=12, step_s=1)
    a, b = projection.members
    assert (a.lag[3], b.lag[3]) == pytest.approx((210, 70))
    assert (a.lag[7], b.lag[7]) == pytest.approx((50, 70))
    assert projection.group_lag[:12] == pytest.approx(
        [400, 360, 320, 280, 240, 200, 160, 120, 80, 70, 30, 0]
    )
    assert a.clears_at_s == 9.0  # counted from when the target holds
    assert b.clears_at_s == pytest.approx(10.75)
    assert b.peak_lag == pytest.approx(100)
    assert projection.group_clears_at_s == pytest.approx(10.75)


def test_partitions_nobody_reads_never_clear() -> None:
    scenario = Scenario(
        (Topic("t", 2, lags=(10, 20), produce_rates=(0.0, 5.0)),),
        (Member("A", ("t",)),),
    )
    projection = project_drain(scenario, assignment=assignment(A="t-0"), horizon_s=10, step_s=10)
    assert projection.unowned_lag == (20, 70)
    assert projection.group_clears_at_s is None
    assert projection.group_deficit == 5.0
    # A had no consume_rate: the default is used, and the projection says so.
    assert projection.members_using_default_rate == ("A",)
    assert projection.members[0].consume_rate == DEFAULT_CONSUME_RATE
    assert projection.members[0].clears_at_s == pytest.approx(10 / DEFAULT_CONSUME_RATE)


@pytest.mark.parametrize(("horizon", "step"), [(100, 0), (100, -1), (-5, 10), (float("nan"), 1)])
def test_bad_grid_is_refused(horizon: float, step: float) -> None:
    with pytest.raises(DrainError):
        project_drain(
            one_partition(1, 0, 1), assignment=assignment(A="t-0"), horizon_s=horizon, step_s=step
        )


def test_needs_a_simulation_or_an_assignment() -> None:
    with pytest.raises(DrainError, match="simulation or an assignment"):
        project_drain(one_partition(1, 0, 1))


# --- properties --------------------------------------------------------------------------------


@st.composite
def groups(draw: st.DrawFn, fast_enough: bool) -> tuple[Scenario, Assignment, Assignment]:
    """Members with partitions, lags and rates; with ``fast_enough`` every member out-reads."""
    count = draw(st.integers(1, 10))
    lags = tuple(draw(st.lists(st.integers(0, 10_000), min_size=count, max_size=count)))
    rates = tuple(
        draw(st.lists(st.floats(0, 100, allow_nan=False), min_size=count, max_size=count))
    )
    partitions = [TopicPartition("t", p) for p in range(count)]
    names = draw(st.lists(st.sampled_from("ABCD"), min_size=1, unique=True))

    def pick() -> Assignment:
        chosen: dict[str, list[TopicPartition]] = {}
        for partition in partitions:
            owner = draw(st.one_of(st.none(), st.sampled_from(names)))
            if owner is not None:
                chosen.setdefault(owner, []).append(partition)
        return Assignment.of(names, chosen)

    before, target = pick(), pick()
    members = []
    for name in names:
        produced = sum(rates[p.partition] for p in target.partitions[name])
        if fast_enough:
            consume = produced + draw(st.floats(1, 500, allow_nan=False))
        else:
            consume = draw(st.floats(0, 500, allow_nan=False))
        members.append(Member(name, ("t",), consume_rate=consume))
    scenario = Scenario((Topic("t", count, lags=lags, produce_rates=rates),), tuple(members))
    return scenario, before, target


@given(groups(fast_enough=True), st.sampled_from(["eager", "cooperative", "consumer"]))
def test_capacity_above_the_produce_rate_always_drains(
    group: tuple[Scenario, Assignment, Assignment], protocol: str
) -> None:
    scenario, before, target = group
    simulation = plan_rebalance(protocol, before, target)  # type: ignore[arg-type]
    projection = project_drain(scenario, simulation, horizon_s=600, step_s=30)
    assert all(member.clears for member in projection.members)
    assert all(member.deficit == 0 for member in projection.members)
    if len(target.owner_of()) == scenario.topics[0].partitions:  # nothing left unowned
        assert projection.group_clears_at_s is not None


@given(groups(fast_enough=False), st.sampled_from(["eager", "cooperative", "consumer"]))
def test_lines_add_up_and_never_go_negative(
    group: tuple[Scenario, Assignment, Assignment], protocol: str
) -> None:
    scenario, before, target = group
    simulation = plan_rebalance(protocol, before, target)  # type: ignore[arg-type]
    projection = project_drain(scenario, simulation, horizon_s=120, step_s=7)
    for i, total in enumerate(projection.group_lag):
        parts = projection.unowned_lag[i] + sum(m.lag[i] for m in projection.members)
        assert total == pytest.approx(parts)
        assert all(m.lag[i] >= -1e-6 for m in projection.members)


@given(groups(fast_enough=False))
def test_steady_totals_follow_the_closed_form(
    group: tuple[Scenario, Assignment, Assignment],
) -> None:
    # Without a rebalance a member's backlog is max(0, L + (R - c) t), whatever the split.
    scenario, _, target = group
    projection = project_drain(scenario, assignment=target, horizon_s=100, step_s=10)
    topic = scenario.topics[0]
    assert topic.lags is not None and topic.produce_rates is not None
    members = {member.member_id: member for member in scenario.members}
    for line in projection.members:
        member = members[line.member_id]
        owned = [p.partition for p in target.partitions[member.member_id]]
        backlog = sum(topic.lags[p] for p in owned)
        net = sum(topic.produce_rates[p] for p in owned) - (member.consume_rate or 0.0)
        expected = [max(0.0, backlog + net * t) for t in projection.times_s]
        assert list(line.lag) == pytest.approx(expected, abs=1e-6)


#: Produce rates whose float sum depends on the order they are added in (issue 16: a consume
#: rate summed by the pipeline in another order than the core sums the produce rates).
UNEVEN_RATES = (0.1, 0.2, 0.3, 1e-3, 7.0 / 3.0, 1e3 / 7.0, 0.7, 5.0 / 9.0)


def _orders() -> list[tuple[float, ...]]:
    forward, backward = UNEVEN_RATES, tuple(reversed(UNEVEN_RATES))
    assert sum(forward) != sum(backward)  # the premise: naive sums disagree in the last bit
    return [forward, backward, tuple(sorted(UNEVEN_RATES)), tuple(sorted(UNEVEN_RATES)[::-1])]


@pytest.mark.parametrize("backlog", [0, 500])
@pytest.mark.parametrize("eager", [False, True])
def test_a_member_reading_what_is_produced_gets_one_answer_whatever_the_summation_order(
    backlog: int, eager: bool
) -> None:
    answers = set()
    for order in _orders():
        consume = 0.0
        for rate in order:  # summed as a caller would, in its own order
            consume += rate
        count = len(UNEVEN_RATES)
        scenario = Scenario(
            (
                Topic(
                    "t",
                    count,
                    lags=(backlog,) + (0,) * (count - 1),
                    produce_rates=UNEVEN_RATES,
                ),
            ),
            (Member("A", ("t",), consume_rate=consume),),
        )
        owned = assignment(A=" ".join(f"t-{p}" for p in range(count)))
        simulation = plan_rebalance("eager", owned, owned) if eager else None
        projection = project_drain(
            scenario,
            simulation,
            assignment=None if eager else owned,
            horizon_s=3600,
            step_s=10,
        )
        (member,) = projection.members
        cleared = member.clears_at_s
        assert cleared is None or cleared <= projection.settled_at_s, cleared  # never absurd
        answers.add((cleared, member.deficit, projection.group_clears_at_s))
    if backlog or eager:  # reading exactly what arrives never shrinks a backlog (the pause's)
        assert answers == {(None, 0.0, None)}
    else:  # nothing to read but what arrives: empty from the start
        assert answers == {(0.0, 0.0, 0.0)}

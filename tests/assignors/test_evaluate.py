"""evaluate(): the core's one question, checked against its parts called by hand."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import assignors
from assignors import Member, Scenario, Topic, evaluate
from assignors.simulate import drain, metrics, rebalance
from assignors.simulate.changes import (
    AddMember,
    ChangeError,
    RemoveMember,
    apply_changes,
    current_assignment,
    restarted_members,
)
from sample_data import load_sample


def _worked_example() -> Scenario:
    scenario = load_sample("lag-aware-worked-example").scenario
    assert scenario is not None
    return scenario


def test_the_lag_aware_worked_example_with_a_member_added() -> None:
    # docs/cli.md's compare table: one partition moves under every strategy, 210,000 records
    # of lag, and the eager strategies stop the group for one second.
    ev = evaluate(
        _worked_example(),
        [AddMember("C2")],
        ["range", "cooperative-sticky", "lag-aware"],
        step_s=10.0,
    )
    assert [s.name for s in ev.strategies] == ["range", "cooperative-sticky", "lag-aware"]
    for item in ev.strategies:
        assert item.error is None
        assert item.movement.moved_count == 1
        assert item.movement.kept_count == 2
        assert item.metrics.lag_total == 210_000
    assert ev.strategy("range").simulation.group_stop_s == 1.0
    assert ev.strategy("cooperative-sticky").simulation.rounds == 2
    assert round(ev.strategy("range").drain().group_clears_at_s or 0, 1) == 129.4
    assert round(ev.strategy("cooperative-sticky").drain().group_clears_at_s or 0, 1) == 128.2


def test_a_strategy_that_cannot_run_reports_its_error_alone() -> None:
    ev = evaluate(_worked_example(), [AddMember("C2")], ["range", "no-such", "streams-ha"])
    assert ev.strategy("range").error is None
    unknown, streams = ev.strategy("no-such"), ev.strategy("streams-ha")
    assert unknown.error is not None and "no-such" in unknown.error
    assert streams.error is not None and "Kafka Streams tasks" in streams.error
    with pytest.raises(assignors.AssignmentExplorerError):
        streams.target  # noqa: B018


def test_strategies_are_listed_once_in_the_order_first_given() -> None:
    ev = evaluate(_worked_example(), [], ["lag-aware", "range", "lag-aware"])
    assert [s.name for s in ev.strategies] == ["lag-aware", "range"]
    with pytest.raises(KeyError):
        ev.strategy("sticky")


def test_a_change_that_does_not_fit_fails_the_whole_call() -> None:
    with pytest.raises(ChangeError, match="no member 'nobody'"):
        evaluate(_worked_example(), [RemoveMember("nobody")], ["range"])


def test_a_static_restart_alone_does_not_rebalance() -> None:
    scenario = Scenario(
        (Topic("t", 4),),
        (Member("A", ("t",), group_instance_id="a"), Member("B", ("t",))),
        assignor="range",
    )
    ev = evaluate(scenario, [RemoveMember("A", static_restart=True)], ["range", "sticky"])
    assert ev.restarted == ("A",)
    for item in ev.strategies:
        assert item.target == ev.current
        assert item.simulation.rounds == 0
        assert item.movement.moved_count == 0


def test_asking_only_for_the_target_runs_no_drain_metrics_or_phases(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []

    def spy(name: str, module: object) -> None:
        real = getattr(module, name)

        def wrapped(*args: object, **kwargs: object) -> object:
            calls.append(name)
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, wrapped)

    spy("project_drain", drain)
    spy("assignment_metrics", metrics)
    spy("plan_rebalance", rebalance)
    ev = evaluate(_worked_example(), [AddMember("C2")], ["range", "sticky"])
    ev.strategy("range").target  # noqa: B018
    assert calls == []
    ev.strategy("range").drain()
    assert calls.count("project_drain") == 1 and calls.count("plan_rebalance") == 1
    ev.strategy("range").drain()  # asked again: kept, not recomputed
    assert calls.count("project_drain") == 1


@st.composite
def changed_groups(draw: st.DrawFn) -> tuple[Scenario, list[AddMember | RemoveMember]]:
    """A group with lags and rates, and one membership change."""
    topics = tuple(
        Topic(
            name,
            count,
            lags=tuple(draw(st.lists(st.integers(0, 5000), min_size=count, max_size=count))),
            produce_rates=tuple(
                draw(st.lists(st.floats(0, 50, allow_nan=False), min_size=count, max_size=count))
            ),
        )
        for name, count in (
            (name, draw(st.integers(1, 6)))
            for name in draw(st.lists(st.sampled_from("xyz"), min_size=1, unique=True))
        )
    )
    names = [t.name for t in topics]
    subscriptions = st.lists(st.sampled_from(names), min_size=1, unique=True).map(tuple)
    ids = draw(st.lists(st.sampled_from("ABCDE"), min_size=1, max_size=4, unique=True))
    members = tuple(
        Member(m, draw(subscriptions), consume_rate=draw(st.floats(1, 500))) for m in ids
    )
    scenario = Scenario(topics, members, assignor=draw(st.sampled_from(["range", "roundrobin"])))
    change: list[AddMember | RemoveMember]
    if len(ids) > 1 and draw(st.booleans()):
        change = [RemoveMember(draw(st.sampled_from(ids)))]
    else:
        change = [AddMember("new", draw(subscriptions))]
    return scenario, change


@settings(max_examples=40, deadline=None)
@given(
    changed_groups(),
    st.sampled_from(["range", "roundrobin", "sticky", "cooperative-sticky", "uniform"]),
)
def test_evaluate_equals_its_parts_called_by_hand(
    group: tuple[Scenario, list[AddMember | RemoveMember]], name: str
) -> None:
    scenario, change = group
    ev = evaluate(scenario, change, [name], horizon_s=600, step_s=20)
    item = ev.strategy(name)

    current = current_assignment(scenario)
    after = apply_changes(scenario, change, current)
    restarted = restarted_members(change)
    simulation = rebalance.simulate(scenario, after, name, restarted=restarted, previous=current)
    assert ev.current == current and ev.after == after
    assert item.target == simulation.target
    assert item.simulation == simulation
    assert item.metrics == metrics.assignment_metrics(after, simulation.target, current)
    assert item.movement == item.metrics.movement
    assert item.drain() == drain.project_drain(after, simulation, horizon_s=600, step_s=20)
    settled = rebalance.settle(scenario, after, name, restarted=restarted, previous=current)
    facts = {
        "restarted": restarted,
        "rebalance": settled.rebalances,
        "silent_departures": settled.silent_departures,
        "epoch": settled.epoch,
    }
    for protocol in ("eager", "cooperative", "consumer"):
        assert item.protocol_run(protocol) == rebalance.plan_rebalance(
            protocol, current, simulation.target, **facts
        )
        slower = rebalance.Timings(revoke_s=2.5, rejoin_delay_s=4.0, heartbeat_interval_s=0.5)
        assert item.protocol_run(protocol, slower) == rebalance.plan_rebalance(
            protocol, current, simulation.target, timings=slower, **facts
        )
    assert ev.current_metrics == metrics.assignment_metrics(scenario, current, current)
    assert ev.current_drain() == drain.project_drain(
        scenario, None, assignment=current, horizon_s=600, step_s=20
    )


@settings(max_examples=25, deadline=None)
@given(changed_groups())
def test_movement_alone_equals_the_metrics_movement(
    group: tuple[Scenario, list[AddMember | RemoveMember]],
) -> None:
    scenario, change = group
    alone = evaluate(scenario, change, ["sticky"]).strategy("sticky").movement
    full = evaluate(scenario, change, ["sticky"]).strategy("sticky").metrics.movement
    assert alone == full


def test_every_protocol_plays_a_static_restart_without_a_rebalance_and_notices_a_silent_leave() -> (
    None
):
    """Static member ``a`` restarting triggers no rebalance under any protocol: every run is the
    restart alone, nobody revokes (the Protocols view showed an eager stop-the-world for it).
    Leaving without a LeaveGroup, ``a`` is noticed after the session timeout under each."""
    scenario = Scenario(
        (Topic("t", 4),), (Member("a", ("t",), group_instance_id="a-1"), Member("b", ("t",)))
    )
    restart = evaluate(scenario, [RemoveMember("a", static_restart=True)], ["range"])
    for run in restart.strategy("range").protocol_runs().values():
        assert [phase.name for phase in run.phases] == ["static restart"]
        assert run.group_stop_s == 0 and run.rounds == 0
    leave = evaluate(scenario, [RemoveMember("a")], ["range"])
    for run in leave.strategy("range").protocol_runs().values():
        assert run.phases[0].name == "detect departure"
        assert run.phases[0].duration_s == run.timings.session_timeout_s

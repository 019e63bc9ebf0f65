"""Every kind of deploy plan draws (issue 38.3): generated plans (every action x strategy x
static/dynamic x batch size, on generated groups) give a picture whose figures have something in
every trace and whose tables have no blank cell, and the ranking's chart never draws an empty
axis."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assignors import AssignmentExplorerError, DeployPlan, DeploySettings, Scenario
from dashboard.charts import deploy_charts
from dashboard.model import deploy_model
from tests.assignors.test_deploy import CLIENT_STRATEGIES, groups

ACTIONS = ("restart", "scale out", "scale in", "eager-to-cooperative", "classic-to-consumer",
           "assignor")  # fmt: skip


def _plan(action: str, batch: int, static: bool, draw: st.DrawFn, members: int) -> DeployPlan:
    settings_ = DeploySettings(static_membership=static)
    if action == "scale out":
        return DeployPlan(members=(), scale=draw(st.integers(1, 3)), settings=settings_)
    if action == "scale in":
        return DeployPlan(members=(), scale=-draw(st.integers(1, 3)), settings=settings_)
    upgrade = {
        "eager-to-cooperative": "eager-to-cooperative",
        "classic-to-consumer": "classic-to-consumer",
        "assignor": "assignor:" + draw(st.sampled_from(CLIENT_STRATEGIES)),
    }.get(action)
    return DeployPlan(batch_size=batch, upgrade=upgrade, settings=settings_)


def _traces_have_points(figure: Any) -> bool:
    def points(trace: Any) -> int:
        return max(len(trace.x or ()), len(trace.y or ()))

    return all(points(trace) > 0 for trace in figure.data)


def _no_blank_cell(rows: list[dict[str, str]]) -> bool:
    return all(str(value).strip() for row in rows for value in row.values())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    scenario=groups(),
    strategy=st.sampled_from(CLIENT_STRATEGIES),
    action=st.sampled_from(ACTIONS),
    batch=st.integers(1, 4),
    static=st.booleans(),
    data=st.data(),
)
def test_every_plan_kind_draws_without_an_empty_chart_or_a_blank_row(
    scenario: Scenario, strategy: str, action: str, batch: int, static: bool, data: st.DataObject
) -> None:
    plan = _plan(action, batch, static, data.draw, len(scenario.members))
    try:
        picture = deploy_model.picture(scenario, strategy, plan)
    except AssignmentExplorerError as error:  # a plan that does not fit says so, in words
        assert str(error)
        return
    assert _traces_have_points(deploy_charts.lag_over_time(picture))
    animation = deploy_charts.deploy_animation(picture)
    assert animation.frames and all(frame.data for frame in animation.frames)
    steps = deploy_model.steps_table(picture)
    assert steps and _no_blank_cell(steps)
    assert _no_blank_cell(deploy_model.alternatives_table(picture))
    # A scale step shows what it buys: every option (sizes, then each strategy change) a row.
    assert bool(picture.scale_rows) == (plan.scale != 0)
    assert _no_blank_cell(list(picture.scale_rows))
    if plan.scale:
        assert picture.scale_baseline.startswith("Without the deploy the backlog is")
    ranking = deploy_charts.alternatives_figure(picture)
    if any(row["cost parts"] for row in picture.alternatives):
        assert ranking.data and _traces_have_points(ranking)
    costs = [sum((row["cost parts"] or {}).values()) for row in picture.alternatives]
    if costs and not any(costs):
        assert ranking.layout.title.text.startswith("Every plan costs the same")


def test_the_scale_table_by_hand() -> None:
    # Two members read 100/s from 4 partitions producing 60/s each (240/s): the group cannot
    # keep up. +1 (asked) leaves one member with two partitions (120/s > 100/s); +2 gives each
    # member one partition, and the backlog clears. range is eager, so the size asked is also
    # played moving to cooperative-sticky and to the consumer protocol.
    from tests.assignors.test_capacity import _group

    picture = deploy_model.picture(
        _group((100.0, 100.0), (60.0,) * 4, lag=1000), "range", DeployPlan(members=(), scale=1)
    )
    rows = {row["scale step"]: row for row in picture.scale_rows}
    assert list(rows) == [
        "+1 member(s) (asked)",
        "+2 member(s)",
        "+1 member(s) and eager-to-cooperative",
        "+1 member(s) and classic-to-consumer",
    ]
    assert rows["+1 member(s) (asked)"]["keeps up after"] == "no"
    assert rows["+1 member(s) (asked)"]["backlog gone after"] == "never"
    assert rows["+2 member(s)"]["keeps up after"] == "yes"
    assert rows["+2 member(s)"]["backlog gone after"] != "never"
    assert list(rows["+2 member(s)"]) == [
        "scale step", "backlog at 15.0 min", "backlog at 60.0 min", "backlog gone after",
        "keeps up after",
    ]  # fmt: skip

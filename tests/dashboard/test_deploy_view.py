"""The Deploy view: the figures from a deploy picture (pure), and the view in the real app
(AppTest): the plan asked for, the animation, the lag over time and the ranking."""

from __future__ import annotations

from typing import Any

import pytest

import sample_data
from assignors import DEPLOY_COSTS, DeployPlan, DeploySettings, Member, Scenario, Topic
from dashboard.charts import deploy_charts
from dashboard.model import deploy_model
from dashboard.views import pages
from tests.dashboard.app_session import assert_no_exception, open_address, open_page, start_app


def three_members() -> Scenario:
    return Scenario(
        (Topic("t", 6, lags=(0,) * 6, produce_rates=(10.0,) * 6),),
        tuple(Member(m, ("t",), consume_rate=100.0) for m in "ABC"),
    )


def test_the_animation_has_a_frame_per_phase_and_marks_who_restarts() -> None:
    plan = DeployPlan(settings=DeploySettings(static_membership=True))
    picture = deploy_model.picture(three_members(), "range", plan)
    # Before, then one static-restart phase per member.
    assert len(picture.frame_labels) == 4
    assert picture.frame_captions[0].startswith("Before the deploy")
    assert "restarting: B" in picture.frame_captions[2]
    assert picture.restarting[2] == (False, True, False)
    # B holds two partitions and reads none of them while it restarts.
    assert picture.not_reading[2] == (0, 2, 0)
    assert picture.lag[2][1] == pytest.approx(600)  # 2 x 10/s x 30 s
    figure = deploy_charts.deploy_animation(picture)
    assert len(figure.frames) == 4
    restarting = [trace.name for trace in figure.data].index("restarting")
    assert list(figure.frames[2].data[restarting].x) == ["B"]
    assert list(figure.frames[1].data[restarting].x) == ["A"]
    assert figure.layout.sliders[0].steps[-1].label == picture.frame_labels[-1]


def test_the_lag_chart_marks_every_step_the_peak_and_the_baseline() -> None:
    picture = deploy_model.picture(
        three_members(), "range", DeployPlan(settings=DeploySettings(static_membership=False))
    )
    figure = deploy_charts.lag_over_time(picture)
    spans = [shape for shape in figure.layout.shapes if shape.type == "rect"]
    assert len(spans) == len(picture.steps) == 3
    names = [trace.name for trace in figure.data]
    assert names == ["without the deploy", "with the deploy", "peak"]
    assert figure.data[2].y[0] == pytest.approx(picture.peak_lag) == pytest.approx(150)
    assert len(figure.data[0].x) == len(figure.data[1].x)


def test_the_ranking_lists_the_plans_in_rank_order_each_with_its_reason() -> None:
    picture = deploy_model.picture(three_members(), "range", DeployPlan(restart_s=5))
    assert [row["rank"] for row in picture.alternatives] == list(
        range(1, len(picture.alternatives) + 1)
    )
    assert any("(asked)" in row["plan"] for row in picture.alternatives)
    assert picture.alternatives[0]["why"].startswith("above ")
    assert all(row["why"].startswith("below ") for row in picture.alternatives[1:])
    lines = deploy_model.reasons(picture)
    assert [line.split(".")[0] for line in lines] == [str(r["rank"]) for r in picture.alternatives]
    assert any("(on the Pareto front): " in line for line in lines)
    figure = deploy_charts.alternatives_figure(picture)
    assert list(figure.data[0].y)[-1] == picture.alternatives[0]["plan"]  # the first on top


def test_a_large_group_is_pooled_into_columns() -> None:
    members = tuple(Member(f"m{i:03d}", ("t",)) for i in range(100))
    scenario = Scenario((Topic("t", 200, produce_rates=(1.0,) * 200),), members)
    picture = deploy_model.picture(scenario, "range", DeployPlan(batch_size=25), alternatives=False)
    # 100 members, at most 40 columns: 3 a column (34 columns, the last holding one).
    assert len(picture.columns) == 34 <= deploy_model.MAX_COLUMNS
    assert picture.columns[0] == "m000…m002 (3)"
    assert picture.tiles is None
    assert sum(picture.reading[0][0]) == 200


def _deploy_view(**query: str) -> Any:
    return open_page(start_app(**query), pages.DEPLOY)


def _charts(app: Any) -> int:
    return len(app.get("plotly_chart"))


def test_the_view_shows_the_deploy_and_its_alternatives() -> None:
    app = _deploy_view()
    assert _charts(app) >= 3
    tables = [table.value for table in app.table]  # st.table: every column shown (issue 36)
    ranking = next(t for t in tables if "lag added" in t.columns)
    assert len(ranking) >= 2
    steps = next(t for t in tables if "what happens" in t.columns)
    assert list(steps.index) == ["1", "2"]
    assert any("Pareto front" in info.value for info in app.info)
    [membership] = [s for s in app.selectbox if s.label == "Membership"]
    membership.set_value("static (group.instance.id)")
    app.button[0].click().run()  # the form's submit button is the page's first button
    assert_no_exception(app)
    steps = next(table.value for table in app.table if "what happens" in table.value.columns)
    assert list(steps["rebalances"]) == ["0", "0"]
    assert any("static membership" in m.value for m in app.markdown)


def test_the_view_works_on_the_large_sample() -> None:
    app = _deploy_view()
    app.selectbox(key="source.sample").set_value("large-group").run()
    assert_no_exception(app)
    assert _charts(app) >= 3
    steps = next(table.value for table in app.table if "what happens" in table.value.columns)
    assert len(steps) == 28


def test_a_streams_application_gets_a_note() -> None:
    app = _deploy_view()
    app.selectbox(key="source.sample").set_value("streams-new-instance").run()
    assert_no_exception(app)
    assert any("consumer groups" in info.value for info in app.info)


@pytest.mark.parametrize("key", [info.key for info in sample_data.list_samples()])
def test_the_view_works_on_every_sample(key: str) -> None:
    app = _deploy_view()
    app.selectbox(key="source.sample").set_value(key).run()
    assert_no_exception(app)
    assert not app.error, [e.value for e in app.error]
    kind = next(info.kind for info in sample_data.list_samples() if info.key == key)
    if kind == "consumer-group":
        assert _charts(app) >= 3
        assert any("what happens" in table.value.columns for table in app.table)
    else:
        assert any("consumer groups" in info.value for info in app.info)


def test_each_bounce_of_an_upgrade_names_its_protocol_and_assignor() -> None:
    dynamic = DeploySettings(static_membership=False)
    plan = DeployPlan(upgrade="eager-to-cooperative", batch_size=3, settings=dynamic)
    picture = deploy_model.picture(three_members(), "range", plan, alternatives=False)
    actions = [row["action"] for row in deploy_model.steps_table(picture)]
    # Bounce 1 adds cooperative-sticky beside range: still eager; bounce 2 drops range.
    assert actions[0].startswith("bounce 1 (eager, ")
    assert actions[-1] == "bounce 2 (cooperative, cooperative-sticky)"


def test_other_weights_reorder_the_plans_without_playing_them_again() -> None:
    picture = deploy_model.picture(three_members(), "range", DeployPlan(restart_s=5))
    assert picture.ranking is not None
    assert all(a.outcome is None for a in picture.ranking.alternatives)  # kept light
    only_moves = {cost.key: 0.0 for cost in DEPLOY_COSTS} | {"moved": 1.0}
    moved = deploy_model.reranked(picture, only_moves)
    moves = [row["moves"] for row in moved.alternatives]
    assert moves == sorted(moves)
    assert {row["plan"] for row in moved.alternatives} == {
        row["plan"] for row in picture.alternatives
    }
    assert deploy_model.reranked(picture, None).alternatives == picture.alternatives


def _weight_inputs(app: Any) -> dict[str, float]:
    return {
        str(box.key).removeprefix("deploy.weight."): box.value
        for box in app.number_input
        if str(box.key).startswith("deploy.weight.")
    }


def test_the_weights_come_from_the_link_and_go_back_into_it() -> None:
    app = open_address(pages.DEPLOY, sample="range-vs-roundrobin", weights="rebalances:5,moved:0")
    assert_no_exception(app)
    shown = _weight_inputs(app)
    assert shown["rebalances"] == 5 and shown["moved"] == 0 and shown["peak_lag"] == 1
    assert (
        app.query_params["weights"] == ["rebalances:5,moved:0"]
        or app.query_params["weights"] == "rebalances:5,moved:0"
    )
    next(b for b in app.number_input if b.key == "deploy.weight.deploy_s").set_value(2.5).run()
    assert_no_exception(app)
    assert "deploy_s:2.5" in str(app.query_params["weights"])


def test_a_malformed_weights_link_says_so_and_ranks_by_the_defaults() -> None:
    app = open_address(pages.DEPLOY, sample="range-vs-roundrobin", weights="speed:**9**")
    assert_no_exception(app)
    assert any("ranking weights were not read" in w.value for w in app.warning)
    assert set(_weight_inputs(app).values()) == {1.0}
    assert "weights" not in app.query_params

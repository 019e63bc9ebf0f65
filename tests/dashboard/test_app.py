"""The dashboard driven like a user with Streamlit's AppTest: click widgets, read what is shown.

These run the real app script with the real core (strategies, rebalance simulation, metrics);
nothing is mocked.
"""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

import sample_data
from dashboard.model import share
from dashboard.panels import results_panel, shape_panel
from dashboard.session import state as state_module
from tests.dashboard import plotly_spec
from tests.dashboard.app_session import (
    APP,
    add_form,
    assert_no_exception,
    has_add_form,
    open_panel,
    open_tab,
    shown_text,
    start_app,
)

CONSUMER_SAMPLES = [
    info.key for info in sample_data.list_samples() if info.kind == "consumer-group"
]


def _texts(app: AppTest) -> str:
    """The page's Markdown, error and caption texts as shown (escapes read)."""
    return shown_text(
        "\n".join(
            [m.value for m in app.markdown]
            + [c.value for c in app.caption]
            + [e.value for e in app.error]
        )
    )


def _headline(app: AppTest) -> str:
    return shown_text(app.markdown[0].value)


def test_opens_on_the_default_sample_with_two_strategies() -> None:
    app = start_app()
    title = sample_data.load_sample(sample_data.DEFAULT_SAMPLE).info.name
    assert title in _headline(app)
    picked = app.multiselect(key="strategies.pick").value
    # The sample's description names range and roundrobin: it opens comparing both.
    assert picked == ["range", "roundrobin"]
    rows = plotly_spec.comparison(app)
    assert list(rows) == ["current (as it is now)", *picked]
    # The answer in words at the top, and the walkthrough offered.
    assert any(m.value.startswith("#### Reassigning the group") for m in app.markdown)
    assert app.button(key="teach.start")


@pytest.mark.parametrize("key", CONSUMER_SAMPLES)
def test_each_sample_loads_and_shows_its_description(key: str) -> None:
    app = start_app()
    app.selectbox(key="source.sample").set_value(key).run()
    assert_no_exception(app)
    info = sample_data.load_sample(key).info
    assert info.name in _headline(app)
    assert info.description in _texts(app)
    assert plotly_spec.comparison(app), "the comparison table is shown"
    # Every consumer-group sample carries lag, and opens with its own strategies.
    assert sum(plotly_spec.lag_panel(app, "current").values()) > 0
    sample = sample_data.load_sample(key)
    assert sample.scenario is not None
    assert sample.scenario.assignor in app.multiselect(key="strategies.pick").value


def test_choosing_strategies_adds_a_row_per_strategy() -> None:
    app = start_app()
    app.multiselect(key="strategies.pick").set_value(["range", "roundrobin", "sticky"]).run()
    assert_no_exception(app)
    assert list(plotly_spec.comparison(app))[1:] == ["range", "roundrobin", "sticky"]
    assert app.radio(key="view.animate").options == ["range", "roundrobin", "sticky"]


def test_add_then_remove_a_member_and_undo() -> None:
    app = start_app()
    add_form(app, "add_id").input("new-consumer")
    add_form(app, "add_submit").click().run()
    assert_no_exception(app)
    assert "new-consumer" in app.multiselect(key="shape.remove_ids").options
    # Only the open tab is built: the edit list is on the Edits tab.
    assert "add member new-consumer" not in _texts(app)
    assert "add member new-consumer" in _texts(open_tab(app, "Edits"))

    open_tab(app, "Members")
    app.multiselect(key="shape.remove_ids").set_value(["new-consumer"]).run()
    app.button(key="shape.remove").click().run()
    assert_no_exception(app)
    assert "new-consumer" not in app.multiselect(key="shape.remove_ids").options
    assert "remove member new-consumer" in _texts(open_tab(app, "Edits"))

    app.button(key="shape.undo").click().run()
    leaving = open_tab(app, "Members").multiselect(key="shape.remove_ids")
    assert "new-consumer" in leaving.options
    open_tab(app, "Edits").button(key="shape.reset").click().run()
    leaving = open_tab(app, "Members").multiselect(key="shape.remove_ids")
    assert "new-consumer" not in leaving.options


def test_a_click_on_a_form_drawn_for_another_group_adds_nothing() -> None:
    """The load test's race (issue 17.1): the browser still shows the *Add member* form of the
    group before a change (a new sample, another edit) when the click reaches the server. That
    form's fields belong to the old group, so nothing is added and the page says why."""
    app = start_app()
    first = app.multiselect(key="shape.remove_ids").options[0]
    add_form(app, "add_id").input("late-click")
    # Another edit lands first: the group the form was drawn for is gone.
    app.session_state[state_module._EDITS] = [{"op": "remove_member", "member_id": first}]
    add_form(app, "add_submit").click().run()
    assert_no_exception(app)
    assert not app.error, [e.value for e in app.error]
    assert "late-click" not in app.multiselect(key="shape.remove_ids").options
    assert any("nothing was added" in box.value for box in app.success), app.success
    # The form now drawn is the current group's, and a click on it adds the member.
    add_form(app, "add_id").input("on-time")
    add_form(app, "add_submit").click().run()
    assert "on-time" in app.multiselect(key="shape.remove_ids").options


def test_adding_a_member_changes_the_lag_per_consumer() -> None:
    app = start_app(sample="lag-aware-worked-example")
    before = _lag_panel(app, "current")
    add_form(app, "add_id").input("extra")
    add_form(app, "add_submit").click().run()
    assert_no_exception(app)
    picked = app.multiselect(key="strategies.pick").value
    after = _lag_panel(app, picked[0])
    assert "extra" in after and "extra" not in before


def _lag_panel(app: AppTest, title: str) -> dict[str, float]:
    return plotly_spec.lag_panel(app, title)


def test_a_malformed_upload_shows_the_error_and_keeps_the_scenario() -> None:
    app = start_app()
    headline = _headline(app)
    app.radio(key="source.kind").set_value("Upload").run()
    app.file_uploader(key="source.upload").upload(
        "broken.json",
        b'{"topics": [{"name": "t", "partitions": -1}], "members": 3}',
        "application/json",
    ).run()
    assert_no_exception(app)
    errors = [e.value for e in app.error]
    assert any("broken.json was not loaded" in e and "members" in e for e in errors), errors
    assert _headline(app) == headline


def test_a_valid_upload_replaces_the_scenario() -> None:
    app = start_app()
    scenario = {
        "name": "Uploaded group",
        "topics": [{"name": "orders", "partitions": 4}],
        "members": [
            {"member_id": "x", "topics": ["orders"]},
            {"member_id": "y", "topics": ["orders"]},
        ],
    }
    app.radio(key="source.kind").set_value("Upload").run()
    app.file_uploader(key="source.upload").upload(
        "mine.json", json.dumps(scenario).encode(), "application/json"
    ).run()
    assert_no_exception(app)
    assert "Uploaded group" in _headline(app)


def test_a_shared_link_restores_sample_strategies_and_edits() -> None:
    params = share.share_params(
        "sticky-member-joins",
        ["sticky", "range"],
        [{"op": "add_member", "member_id": "C3", "topics": ["t1"]}],
    )
    app = start_app(**params)
    assert "Sticky" in _headline(app)
    assert app.multiselect(key="strategies.pick").value == ["sticky", "range"]
    assert "add member C3" in _texts(open_tab(app, "Edits"))


def test_skew_the_lag_raises_the_lag_spread() -> None:
    app = start_app(sample="lag-aware-worked-example")
    total_before = sum(_lag_panel(app, "current").values())
    open_tab(app, "Lag & rates").button(key="shape.skew").click().run()
    assert_no_exception(app)
    assert sum(_lag_panel(app, "current").values()) > total_before


def test_a_scenario_without_lag_says_so_next_to_the_lag_chart() -> None:
    app = start_app()
    scenario = {
        "topics": [{"name": "orders", "partitions": 4}],
        "members": [{"member_id": "x", "topics": ["orders"]}],
    }
    app.radio(key="source.kind").set_value("Upload").run()
    app.file_uploader(key="source.upload").upload(
        "nolag.json", json.dumps(scenario).encode(), "application/json"
    ).run()
    assert_no_exception(app)
    assert plotly_spec.comparison(app)["current (as it is now)"]["lag spread"] == "no lag"
    assert any("carries no lag" in info.value for info in app.info)
    lagging = start_app(sample="lag-aware-worked-example")
    assert not any("carries no lag" in info.value for info in lagging.info)


def test_the_what_if_panel_is_built_only_while_open_and_reopens_with_the_scenarios_values() -> None:
    app = AppTest.from_file(APP, default_timeout=120)
    app.run()
    assert_no_exception(app)
    assert not has_add_form(app)
    app.session_state[shape_panel.PANEL] = True
    app.run()
    subscription = add_form(app, "add_topics").value
    assert subscription  # the first member's topics, never an empty form
    app.session_state[shape_panel.PANEL] = False
    app.run()
    assert not has_add_form(app)
    app.session_state[shape_panel.PANEL] = True
    app.run()
    assert add_form(app, "add_topics").value == subscription
    add_form(app, "add_id").input("after-reopening")
    add_form(app, "add_submit").click().run()
    assert_no_exception(app)
    assert not app.error, [e.value for e in app.error]
    assert "after-reopening" in app.multiselect(key="shape.remove_ids").options


def test_the_subscription_editor_is_built_only_while_open_and_changes_a_subscription() -> None:
    # Closed, its pickers are not sent: an *Add member* click no longer re-sends them (17.7).
    app = start_app()
    assert "shape.sub_apply" not in [button.key for button in app.button]
    open_panel(app, shape_panel.SUBSCRIPTION)
    member = str(app.selectbox(key="shape.sub_member").value)
    topics = next(
        picker for picker in app.multiselect if picker.key.startswith(f"shape.sub_topics.{member}.")
    )
    assert topics.value  # the member's own subscription
    fewer = list(topics.value)[:1]
    topics.set_value(fewer)
    app.button(key="shape.sub_apply").click().run()
    assert_no_exception(app)
    assert not app.error, [e.value for e in app.error]
    open_tab(app, "Edits")
    listed = " ".join(str(line.value) for line in app.markdown)
    assert f"1. {member} subscribes to {fewer[0]}" in listed


@pytest.mark.parametrize("members", [3, 41])
def test_the_members_view_lists_every_member_small_groups_as_text(members: int) -> None:
    """The default *More views* view: a Markdown table up to 40 members (nothing for the
    browser to load for it on a first visit), a scrollable grid past that."""
    app = start_app()
    ids = [f"consumer-{index:02d}" for index in range(members)]
    scenario = {
        "name": f"{members} members",
        "topics": [{"name": "orders", "partitions": 60}],
        "members": [{"member_id": member, "topics": ["orders"]} for member in ids],
    }
    app.radio(key="source.kind").set_value("Upload").run()
    app.file_uploader(key="source.upload").upload(
        "members.json", json.dumps(scenario).encode(), "application/json"
    ).run()
    assert_no_exception(app)
    shown = plotly_spec.markdown_frame(app, "client id")
    grids = [frame.value for frame in app.dataframe if "client id" in frame.value.columns]
    if members <= 40:
        assert shown is not None and not grids
    else:
        assert shown is None and len(grids) == 1
        shown = grids[0]
    assert list(shown["member id"]) == ids
    assert sum(int(count) for count in shown["partitions"]) == 60  # each partition once


def test_the_page_reads_in_order_though_the_animation_is_worked_out_first() -> None:
    """The animated strategy is worked out and sent before the others (the browser draws it
    meanwhile, issue 17.7), into its own place: the page still reads headline, comparison
    table, animation, lag chart, and an edit keeps that order."""

    def positions(app: AppTest) -> list[int]:
        texts = [str(getattr(node, "value", "")) for node in app.main]
        marks = (
            lambda t: t.startswith("#### "),
            lambda t: "partitions moved" in t,
            lambda t: t == "Before → after",
            lambda t: t == "Lag per consumer",
        )
        return [next(i for i, text in enumerate(texts) if mark(text)) for mark in marks]

    app = start_app()
    first = positions(app)
    assert first == sorted(first)
    app.session_state["panel.shape"] = True
    app.run()
    add_form(app, "add_id").input("order-check")
    add_form(app, "add_submit").click().run()
    assert_no_exception(app)
    assert "order-check" in plotly_spec.lag_panel(app, str(app.radio(key="view.animate").value))
    after = positions(app)
    assert after == sorted(after)


def test_the_lag_drain_opens_fitted_to_the_backlog() -> None:
    """Issue 17: the drain chart spanned an hour where the lag cleared in seconds. On the
    default sample the slowest strategy clears in about 13 s, so *Horizon* opens on "fit the
    backlog" and the chart ends at 20 s (a third past 13 s, up to round seconds: issue 36, where
    a backlog gone in 9 s was drawn over a minute)."""
    app = start_app(sample=sample_data.DEFAULT_SAMPLE)
    app.session_state["view.more"] = "Lag drain"
    app.run()
    assert_no_exception(app)
    assert app.radio(key="view.drain_horizon").value == results_panel.FIT_HORIZON
    lines = plotly_spec.spec(app, "view.drain")["data"]
    assert {plotly_spec.values(line["x"])[-1] for line in lines} == {20.0}


def test_members_to_include_after_a_switch_are_the_new_samples_members() -> None:
    """Issue 17: after a switch of sample, *Members to include* looked empty but applied the
    old sample's selection. The default sample has C0 and C1; after a switch to "Sticky: a
    third member joins" the picker holds C0, C1 and C2, and leaving out C0 keeps C1 and C2."""
    app = start_app(sample=sample_data.DEFAULT_SAMPLE)
    assert app.multiselect(key="shape.include_members").value == ["C0", "C1"]
    app.selectbox(key="source.sample").set_value("sticky-member-joins").run()
    picker = app.multiselect(key="shape.include_members")
    assert picker.value == ["C0", "C1", "C2"]
    picker.unselect("C0").run()
    app.button(key="shape.apply_members").click().run()
    assert_no_exception(app)
    members = plotly_spec.markdown_frame(app, "client id")
    assert members is not None
    assert list(members["member"]) == ["C1", "C2"]

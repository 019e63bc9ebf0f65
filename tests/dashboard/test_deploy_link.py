"""The Deploy page's plan travels in its link (issue 36: the address bar holds the link of what
is on screen): the parameters of a plan and back (pure, generated plans), and the page in the
real app (AppTest): a plan asked for goes into the address, and that address opened in a fresh
session shows the same plan; a malformed part is said and left at the form's default."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from assignors import UPGRADES, DeployPlan, DeploySettings
from dashboard.model import deploy_link
from dashboard.views import pages
from tests.dashboard.app_session import assert_no_exception, open_address

STRATEGIES = ("range", "roundrobin", "sticky", "cooperative-sticky", "uniform")
MEMBERS = ("C1", "C2", "C3", "a;b:c,d", "<b>x</b>", "ünï cødé")


@st.composite
def plans(draw: st.DrawFn) -> tuple[str, DeployPlan]:
    """What the Deploy form can ask for, on a group of :data:`MEMBERS`."""
    upgrade = draw(st.sampled_from([None, *UPGRADES, *(f"assignor:{s}" for s in STRATEGIES)]))
    scale = draw(st.integers(-(len(MEMBERS) - 1), 1_000))
    only = draw(st.lists(st.sampled_from(MEMBERS), unique=True, max_size=len(MEMBERS)))
    members: tuple[str, ...] | None = None if upgrade else tuple(only) or (() if scale else None)
    seconds = st.floats(0, 86_400, allow_nan=False).map(lambda s: round(s, 3))
    held = draw(st.booleans())
    timeouts = DeploySettings(
        static_membership=draw(st.sampled_from([None, True, False])),
        session_timeout_s=draw(st.sampled_from([45.0, 10.0, 300.5])),
        max_poll_interval_s=draw(st.sampled_from([300.0, 60.0])),
        heartbeat_interval_s=draw(st.sampled_from([3.0, 1.5])),
        group_initial_rebalance_delay_s=draw(st.sampled_from([3.0, 0.0, 10.0])),
        scheduled_rebalance_max_delay_s=draw(seconds) if held else None,
    )
    plan = DeployPlan(
        members=members,
        batch_size=draw(st.integers(1, len(MEMBERS))),
        restart_s=draw(seconds),
        scale=scale,
        upgrade=upgrade,
        settings=timeouts,
    )
    return draw(st.sampled_from(STRATEGIES)), plan


def _plan_of(values: dict[str, Any], default: str) -> tuple[str, DeployPlan]:
    """The plan the form makes from widget values (the view's own rules, restated)."""
    defaults = DeploySettings()
    membership = values.get("membership", deploy_link.MEMBERSHIP[0])
    static = {deploy_link.MEMBERSHIP[1]: True, deploy_link.MEMBERSHIP[2]: False}.get(membership)
    upgrade = values.get("upgrade")
    scale = values.get("scale", 0)
    only = values.get("members", [])
    members = None if upgrade else tuple(only) if only else (() if scale else None)
    timeouts = DeploySettings(
        static_membership=static,
        session_timeout_s=values.get("session", defaults.session_timeout_s),
        max_poll_interval_s=values.get("poll", defaults.max_poll_interval_s),
        heartbeat_interval_s=values.get("heartbeat", defaults.heartbeat_interval_s),
        group_initial_rebalance_delay_s=values.get(
            "initial", defaults.group_initial_rebalance_delay_s
        ),
        scheduled_rebalance_max_delay_s=values.get("delay") if values.get("held") else None,
    )
    plan = DeployPlan(
        members=members,
        batch_size=values.get("batch", 1),
        restart_s=values.get("restart", 30.0),
        scale=scale,
        upgrade=upgrade,
        settings=timeouts,
    )
    return values.get("strategy", default), plan


@settings(max_examples=300, deadline=None)
@given(asked=plans(), default=st.sampled_from(STRATEGIES))
def test_a_plan_survives_its_link(asked: tuple[str, DeployPlan], default: str) -> None:
    strategy, plan = asked
    fields = deploy_link.plan_fields(strategy, plan, default)
    assert set(fields) <= set(deploy_link.PARAMS)
    found = deploy_link.form_values(fields, STRATEGIES, MEMBERS)
    assert found.problems == ()
    assert _plan_of(found.values, default) == (strategy, plan)


def test_the_default_plan_has_no_parameters_and_a_plan_by_hand() -> None:
    assert deploy_link.plan_fields("range", DeployPlan(), "range") == {}
    plan = DeployPlan(
        members=("C2", "C1"),
        batch_size=2,
        scale=-1,
        settings=DeploySettings(static_membership=True, scheduled_rebalance_max_delay_s=300),
    )
    assert deploy_link.plan_fields("sticky", plan, "range") == {
        "assignor": "sticky",
        "batch": "2",
        "scale": "-1",
        "membership": "static",
        "restart_only": '["C2", "C1"]',
        "timeouts": "delay:300",
    }


@given(
    name=st.sampled_from(deploy_link.PARAMS),
    text=st.text(max_size=40) | st.sampled_from(["1e999", "nan", "-5", "[1]", "{}", "9" * 30]),
)
def test_a_malformed_parameter_is_said_and_never_raised(name: str, text: str) -> None:
    found = deploy_link.form_values({name: text}, STRATEGIES, MEMBERS)
    assert len(found.problems) + bool(found.values) >= 1 or text == ""
    for problem in found.problems:
        assert problem.startswith(f"{name}: ")


def _address(app: Any) -> dict[str, str]:
    return {key: str(value) for key, value in app.query_params.items()}


def test_a_plan_asked_for_goes_into_the_address_and_opens_again() -> None:
    app = open_address(pages.DEPLOY, sample="range-vs-roundrobin")
    assert_no_exception(app)
    batch = next(b for b in app.number_input if b.label == "Batch size")
    batch.set_value(2)
    next(b for b in app.number_input if b.label.startswith("Scale by")).set_value(1)
    next(s for s in app.selectbox if s.label == "Membership").set_value("dynamic")
    app.button[0].click().run()  # Simulate the deploy
    assert_no_exception(app)
    address = _address(app)
    assert {k: address[k] for k in ("batch", "scale", "membership")} == {
        "batch": "2",
        "scale": "+1",
        "membership": "dynamic",
    }
    headline = next(m.value for m in app.markdown if "scale out by 1" in m.value)
    again = open_address(pages.DEPLOY, **address)
    assert_no_exception(again)
    assert not again.warning, [w.value for w in again.warning]
    assert any(m.value == headline for m in again.markdown)
    assert _address(again) == address


def test_a_malformed_plan_link_says_what_was_not_read() -> None:
    app = open_address(
        pages.DEPLOY,
        sample="range-vs-roundrobin",
        batch="**lots**",
        restart_only=json.dumps(["nobody"]),
        scale="+1",
    )
    assert_no_exception(app)
    [warning] = [w.value for w in app.warning if "deploy plan was not read" in w.value]
    assert "batch" in warning and "restart\\_only" in warning and "\\*\\*lots" in warning
    assert _address(app)["scale"] == "+1"
    assert "batch" not in _address(app) and "restart_only" not in _address(app)

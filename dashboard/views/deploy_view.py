"""The *Deploy* view: pick a deploy plan and its settings, see it played out.

1. The sidebar's source panel picks the group (a sample, an upload, a cluster snapshot), as in
   the explorer; a Kafka Streams application gets a note instead.
2. A form holds the plan: the assignor the group runs, the members to restart, the batch size,
   how long a member is down, static membership, a scale step, an upgrade path, and the group's
   timeouts (Kafka's defaults). Nothing runs until *Simulate the deploy* is pressed.
3. The answer (:func:`dashboard.model.deploy_model.picture`, the core's ``evaluate(deploy=...)``) is
   worked out in a stoppable worker process (:mod:`dashboard.runtime.jobs`) and kept in the
   byte-budgeted cache (:mod:`dashboard.runtime.budget`) under the source and the plan, so a rerun
   recomputes nothing.
4. Shown: the headline figures, the deploy as an animation, the backlog over time with every
   step marked, the ranked alternatives with the sentence saying what made the difference, the
   steps table, and (for a small group) the explorer's per-partition tile animation.

Invariants: no assignment logic here (the core answers); figures come from
:mod:`dashboard.charts.deploy_charts`; widget keys start with ``deploy.``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from assignors import (
    DEFAULT_DEPLOY_WEIGHTS,
    DEPLOY_COSTS,
    UPGRADES,
    AssignmentExplorerError,
    DeployPlan,
    DeploySettings,
    Scenario,
    check_deploy_weights,
    registry,
    short_count,
    short_seconds,
)
from dashboard.charts import animation_chart, deploy_charts
from dashboard.model import deploy_link, deploy_model, plain, sources
from dashboard.model.plain import ERROR_ICON, INFO_ICON, WARNING_ICON
from dashboard.panels import source_panel
from dashboard.panels.layout import show_pending, sync_address_bar
from dashboard.runtime import budget, jobs
from dashboard.session import state

_NO_UPGRADE = deploy_link.NO_UPGRADE
_MEMBERSHIP = deploy_link.MEMBERSHIP
#: Members listed in the "restart only" picker at most (a larger group restarts all of them).
MAX_PICKABLE = 200


@dataclass(frozen=True, slots=True)
class Request:
    """What the form asks for: the strategy and the plan."""

    strategy: str
    plan: DeployPlan


def _default_strategy(scenario: Scenario, names: list[str]) -> int:
    wanted = scenario.assignor if scenario.assignor in names else "range"
    return names.index(wanted) if wanted in names else 0


def _settings(static: bool | None, scope: str) -> DeploySettings:
    """The group's timeouts (Kafka's defaults), inside the form's expander."""
    defaults = DeploySettings()
    left, right = st.columns(2)
    key = f"deploy.{scope}."
    session = left.number_input(
        "session.timeout.ms (s)",
        1.0,
        86_400.0,
        _initial(key + "session", defaults.session_timeout_s),
        key=key + "session",
    )
    poll = right.number_input(
        "max.poll.interval.ms (s)",
        1.0,
        86_400.0,
        _initial(key + "poll", defaults.max_poll_interval_s),
        key=key + "poll",
    )
    heartbeat = left.number_input(
        "heartbeat.interval.ms (s)",
        0.1,
        3_600.0,
        _initial(key + "heartbeat", defaults.heartbeat_interval_s),
        key=key + "heartbeat",
    )
    initial = right.number_input(
        "group.initial.rebalance.delay.ms (s)",
        0.0,
        3_600.0,
        _initial(key + "initial", defaults.group_initial_rebalance_delay_s),
        key=key + "initial",
    )
    delay: float | None = None
    if left.checkbox("scheduled.rebalance.max.delay.ms (Connect / Streams)", key=key + "held"):
        delay = float(
            right.number_input(
                "scheduled delay (s)",
                0.0,
                86_400.0,
                _initial(key + "delay", 300.0),
                key=key + "delay",
            )
        )
    return DeploySettings(
        static_membership=static,
        session_timeout_s=float(session),
        max_poll_interval_s=float(poll),
        heartbeat_interval_s=float(heartbeat),
        group_initial_rebalance_delay_s=float(initial),
        scheduled_rebalance_max_delay_s=delay,
    )  # fmt: skip


def _initial(key: str, default: Any, unset: Any = "min") -> Any:
    """A widget's starting value: ``default``, or ``unset`` (the widget's "none given") when
    the session holds a value for it already, a link's (Streamlit warns when both are given)."""
    return unset if key in st.session_state else default


def _restarted(only: list[str], scale: int, upgrade: str) -> tuple[str, ...] | None:
    """Who restarts: everyone for an upgrade; the picked ones; nobody for a plain scale step."""
    if upgrade != _NO_UPGRADE:
        return None
    if only:
        return tuple(only)
    return () if scale else None


def _strategy_names() -> list[str]:
    return [n for n, s in registry.partition_strategies().items() if n != "share-simple"]


def _from_link(scenario: Scenario, scope: str) -> None:
    """A link opened: its plan fills the form's widgets, once per session (a plan the user
    changes, or another sample picked later, is never overridden by the address)."""
    if st.session_state.get("deploy.link_read"):
        return
    st.session_state["deploy.link_read"] = True
    members = [m.member_id for m in scenario.members]
    found = deploy_link.form_values(dict(st.query_params), _strategy_names(), members)
    for name, value in found.values.items():
        st.session_state.setdefault(f"deploy.{scope}.{name}", value)
    if found.problems:
        st.warning(
            "Part of the link's deploy plan was not read; the form's default is used for it: "
            + plain.escape_markdown("; ".join(found.problems)),
            icon=WARNING_ICON,
        )


def _plan_params(scenario: Scenario, request: Request | None) -> dict[str, str]:
    """The link parameters of the plan on screen."""
    if request is None:
        return {}
    names = _strategy_names()
    default = names[_default_strategy(scenario, names)]
    return deploy_link.plan_fields(request.strategy, request.plan, default)


def _form(scenario: Scenario, scope: str) -> Request | None:
    """Step 2: the plan, once *Simulate the deploy* is pressed (else the last one asked)."""
    names = _strategy_names()
    members = [m.member_id for m in scenario.members]
    with st.form(f"deploy.form.{sources.content_key(scope)}"):
        top = st.columns(4)
        strategy = top[0].selectbox(
            "The group's assignor now",
            names,
            _initial(f"deploy.{scope}.strategy", _default_strategy(scenario, names), 0),
            key=f"deploy.{scope}.strategy",
        )
        batch = top[1].number_input(
            "Batch size",
            1,
            max(1, len(members)),
            _initial(f"deploy.{scope}.batch", 1),
            key=f"deploy.{scope}.batch",
        )
        restart_s = top[2].number_input(
            "Restart takes (s)",
            0.0,
            86_400.0,
            _initial(f"deploy.{scope}.restart", 30.0),
            key=f"deploy.{scope}.restart",
        )
        membership = top[3].selectbox("Membership", _MEMBERSHIP, key=f"deploy.{scope}.membership")
        middle = st.columns([2, 1, 2])
        upgrade = middle[0].selectbox(
            "Upgrade on the way",
            [_NO_UPGRADE, *UPGRADES, *(f"assignor:{n}" for n in names)],
            key=f"deploy.{scope}.upgrade",
        )
        scale = middle[1].number_input(
            "Scale by (±members)",
            -max(0, len(members) - 1),
            1_000,
            _initial(f"deploy.{scope}.scale", 0),
            key=f"deploy.{scope}.scale",
        )
        only: list[str] = []
        if len(members) <= MAX_PICKABLE:
            only = middle[2].multiselect(
                "Restart only (empty: every member)", members, key=f"deploy.{scope}.members"
            )
        static = {_MEMBERSHIP[1]: True, _MEMBERSHIP[2]: False}.get(str(membership))
        with st.expander("Timeouts (Kafka's defaults)"):
            try:
                settings = _settings(static, scope)
            except AssignmentExplorerError as error:
                st.error(
                    f"These settings cannot run: {plain.escape_markdown(str(error))}",
                    icon=ERROR_ICON,
                )
                settings = DeploySettings(static_membership=static)
        pressed = st.form_submit_button("Simulate the deploy", type="primary")
    try:
        plan = DeployPlan(
            members=_restarted(only, int(scale), upgrade),
            batch_size=int(batch),
            restart_s=float(restart_s),
            scale=int(scale),
            upgrade=None if upgrade == _NO_UPGRADE else upgrade,
            settings=settings,
        )
    except AssignmentExplorerError as error:
        st.error(f"This plan cannot run: {plain.escape_markdown(str(error))}", icon=ERROR_ICON)
        return None
    request = Request(str(strategy), plan)
    if pressed:
        st.session_state["deploy.asked"] = (scope, request)
    asked = st.session_state.get("deploy.asked")
    if isinstance(asked, tuple) and asked[0] == scope and isinstance(asked[1], Request):
        return asked[1]
    return request


def _progress(line: Any, elapsed: float) -> None:
    line.text(f"{elapsed:.0f} s")


def _work_out(key: str, scenario: Scenario, request: Request) -> deploy_model.DeployPicture | None:
    """Step 3: the picture, from the cache or a worker process."""
    cache = budget.shared()
    cache_key = ("deploy", key, request)
    found = cache.get(cache_key)
    if isinstance(found, deploy_model.DeployPicture):
        return found
    with st.status("Playing the deploy and its alternatives…", expanded=False) as box:
        line = st.empty()
        try:
            result = jobs.run(
                deploy_model.picture,
                scenario,
                request.strategy,
                request.plan,
                on_wait=lambda elapsed: _progress(line, elapsed),
                on_queued=lambda ahead, elapsed: line.text(jobs.queued_text(ahead, elapsed)),
            )
        except jobs.JobFailed as error:
            box.update(label="The deploy cannot be simulated", state="error")
            original = error.original
            message = str(original) if isinstance(original, AssignmentExplorerError) else str(error)
            st.error(
                f"The deploy cannot be simulated: {plain.escape_markdown(message)}", icon=ERROR_ICON
            )
            return None
        box.update(label="Deploy simulated", state="complete")
    cache.put(cache_key, result)
    return result


def _figure(key: object, name: str, build: Any) -> Any:
    """A figure built once per picture and kept in the shared cache, as its plain dictionary
    (the cache sizes a dictionary quickly; a figure object drags plotly's validators along)."""
    return budget.shared().get_or_build(("deploy-figure", key, name), lambda: build().to_dict())


def _ranking_name(picture: deploy_model.DeployPicture) -> str:
    """The ranking figure's cache name: one per order of the plans (weights change it)."""
    weights = picture.ranking.weights if picture.ranking is not None else {}
    return "ranking:" + ",".join(f"{value:g}" for value in weights.values())


def _show(picture: deploy_model.DeployPicture, key: object) -> None:
    """Step 4."""
    if not picture.keeps_up:  # capacity first: no restart plan helps a group that cannot keep up
        st.warning(plain.escape_markdown(picture.capacity), icon=":material/speed:")
    st.markdown(f"**{plain.escape_markdown(picture.headline)}**")
    back = None if picture.recovered_at_s is None else picture.recovered_at_s - picture.deploy_s
    cards = st.columns(4)
    cards[0].metric("Deploy takes", short_seconds(picture.deploy_s))
    cards[1].metric(
        "Peak backlog", short_count(picture.peak_lag), help=f"at {short_seconds(picture.peak_at_s)}"
    )
    cards[2].metric("Lag the deploy adds", short_count(picture.added_lag))
    cards[3].metric("Back to the start", "never" if back is None else f"+{short_seconds(back)}")
    st.plotly_chart(
        _figure(key, "animation", lambda: deploy_charts.deploy_animation(picture)),
        width="stretch",
        key="deploy.animation",
    )
    st.plotly_chart(deploy_charts.lag_over_time(picture), width="stretch", key="deploy.lag")
    if picture.alternatives:
        st.subheader("Ways to run it, ranked on every cost")
        _weights_controls()
        st.info(plain.escape_markdown(picture.verdict), icon=INFO_ICON)
        # st.table: every column shown whole, its text wrapped (a grid scrolled the last ones
        # out of sight at 1280 px); numbers formatted once, as the cards are.
        st.table(pd.DataFrame(deploy_model.alternatives_table(picture)).set_index("rank"))
        with st.expander("Why each plan ranks where it does"):
            st.text("\n".join(deploy_model.reasons(picture)))
        st.plotly_chart(
            _figure(
                key, _ranking_name(picture), lambda: deploy_charts.alternatives_figure(picture)
            ),
            width="stretch",
            key="deploy.ranking",
        )
    if picture.scale_rows:
        st.subheader("What the scale step buys")
        st.caption(plain.escape_markdown(picture.scale_baseline))
        st.table(pd.DataFrame(list(picture.scale_rows)).set_index("scale step").fillna("—"))
    st.subheader("Step by step")
    with st.container(height=360):
        st.table(pd.DataFrame(deploy_model.steps_table(picture)).set_index("step"))
    for note in picture.notes:
        st.caption(plain.escape_markdown(note))
    if picture.tiles is not None and picture.partitions is not None:
        with st.expander("Every partition, phase by phase (tiles)"):
            phases = [
                animation_chart.Phase(label, owners, caption)
                for label, owners, caption in picture.tiles
            ]
            st.plotly_chart(
                animation_chart.assignment_animation(phases, partitions=picture.partitions),
                width="stretch",
                key="deploy.tiles",
            )


def page() -> None:
    """The whole Deploy page."""
    source = state.source()
    st.title("Assignment Explorer · Deploy")
    show_pending()
    st.markdown(plain.headline(source.scenario.name or "Scenario", source.label))
    st.caption(
        "Before a deploy: what a rolling restart, a scale step or an upgrade costs, step by step,"
        " while records keep arriving, and how other ways of running it compare on every cost."
    )
    weights = _weights()
    params = source_panel.link_params(source)
    if source.streams is not None or not source.scenario.members:
        sync_address_bar(params)
        st.info(
            "The Deploy view plays consumer groups; pick a consumer-group sample or file.",
            icon=INFO_ICON,
        )
        return
    _from_link(source.scenario, source.key)
    request = _form(source.scenario, source.key)
    plan = _plan_params(source.scenario, request)
    sync_address_bar(None if params is None else {**params, **_weights_param(weights), **plan})
    if request is None:
        return
    picture = _work_out(source.key, source.scenario, request)
    if picture is not None:
        _show(
            deploy_model.reranked(picture, weights), (source.key, request, _weights_text(weights))
        )


#: The link parameter that keeps the ranking's weights (only those not at their default).
WEIGHTS_PARAM = "weights"


def _weight_key(cost: str) -> str:
    return f"deploy.weight.{cost}"


def _weights_text(weights: dict[str, float]) -> str:
    """``rebalances:3,deploy_s:0``: the weights that differ from the defaults."""
    return ",".join(
        f"{key}:{value:g}" for key, value in weights.items() if value != DEFAULT_DEPLOY_WEIGHTS[key]
    )


def _weights_param(weights: dict[str, float]) -> dict[str, str]:
    text = _weights_text(weights)
    return {WEIGHTS_PARAM: text} if text else {}


def _link_weights() -> dict[str, float]:
    """The weights a link names (``?weights=rebalances:3``); a malformed one is reported and
    the defaults are used instead."""
    text = st.query_params.get(WEIGHTS_PARAM, "")
    given: dict[str, float] = {}
    try:
        for pair in filter(None, text.split(",")):
            key, _, number = pair.partition(":")
            given[key.strip()] = float(number)
        return check_deploy_weights(given)
    except (ValueError, AssignmentExplorerError) as error:
        st.warning(
            f"The link's ranking weights were not read ({plain.escape_markdown(str(error))}); "
            "the default weights are used. Set them under *How the plans are ranked*.",
            icon=WARNING_ICON,
        )
        return dict(DEFAULT_DEPLOY_WEIGHTS)


def _weights() -> dict[str, float]:
    """The ranking's weights: the controls' values, which start from the link's."""
    if not all(_weight_key(cost.key) in st.session_state for cost in DEPLOY_COSTS):
        for key, value in _link_weights().items():
            st.session_state.setdefault(_weight_key(key), value)
    chosen = {c.key: float(st.session_state[_weight_key(c.key)]) for c in DEPLOY_COSTS}
    if not any(chosen.values()):  # every weight 0 cannot order: the controls say so
        return dict(DEFAULT_DEPLOY_WEIGHTS)
    return chosen


def _weights_controls() -> None:
    """One number per cost; changing one reorders the plans (nothing is played again)."""
    with st.expander("How the plans are ranked: the weight of each cost"):
        st.caption(
            "Each cost is scaled by its largest value among the plans, times its weight; the"
            " plans are ordered by the sum. A plan beaten on every cost never ranks above the"
            " plan that beats it. Default: 1 each. The weights travel in the page's link."
        )
        columns = st.columns(4)
        for index, cost in enumerate(DEPLOY_COSTS):
            columns[index % 4].number_input(
                plain.escape_markdown(cost.label),
                min_value=0.0,
                max_value=100.0,
                step=0.5,
                key=_weight_key(cost.key),
            )
        if not any(float(st.session_state[_weight_key(c.key)]) for c in DEPLOY_COSTS):
            st.warning(
                "Every weight is 0, which cannot order the plans: the defaults are used.",
                icon=WARNING_ICON,
            )


if __name__ == "__main__":  # run as a page of the app (st.navigation), not when imported
    page()

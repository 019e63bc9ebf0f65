"""Assignment Explorer dashboard: ``streamlit run dashboard/app.py``.

Opens on the default sample with no configuration. The sidebar picks the source and the
strategies; the main page shapes the what-if and shows every view. A Kafka Streams application
gets its own view (:mod:`dashboard.panels.streams_panel`). A live KIP-848 group shows its
reconciliation first (:mod:`dashboard.panels.reconciliation_panel`); a live group can be watched
(:mod:`dashboard.panels.watch`: re-read every few seconds, changes animated). The sidebar's *View*
switch also shows the pipeline's History (:mod:`dashboard.views.history_view`) and Fleet
(:mod:`dashboard.views.fleet_view`) views, read from ``AE_PIPELINE_OUTPUT`` (default
``pipeline-output/`` in the checkout), and the Deploy view (:mod:`dashboard.views.deploy_view`: a
rolling restart, scale step or upgrade). State lives in :mod:`dashboard.session.state`; the core
does all the work (:mod:`dashboard.session.compute`).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

# `streamlit run dashboard/app.py` puts dashboard/ on the path, not the checkout: make the
# project's top-level packages (sample_data among them) importable from a source checkout.
_CHECKOUT = str(Path(__file__).resolve().parent.parent)
if _CHECKOUT not in sys.path:
    sys.path.insert(0, _CHECKOUT)

from dashboard.model import palette, sources, whatif  # noqa: E402
from dashboard.panels import (  # noqa: E402
    big_group,
    export_panel,
    reconciliation_panel,
    results_panel,
    shape_panel,
    source_panel,
    strategy_panel,
    streams_panel,
    teach_panel,
    watch,
)
from dashboard.panels.layout import (  # noqa: E402
    member_layout,
    resolve_plan,
    show_messages,
    sync_address_bar,
)
from dashboard.runtime import internals, server_socket  # noqa: E402
from dashboard.session import compute, state  # noqa: E402
from dashboard.views import deploy_view, fleet_view, history_view  # noqa: E402

compute.freeze_imports()
server_socket.nodelay_listeners()  # served by serve.py: set already, before the first request
st.set_page_config(page_title="Assignment Explorer", page_icon="🧩", layout="wide")
internals.show_off_notice()  # private library uses probed once per process; what is off, said

#: Where the History and Fleet views read the pipeline's input and output (``python -m pipeline
#: lag|whatif|replay --output PIPELINE_OUTPUT/lag|whatif|replay``; see docs/pipeline.md).
PIPELINE_INPUT = Path(
    os.environ.get("AE_PIPELINE_INPUT") or Path(_CHECKOUT) / "sample_data" / "history"
)
PIPELINE_OUTPUT = Path(os.environ.get("AE_PIPELINE_OUTPUT") or Path(_CHECKOUT) / "pipeline-output")
VIEWS = ("Explorer", "History", "Fleet", "Deploy")
_VIEW = "ae.view"
_FLEET_SOURCE = "ae.fleet_source"


def main() -> None:
    """One run of the page. Everything a run builds is local to it: Streamlit keeps the
    script's module as ``sys.modules["__main__"]`` until the next run of any session, so a
    module-level ``scenario`` would keep a closed tab's group (400,000 partitions: ~115 MB)
    alive after its session was freed."""
    # A fleet link names a pipeline group; any other link (or none) a sample.
    if not state.has_source() and not fleet_view.restore_from_query(dict(st.query_params)):
        source_panel.restore_from_query(dict(st.query_params))
    # "Open in explorer" in the Fleet view loads a group and reruns: show it in the explorer.
    if st.session_state.get(_VIEW) == "Fleet" and st.session_state.get(_FLEET_SOURCE) not in (
        None,
        state.source().key,
    ):
        st.session_state[_VIEW] = "Explorer"
    with st.sidebar:
        view = st.radio("View", VIEWS, horizontal=True, key=_VIEW)
    if view == "Deploy":  # before a deploy: rolling restarts, scale steps, upgrades (issue 15)
        deploy_view.page()
        return
    if view != "Explorer":
        _pipeline_view(view)
        return
    st.session_state.pop(_FLEET_SOURCE, None)
    with st.sidebar:
        source_panel.render()
    source = state.source()
    if source.streams is not None:
        _streams_page(source)
        return
    _explorer(source)


def _pipeline_view(view: str) -> None:
    """The History or Fleet view of the pipeline's output."""
    st.title(f"Assignment Explorer · {view}")
    problem = state.take_error()
    if problem:
        st.error(problem)
    if view == "History":
        st.caption(
            f"Lag history and health verdicts from the pipeline output in {PIPELINE_OUTPUT}."
        )
        history_view.render(PIPELINE_OUTPUT / "lag", PIPELINE_OUTPUT / "replay")
    else:
        st.caption(f"The fleet what-if from {PIPELINE_OUTPUT}; snapshots in {PIPELINE_INPUT}.")
        st.session_state[_FLEET_SOURCE] = state.source().key
        fleet_view.render(PIPELINE_OUTPUT / "whatif", PIPELINE_INPUT)


def _streams_page(source: sources.Source) -> None:
    """A Kafka Streams application: its own view, no consumer-group strategies or what-if."""
    assert source.streams is not None
    st.title("Assignment Explorer")
    st.markdown(f"**{source.streams.name or 'Kafka Streams application'}** · {source.label}")
    if source.streams.description:
        st.caption(source.streams.description)
    show_messages(source)
    if watch.is_on():
        watch.live()
    watch.render_streams_changes()
    reconciliation_panel.render_streams(source.streams)
    streams_panel.render(source.key, source.streams)


def _explorer(source: sources.Source) -> None:
    """A consumer group: strategies, the what-if, and every view of the comparison."""
    with st.sidebar:
        picked = strategy_panel.render(source)
    st.title("Assignment Explorer")
    st.markdown(f"**{source.scenario.name or 'Scenario'}** · {source.label}")
    if source.scenario.description:
        st.caption(source.scenario.description)
    messages = st.container()
    # The Kafka release picked in the sidebar (uniform answered differently before 4.0 and 4.1).
    scenario = state.versioned(source.scenario)
    if watch.is_on():
        watch.live()
    if scenario.reconciliation is not None or watch.is_on():
        # A live group's views; a big group's members get no colour each (that alone would cost
        # minutes) and no tile animation.
        small = not big_group.is_big(scenario)
        live_order = [member.member_id for member in scenario.members]
        live_colours = palette.member_colours(live_order) if small else {}
        watch.render_changes(live_order, live_colours, animate=small)
        reconciliation_panel.render(scenario, live_order, live_colours, animate=small)
    if big_group.is_big(scenario):
        # Past what a browser can draw per partition: aggregates, worked out in stoppable workers.
        with st.sidebar:
            source_panel.showing(source, picked)
        with messages:
            show_messages(source)
        big_group.render(scenario, picked)
        return
    _comparison(source, picked, messages)


@st.fragment
def _comparison(source: sources.Source, picked: list[str], messages: DeltaGenerator) -> None:
    """Everything a what-if edit changes, rerun alone when one is made: the messages, the
    sidebar's note of what the page shows, the headline, the panels and every view.

    An edit (*Add member* and the other what-if controls) reruns this fragment only: the
    sidebar's pickers, the title and the live views above, which no edit changes, are not
    re-sent and re-drawn by the browser. A control in here that changes what lies outside
    (the source, the strategies) reruns the whole page (``st.rerun()``). The messages and the
    sidebar's note are written from here into their places outside on every run, so they are
    never left showing an older state.
    """
    scenario = state.versioned(source.scenario)
    key = state.plan_key()
    with messages:
        shown = st.container()  # written on every run: a fragment rerun can fill it again
    plan = resolve_plan(key, scenario)
    with st.sidebar:  # after resolve_plan, which drops an edit that does not fit
        source_panel.showing(source, picked)
    with shown:
        show_messages(source)
    if plan is None:
        return
    key = state.plan_key()
    # The "before" depends only on the shaping edits: adding a member does not recompute it.
    current = compute.current(state.scenario_key(whatif.is_shaping), plan)
    sync_address_bar(source_panel.link_params(source))

    # The headline needs every strategy's answer, the panels under it only the plan: they are
    # sent first, and the browser draws them while the strategies are worked out (the views
    # then draw each chart as soon as what it shows is known).
    headline = results_panel.headline_slot()
    teach_panel.render(source)
    shape_panel.panel(source.scenario, plan.before, plan.after)
    order, colours = member_layout(source.scenario, plan)
    outcomes = results_panel.render(key, plan, current, picked, colours, order, headline)

    export_panel.render(plan, current, outcomes, key, colours, order)


main()

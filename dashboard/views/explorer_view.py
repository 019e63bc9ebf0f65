"""The *Explorer* page (``/``): a consumer group, the strategies compared, the what-if, and every
view of the comparison.

1. The sidebar picks the source (:mod:`dashboard.panels.source_panel`) and the strategies
   (:mod:`dashboard.panels.strategy_panel`).
2. A live group is shown first as it is now: its reconciliation (KIP-848) and, while watched,
   what changed between readings.
3. A group too big to draw per partition gets aggregates worked out in stoppable workers
   (:mod:`dashboard.panels.big_group`); any other gets :func:`comparison`, a fragment an edit
   reruns alone.

A Kafka Streams source is not shown here: the router opens the Kafka Streams page for it.
"""

from __future__ import annotations

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from assignors import Scenario
from dashboard.model import aggregates, palette, plain, sources, whatif
from dashboard.panels import (
    big_group,
    export_panel,
    reconciliation_panel,
    results_panel,
    shape_panel,
    source_panel,
    strategy_panel,
    teach_panel,
    watch,
)
from dashboard.panels.layout import (
    colour_roster,
    member_layout,
    resolve_plan,
    show_messages,
    sync_address_bar,
)
from dashboard.session import compute, state


def page() -> None:
    """The whole Explorer page for the current source (a consumer group)."""
    source = state.source()
    with st.sidebar:
        picked = strategy_panel.render(source)
    st.title("Assignment Explorer")
    st.markdown(plain.headline(source.scenario.name or "Scenario", source.label))
    if source.scenario.description:
        st.caption(plain.escape_markdown(source.scenario.description))
    messages = st.container()
    # The Kafka release picked in the sidebar (uniform answered differently before 4.0 and 4.1).
    scenario = state.versioned(source.scenario)
    if watch.is_on():
        watch.live()
    if scenario.reconciliation is not None or watch.is_on():
        _live(scenario)
    if big_group.is_big_after_edits(scenario):
        # Past what a browser can draw per partition (as loaded, or once the edits apply, say a
        # link's that add thousands of members): aggregates, worked out in stoppable workers.
        with st.sidebar:
            source_panel.showing(source, picked)
        with messages:
            show_messages(source)
            sync_address_bar(source_panel.link_params(source))
        big_group.render(scenario, picked)
        return
    comparison(source, picked, messages)


def _live(scenario: Scenario) -> None:
    """A live group's views; a big group's members get no colour each (that alone would cost
    minutes) and no tile animation."""
    small = not aggregates.is_big(scenario)
    live_order = [member.member_id for member in scenario.members]
    live_colours = palette.member_colours(live_order) if small else {}
    watch.render_changes(live_order, live_colours, animate=small)
    reconciliation_panel.render(scenario, live_order, live_colours, animate=small)


@st.fragment
def comparison(source: sources.Source, picked: list[str], messages: DeltaGenerator) -> None:
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
    if big_group.is_big_after_edits(scenario):
        st.rerun()  # an edit made the group big: the whole page goes to the stoppable workers
    plan = resolve_plan(key, scenario)
    with st.sidebar:  # after resolve_plan, which drops an edit that does not fit
        source_panel.showing(source, picked)
    with shown:
        show_messages(source)
        # After resolve_plan: an edit it undid is not in the link.
        sync_address_bar(source_panel.link_params(source))
    if plan is None:
        return
    key = state.plan_key()
    # The "before" depends only on the shaping edits: adding a member does not recompute it.
    current = compute.current(state.scenario_key(whatif.is_shaping), plan)

    # The headline needs every strategy's answer, the panels under it only the plan: they are
    # sent first, and the browser draws them while the strategies are worked out (the views
    # then draw each chart as soon as what it shows is known).
    headline = results_panel.headline_slot()
    teach_panel.render(source)
    shape_panel.panel(source.scenario, plan.before, plan.after)
    order, colours = member_layout(source.scenario, plan, colour_roster(source))
    outcomes = results_panel.render(key, plan, current, picked, colours, order, headline)

    export_panel.render(plan, current, outcomes, key, colours, order)


if __name__ == "__main__":  # run as a page of the app (st.navigation), not when imported
    page()

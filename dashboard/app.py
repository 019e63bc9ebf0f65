"""Assignment Explorer dashboard: ``streamlit run dashboard/app.py``.

Opens on the default sample with no configuration. The sidebar picks the source and the
strategies; the main page shapes the what-if and shows every view. A Kafka Streams application
gets its own view (:mod:`dashboard.streams_panel`). State lives in :mod:`dashboard.state`; the
core does all the work (:mod:`dashboard.compute`).
"""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

# `streamlit run dashboard/app.py` puts dashboard/ on the path, not the checkout: make the
# project's top-level packages (sample_data among them) importable from a source checkout.
_CHECKOUT = str(Path(__file__).resolve().parent.parent)
if _CHECKOUT not in sys.path:
    sys.path.insert(0, _CHECKOUT)

from dashboard import (  # noqa: E402
    compute,
    export_panel,
    results_panel,
    shape_panel,
    source_panel,
    state,
    strategy_panel,
    streams_panel,
    teach_panel,
)
from dashboard.layout import member_layout, resolve_plan, show_messages  # noqa: E402

compute.freeze_imports()
st.set_page_config(page_title="Assignment Explorer", page_icon="🧩", layout="wide")

if not state.has_source():
    source_panel.restore_from_query(dict(st.query_params))

with st.sidebar:
    source_panel.render()
source = state.source()

if source.streams is not None:
    # A Kafka Streams application: its own view, no consumer-group strategies or what-if.
    st.title("Assignment Explorer")
    st.markdown(f"**{source.streams.name or 'Kafka Streams application'}** · {source.label}")
    if source.streams.description:
        st.caption(source.streams.description)
    show_messages(source)
    streams_panel.render(source.key, source.streams)
    st.stop()

with st.sidebar:
    picked = strategy_panel.render(source.scenario)

st.title("Assignment Explorer")
st.markdown(f"**{source.scenario.name or 'Scenario'}** · {source.label}")
if source.scenario.description:
    st.caption(source.scenario.description)
show_messages(source)

key = state.scenario_key()
plan = resolve_plan(key, source.scenario)
if plan is None:
    st.stop()
current = compute.current(key, plan)
outcomes = compute.outcomes(key, picked, plan)
order, colours = member_layout(source.scenario, plan)

teach_panel.render(source)
with st.expander("Shape the what-if: add, remove or restart members, topics, lag", expanded=False):
    shape_panel.render(source.scenario, plan.before, plan.after)

results_panel.render(key, plan, current, outcomes, colours, order)

with st.expander("Share and export"):
    ran = [o for o in outcomes if o.simulation is not None and o.metrics is not None]
    figures = {"Lag per consumer": results_panel.lag_figure(key, current, ran, colours, order)}
    if ran:
        figures[f"Before → after ({ran[0].name})"] = results_panel.animation_figure(
            key, current, ran[0], colours, order
        )
    export_panel.render(plan, current, outcomes, figures)

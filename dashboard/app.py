"""Assignment Explorer dashboard: ``streamlit run dashboard/app.py``.

Opens on the default sample with no configuration. The sidebar picks the source and the
strategies; the main page shapes the what-if and shows every view. State lives in
:mod:`dashboard.state`; the core does all the work (:mod:`dashboard.compute`).
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
    charts,
    compute,
    export_panel,
    results_panel,
    shape_panel,
    source_panel,
    state,
    strategy_panel,
    teach_panel,
)
from dashboard.layout import member_layout, resolve_plan, show_messages  # noqa: E402

st.set_page_config(page_title="Assignment Explorer", page_icon="🧩", layout="wide")

if not state.has_source():
    source_panel.restore_from_query(dict(st.query_params))

with st.sidebar:
    source_panel.render()
source = state.source()
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
    names = ",".join(o.name for o in outcomes)
    figures = {
        "Lag per consumer": compute.memo(
            key,
            f"lag:{names}",
            lambda: charts.lag_by_member_figure(
                results_panel.lag_columns(current, outcomes), order=order, colours=colours
            ),
        )
    }
    export_panel.render(plan, current, outcomes, figures)

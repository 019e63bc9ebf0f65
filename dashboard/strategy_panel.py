"""Pick the strategies to compare; every registered strategy appears with its own words.

The list comes from :func:`assignors.registry.partition_strategies`, so a strategy that lands in
the registry shows here with no dashboard change.
"""

from __future__ import annotations

import streamlit as st

from assignors import Scenario
from dashboard import compute, state

#: Tried in order when nothing is picked yet: the group's own assignor, then one that moves little.
PREFERRED = ("cooperative-sticky", "sticky", "uniform", "roundrobin", "range")


def default_strategies(scenario: Scenario) -> list[str]:
    """The group's own strategy (when registered) and one more to compare it with."""
    known = list(compute.partition_strategies())
    picked: list[str] = []
    if scenario.assignor in known:
        picked.append(scenario.assignor)
    for name in PREFERRED:
        if len(picked) >= 2:
            break
        if name in known and name not in picked:
            picked.append(name)
    if not picked and known:
        picked.append(known[0])
    return picked


def render(scenario: Scenario) -> list[str]:
    """The strategy multiselect (sidebar) and each picked strategy's description."""
    known = compute.partition_strategies()
    st.header("Strategies")
    if not known:
        st.warning("No strategy is registered yet.")
        return []
    chosen = [name for name in state.selected_strategies() if name in known]
    if not state.selected_strategies():
        chosen = default_strategies(scenario)
        state.set_strategies(chosen)
    picked: list[str] = st.multiselect(
        "Compare",
        list(known),
        default=chosen,
        key="strategies.pick",
        help="Every strategy in the registry; each is compared against the current assignment.",
    )
    if picked != state.selected_strategies():
        state.set_strategies(picked)
    _details(picked)
    return picked


@st.fragment
def _details(picked: list[str]) -> None:
    known = compute.partition_strategies()
    with st.expander("About the strategies", expanded=False):
        for name, strategy in known.items():
            mark = "✔ " if name in picked else ""
            st.markdown(f"**{mark}{name}** · {strategy.protocol} protocol")
            st.caption(strategy.summary)
            st.markdown(f"*When to use:* {strategy.when_to_use}")
            st.code(strategy.consumer_config, language="properties")

"""The *Live group* page (``/live``): a group read from a cluster as it is now, and as it
changes, without the comparison of strategies.

1. The group comes from the shared sidebar (*Source* → *Cluster*: connect read-only, pick a
   group, *Load group*); the page names it, with the time it was read, says which Kafka release
   the cluster runs (read from its brokers) and lets the user change the version the strategies
   answer as (:mod:`dashboard.panels.cluster_version`; a classic group is asked for its client's).
2. A KIP-848 consumer group shows its reconciliation: who holds its target assignment, who is
   still revoking or waiting (:mod:`dashboard.panels.reconciliation_panel`); a Kafka Streams
   group its tasks' reconciliation.
3. With *Watch* on (in the sidebar), the group is read again every few seconds and the page
   shows what changed between the last two readings (:mod:`dashboard.panels.watch`).

Any other source (a sample, a file) gets a note of where to load a live group; the Explorer
shows the same live views above its comparison.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from dashboard.model import aggregates, palette
from dashboard.model.plain import INFO_ICON, escape_markdown
from dashboard.panels import (
    cluster_source,
    cluster_version,
    reconciliation_panel,
    source_panel,
    watch,
)
from dashboard.panels.layout import show_messages, sync_address_bar
from dashboard.session import state


def _address(source: Any, loaded: cluster_source.LoadedGroup | None) -> dict[str, str] | None:
    """The page's link: the source's, with a named cluster by its name (never its address)."""
    params = source_panel.link_params(source)
    if loaded is not None and loaded.cluster_name is not None and params is not None:
        params = {**params, cluster_source.PARAM: loaded.cluster_name}
    return params


def page() -> None:
    """The whole Live group page for the current source."""
    source = state.source()
    st.title("Assignment Explorer · Live group")
    show_messages(source)
    loaded = cluster_source.loaded_group()
    if loaded is None:
        sync_address_bar(_address(source, loaded))
        st.info(
            "This page shows a group read from a cluster, read-only: under Source in the sidebar"
            " pick Cluster, connect, choose a group and load it. Watch then re-reads it every few"
            " seconds.",
            icon=INFO_ICON,
        )
        return
    st.markdown(
        f"**{escape_markdown(source.scenario.name or 'Group')}** · {escape_markdown(source.label)}"
    )
    if source.streams is not None:
        cluster_version.render(source.streams.kafka_version, streams=True)
    else:
        cluster_version.render(source.scenario.kafka_version)
    sync_address_bar(_address(source, loaded))  # after the pick: the link carries it
    if watch.is_on():
        watch.live()
    if source.streams is not None:
        watch.render_streams_changes()
        reconciliation_panel.render_streams(source.streams)
        return
    scenario = state.versioned(source.scenario)
    small = not aggregates.is_big(scenario)
    order = [member.member_id for member in scenario.members]
    colours = palette.member_colours(order) if small else {}
    watch.render_changes(order, colours, animate=small)
    if scenario.reconciliation is None:
        st.caption(
            f"A classic group of {len(scenario.members):,} member(s): its members reconcile in"
            " rebalances, so there is no target assignment to follow (KIP-848 groups have one)."
        )
    reconciliation_panel.render(scenario, order, colours, animate=small)


if __name__ == "__main__":  # run as a page of the app (st.navigation), not when imported
    page()

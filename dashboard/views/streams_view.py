"""The *Kafka Streams* page (``/streams``): a Kafka Streams application's tasks over its
clients, the task assignors compared and the probing rebalances that follow
(:mod:`dashboard.panels.streams_panel`), with a live Streams group's reconciliation and changes,
and a Streams sample's walkthrough one step at a time (:mod:`dashboard.panels.teach_panel`).

A consumer-group source is not shown here: the page says where to find a Streams application,
and when the source has just changed from a Streams application to a consumer group (picked in
the sidebar here), the router opens the Explorer for it.
"""

from __future__ import annotations

import streamlit as st

from dashboard.model.plain import INFO_ICON, escape_markdown
from dashboard.panels import (
    export_panel,
    reconciliation_panel,
    source_panel,
    streams_panel,
    teach_panel,
    watch,
)
from dashboard.panels.layout import show_messages, sync_address_bar
from dashboard.session import state


def page() -> None:
    """The whole Kafka Streams page for the current source."""
    source = state.source()
    st.title("Assignment Explorer · Kafka Streams")
    if source.streams is None:
        # A consumer group picked in this page's sidebar: the link names it too.
        sync_address_bar(source_panel.link_params(source))
        show_messages(source)
        sync_address_bar(source_panel.link_params(source))
        st.info(
            "This page shows a Kafka Streams application: pick a Streams sample or file under"
            " Source in the sidebar, or load a Streams group from a cluster.",
            icon=INFO_ICON,
        )
        return
    st.markdown(
        f"**{escape_markdown(source.streams.name or 'Kafka Streams application')}**"
        f" · {escape_markdown(source.label)}"
    )
    if source.streams.description:
        st.caption(escape_markdown(source.streams.description))
    show_messages(source)
    if watch.is_on():
        watch.live()
    watch.render_streams_changes()
    reconciliation_panel.render_streams(source.streams)
    teach_panel.render(source)  # a Streams sample's walkthrough, step by step
    # Every step of a Streams walkthrough shows the same application (its steps narrate and
    # change nothing): its answers are worked out once. Any other source's key names its
    # content (a watched group's key changes with each reading that changed it).
    key = state.family(source) if source.walkthrough else source.key
    streams_panel.render(key, source.streams)
    if source.walkthrough:  # a Streams lesson: its steps as one file that opens offline
        with st.expander("Share and export", key="panel.streams_export"):
            export_panel.lesson_download(source)
    # After the panel, whose Kafka version picker may have changed the release the link names.
    sync_address_bar(source_panel.link_params(source))


if __name__ == "__main__":  # run as a page of the app (st.navigation), not when imported
    page()

"""The Kafka version of a live group: what the cluster said it runs, and the user's pick.

1. The sentence the reader wrote when the group was loaded (``Cluster runs Kafka 4.4, read from
   metadata.version: ...``) is shown as plain text (``st.text``): it holds numbers the brokers
   sent, and nothing a broker sends is ever drawn as Markdown or HTML.
2. A classic group gets one more line: its leader's client library computes its assignment, so
   the client-side strategies answer as the *client's* Kafka version, which the brokers do not
   report; the user is asked for it.
3. The *Kafka version* selector (:func:`dashboard.panels.strategy_panel.kafka_version_picker`,
   the one the Explorer and the Streams view draw) opens at the scenario's ``kafka_version`` (the
   cluster's) and may be changed; the pick is the session's
   (:func:`dashboard.session.state.kafka_version`), so every page and the share link keep it.
"""

from __future__ import annotations

import streamlit as st

from assignors import registry
from dashboard.model.plain import escape_markdown
from dashboard.panels import cluster_source
from dashboard.panels.strategy_panel import kafka_version_picker

_VERSION = "live.kafka_version"
#: What a classic group's line says, under the cluster's sentence.
CLASSIC_NOTE = (
    "A classic group's assignment is computed by its leader's client library, not by the"
    " brokers, and the brokers do not report the client's version: pick the Kafka version of"
    " the client library the group's members run (the selector starts at the brokers')."
)


def render(kafka_version: str | None, *, streams: bool = False) -> None:
    """Steps 1-3 for the loaded live group (nothing for any other source). ``kafka_version``:
    the scenario's own; ``streams``: a Kafka Streams group (its task strategies' changes are
    listed in the selector's help)."""
    loaded = cluster_source.loaded_group()
    if loaded is None:
        return
    if loaded.release_note:
        st.text(loaded.release_note)
    if loaded.classic:
        st.caption(CLASSIC_NOTE)
    found = registry.task_strategies() if streams else registry.partition_strategies()
    dependent = {name: s.older_kafka for name, s in found.items() if s.older_kafka}
    with st.columns([1, 2])[0]:  # a version number needs no page-wide box
        picked = kafka_version_picker(_VERSION, kafka_version, dependent)
    if kafka_version is not None and picked != kafka_version:
        st.caption(
            escape_markdown(
                f"Strategies answer as Kafka {picked} (your pick); the cluster's own is"
                f" {kafka_version}."
            )
        )

"""Connect to a cluster read-only, list its groups, load one group as the scenario.

Steps:

1. The user fills the connection form (bootstrap servers, security protocol, SASL mechanism,
   user name, password, CA file, timeout) and presses *Connect*: a
   :class:`~cluster.reader.ClusterReader` lists the groups (id, state, member count).
2. The user picks a group (each shown with its kind: classic, consumer, Kafka Streams, share)
   and presses *Load group*: :func:`cluster.snapshot.read_group` turns it into a scenario, which
   becomes the source; a Kafka Streams group becomes a Streams source and opens the Streams view.
   The Kafka release the brokers run is read first (:meth:`ClusterReader.kafka_release`): the
   scenario carries it as its ``kafka_version``, an earlier pick of the Kafka version is
   dropped (so every version selector shows the cluster's), and :class:`LoadedGroup` keeps the
   plain sentence saying what was read (:mod:`dashboard.panels.cluster_version` shows it).
3. Once a group is loaded, :mod:`dashboard.panels.source_panel` adds the *Watch* switch
   (:mod:`dashboard.panels.watch`, off by default), which re-reads it every few seconds.

Any :class:`~cluster.errors.ClusterError` (unreachable, refused credentials, unknown group, ...)
is shown as it is and the scenario already loaded stays. The password lives only in its widget:
it is never written to the listing, the scenario, an export or a link.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import streamlit as st

from assignors import AssignmentExplorerError, Scenario, StreamsScenario
from cluster.connection import SASL_MECHANISMS, SECURITY_PROTOCOLS, ConnectionSettings, Secret
from cluster.reader import ClusterReader, GroupListing
from cluster.snapshot import read_group
from dashboard.model import sources
from dashboard.session import state

_GROUPS = "ae.cluster_groups"
#: The connection form's fields and the group picker (what a page switch must keep).
FORM_VALUES = (
    "cluster.bootstrap",
    "cluster.security_protocol",
    "cluster.sasl_mechanism",
    "cluster.username",
    "cluster.password",
    "cluster.ca_file",
    "cluster.timeout",
    "cluster.group",
)
_LOADED = "ae.cluster_loaded"
_NO_SASL = "(none)"


def settings_from_form() -> ConnectionSettings:
    """The connection settings as the form holds them now."""
    mechanism = st.session_state.get("cluster.sasl_mechanism", _NO_SASL)
    password = st.session_state.get("cluster.password", "")
    ca_file = st.session_state.get("cluster.ca_file", "").strip()
    return ConnectionSettings(
        bootstrap_servers=st.session_state.get("cluster.bootstrap", "").strip(),
        security_protocol=st.session_state.get("cluster.security_protocol", "PLAINTEXT"),
        ssl_cafile=ca_file or None,
        sasl_mechanism=None if mechanism == _NO_SASL else mechanism,
        sasl_username=st.session_state.get("cluster.username", "").strip() or None,
        sasl_password=Secret(password) if password else None,
        timeout_s=float(st.session_state.get("cluster.timeout", 5.0)),
    )


def _describe(group: GroupListing) -> str:
    members = "?" if group.members is None else str(group.members)
    kind = _KINDS.get(group.group_type or "", group.group_type or group.protocol_type or "group")
    return f"{group.group_id} — {kind}, {group.state}, {members} member(s)"


#: ListGroups' group type -> how the picker names it.
_KINDS = {
    "classic": "classic",
    "consumer": "consumer (KIP-848)",
    "streams": "Kafka Streams",
    "share": "share",
}


def render() -> None:
    """The connection form and, once connected, the group picker."""
    with st.form("cluster.connect_form", border=False):
        st.text_input(
            "Bootstrap servers", placeholder="broker1:9092,broker2:9092", key="cluster.bootstrap"
        )
        st.selectbox("Security protocol", SECURITY_PROTOCOLS, key="cluster.security_protocol")
        st.selectbox("SASL mechanism", (_NO_SASL, *SASL_MECHANISMS), key="cluster.sasl_mechanism")
        st.text_input("User name", key="cluster.username")
        st.text_input("Password", type="password", key="cluster.password")
        st.text_input("CA file (path on this server)", key="cluster.ca_file")
        st.number_input(
            "Timeout (s)", min_value=1.0, max_value=120.0, value=5.0, key="cluster.timeout"
        )
        connect = st.form_submit_button("Connect (read-only)", key="cluster.connect")
    if connect:
        st.session_state.pop(_GROUPS, None)
        try:
            with ClusterReader(settings_from_form()) as reader:
                listed = reader.list_groups()
        except AssignmentExplorerError as error:
            state.report_error(f"Could not connect: {error}")
            st.rerun()
        st.session_state[_GROUPS] = sorted(listed, key=lambda group: group.group_id)
    groups: list[GroupListing] | None = st.session_state.get(_GROUPS)
    if groups is None:
        st.caption("The reader only describes groups and reads offsets; it never joins or commits.")
        return
    if not groups:
        st.info("Connected: the cluster has no group.")
        return
    by_id = {group.group_id: group for group in groups}
    chosen = st.selectbox(
        f"Group ({len(groups)} on the cluster)",
        list(by_id),
        format_func=lambda group_id: _describe(by_id[group_id]),
        key="cluster.group",
    )
    if st.button("Load group", key="cluster.load", type="primary"):
        _load(chosen, by_id[chosen].group_type)
        st.rerun()


@dataclass(frozen=True, slots=True)
class LoadedGroup:
    """The group the cluster source loaded last: which source family it is, and how to read it
    again (the password is not kept here: it stays in its widget). ``release_note``: the plain
    sentence on the Kafka release the brokers run (:meth:`KafkaRelease.sentence`);
    ``classic``: a classic group, whose assignment its leader's client library computes."""

    family: str
    group_id: str
    bootstrap_servers: str
    release_note: str = ""
    classic: bool = False


def loaded_group() -> LoadedGroup | None:
    """The live group the current source was read from (``None`` for any other source)."""
    loaded: LoadedGroup | None = st.session_state.get(_LOADED)
    if loaded is None or not state.has_source() or state.family(state.source()) != loaded.family:
        return None
    return loaded


def _load(group_id: str, group_type: str | None) -> None:
    settings = settings_from_form()
    try:
        with ClusterReader(settings) as reader:
            release = reader.kafka_release()
            scenario, warnings = read_group(reader, group_id, release=release)
    except AssignmentExplorerError as error:
        state.report_error(f"Could not load group {group_id!r}: {error}")
        return
    key = f"cluster:{settings.bootstrap_servers}:{group_id}:{time.time_ns()}"
    source = sources.source_for(scenario, warnings, group_id, settings.bootstrap_servers, key)
    state.set_source(source)
    if scenario.kafka_version is not None:
        state.set_kafka_version(None)  # the cluster's own release, until the user picks one
    classic = group_type == "classic" or (
        group_type is None and isinstance(scenario, Scenario) and scenario.reconciliation is None
    )
    st.session_state[_LOADED] = LoadedGroup(
        state.family(source), group_id, settings.bootstrap_servers, release.sentence(), classic
    )
    if isinstance(scenario, StreamsScenario):
        state.report_notice(
            f"Loaded Kafka Streams group {group_id}: {len(scenario.clients)} instance(s),"
            f" {len(scenario.tasks)} task(s); it opens in the Kafka Streams view."
        )
        return
    state.report_notice(f"Loaded group {group_id}: {len(scenario.members)} member(s).")

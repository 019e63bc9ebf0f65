"""Connect to a cluster read-only, list its groups, load one group as the scenario.

Steps:

1. The user picks a cluster by the name the operator file gives it
   (:mod:`dashboard.model.operator_file`), or, unless the file switches typing off, picks
   *Type an address* and fills the connection form (bootstrap servers, security protocol, SASL
   mechanism, user name, password, CA file); then a timeout, and *Connect*: a
   :class:`~cluster.reader.ClusterReader` lists the groups (id, state, member count). A link
   may name the cluster (``live_cluster=NAME``); a name the server does not offer is refused
   with the names it does.
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
is shown as it is and the scenario already loaded stays. A typed password lives only in its
widget; a named cluster's password is read from where the operator file points (an environment
variable or a file on the server) only when a connection is made, into a
:class:`~cluster.connection.Secret`, and never reaches the browser. Neither is written to the
listing, the scenario, a label, an export or a link; a named cluster's address is not shown
either (pages and links say its name).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import time
from dataclasses import dataclass

import streamlit as st

from assignors import AssignmentExplorerError, Scenario, StreamsScenario
from cluster.connection import SASL_MECHANISMS, SECURITY_PROTOCOLS, ConnectionSettings, Secret
from cluster.errors import ConnectionSettingsError
from cluster.reader import ClusterReader, GroupListing
from cluster.snapshot import read_group
from dashboard.model import access, sources
from dashboard.model.operator_file import (
    ClusterEntry,
    OperatorConfig,
    names_offered,
    without_paths,
)
from dashboard.model.plain import ERROR_ICON, INFO_ICON, escape_markdown
from dashboard.session import login, settings, state

_GROUPS = "ae.cluster_groups"
#: The connection form's fields and the group picker (what a page switch must keep).
FORM_VALUES = (
    "cluster.name",
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
#: The cluster picker's choice that shows the form for a typed address.
TYPED = "Type an address"
#: The query parameter that names a cluster (by its name in the operator file).
PARAM = "live_cluster"
_LOG = logging.getLogger("assignment_explorer.cluster_source")


def settings_from_form() -> ConnectionSettings:
    """The connection settings as the form holds them now: the named cluster's (its password
    read on the server now) or the typed ones; raises :class:`ConnectionSettingsError` when
    neither is allowed or the named cluster's password cannot be read."""
    timeout = float(st.session_state.get("cluster.timeout", 5.0))
    name = st.session_state.get("cluster.name", TYPED)
    if name != TYPED:
        return named_settings(str(name), timeout)
    if not settings.operator_config().typed_addresses:
        raise ConnectionSettingsError("this server offers clusters by name only: pick one")
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
        timeout_s=timeout,
    )


def named_settings(name: str, timeout_s: float) -> ConnectionSettings:
    """The connection settings of the cluster the operator file names ``name``, its password
    read now from where the file points; raises :class:`ConnectionSettingsError`."""
    entry = settings.operator_config().cluster(name)
    if entry is None:  # the file changed since the pick
        offered = [entry.name for entry in settings.operator_config().clusters]
        raise ConnectionSettingsError(
            f"this server no longer offers that cluster: {names_offered('cluster', offered)}"
        )
    return ConnectionSettings(
        bootstrap_servers=entry.bootstrap_servers,
        security_protocol=entry.security_protocol,  # type: ignore[arg-type]
        ssl_cafile=entry.ca_file,
        sasl_mechanism=entry.sasl_mechanism,  # type: ignore[arg-type]
        sasl_username=entry.username,
        sasl_password=_password(entry),
        timeout_s=timeout_s,
    )


def _password(entry: ClusterEntry) -> Secret | None:
    """The named cluster's password from its environment variable or file (``None`` without
    SASL). The reason it cannot be read goes to the server's log; the message names no path."""
    if entry.password_env is not None:
        value = os.environ.get(entry.password_env)
        if value is None:
            _LOG.error("cluster %s: variable %s is unset", entry.name, entry.password_env)
            raise ConnectionSettingsError(
                f"cluster {entry.name}: its password is not set on the server"
                f" (environment variable {entry.password_env}); ask whoever runs it"
            )
        return Secret(value)
    if entry.password_file is not None:
        try:
            with open(entry.password_file, encoding="utf-8") as file:
                return Secret(file.read().rstrip("\r\n"))
        except (OSError, UnicodeDecodeError) as error:
            _LOG.error("cluster %s: password file %s: %s", entry.name, entry.password_file, error)
            raise ConnectionSettingsError(
                f"cluster {entry.name}: its password file cannot be read on the server"
                " (its log says why); ask whoever runs it"
            ) from None
    return None


def said(error: Exception) -> str:
    """``error`` as the page shows it: for a cluster picked by name, its brokers' addresses and
    any server path (its CA or password file) replaced by its name (the server's log has them)."""
    name = st.session_state.get("cluster.name", TYPED)
    entry = None if name == TYPED else settings.operator_config().cluster(str(name))
    if entry is None:
        return str(error)
    _LOG.warning("cluster %s: %s", entry.name, error)
    text = str(error)
    servers = [server.strip() for server in entry.bootstrap_servers.split(",")]
    hosts = [server.rsplit(":", 1)[0] for server in servers]
    for address in sorted({*servers, *hosts} - {""}, key=len, reverse=True):
        text = text.replace(address, entry.name)
    return without_paths(text, entry.name)


def refused_cluster() -> str:
    """What a link naming a cluster the server does not offer is told: the names it does (the
    link's own text is not repeated: it may be anything, an address among them)."""
    offered = [entry.name for entry in settings.operator_config().clusters]
    return (
        f"The link names a cluster this server does not offer: {names_offered('cluster', offered)}."
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


def _clusters_for_user(config: OperatorConfig) -> tuple[str, ...]:
    """The operator's cluster names this session's user may see: every one without a login;
    with one, those open to all or sharing a group with the user
    (:func:`dashboard.model.access.allowed_clusters`)."""
    groups = login.session_groups()
    named = {entry.name: entry.groups for entry in config.clusters}
    return tuple(named) if groups is None else access.allowed_clusters(groups, named)


def _pick_cluster() -> str | None:
    """The cluster picker (names, then *Type an address* unless switched off): the choice, or
    ``None`` when there is nothing to choose."""
    config = settings.operator_config()
    choices = list(_clusters_for_user(config))
    if config.typed_addresses:
        choices.append(TYPED)
    wanted = st.query_params.get(PARAM)
    if wanted is not None and "cluster.name" not in st.session_state:
        # A link's pick, once and before the widget (the user's own pick is never overridden).
        if config.cluster(wanted) is None or wanted not in choices:
            st.error(escape_markdown(refused_cluster()), icon=ERROR_ICON)
        else:
            st.session_state["cluster.name"] = wanted
    if not choices:
        st.info(
            "This server offers no cluster by name, and typing an address is switched off.",
            icon=INFO_ICON,
        )
        return None
    if choices == [TYPED]:
        return TYPED  # a laptop's default: the form, as before clusters had names
    return str(st.selectbox("Cluster", choices, key="cluster.name"))


def _typed_fields() -> None:
    st.text_input(
        "Bootstrap servers", placeholder="broker1:9092,broker2:9092", key="cluster.bootstrap"
    )
    st.selectbox("Security protocol", SECURITY_PROTOCOLS, key="cluster.security_protocol")
    st.selectbox("SASL mechanism", (_NO_SASL, *SASL_MECHANISMS), key="cluster.sasl_mechanism")
    st.text_input("User name", key="cluster.username")
    st.text_input("Password", type="password", key="cluster.password")
    st.text_input("CA file (path on this server)", key="cluster.ca_file")


def render() -> None:
    """The cluster picker, the connection form and, once connected, the group picker."""
    picked = _pick_cluster()
    if picked is None:
        return
    with st.form("cluster.connect_form", border=False):
        if picked == TYPED:
            _typed_fields()
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
            state.report_error(f"Could not connect: {said(error)}")
            st.rerun()
        st.session_state[_GROUPS] = sorted(listed, key=lambda group: group.group_id)
    groups: list[GroupListing] | None = st.session_state.get(_GROUPS)
    if groups is None:
        st.caption("The reader only describes groups and reads offsets; it never joins or commits.")
        return
    if not groups:
        st.info("Connected: the cluster has no group.", icon=INFO_ICON)
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
    #: The operator file's name for the cluster (``None``: an address typed in the form).
    cluster_name: str | None = None
    release_note: str = ""
    """What the cluster says of its Kafka release (:meth:`ClusterReader.kafka_release`)."""
    classic: bool = False
    """A classic group: its leader's client library assigns (the version is the client's)."""

    @property
    def where(self) -> str:
        """How pages name the cluster: its name, or the address the user typed."""
        return self.cluster_name or self.bootstrap_servers


def settings_for(loaded: LoadedGroup) -> ConnectionSettings:
    """The settings that read ``loaded`` again (the named cluster's, or the form's for the
    address typed); raises :class:`ConnectionSettingsError`."""
    timeout = float(st.session_state.get("cluster.timeout", 5.0))
    if loaded.cluster_name is not None:
        return named_settings(loaded.cluster_name, timeout)
    return dataclasses.replace(settings_from_form(), bootstrap_servers=loaded.bootstrap_servers)


def loaded_group() -> LoadedGroup | None:
    """The live group the current source was read from (``None`` for any other source)."""
    loaded: LoadedGroup | None = st.session_state.get(_LOADED)
    if loaded is None or not state.has_source() or state.family(state.source()) != loaded.family:
        return None
    return loaded


def _load(group_id: str, group_type: str | None) -> None:
    name = st.session_state.get("cluster.name", TYPED)
    cluster_name = None if name == TYPED else str(name)
    try:
        connection = settings_from_form()
        with ClusterReader(connection) as reader:
            release = reader.kafka_release()
            scenario, warnings = read_group(reader, group_id, release=release)
    except AssignmentExplorerError as error:
        state.report_error(f"Could not load group {group_id!r}: {said(error)}")
        return
    loaded = LoadedGroup("", group_id, connection.bootstrap_servers, cluster_name)
    key = f"cluster:{loaded.where}:{group_id}:{time.time_ns()}"
    source = sources.source_for(scenario, warnings, group_id, loaded.where, key)
    state.set_source(source)
    if scenario.kafka_version is not None:
        state.set_kafka_version(None)  # the cluster's own release, until the user picks one
    classic = group_type == "classic" or (
        group_type is None and isinstance(scenario, Scenario) and scenario.reconciliation is None
    )
    st.session_state[_LOADED] = dataclasses.replace(
        loaded, family=state.family(source), release_note=release.sentence(), classic=classic
    )
    if isinstance(scenario, StreamsScenario):
        state.report_notice(
            f"Loaded Kafka Streams group {group_id}: {len(scenario.clients)} instance(s),"
            f" {len(scenario.tasks)} task(s); it opens in the Kafka Streams view."
        )
        return
    state.report_notice(f"Loaded group {group_id}: {len(scenario.members)} member(s).")

"""Where the scenario comes from: a sample, an uploaded file, a live group (read-only), or
``kafka-consumer-groups.sh --describe`` output (:mod:`dashboard.panels.describe_source`).

A sample or upload may also be a Kafka Streams application (``tasks`` / ``clients``, parsed by
the registry's ``streams-ha`` task strategy); it becomes a source with ``streams`` set, which
the app shows in :mod:`dashboard.panels.streams_panel`.

Every path ends in :func:`dashboard.session.state.set_source` on success and in
:func:`dashboard.session.state.report_error` with the core's own message on failure, so a failed
connection or a bad file never replaces the scenario already loaded.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import streamlit as st

import sample_data
from assignors import (
    NEWEST_KAFKA_VERSION,
    AssignmentExplorerError,
    Scenario,
    parse_kafka_version,
)
from dashboard.model import plain, sources
from dashboard.panels import cluster_source, describe_source, watch
from dashboard.session import samples, state

_UPLOAD_SEEN = "ae.upload_seen"
#: The shared sidebar's widgets that hold a value (not its buttons and uploaders): kept through
#: a page switch made in code (:func:`dashboard.session.state.carry_widgets`).
SIDEBAR_VALUES = (
    "source.kind",
    "source.sample",
    *cluster_source.FORM_VALUES,
    *describe_source.FORM_VALUES,
    watch.WATCH,
    watch.INTERVAL,
)
_SAMPLE_WIDGET = "source.sample"


def render() -> None:
    """The source controls (drawn in the sidebar)."""
    st.header("Source")
    if cluster_source.PARAM in st.query_params and "source.kind" not in st.session_state:
        st.session_state["source.kind"] = "Cluster"  # a link naming a cluster opens its picker
    kind = st.radio(
        "Scenario from",
        ["Sample", "Upload", "Cluster", "Describe"],
        horizontal=True,
        key="source.kind",
        label_visibility="collapsed",
    )
    if kind == "Sample":
        _samples()
    elif kind == "Upload":
        _upload()
    elif kind == "Describe":
        describe_source.render()
    else:
        _cluster()


def _samples() -> None:
    catalogue = samples.sample_catalogue()
    keys = [key for key, _, _, _ in catalogue]
    titles = {
        key: title + (" (Kafka Streams)" if kind == "streams" and "Streams" not in title else "")
        for key, title, _, kind in catalogue
    }
    descriptions = {key: description for key, _, description, _ in catalogue}
    current = state.source().sample if state.has_source() else None
    # The picker always names the sample on the page (a link, a walkthrough or the Fleet view
    # may have loaded it): set before the widget is drawn, never after.
    if current in keys and st.session_state.get(_SAMPLE_WIDGET) != current:
        st.session_state[_SAMPLE_WIDGET] = current
    chosen = st.selectbox(
        "Sample scenario",
        keys,
        format_func=lambda key: titles[key],
        key=_SAMPLE_WIDGET,
        on_change=_load_picked_sample,
    )
    st.caption(plain.escape_markdown(descriptions.get(chosen, "")))
    if chosen != current and st.button("Load sample", key="source.load_sample", type="primary"):
        _load_picked_sample()
        st.rerun()


def _load_picked_sample() -> None:
    """The sample picker's callback: picking a sample shows it (no second click)."""
    chosen = st.session_state.get(_SAMPLE_WIDGET)
    if chosen is None:
        return
    title = dict((key, name) for key, name, _, _ in samples.sample_catalogue()).get(chosen, chosen)
    if samples.load_sample_into_state(str(chosen)):
        state.report_notice(f"Loaded sample “{title}”.")


_UPLOAD_REJECTED = "ae.upload_rejected"


def upload_key() -> str:
    """The upload widget's key: ``source.upload``, with the count of rejected files after it
    once one was rejected. A file uploader's value cannot be set, so a new key is how a
    rejected file leaves the widget (the user's previous scenario stays on the page)."""
    rejected = int(st.session_state.get(_UPLOAD_REJECTED, 0))
    return "source.upload" if rejected == 0 else f"source.upload.{rejected}"


def _upload() -> None:
    uploaded = st.file_uploader(
        "Scenario file (JSON)",
        type=["json"],
        key=upload_key(),
        help="The scenario format of docs/scenario-format.md, e.g. a file you downloaded here.",
    )
    if uploaded is None:
        return
    fingerprint = f"{uploaded.name}:{uploaded.size}:{getattr(uploaded, 'file_id', '')}"
    if st.session_state.get(_UPLOAD_SEEN) == fingerprint:
        return
    st.session_state[_UPLOAD_SEEN] = fingerprint
    try:
        loaded = sources.upload_source(uploaded.name, uploaded.getvalue())
    except AssignmentExplorerError as error:
        state.report_error(f"{uploaded.name} was not loaded: {error}")  # shown as typed
        # The widget must not keep showing a file the page does not show: draw it anew,
        # empty; the error waits in the session for that run.
        st.session_state[_UPLOAD_REJECTED] = int(st.session_state.get(_UPLOAD_REJECTED, 0)) + 1
        st.session_state.pop(_UPLOAD_SEEN, None)
        st.rerun()
    state.set_source(loaded)
    kind = " (a Kafka Streams application)" if loaded.streams is not None else ""
    state.report_notice(f"Loaded {uploaded.name}{kind}.")


def _cluster() -> None:
    cluster_source.render()
    if cluster_source.loaded_group() is not None:
        watch.controls()


def restore_from_query(params: dict[str, Any]) -> None:
    """Load the sample (or the scenario carried in the link), strategies and edits a shared
    link names (defaults when absent)."""
    from dashboard.model import share

    if params.get("scenario") and _restore_scenario(str(params["scenario"])):
        restore_choices(params)
        return
    key = params.get("sample") or sample_data.DEFAULT_SAMPLE
    if not samples.load_sample_into_state(str(key)):
        samples.load_sample_into_state(sample_data.DEFAULT_SAMPLE)
        return
    if params.get("step"):
        try:
            step = share.parse_step(str(params["step"]))
            state.set_source(samples.sample_source(str(key), step))
        except (share.ShareLinkError, AssignmentExplorerError) as error:
            state.report_error(f"The link's walkthrough step was not restored: {error}")
            return
    restore_choices(params)


def restore_choices(params: dict[str, Any]) -> None:
    """The edits, strategies and Kafka version of a link, on top of the source it loaded (a
    sample, a scenario or a Fleet link's pipeline group)."""
    from dashboard.model import share

    if params.get("edits"):
        try:
            state.set_edits(share.restore_edits(str(params["edits"])))
        except share.ShareLinkError as error:
            state.report_error(f"The link's edits were not restored: {error}")
    names = share.parse_strategies(params.get("strategies"))
    if names:
        state.set_strategies(names)
    if params.get("kafka"):
        try:
            state.set_kafka_version(parse_kafka_version(str(params["kafka"]), "kafka"))
        except AssignmentExplorerError as error:
            state.report_error(f"The link's Kafka version was not restored: {error}")


def _restore_scenario(param: str) -> bool:
    """Load the scenario a link carries (an upload or a group shared as a link)."""
    from dashboard.model import share

    try:
        text = share.decode_scenario_text(param)
        source = sources.upload_source("the link", text)
    except (share.ShareLinkError, AssignmentExplorerError) as error:
        state.report_error(f"The link's scenario was not restored: {error}")
        return False
    label = f"scenario “{source.scenario.name or 'unnamed'}” from a link"
    state.set_source(dataclasses.replace(source, label=label))
    return True


def link_params(source: sources.Source) -> dict[str, str] | None:
    """The query parameters that restore what the page shows; ``None`` when it cannot travel
    in a link (a scenario over the size limit). A sample is named; an upload or a group is
    carried whole (its scenario, which never holds connection settings)."""
    from dashboard.model import share

    if source.streams is not None and source.kind != "sample":
        return None  # an uploaded or live Streams application is not carried in a link
    if source.link:  # a pipeline group: its Fleet link, however large the group
        params = {
            **dict(source.link),
            **share.choice_params(state.selected_strategies(), state.edits()),
        }
    elif source.kind == "sample" and source.sample is not None:
        params = share.share_params(
            source.sample, state.selected_strategies(), state.edits(), source.walkthrough_step
        )
    else:
        encoded = _encoded(source.scenario)
        if encoded is None:
            return None
        params = share.scenario_params(encoded, state.selected_strategies(), state.edits())
    version = state.kafka_version()
    opens_with = source.scenario.kafka_version or NEWEST_KAFKA_VERSION
    if version is not None and (version != NEWEST_KAFKA_VERSION or version != opens_with):
        # the release picked for the version-dependent strategies: any but the newest, and the
        # newest too when the restored scenario would open with another (its own
        # kafka_version, e.g. a live cluster's)
        params["kafka"] = version
    return params


_ENCODED = "source.encoded"


def _encoded(scenario: Scenario) -> str | None:
    """The scenario as a link parameter, packed once per scenario object (not per rerun: at
    10,000 partitions packing took a quarter of every rerun)."""
    from dashboard.model import share

    kept = st.session_state.get(_ENCODED)
    if kept is not None and kept[0] is scenario:
        encoded: str | None = kept[1]
        return encoded
    encoded = share.encode_scenario(scenario)
    st.session_state[_ENCODED] = (scenario, encoded)
    return encoded


def showing(source: sources.Source, picked: list[str]) -> None:
    """The sidebar's note of what the page shows, whatever the controls above say."""
    # A walkthrough step's label names it (walkthrough step 2 of 5); labels hold user text.
    parts = [source.label]
    count = len(state.edits())
    if count:
        parts.append(f"{count} edit{'s' if count != 1 else ''}")
    compared = ", ".join(picked) if picked else "no strategy"
    st.caption(
        f"**On the page:** {plain.escape_markdown(' · '.join(parts))}; comparing "
        f"{plain.escape_markdown(compared)}."
    )

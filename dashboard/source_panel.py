"""Where the scenario comes from: a sample, an uploaded file, or a live group (read-only).

Every path ends in :func:`dashboard.state.set_source` on success and in
:func:`dashboard.state.report_error` with the core's own message on failure, so a failed
connection or a bad file never replaces the scenario already loaded.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

import sample_data
from assignors.errors import AssignmentExplorerError
from assignors.scenario_io import parse_scenario_text
from dashboard import cluster_source, state

_UPLOAD_SEEN = "ae.upload_seen"


@st.cache_data(show_spinner=False)
def sample_catalogue() -> list[tuple[str, str, str, str]]:
    """``(key, title, description, kind)`` of every shipped sample."""
    return [
        (info.key, info.name, info.description, info.kind) for info in sample_data.list_samples()
    ]


@st.cache_resource(show_spinner=False)
def _load_sample(key: str) -> sample_data.Sample:
    return sample_data.load_sample(key)


def sample_source(key: str) -> state.Source:
    """A sample as a :class:`~dashboard.state.Source` (raises the core's errors)."""
    sample = _load_sample(key)
    if sample.scenario is None:
        raise AssignmentExplorerError(f"sample {key!r} is not a consumer-group scenario")
    return state.Source(
        kind="sample",
        label=f"sample “{sample.info.name}”",
        key=f"sample:{key}",
        scenario=sample.scenario,
        sample=key,
        warnings=sample.warnings,
        walkthrough=sample.walkthrough,
    )


def load_sample_into_state(key: str) -> bool:
    """Make sample ``key`` the source; on failure report why and keep the current one."""
    try:
        state.set_source(sample_source(key))
    except (AssignmentExplorerError, KeyError) as error:
        state.report_error(f"Could not load sample {key!r}: {error}")
        return False
    return True


def render() -> None:
    """The source controls (drawn in the sidebar)."""
    st.header("Source")
    kind = st.radio(
        "Scenario from",
        ["Sample", "Upload", "Cluster"],
        horizontal=True,
        key="source.kind",
        label_visibility="collapsed",
    )
    if kind == "Sample":
        _samples()
    elif kind == "Upload":
        _upload()
    else:
        _cluster()


def _samples() -> None:
    catalogue = [entry for entry in sample_catalogue() if entry[3] == "consumer-group"]
    keys = [key for key, _, _, _ in catalogue]
    titles = {key: title for key, title, _, _ in catalogue}
    descriptions = {key: description for key, _, description, _ in catalogue}
    current = state.source().sample if state.has_source() else None
    index = keys.index(current) if current in keys else 0
    chosen = st.selectbox(
        "Sample scenario",
        keys,
        index=index,
        format_func=lambda key: titles[key],
        key="source.sample",
    )
    st.caption(descriptions.get(chosen, ""))
    if chosen != current and st.button("Load sample", key="source.load_sample", type="primary"):
        if load_sample_into_state(chosen):
            state.report_notice(f"Loaded sample “{titles[chosen]}”.")
        st.rerun()


def _upload() -> None:
    uploaded = st.file_uploader(
        "Scenario file (JSON)",
        type=["json"],
        key="source.upload",
        help="The scenario format of docs/scenario-format.md, e.g. a file you downloaded here.",
    )
    if uploaded is None:
        return
    fingerprint = f"{uploaded.name}:{uploaded.size}:{getattr(uploaded, 'file_id', '')}"
    if st.session_state.get(_UPLOAD_SEEN) == fingerprint:
        return
    st.session_state[_UPLOAD_SEEN] = fingerprint
    raw = uploaded.getvalue()
    try:
        text = raw.decode("utf-8")
        scenario, warnings = parse_scenario_text(text, source=uploaded.name)
    except UnicodeDecodeError:
        state.report_error(f"{uploaded.name}: not UTF-8 text; upload a JSON scenario file.")
        return
    except AssignmentExplorerError as error:
        state.report_error(f"{uploaded.name} was not loaded: {error}")
        return
    state.set_source(
        state.Source(
            kind="upload",
            label=f"upload {uploaded.name}",
            key=f"upload:{state.content_key(text)}",
            scenario=scenario,
            warnings=warnings,
        )
    )
    state.report_notice(f"Loaded {uploaded.name}.")


def _cluster() -> None:
    cluster_source.render()


def restore_from_query(params: dict[str, Any]) -> None:
    """Load the sample, strategies and edits a shared link names (defaults when absent)."""
    from dashboard import share

    key = params.get("sample") or sample_data.DEFAULT_SAMPLE
    if not load_sample_into_state(str(key)):
        load_sample_into_state(sample_data.DEFAULT_SAMPLE)
        return
    if params.get("edits"):
        try:
            state.set_edits(share.decode_edits(str(params["edits"])))
        except share.ShareLinkError as error:
            state.report_error(f"The link's edits were not restored: {error}")
    names = share.parse_strategies(params.get("strategies"))
    if names:
        state.set_strategies(names)

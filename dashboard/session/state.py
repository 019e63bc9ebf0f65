"""Session state behind a few named helpers: the loaded source, the what-if edits, the choices.

What the user chose lives in ``st.session_state`` under the keys below, read and written only
through this module's functions:

1. ``ae.source``: the :class:`Source` last loaded successfully (sample, upload or cluster
   snapshot). Loading a new one replaces it and clears the edits; a failed load never touches it.
2. ``ae.edits``: the what-if edits applied on top of the source, in order, each a small JSON
   object (see :mod:`dashboard.model.whatif`). Undo drops the last one, reset drops them all. Being
   JSON, they also travel in the shareable link.
3. ``ae.strategies``: the strategy names picked for comparison; they belong to the source's
   family (:func:`family`) and start over with another sample, upload or group.
4. ``ae.error``: the last problem to show (a failed connection or a bad file), shown once.

The edited scenario is derived, never stored by the user: :func:`scenario` recomputes it when
the source or the edits change and keeps it under ``ae.scenario`` with the key it was built for.

Not here: a widget's value, under the widget's own key (``source.kind``, ``cluster.bootstrap``,
...), and the working state a panel keeps for itself under ``ae.``-prefixed keys named at the
top of that panel (the watch's reading in flight, the walkthrough's step, the cluster's group
list). A page switch made in code keeps the shared sidebar's widgets (:func:`carry_widgets`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import streamlit as st

from assignors import Scenario
from dashboard.model import sources

Edit = dict[str, Any]

_SOURCE = "ae.source"
_EDITS = "ae.edits"
_STRATEGIES = "ae.strategies"
_ERROR = "ae.error"
_NOTICE = "ae.notice"
_SCENARIO = "ae.scenario"
_KAFKA_VERSION = "ae.kafka_version"
_STREAMS_SHOWN = "ae.streams_shown"


def has_source() -> bool:
    """Whether a scenario has been loaded in this session."""
    return _SOURCE in st.session_state


def source() -> sources.Source:
    """The scenario source loaded last."""
    value: sources.Source = st.session_state[_SOURCE]
    return value


def family(value: sources.Source) -> str:
    """What a source is, whatever walkthrough step it is at: ``sample:NAME``, an upload's digest,
    a cluster group. The strategies belong to a family: a new family opens with its own."""
    return value.key.split("@", 1)[0]


def set_source(new_source: sources.Source, *, keep_edits: bool = False) -> None:
    """Make ``new_source`` current; the edits start over unless ``keep_edits``.

    A source of another family (another sample, an upload, a group) also drops the picked
    strategies (the new one opens with its own, :func:`dashboard.panels.strategy_panel.render`) and
    every widget that belonged to the old scenario (:func:`scope_widgets`).
    """
    previous = st.session_state.get(_SOURCE)
    st.session_state[_SOURCE] = new_source
    if not keep_edits:
        st.session_state[_EDITS] = []
    st.session_state.pop(_SCENARIO, None)
    if previous is None or family(previous) != family(new_source):
        st.session_state.pop(_STRATEGIES, None)
        for name in FAMILY_KEYS:
            st.session_state.pop(name, None)


#: Widgets whose value belongs to one scenario (source plus edits): they start from the
#: scenario's own values whenever it changes, so none can apply a choice made for another.
SCENARIO_WIDGETS = ("shape.",)
_WIDGET_SCOPE = "ae.widget_scope"
#: Where a source family's walkthrough stands: another family starts at its first step.
FAMILY_KEYS = ("ae.walkthrough_step", "ae.walkthrough_started")


def forget_widgets(prefixes: tuple[str, ...]) -> None:
    """Drop the session values of the widgets whose keys start with ``prefixes`` (they are
    drawn with their defaults next)."""
    for name in [key for key in st.session_state if str(key).startswith(prefixes)]:
        del st.session_state[name]


def scope_widgets(values: dict[str, Any]) -> str:
    """Call before drawing the what-if widgets: when the scenario (source or edits) changed
    since they were drawn, every widget of :data:`SCENARIO_WIDGETS` starts over: those named in
    ``values`` get the scenario's value (set through the session, so the browser shows it too;
    dropping the value would leave the browser showing the old one), the others are dropped.

    Returns the scope (the scenario key), for widgets whose keys carry it.
    """
    scope = scenario_key()
    if st.session_state.get(_WIDGET_SCOPE) != scope:
        forget_widgets(SCENARIO_WIDGETS)
        for name, value in values.items():
            st.session_state[name] = value
        st.session_state[_WIDGET_SCOPE] = scope
    return scope


def unscope_widgets() -> None:
    """The scenario's widgets were not drawn (their panel is closed), so Streamlit forgets their
    values: the next drawing starts from the scenario's values again (:func:`scope_widgets`)."""
    st.session_state.pop(_WIDGET_SCOPE, None)


def edits() -> tuple[Edit, ...]:
    """The what-if edits, oldest first."""
    return tuple(st.session_state.get(_EDITS, []))


def push_edit(edit: Edit) -> None:
    """Add one what-if edit on top of the others."""
    st.session_state[_EDITS] = [*edits(), edit]


def set_edits(new_edits: list[Edit]) -> None:
    """Replace every edit (used when a shared link restores them)."""
    st.session_state[_EDITS] = list(new_edits)


def undo() -> Edit | None:
    """Drop the last edit; returns it (``None`` when there was nothing to undo)."""
    current = list(edits())
    if not current:
        return None
    last = current.pop()
    st.session_state[_EDITS] = current
    return last


def reset() -> None:
    """Drop every edit: back to the scenario as the source gave it."""
    st.session_state[_EDITS] = []


def scenario_key(only: Callable[[Edit], bool] | None = None) -> str:
    """Identifies the edited scenario: the source's key plus the edits (those ``only`` keeps)."""
    chosen = [edit for edit in edits() if only is None or only(edit)]
    edits_text = json.dumps(chosen, sort_keys=True, separators=(",", ":"))
    return f"{source().key}|{sources.content_key(edits_text)}"


def kafka_version() -> str | None:
    """The Kafka release picked in the sidebar; ``None`` until one is (the scenario's own)."""
    value = st.session_state.get(_KAFKA_VERSION)
    return value if isinstance(value, str) else None


def set_kafka_version(version: str | None) -> None:
    """Pick the Kafka release the version-dependent strategies reproduce (kept across sources:
    it is the release the user's cluster runs)."""
    st.session_state[_KAFKA_VERSION] = version


def plan_key() -> str:
    """:func:`scenario_key` plus the picked Kafka release: what the strategies' answers (the
    plan and its outcomes) are cached under."""
    version = kafka_version()
    return scenario_key() if version is None else f"{scenario_key()}|kafka {version}"


def versioned(scenario: Scenario) -> Scenario:
    """``scenario`` with the picked Kafka release as its ``kafka_version`` (unchanged when none
    is picked)."""
    version = kafka_version()
    if version is None or version == scenario.kafka_version:
        return scenario
    return replace(scenario, kafka_version=version)


def scenario(apply: Callable[[Scenario, tuple[Edit, ...]], Scenario]) -> Scenario:
    """The source scenario with every edit applied by ``apply``, rebuilt only when they change."""
    key = scenario_key()
    cached = st.session_state.get(_SCENARIO)
    if cached is not None and cached[0] == key:
        value: Scenario = cached[1]
        return value
    edited = apply(source().scenario, edits())
    st.session_state[_SCENARIO] = (key, edited)
    return edited


def selected_strategies() -> list[str]:
    """The strategy names picked for comparison."""
    return list(st.session_state.get(_STRATEGIES, []))


def has_strategies() -> bool:
    """Whether strategies were picked for this source family (an empty pick counts)."""
    return _STRATEGIES in st.session_state


def set_strategies(names: list[str]) -> None:
    """Pick the strategies to compare."""
    st.session_state[_STRATEGIES] = list(names)


def report_error(message: str) -> None:
    """Remember a problem to show on the next render: plain text (it quotes what users, links,
    files and clusters supply), shown as typed, never as Markdown."""
    st.session_state[_ERROR] = message


def take_error() -> str | None:
    """The problem to show now, if any (shown once)."""
    message: str | None = st.session_state.pop(_ERROR, None)
    return message


def report_notice(message: str) -> None:
    """Remember a success message to show on the next render: plain text, as
    :func:`report_error`."""
    st.session_state[_NOTICE] = message


def take_notice() -> str | None:
    """The notice to show now, if any (shown once)."""
    message: str | None = st.session_state.pop(_NOTICE, None)
    return message


def mark_streams_shown(key: str) -> None:
    """Remember that the Kafka Streams page showed source ``key`` (a Streams application)."""
    st.session_state[_STREAMS_SHOWN] = key


def take_streams_shown() -> str | None:
    """The Streams application the Streams page showed last, forgotten as it is read (``None``
    once a consumer group has been routed since)."""
    key: str | None = st.session_state.pop(_STREAMS_SHOWN, None)
    return key


_CARRIED = "ae.carried."


def carry_widgets(keys: tuple[str, ...]) -> None:
    """Keep these widgets' values through a page switch made in code.

    ``st.switch_page`` sends the new page's run no widget states, and Streamlit drops every
    widget's value on a change of page (a value set through ``st.session_state`` under the
    widget's own key included): the sidebar would fall back to its defaults (a loaded live
    group's form emptied, *Watch* off). The values are copied under keys of the session's own,
    and :func:`restore_carried_widgets` gives them back before the new page draws the widgets.
    ``keys`` name widgets that hold a value (buttons and file uploaders hold none that can be
    set: they start empty).
    """
    for key in keys:
        if key in st.session_state:
            st.session_state[_CARRIED + key] = st.session_state[key]


def restore_carried_widgets() -> None:
    """Give the widgets the values :func:`carry_widgets` kept (once; before they are drawn)."""
    for carried in [key for key in st.session_state if str(key).startswith(_CARRIED)]:
        value = st.session_state.pop(carried)
        key = str(carried)[len(_CARRIED) :]
        if key not in st.session_state:
            st.session_state[key] = value

"""Pick the strategies to compare; every registered strategy appears with its own words.

The list comes from :func:`assignors.registry.partition_strategies`, so a strategy that lands in
the registry shows here with no dashboard change. When a picked strategy reproduces a Kafka
assignor whose answers changed between releases (``older_kafka``), a *Kafka version* selector
follows (default: the scenario's ``kafka_version``, else the newest); the pick is kept in
:func:`dashboard.session.state.kafka_version`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import streamlit as st

from assignors import KAFKA_VERSIONS, NEWEST_KAFKA_VERSION, Scenario, WalkthroughStep
from dashboard.model import sources
from dashboard.model.plain import WARNING_ICON, escape_markdown
from dashboard.session import compute, state

#: Tried in order when a scenario names fewer than two: one that moves little, then the rest.
PREFERRED = ("cooperative-sticky", "sticky", "uniform", "roundrobin", "range")
#: At most this many strategies open with a scenario (more can be picked).
MAX_DEFAULT = 3
_PICK = "strategies.pick"
_VERSION = "strategies.kafka_version"
_DRAWN = "ae.strategies_drawn"
_DRAWN_VERSION = "ae.kafka_version_drawn."


def _named_in(text: str, known: Sequence[str]) -> list[str]:
    """Registry names that ``text`` mentions as words ("sticky" is not named by
    "cooperative-sticky"), in the order they appear."""
    found: list[tuple[int, str]] = []
    for name in known:
        match = re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text, flags=re.IGNORECASE)
        if match:
            found.append((match.start(), name))
    return [name for _, name in sorted(found)]


def default_strategies(
    scenario: Scenario, walkthrough: Sequence[WalkthroughStep] = ()
) -> list[str]:
    """The strategies a scenario opens with: the group's own assignor, those its description
    names, those its walkthrough switches to (at most :data:`MAX_DEFAULT`); filled up to two
    from :data:`PREFERRED` when it names fewer."""
    known = list(compute.partition_strategies())
    named = [scenario.assignor or ""]
    named += _named_in(f"{scenario.name or ''} {scenario.description or ''}", known)
    named += [step.assignor for step in walkthrough if step.assignor]
    picked = [name for name in dict.fromkeys(named) if name in known][:MAX_DEFAULT]
    for name in PREFERRED:
        if len(picked) >= 2:
            break
        if name in known and name not in picked:
            picked.append(name)
    if not picked and known:
        picked.append(known[0])
    return picked


def render(source: sources.Source) -> list[str]:
    """The strategy multiselect (sidebar) and each picked strategy's description."""
    known = compute.partition_strategies()
    st.header("Strategies")
    if not known:
        st.warning("No strategy is registered yet.", icon=WARNING_ICON)
        return []
    if not state.has_strategies():
        state.set_strategies(default_strategies(source.scenario, source.walkthrough))
    chosen = [name for name in state.selected_strategies() if name in known]
    # The picker always shows what the page compares: when a new sample, a walkthrough step or
    # a link changed the strategies since the picker was last drawn, it is set through the
    # session before it is drawn (a choice the user just made in it is left alone).
    if st.session_state.get(_DRAWN) != chosen or _PICK not in st.session_state:
        st.session_state[_PICK] = chosen
    picked: list[str] = st.multiselect(
        "Compare",
        list(known),
        key=_PICK,
        help="Every strategy in the registry; each is compared against the current assignment.",
    )
    if picked != state.selected_strategies():
        state.set_strategies(picked)
    st.session_state[_DRAWN] = picked
    _kafka_version(source.scenario, picked)
    _details(picked)
    return picked


def _kafka_version(scenario: Scenario, picked: list[str]) -> None:
    """The Kafka version selector, shown when a picked strategy answers by Kafka release."""
    known = compute.partition_strategies()
    dependent = {name: known[name].older_kafka for name in picked if known[name].older_kafka}
    if dependent:
        kafka_version_picker(_VERSION, scenario.kafka_version, dependent)


def kafka_version_picker(
    key: str, default: str | None, dependent: Mapping[str, Sequence[tuple[str, str]]]
) -> str:
    """The *Kafka version* selectbox under ``key`` for the ``dependent`` strategies (name ->
    what each older release did); the pick is kept in :func:`dashboard.session.state.kafka_version`,
    which also seeds the box (else ``default``, else the newest). Several pages draw such a box:
    one that last showed another version than the session's now (picked on another page, or
    cleared by loading a live group) shows the session's; a pick made in this box is kept."""
    wanted = state.kafka_version() or default or NEWEST_KAFKA_VERSION
    drawn = f"{_DRAWN_VERSION}{key}"
    if key not in st.session_state or st.session_state.get(drawn) != wanted:
        st.session_state[key] = wanted
    changes = "; ".join(
        f"{name} as Kafka {version}: {change}"
        for name, older in dependent.items()
        for version, change in older
    )
    version: str = st.selectbox(
        "Kafka version",
        list(reversed(KAFKA_VERSIONS)),
        key=key,
        help=f"The Kafka release {', '.join(dependent)} reproduce (default the newest); {changes}.",
    )
    if version != wanted:  # a pick: kept; the box left as it opened writes nothing, so a
        state.set_kafka_version(version)  # link without a version stays without one
    st.session_state[drawn] = version
    return version


@st.fragment
def _details(picked: list[str]) -> None:
    known = compute.partition_strategies()
    # Built only while open (opening reruns this fragment): closed, the browser draws none of
    # its thirteen code blocks on a first visit or a rerun.
    panel = st.expander("About the strategies", key="panel.about", on_change="rerun")
    if not panel.open:
        return
    with panel:
        for name, strategy in known.items():
            st.markdown(
                f"**{'✔ ' if name in picked else ''}{escape_markdown(name)}**"
                f" · {escape_markdown(strategy.protocol)} protocol"
            )
            st.caption(escape_markdown(strategy.summary))
            st.markdown(f"*When to use:* {escape_markdown(strategy.when_to_use)}")
            for version, change in strategy.older_kafka:
                st.markdown(f"*As Kafka {escape_markdown(version)}:* {escape_markdown(change)}")
            st.code(strategy.consumer_config, language="properties")

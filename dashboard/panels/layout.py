"""Small page helpers shared by the panels: member columns and colours, messages, the plan."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import streamlit as st

from assignors import AssignmentExplorerError, Scenario
from dashboard.model import palette, sources, whatif
from dashboard.model.plain import ERROR_ICON, SUCCESS_ICON, WARNING_ICON, escape_markdown
from dashboard.panels import source_panel
from dashboard.session import compute, projector, samples, state

T = TypeVar("T")


def member_layout(
    source: Scenario, plan: whatif.WhatIf, roster: Sequence[str] = ()
) -> tuple[list[str], dict[str, str]]:
    """Member columns and colours: the source's members in order, then added ones.

    Keyed on the source rather than the edited scenario so that a member keeps its colour and
    column whatever is filtered, removed or added. Colours are dealt over ``roster`` first (a
    walkthrough's: :func:`colour_roster`), so that a lesson's member keeps its colour at
    every step, whoever left or joined before.
    """
    order = palette.roster(
        [member.member_id for member in source.members],
        [member.member_id for member in plan.after.members],
    )
    colours = palette.member_colours(palette.roster(roster, order))
    shown = {m.member_id for m in plan.before.members} | {m.member_id for m in plan.after.members}
    return [member for member in order if member in shown], colours


def colour_roster(source: sources.Source) -> list[str]:
    """The member ids a source's colours are dealt over: for a sample with a walkthrough (a
    lesson) every member it ever shows, as shipped then as they join
    (:func:`dashboard.model.palette.walkthrough_roster`); none otherwise (its own members)."""
    if not source.walkthrough or source.sample is None:
        return []
    try:
        shipped = samples.sample_source(source.sample).scenario
    except AssignmentExplorerError:
        return []
    return palette.walkthrough_roster([m.member_id for m in shipped.members], source.walkthrough)


def show_messages(source: sources.Source) -> None:
    """The pending error or notice, and the loader's warnings about the source."""
    show_pending()
    if source.warnings:
        with st.expander(f"{len(source.warnings)} warning(s) about this scenario"):
            for warning in source.warnings:
                st.markdown(f"- {escape_markdown(warning)}")


def show_pending() -> None:
    """The pending error or notice (a refused file, listing or connection; a loaded source):
    every page with the shared sidebar shows them, as a sidebar action may start on any."""
    error = state.take_error()
    if error:
        st.error(
            escape_markdown(error), icon=ERROR_ICON
        )  # plain text: it quotes links, files and clusters
    notice = state.take_notice()
    if notice:
        st.success(escape_markdown(notice), icon=SUCCESS_ICON)


def _version_refused(error: AssignmentExplorerError) -> bool:
    """Whether ``error`` is a strategy refusing the Kafka release line the user picked."""
    problems = getattr(error, "problems", ())
    return bool(problems) and all(str(p).startswith("kafka_version:") for p in problems)


def undoing_misfits(build: Callable[[], T]) -> T | None:
    """``build()`` on the current edits; while it fails, the last edit is undone and the page
    says which and why, then ``build()`` runs again on the edits left. None (and the reason
    shown) when even the source without edits fails. ``build`` reads the edits each time.

    A Kafka release line picked that a strategy on the page does not answer (a walkthrough's
    step may use one the user did not pick) undoes no edit: the page says so, answers as the
    newest line instead, and the version box follows."""
    for _ in range(len(state.edits()) + 2):
        try:
            return build()
        except AssignmentExplorerError as error:
            picked = state.kafka_version()
            if picked is not None and _version_refused(error):
                st.warning(
                    f"Kafka {escape_markdown(picked)} cannot be shown here:"
                    f" {escape_markdown(str(error))}. The page answers as the newest release"
                    " line instead; pick another version under *Strategies*.",
                    icon=WARNING_ICON,
                )
                state.set_kafka_version(None)
                continue
            dropped = state.undo()
            reason_markdown = escape_markdown(str(error))  # errors quote member ids and topics
            if dropped is None:
                st.error(f"The scenario cannot be shown: {reason_markdown}", icon=ERROR_ICON)
                return None
            st.error(
                f"Edit “{escape_markdown(whatif.describe(dropped))}” was undone: {reason_markdown}",
                icon=ERROR_ICON,
            )
    return None


def resolve_plan(key: str, source: Scenario) -> whatif.WhatIf | None:
    """The what-if for the current edits; an edit that does not fit is dropped with its reason."""
    return undoing_misfits(lambda: compute.plan(state.plan_key(), source, state.edits()))


#: What a page says when its scenario cannot travel in a link.
NO_LINK = (
    "No link for this page: its scenario cannot travel in an address (over the size limit, or"
    " a Kafka Streams application from a file or a cluster). Download its scenario under"
    " *Share and export* to pass it on."
)


def sync_address_bar(params: dict[str, str] | None) -> None:
    """Keep the address bar on what the page shows (opening it in a new tab shows the same
    page and scenario); a view that cannot travel in a link (a scenario over the size limit)
    clears it and says so, rather than leave the link of something else there."""
    wanted = {**(params or {}), **projector.link_params()}
    if dict(st.query_params) != wanted:
        st.query_params.from_dict(wanted)
    if params is None:
        st.caption(NO_LINK)


def page_address(own: dict[str, str]) -> None:
    """The address of a page that does not show the loaded source (History, Fleet): the
    source's link when it can travel (the Explorer opened from there shows the same scenario),
    then the page's own picks ``own``."""
    carried = source_panel.link_params(state.source()) if state.has_source() else None
    sync_address_bar({**(carried or {}), **own})


def from_address(widget: str, param: str, options: Sequence[object]) -> None:
    """Give widget ``widget`` the value the address's ``param`` names (a link opened), before
    the widget is drawn and only while it holds none (the user's pick is never overridden);
    ignored when it names none of ``options``."""
    wanted = st.query_params.get(param)
    if wanted is None or widget in st.session_state:
        return
    match = next((option for option in options if str(option) == wanted), None)
    if match is not None:
        st.session_state[widget] = match

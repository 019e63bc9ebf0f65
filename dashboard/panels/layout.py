"""Small page helpers shared by the panels: member columns and colours, messages, the plan."""

from __future__ import annotations

import streamlit as st

from assignors import AssignmentExplorerError, Scenario
from dashboard.model import palette, sources, whatif
from dashboard.session import compute, state


def member_layout(source: Scenario, plan: whatif.WhatIf) -> tuple[list[str], dict[str, str]]:
    """Member columns and colours: the source's members in order, then added ones.

    Keyed on the source rather than the edited scenario so that a member keeps its colour and
    column whatever is filtered, removed or added.
    """
    order = [member.member_id for member in source.members]
    seen = set(order)
    for member in plan.after.members:
        if member.member_id not in seen:
            order.append(member.member_id)
            seen.add(member.member_id)
    colours = palette.member_colours(order)
    shown = {m.member_id for m in plan.before.members} | {m.member_id for m in plan.after.members}
    return [member for member in order if member in shown], colours


def show_messages(source: sources.Source) -> None:
    """The pending error or notice, and the loader's warnings about the source."""
    error = state.take_error()
    if error:
        st.error(error)
    notice = state.take_notice()
    if notice:
        st.success(notice)
    if source.warnings:
        with st.expander(f"{len(source.warnings)} warning(s) about this scenario"):
            for warning in source.warnings:
                st.markdown(f"- {warning}")


def resolve_plan(key: str, source: Scenario) -> whatif.WhatIf | None:
    """The what-if for the current edits; an edit that does not fit is dropped with its reason."""
    for _ in range(len(state.edits()) + 1):
        try:
            return compute.plan(state.plan_key(), source, state.edits())
        except AssignmentExplorerError as error:
            dropped = state.undo()
            if dropped is None:
                st.error(f"The scenario cannot be shown: {error}")
                return None
            st.error(f"Edit “{whatif.describe(dropped)}” was undone: {error}")
    return None


def sync_address_bar(params: dict[str, str] | None) -> None:
    """Keep the address bar on what the page shows (reloading it restores the view); a view
    that cannot travel in a link (a scenario over the size limit) clears it."""
    wanted = params or {}
    if dict(st.query_params) != wanted:
        st.query_params.from_dict(wanted)

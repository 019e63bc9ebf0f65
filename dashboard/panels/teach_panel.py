"""Teach: a sample's walkthrough, one step at a time.

Each step is one rebalance, shown like any what-if:

1. The "before" is the sample as the walkthrough leaves it after the steps before this one
   (:func:`dashboard.session.samples.sample_source` with ``step``: each earlier change applied
   and rebalanced with the strategy in force, members owning that answer).
2. The step's own change becomes the what-if edits a user would make by hand (members removed
   or added, topics grown), and its strategy switch picks the strategies, so the step shows in
   every view and its share link restores it.

Showing step 1 starts from the sample as shipped. A member that leaves in one step and returns
in a later one is two rebalances, as in Kafka (it rejoins with a new assignment). A Kafka Streams
sample's steps change nothing (they narrate the probing rebalances its page shows): the panel,
drawn on the Kafka Streams page, only moves from step to step.

The step the panel shows is the source's (``Source.walkthrough_step``), so the page's subtitle,
the sidebar's note, the share link and the panel always name the same step; a link to a step
opens the panel on it. A step's text is shown with its figures filled from the scenario
(:func:`dashboard.session.samples.narration`), with the step's question and the view that
answers it; showing a step also picks that view under *More views*. *Show step N again* appears
only when the page no longer shows the step (an edit or a strategy picked since).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import streamlit as st

from assignors import (
    AddMember,
    AssignmentExplorerError,
    Change,
    WalkthroughStep,
    change_to_json,
    describe_change,
)
from dashboard.model import sources, whatif
from dashboard.model.plain import escape_markdown
from dashboard.panels import projector_panel, results_panel
from dashboard.session import samples, state

_STARTED = "ae.walkthrough_started"
#: The walkthrough panel's key: its open/closed state lives in the session under it.
PANEL = "panel.teach"
#: The views a step may name (``WalkthroughStep.view``) and where each is on the page: plain
#: text (the caption escapes it with the step's own words), so names are quoted, not starred.
VIEWS = {
    "Animation": "the animation at the top of the results (play it: outlined tiles change owner)",
    "Comparison table": "the comparison table under the animation (one row per strategy)",
    "Lag per consumer": "the lag per consumer chart",
    **{name: f"“{name}” under “More views”" for name in results_panel.MORE_VIEWS},
    "Kafka Streams": (
        "the Kafka Streams page's “Tasks per client” chart (rebalance by rebalance: press ▶ Play"
        " or drag the slider)"
    ),
}


def _start(source: sources.Source) -> None:
    """The offer's button: open the walkthrough on its first step. The step is a new source
    and strategies, so the whole page reruns (the button sits in the page's what-if fragment,
    whose own rerun would leave the title and the sidebar on the old ones)."""
    st.session_state[_STARTED] = True
    st.session_state[PANEL] = True
    show_step(source, 0)
    st.rerun()


def open_at(source: sources.Source, index: int) -> None:
    """Open the walkthrough of ``source`` (a sample) on step ``index`` (0-based), as a link to
    that step or the Classroom's *Open* does: started, panel open, the step shown."""
    st.session_state[_STARTED] = True
    st.session_state[PANEL] = True
    show_step(source, index)


def _edit(change: Change) -> dict[str, Any]:
    """The what-if edit (:mod:`dashboard.model.whatif`) that makes one walkthrough change: the
    core's one JSON change form (:func:`assignors.change_to_json`), membership changes only; a
    joining member's client id, host and claims are left out (the what-if member joins owning
    nothing)."""
    if isinstance(change, AddMember):
        change = dataclasses.replace(
            change, client_id=None, host=None, owned_partitions=(), generation=None
        )
    edit = change_to_json(change)
    if edit["op"] not in whatif.CHANGE_OPS:
        raise AssignmentExplorerError(f"a walkthrough step cannot show: {describe_change(change)}")
    return edit


def step_edits(step: WalkthroughStep) -> list[dict[str, Any]]:
    """The what-if edits that make ``step``'s changes, in order (none for a step without)."""
    return [_edit(change) for change in step.changes]


def step_strategy(steps: Sequence[WalkthroughStep], upto: int, default: str | None) -> str | None:
    """The strategy in force at step ``upto`` (the last switch so far, else ``default``)."""
    chosen = default
    for step in steps[: upto + 1]:
        if step.assignor is not None:
            chosen = step.assignor
    return chosen


def where_to_look(step: WalkthroughStep) -> str:
    """Which view shows what this step is about: the step's own ``view``, else by its kind."""
    if step.view is not None:
        return f"Look at {VIEWS.get(step.view, step.view)}."
    if step.changes:
        return (
            "Play the animation: outlined tiles change owner; then compare the"
            " “partitions moved” column of the comparison table."
        )
    if step.assignor is not None:
        return f"Compare {step.assignor} with the current assignment in the animation."
    return "Look at the lag per consumer and the assignment matrix."


def shows_step(steps: Sequence[WalkthroughStep], index: int, default: str | None) -> bool:
    """Whether the page shows step ``index`` as *Next* or *Previous* left it: the step's edits
    and, when the walkthrough names one, its strategy alone."""
    strategy = step_strategy(steps, index, default)
    if list(state.edits()) != step_edits(steps[index]):
        return False
    return strategy is None or state.selected_strategies() == [strategy]


def render(source: sources.Source) -> None:
    """The walkthrough of the loaded sample (nothing when it has none)."""
    steps = source.walkthrough
    if not steps:
        return
    if source.walkthrough_step and PANEL not in st.session_state:
        # A link to a step opens the panel on it, and shows the view the step names, as Next
        # and Previous do (the results are drawn after this panel).
        st.session_state[PANEL] = True
        st.session_state[_STARTED] = True
        view = steps[min(source.walkthrough_step, len(steps) - 1)].view
        if view in results_panel.MORE_VIEWS:
            st.session_state[results_panel.MORE_VIEW] = view
    if not st.session_state.get(_STARTED) and projector_panel.walkthrough_offer():
        left, right = st.columns([4, 1], vertical_alignment="center")
        each = (
            "each step explains what the charts below show"
            if source.streams is not None  # a Streams walkthrough narrates: it changes nothing
            else "each step is one change, explained, shown in every chart below"
        )
        left.info(
            f"New here? This sample has a {len(steps)}-step walkthrough: {escape_markdown(each)}.",
            icon=":material/school:",
        )
        right.button(
            "Start the walkthrough",
            key="teach.start",
            type="primary",
            on_click=_start,
            args=(source,),
        )
    # Built only while open, like the what-if and export panels: closed, as on a first visit,
    # the browser draws none of its steps' text and buttons (opening it reruns the page).
    panel = st.expander(f"Walkthrough: {len(steps)} steps", key=PANEL, on_change="rerun")
    if panel.open:
        with panel:
            _steps(source, steps)


def _steps(source: sources.Source, steps: Sequence[WalkthroughStep]) -> None:
    """The open walkthrough: the step shown, its narration, question and where to look, and
    the buttons that move."""
    index = min(source.walkthrough_step, len(steps) - 1)
    step = steps[index]
    st.markdown(f"**Step {index + 1:d} of {len(steps)}: {escape_markdown(step.title)}**")
    # A bundled sample's narration is the project's own Markdown; a file's step text is not.
    narration_markdown = samples.narration(source.sample) if source.sample else None
    st.markdown(narration_markdown[index] if narration_markdown else escape_markdown(step.text))
    if step.question is not None:
        st.info(f"Question for the class: {escape_markdown(step.question)}", icon=":material/quiz:")
    st.caption(escape_markdown(where_to_look(step)))
    back, again, forward = st.columns(3)
    if back.button("◀ Previous", key="teach.back", disabled=index == 0):
        show_step(source, index - 1)
        st.rerun()
    original = samples.sample_source(source.sample).scenario if source.sample else None
    default = original.assignor if original is not None else None
    if not shows_step(steps, index, default) and again.button(
        f"Show step {index + 1:d} again", key="teach.apply", type="primary"
    ):
        st.session_state[_STARTED] = True
        show_step(source, index)
        st.rerun()
    if forward.button("Next ▶", key="teach.next", disabled=index == len(steps) - 1):
        show_step(source, index + 1)
        st.rerun()


def show_step(source: sources.Source, index: int) -> None:
    """Make step ``index`` (0-based) the what-if: the group before it, and its change."""
    steps = source.walkthrough
    if source.sample is None:
        return
    try:
        before = samples.sample_source(source.sample, index)
    except AssignmentExplorerError as error:
        state.report_error(f"Step {index + 1} cannot be shown: {error}")
        return
    state.set_source(before)
    state.set_edits(step_edits(steps[index]))
    original = samples.sample_source(source.sample).scenario
    strategy = step_strategy(steps, index, original.assignor)
    if strategy is not None:
        state.set_strategies([strategy])
    if steps[index].view in results_panel.MORE_VIEWS:
        st.session_state[results_panel.MORE_VIEW] = steps[index].view

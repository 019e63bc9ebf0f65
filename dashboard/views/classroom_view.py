"""The *Classroom* page (``/classroom``): every lesson, its question for the class, and a way in.

A lesson is a bundled sample whose walkthrough asks a question
(:func:`sample_data.list_lessons`). The page lists each one: its title, what it shows, the
question, the view that answers it and its steps, each step's text with its figures filled from
the scenario (:func:`dashboard.session.samples.narration`), so a teacher can read the whole
lesson before class.

*Open* on a step loads the lesson as the source and shows that step, as the walkthrough panel's
*Next* does (:func:`dashboard.panels.teach_panel.show_step`), then opens the page that shows it:
the Explorer, or the Kafka Streams page for a Streams lesson, with the walkthrough panel on that
step. The page's address then names the lesson and the step, so the link restores it.
"""

from __future__ import annotations

import streamlit as st

from dashboard.model.plain import ERROR_ICON, escape_markdown
from dashboard.panels import layout, source_panel, teach_panel
from dashboard.session import samples, state
from dashboard.views import pages


def open_lesson(key: str, index: int, kind: str) -> None:
    """Load lesson ``key`` at step ``index`` (0-based) and open the page that shows it."""
    if not samples.load_sample_into_state(key):
        return
    teach_panel.open_at(state.source(), index)
    shown = state.source()
    page = pages.STREAMS if kind == "streams" else pages.EXPLORER
    pages.switch_to(page, source_panel.link_params(shown))


def _lesson(row: tuple[str, str, str, str, int, str | None, str]) -> None:
    """One lesson: title, question, the view that answers it, and its steps to open."""
    key, title, description, question, asked_at, view, kind = row
    steps = samples.walkthrough(key)
    texts = samples.narration(key)
    with st.container(border=True):
        st.subheader(escape_markdown(title))
        st.caption(escape_markdown(description))
        st.info(f"Question for the class: {escape_markdown(question)}", icon=":material/quiz:")
        where = teach_panel.VIEWS.get(view, view) if view else "the walkthrough"
        st.markdown(f"Asked at step {asked_at + 1:d}; answered by {escape_markdown(where)}.")
        label = "Open on the Kafka Streams page" if kind == "streams" else "Open the lesson"
        if st.button(escape_markdown(label), key=f"classroom.open.{key}", type="primary"):
            open_lesson(key, 0, kind)
        with st.expander(f"The {len(texts)} steps", key=f"classroom.steps.{key}"):
            for index, narration_markdown in enumerate(texts):  # the sample's own Markdown
                left, right = st.columns([5, 1], vertical_alignment="top")
                left.markdown(
                    f"**{index + 1:d}. {escape_markdown(steps[index].title)}** {narration_markdown}"
                )
                if right.button(
                    "Open", key=f"classroom.step.{key}.{index}", help=f"Show step {index + 1}"
                ):
                    open_lesson(key, index, kind)


def page() -> None:
    """The whole Classroom page."""
    st.title("Assignment Explorer · Classroom")
    problem = state.take_error()
    if problem:
        st.error(escape_markdown(problem), icon=ERROR_ICON)
    catalogue = samples.lesson_catalogue()
    st.markdown(
        f"{len(catalogue)} lessons, each a few steps with one question to ask the class. Every"
        " number a lesson states is computed from its scenario. *Open* shows a step in the"
        " Explorer (the Kafka Streams lesson on its own page), with the walkthrough panel to step"
        " through it."
    )
    columns = st.columns(2)  # two lessons side by side: the list stays short on a wide screen
    for index, row in enumerate(catalogue):
        with columns[index % 2]:
            _lesson(row)
    layout.page_address({})  # the loaded source travels on, as on the History and Fleet pages


if __name__ == "__main__":  # run as a page of the app (st.navigation), not when imported
    page()

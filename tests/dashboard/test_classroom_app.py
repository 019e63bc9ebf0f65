"""The Classroom page and the walkthrough panel's wording, driven like a teacher with AppTest.

* The Classroom lists every lesson with its question and the view that answers it; opening a
  lesson's question step shows that step in the Explorer (panel open on it, the question and
  the narration with its figures filled), and the page's address restores it in a new session.
  Generated over the lessons and their question steps.
* The panel and the page's subtitle name the same step, on every step of a lesson.
* The hint says what is on the page (there are no cards: the comparison is a table).
* *Show step N again* appears only when the page no longer shows the step, and brings it back.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

import sample_data
from dashboard.panels import results_panel, teach_panel
from dashboard.session import samples
from dashboard.views import pages
from tests.dashboard.app_session import (
    assert_no_exception,
    open_address,
    open_panel,
    page_title,
    shown_text,
    start_app,
)

LESSONS = sample_data.list_lessons()
GROUP_LESSONS = [lesson for lesson in LESSONS if lesson.scenario is not None]
STREAMS_LESSONS = [lesson for lesson in LESSONS if lesson.streams is not None]


def _markdown(app: AppTest) -> str:
    return "\n".join(m.value for m in app.markdown)


def _step_title(app: AppTest) -> str:
    """The open step's heading, as shown (its title escaped on the page)."""
    return shown_text(next(m.value for m in app.markdown if m.value.startswith("**Step ")))


def _subtitle(app: AppTest, lesson: sample_data.Sample) -> str:
    """The page's first line as shown (user text reaches it escaped)."""
    lines = (shown_text(m.value) for m in app.markdown)
    return next(line for line in lines if line.startswith(f"**{lesson.info.name}**"))


def test_the_classroom_lists_every_lesson_with_its_question() -> None:
    app = open_address(pages.CLASSROOM)
    assert page_title(app) == "Assignment Explorer · Classroom"
    shown = [shown_text(str(box.value)) for box in app.info]
    keys = [button.key for button in app.button]
    for lesson in LESSONS:
        asked = sample_data.question(lesson)
        assert asked is not None
        assert f"Question for the class: {asked[1]}" in shown
        assert f"classroom.open.{lesson.info.key}" in keys
    assert len([s for s in app.subheader]) == len(LESSONS)


@pytest.mark.parametrize("lesson", GROUP_LESSONS, ids=lambda lesson: lesson.info.key)
def test_opening_a_lesson_at_its_question_shows_it_and_the_address_restores_it(
    lesson: sample_data.Sample,
) -> None:
    asked = sample_data.question(lesson)
    assert asked is not None
    index, question = asked
    steps = lesson.walkthrough
    app = open_address(pages.CLASSROOM)
    app.button(key=f"classroom.step.{lesson.info.key}.{index}").click().run()
    assert_no_exception(app)
    assert page_title(app) == "Assignment Explorer"
    title = f"**Step {index + 1} of {len(steps)}: {steps[index].title}**"
    assert _step_title(app) == title
    assert f"Question for the class: {question}" in [shown_text(box.value) for box in app.info]
    assert samples.narration(lesson.info.key)[index] in _markdown(app)
    params = dict(app.query_params)
    assert params["sample"] == lesson.info.key
    assert params.get("step", "0") == str(index)
    restored = open_address(pages.EXPLORER, **params)
    if index == 0:  # the sample as shipped is step 1: the link offers the walkthrough
        assert "teach.start" in [button.key for button in restored.button]
    else:
        assert _step_title(restored) == title


@pytest.mark.parametrize(
    ("lesson", "index"),
    [(lesson, index) for lesson in STREAMS_LESSONS for index in range(len(lesson.walkthrough))],
    ids=lambda value: value.info.key if isinstance(value, sample_data.Sample) else str(value),
)
def test_a_streams_lesson_opens_on_the_streams_page_at_each_step(
    lesson: sample_data.Sample, index: int
) -> None:
    """The Kafka Streams page has the walkthrough panel too: a step opened from the Classroom
    shows there, with its narration (figures filled) and question, and its address restores it."""
    steps = lesson.walkthrough
    app = open_address(pages.CLASSROOM)
    app.button(key=f"classroom.step.{lesson.info.key}.{index}").click().run()
    assert_no_exception(app)
    assert page_title(app) == "Assignment Explorer · Kafka Streams"
    title = f"**Step {index + 1} of {len(steps)}: {steps[index].title}**"
    assert _step_title(app) == title
    assert samples.narration(lesson.info.key)[index] in _markdown(app)
    if steps[index].question is not None:
        assert f"Question for the class: {steps[index].question}" in [b.value for b in app.info]
    params = dict(app.query_params)
    assert params["sample"] == lesson.info.key
    assert params.get("step", "0") == str(index)
    restored = open_address(pages.STREAMS, **params)
    assert_no_exception(restored)
    if index == 0:  # the sample as shipped is step 1: the link offers the walkthrough
        assert "teach.start" in [button.key for button in restored.button]
    else:
        assert _step_title(restored) == title


@pytest.mark.parametrize("lesson", STREAMS_LESSONS, ids=lambda lesson: lesson.info.key)
def test_a_streams_lesson_steps_through_on_its_page(lesson: sample_data.Sample) -> None:
    """Next and Previous move through a Streams walkthrough: the panel, the subtitle and the
    address name the same step, and the page's charts stay (the steps change nothing)."""
    steps = lesson.walkthrough
    app = open_address(pages.STREAMS, sample=lesson.info.key)
    app.button(key="teach.start").click().run()
    charts = len(app.get("plotly_chart"))
    assert charts >= 2
    for index in [*range(1, len(steps)), len(steps) - 2]:
        key = "teach.next" if index > int(dict(app.query_params).get("step", "0")) else "teach.back"
        app.button(key=key).click().run()
        assert_no_exception(app)
        assert _step_title(app).startswith(f"**Step {index + 1} of {len(steps)}:")
        assert f"walkthrough step {index + 1} of {len(steps)}" in _subtitle(app, lesson)
        assert dict(app.query_params)["step"] == str(index)
        assert len(app.get("plotly_chart")) == charts


# --- the walkthrough panel's wording ----------------------------------------------------------

WALKED = max(GROUP_LESSONS, key=lambda lesson: len(lesson.walkthrough))


def test_the_subtitle_and_the_panel_name_the_same_step() -> None:
    steps = WALKED.walkthrough
    app = open_panel(start_app(sample=WALKED.info.key), teach_panel.PANEL)
    for index in range(1, len(steps)):
        app.button(key="teach.next").click().run()
        assert_no_exception(app)
        assert _step_title(app).startswith(f"**Step {index + 1} of {len(steps)}:")
        assert f"walkthrough step {index + 1} of {len(steps)}" in _subtitle(app, WALKED)


@pytest.mark.parametrize(
    ("key", "index"),
    [
        (info.key, index)
        for info in sample_data.list_samples()
        for index in range(len(sample_data.load_sample(info.key).walkthrough))
    ],
)
def test_the_hint_says_what_is_on_the_page(key: str, index: int) -> None:
    step = sample_data.load_sample(key).walkthrough[index]
    hint = teach_panel.where_to_look(step)
    assert "card" not in hint  # the comparison is a table: there are no cards to compare
    if step.view is not None:
        assert step.view in teach_panel.VIEWS, f"{key}: unknown view {step.view!r}"
        assert teach_panel.VIEWS[step.view] in hint
    # The caption escapes the hint (it quotes the step's own words), so the hint is plain text:
    # Markdown in it would show as literal asterisks and underscores.
    assert not {"*", "`"} & set(hint), hint


def test_show_this_step_appears_only_when_the_page_no_longer_shows_it() -> None:
    app = open_panel(start_app(sample=WALKED.info.key), teach_panel.PANEL)
    app.button(key="teach.next").click().run()
    # Next showed step 2: a button to show it would do nothing, so there is none.
    assert "teach.apply" not in [button.key for button in app.button]
    shown = app.multiselect(key="strategies.pick").value
    other = next(name for name in ("range", "roundrobin") if [name] != shown)
    app.multiselect(key="strategies.pick").set_value([other]).run()
    again = app.button(key="teach.apply")
    assert again.label == "Show step 2 again"
    again.click().run()
    assert_no_exception(app)
    assert app.multiselect(key="strategies.pick").value == shown
    assert "teach.apply" not in [button.key for button in app.button]


@pytest.mark.parametrize(
    ("key", "index"),
    [
        (info.key, index)
        for info in sample_data.list_samples()
        for index, step in enumerate(sample_data.load_sample(info.key).walkthrough)
        if index and step.view in results_panel.MORE_VIEWS
    ],
)
def test_a_link_to_a_step_shows_the_view_the_step_names(key: str, index: int) -> None:
    # As Next and Previous do: the link's reader lands on the view the step talks about.
    app = start_app(sample=key, step=str(index))
    step = sample_data.load_sample(key).walkthrough[index]
    assert app.session_state[results_panel.MORE_VIEW] == step.view

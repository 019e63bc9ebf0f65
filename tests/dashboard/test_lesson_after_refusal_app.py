"""A lesson open in the Explorer, a scenario file refused, then the walkthrough's buttons (the
sequence a generated UI run once reported: the refusal was still shown after *Previous*).

Specification: a refused file changes nothing of the lesson (its step, its scenario and edits
stay, and the page says why in one error box); the next press of *Previous* or *Next* moves the
walkthrough as it would have without the refusal, and the refusal is gone with that run. On
the first step *Previous* is disabled: pressing it runs nothing, so the page (refusal and all)
stays as it was, as in a browser.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import FileUploader

import sample_data
from dashboard.views import pages
from tests.dashboard.app_session import assert_no_exception, open_address, shown_text

BROKEN = b'{"topics": [{"name": "t", "partitions": -1}], "members": 3}'
#: The lessons shown in the Explorer (a Streams lesson has its own page), with their steps.
LESSONS = [
    lesson
    for lesson in sample_data.list_lessons()
    if lesson.scenario is not None and len(lesson.walkthrough) >= 2
]


def _refuse_a_file(app: AppTest) -> tuple[Any, int]:
    """Upload :data:`BROKEN` in the sidebar; returns what the page showed before (source key,
    edits) and the step, after checking that the refusal kept them."""
    before = app.session_state["ae.source"]
    edits = list(app.session_state["ae.edits"])
    app.radio(key="source.kind").set_value("Upload").run()
    (uploader,) = [w for w in app.get("file_uploader") if isinstance(w, FileUploader)]
    uploader.upload("broken.json", BROKEN, "application/json").run()
    assert_no_exception(app)
    refusals = [shown_text(box.value) for box in app.error]
    assert len(refusals) == 1 and refusals[0].startswith("broken.json was not loaded"), refusals
    source = app.session_state["ae.source"]
    assert (source.key, list(app.session_state["ae.edits"])) == (before.key, edits)
    return source.key, source.walkthrough_step


def _step_title(app: AppTest) -> str:
    return next(m.value for m in app.markdown if str(m.value).startswith("**Step "))


def test_previous_after_a_refused_file_moves_back_and_the_refusal_goes() -> None:
    """Worked example: the Classroom opens "a member leaves" at its question (step 2), a file
    is refused, *Previous* shows step 1 of the same lesson, with no error box."""
    lesson = next(x for x in LESSONS if x.info.key == "lesson-member-leaves-three-strategies")
    key = lesson.info.key
    app = open_address(pages.CLASSROOM)
    app.session_state[f"classroom.steps.{key}"] = True
    app.run()
    app.button(key=f"classroom.step.{key}.1").click().run()
    # The app moved to the Explorer (st.switch_page); AppTest's next run asks for the page it
    # was last told to, as a browser asks for the one it shows.
    app.switch_page(pages.EXPLORER.script)
    assert _step_title(app).startswith(f"**Step 2 of {len(lesson.walkthrough)}: ")
    _, step = _refuse_a_file(app)
    assert step == 1
    app.button(key="teach.back").click().run()
    assert_no_exception(app)
    assert not app.error
    assert _step_title(app).startswith(f"**Step 1 of {len(lesson.walkthrough)}: ")
    assert app.session_state["ae.source"].sample == key
    assert app.session_state["ae.source"].walkthrough_step == 0


@settings(max_examples=6, deadline=None)
@given(data=st.data())
def test_a_refused_file_leaves_the_walkthrough_where_it_was(data: st.DataObject) -> None:
    """Any lesson, any step: after a refusal *Previous* and *Next* move one step, as without
    it, and the refusal goes; a disabled one (first or last step) runs nothing."""
    lesson = data.draw(st.sampled_from(LESSONS), label="lesson")
    step = data.draw(st.integers(0, len(lesson.walkthrough) - 1), label="step")
    button = data.draw(st.sampled_from(["teach.back", "teach.next"]), label="button")
    app = open_address(pages.EXPLORER, sample=lesson.info.key, step=str(step))
    if step == 0:  # the sample as shipped: the walkthrough is offered, then started
        app.button(key="teach.start").click().run()
    source_key, shown_step = _refuse_a_file(app)
    assert shown_step == step
    pressed = app.button(key=button)
    last = len(lesson.walkthrough) - 1
    assert pressed.disabled == (step == 0 if button == "teach.back" else step == last)
    if pressed.disabled:
        return  # nothing runs: the page stays as the refusal left it
    pressed.click().run()
    assert_no_exception(app)
    assert not app.error, [box.value for box in app.error]
    moved = app.session_state["ae.source"]
    assert moved.sample == lesson.info.key
    assert moved.walkthrough_step == step + (-1 if button == "teach.back" else 1)
    assert source_key.split("@")[0] == moved.key.split("@")[0]

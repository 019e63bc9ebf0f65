"""An edit the scenario cannot take is undone, said so, and the page shows the edits left
(:func:`dashboard.panels.layout.undoing_misfits`, used by the what-if of every page and by the
big-group outline)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest


def _script(good: int, bad_at: list[int]) -> None:
    """Edits ``0..good+len(bad_at)-1``; those at ``bad_at`` make the build fail."""
    import streamlit as st

    from assignors import AssignmentExplorerError
    from dashboard.panels import layout
    from dashboard.session import state

    total = good + len(bad_at)
    if "seeded" not in st.session_state:
        st.session_state["seeded"] = True
        state.set_edits([{"op": "add_member", "member_id": f"m{i}"} for i in range(total)])

    def build() -> int:
        ids = [int(edit["member_id"][1:]) for edit in state.edits()]
        broken = [i for i in ids if i in bad_at]
        if broken:
            raise AssignmentExplorerError(f"member m{broken[-1]} cannot join")
        return len(ids)

    st.text(f"answer {layout.undoing_misfits(build)}")
    st.text(f"edits left {len(state.edits())}")


@settings(max_examples=8, deadline=None)
@given(good=st.integers(0, 4), bad=st.integers(1, 3), data=st.data())
def test_the_edits_after_the_first_misfit_are_undone_each_with_its_reason(
    good: int, bad: int, data: st.DataObject
) -> None:
    total = good + bad
    bad_at = sorted(data.draw(st.sets(st.integers(0, total - 1), min_size=bad, max_size=bad)))
    app = AppTest.from_function(_script, args=(total - bad, bad_at)).run()
    first = bad_at[0]
    assert [t.value for t in app.text] == [f"answer {first}", f"edits left {first}"]
    undone = total - first
    assert len(app.error) == undone
    assert all("was undone" in e.value for e in app.error)
    assert not app.exception


def _always_failing(edits: int) -> None:
    import streamlit as st

    from assignors import AssignmentExplorerError
    from dashboard.panels import layout
    from dashboard.session import state

    if "seeded" not in st.session_state:
        st.session_state["seeded"] = True
        state.set_edits([{"op": "add_member", "member_id": f"m{i}"} for i in range(edits)])

    def build() -> int:
        raise AssignmentExplorerError("the source itself is broken")

    st.text(f"answer {layout.undoing_misfits(build)}")
    st.text(f"edits left {len(state.edits())}")


def test_a_source_that_fails_without_edits_says_it_cannot_be_shown() -> None:
    app = AppTest.from_function(_always_failing, args=(2,)).run()
    assert [t.value for t in app.text] == ["answer None", "edits left 0"]
    assert [e.value for e in app.error] == [
        "Edit “add member m1” was undone: the source itself is broken",
        "Edit “add member m0” was undone: the source itself is broken",
        "The scenario cannot be shown: the source itself is broken",
    ]

"""Member ids and other user text reach Streamlit's Markdown as literal text (issue 36): the one
escaping helper, :func:`dashboard.model.plain.escape_markdown`, and the places that use it.

Found by the generated runs in Chromium (``tests/browser/test_generated_browser.py``): the id
``<i>y</i> $z$`` was listed as an edit with ``$z$`` drawn as LaTeX; ``**x**`` was drawn bold and
``[a](b)`` as a link, in the edits list, the headline and the lag sentences.
"""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from dashboard.model.plain import ACTIVE as ACTIVE_CHARACTERS
from dashboard.model.plain import LINK_BREAK
from dashboard.model.plain import escape_markdown as literal
from dashboard.panels import shape_panel
from tests.dashboard.app_session import add_form, start_app

ACTIVE = set(ACTIVE_CHARACTERS)


def unescaped(markdown: str) -> str:
    """What CommonMark shows of ``markdown`` made only of text and backslash escapes: each
    backslash before ASCII punctuation dropped."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown).replace(LINK_BREAK, "")


def bare_active(markdown: str) -> list[str]:
    """The Markdown-active characters of ``markdown`` that no backslash escapes."""
    bare, escaped = [], False
    for char in markdown:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char in ACTIVE:
            bare.append(char)
    return bare


def test_worked_examples() -> None:
    assert literal("**x**") == r"\*\*x\*\*"
    assert literal("<b>x</b>") == r"\<b\>x\</b\>"
    assert literal("[a](http://b)") == "\\[a\\](http" + LINK_BREAK + "\\://b)"
    assert literal("$z$ & ~~s~~") == r"\$z\$ \& \~\~s\~\~"
    assert literal("consumer-4 (rack r1)") == "consumer-4 (rack r1)"


@given(st.text())
def test_literal_text_shows_as_typed_and_leaves_no_markup(text: str) -> None:
    assert unescaped(literal(text)) == text
    assert bare_active(literal(text)) == []


def test_an_added_member_is_listed_and_named_as_literal_text() -> None:
    """The edits list and the headline write the id escaped (failed before: ``**x**`` raw)."""
    app = start_app(sample="range-vs-roundrobin")
    app.session_state[shape_panel.TABS] = "Members"
    app.run()
    add_form(app, "add_id").input("**x** <i>y</i> $z$")
    add_form(app, "add_submit").click().run()
    app.session_state[shape_panel.TABS] = "Edits"
    app.run()
    texts = [str(block.value) for block in app.markdown]
    escaped = r"\*\*x\*\* \<i\>y\</i\> \$z\$"
    assert f"1. add member {escaped}" in texts, texts
    assert any(text.startswith(f"#### Adding {escaped}:") for text in texts), texts

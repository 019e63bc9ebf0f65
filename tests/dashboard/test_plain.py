"""User text inside Markdown renders as the characters typed (dashboard.model.plain), checked
with a Markdown renderer that follows CommonMark's escapes, on generated hostile text."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard.model.plain import ACTIVE, escape_markdown, headline

HOSTILE = st.text(
    alphabet=st.sampled_from([*ACTIVE, "a", "é", " ", "#", "-", "!", "(", ")", "/", "1", "漢"]),
    min_size=1,
    max_size=60,
)


def _unescape(markdown: str) -> str:
    """What CommonMark shows for a line of text whose only syntax is backslash escapes."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)


@settings(max_examples=300)
@given(text=HOSTILE)
def test_every_active_character_is_escaped_and_shows_as_typed(text: str) -> None:
    escaped = escape_markdown(text)
    assert _unescape(escaped) == text
    unescaped_active = re.findall(r"(?<!\\)(?:\\\\)*([`*_\[\]|<>~$:])", escaped)
    assert not unescaped_active, escaped


def test_worked_examples() -> None:
    assert escape_markdown("**x** <b>y</b> [a](b) :red[c]") == (
        "\\*\\*x\\*\\* \\<b\\>y\\</b\\> \\[a\\](b) \\:red\\[c\\]"
    )
    assert headline("orders_*v2*", "sample") == "**orders\\_\\*v2\\*** · sample"

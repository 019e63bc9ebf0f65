"""User text inside Markdown renders as the characters typed (dashboard.model.plain), checked
with a Markdown renderer that follows CommonMark's escapes, on generated hostile text."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard.model.plain import ACTIVE, LINK_BREAK, escape_markdown, headline

HOSTILE = st.text(
    alphabet=st.sampled_from([*ACTIVE, "a", "é", " ", "#", "-", "!", "(", ")", "/", "1", "漢"]),
    min_size=1,
    max_size=60,
)


def _unescape(markdown: str) -> str:
    """What CommonMark shows for a line of text whose only syntax is backslash escapes (the
    invisible link breaks left out)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown).replace(LINK_BREAK, "")


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


def test_no_autolink_literal_is_left_whole() -> None:
    """GitHub's autolinks (``http://``, ``www.``, ``a@b``) match the text after escapes are
    read, so an invisible word joiner breaks each (found by test_no_markup_browser)."""
    assert escape_markdown("http://h/x") == f"http{LINK_BREAK}\\://h/x"
    assert escape_markdown("www.h.com a@b.c") == f"www{LINK_BREAK}.h.com a{LINK_BREAK}@b.c"


#: What GitHub's autolink literals look for in a text once its escapes are read
#: (mdast-util-gfm-autolink-literal's patterns, in short).
AUTOLINK_STARTS = re.compile(r"https?://|(?<![\w.])www\.|[-.\w+]@[-\w]", re.IGNORECASE)


@given(
    head=HOSTILE,
    start=st.sampled_from(["http://", "HTTPS://", "www.", "a@", "x.y+z@"]),
    tail=HOSTILE,
)
def test_no_autolink_literal_survives(head: str, start: str, tail: str) -> None:
    read = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", escape_markdown(f"{head} {start}h.example{tail}"))
    assert not AUTOLINK_STARTS.search(read), read

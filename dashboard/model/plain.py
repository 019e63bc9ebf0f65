"""User text inside Markdown: member ids, topic names and scenario names are the user's words,
and Streamlit renders the text of ``st.markdown``, ``st.info``, ``st.warning`` and ``st.error``
as Markdown (with some HTML), so such text goes through :func:`escape_markdown` first.

Invariant: the escaped text renders as exactly the characters given (no emphasis, link, code,
table, math, entity, HTML tag, icon or strike-through of its own; a URL-like text, ``http://x``,
may still be drawn as a link of its own text, which reads as typed). Only characters that act
inside a line are escaped, so a caller must not start a line with user text where a line start
has a meaning (``#``, ``-``, ``1.``, ``>``): put a word of its own first.
"""

from __future__ import annotations

#: Characters with a meaning inside a line of Streamlit's Markdown (with GitHub's extensions and
#: Streamlit's: ``$`` opens LaTeX, ``&`` an entity, ``:`` an icon, emoji or colour directive).
ACTIVE = "\\`*_[]|<>~$&:"


def escape_markdown(text: str) -> str:
    """``text`` with every character of :data:`ACTIVE` backslash-escaped (``:`` too: Streamlit
    turns ``:red[...]`` and ``:material/icon:`` into colours and icons)."""
    return "".join("\\" + char if char in ACTIVE else char for char in text)


def headline(name: str, label: str) -> str:
    """A page's first line: the scenario's ``name`` in bold, then where it came from
    (``label``), both escaped (both hold what a user typed)."""
    return f"**{escape_markdown(name)}** · {escape_markdown(label)}"

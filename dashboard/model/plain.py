"""User text inside Markdown: member ids, topic names and scenario names are the user's words,
and Streamlit renders the text of ``st.markdown``, ``st.info``, ``st.warning`` and ``st.error``
as Markdown (with some HTML), so such text goes through :func:`escape_markdown` first.

Invariant: the escaped text renders as exactly the characters given (no emphasis, link, code,
table, math, entity, HTML tag, icon or strike-through of its own), with one invisible addition:
a word joiner (:data:`LINK_BREAK`, U+2060) before ``://`` and ``@`` and after a ``www`` that a
dot follows. Streamlit's Markdown turns a bare ``http://host/x``, ``www.host`` or ``a@b.c`` into
a link *after* escapes are read (GitHub's autolink literals), so no escape stops it; the joiner
does (a link to an attacker's host made from a link's parameter, found by the browser test).
Only characters that act inside a line are escaped, so a caller must not start a line with user
text where a line start has a meaning (``#``, ``-``, ``1.``, ``>``): put a word of its own first.
"""

from __future__ import annotations

import re

#: Characters with a meaning inside a line of Streamlit's Markdown (with GitHub's extensions and
#: Streamlit's: ``$`` opens LaTeX, ``&`` an entity, ``:`` an icon, emoji or colour directive).
ACTIVE = "\\`*_[]|<>~$&:"


#: The icon of each kind of message box (``st.error`` ... ``st.success``), given on every call.
#: Without one Streamlit takes a leading emoji or ``:material/...:`` of the box's text as its
#: icon and cuts it from the text, so a box that starts with what a user typed (a file named
#: ``©.json``) would not show it as typed (found by the generated UI run).
ERROR_ICON = ":material/error:"
WARNING_ICON = ":material/warning:"
INFO_ICON = ":material/info:"
SUCCESS_ICON = ":material/check_circle:"


#: An invisible character that ends an autolink literal where it stands (WORD JOINER).
LINK_BREAK = "\u2060"
#: Where GitHub's autolink literals start: a scheme's ``://``, ``www.`` and an address's ``@``.
_AUTOLINK = re.compile(r"(?=\\://)|(?<=www)(?=\.)|(?=@)", re.IGNORECASE)


def escape_markdown(text: str) -> str:
    """``text`` with every character of :data:`ACTIVE` backslash-escaped (``:`` too: Streamlit
    turns ``:red[...]`` and ``:material/icon:`` into colours and icons), and a
    :data:`LINK_BREAK` where an autolink literal would start."""
    escaped = "".join("\\" + char if char in ACTIVE else char for char in text)
    return _AUTOLINK.sub(LINK_BREAK, escaped)


def headline(name: str, label: str) -> str:
    """A page's first line: the scenario's ``name`` in bold, then where it came from
    (``label``), both escaped (both hold what a user typed)."""
    return f"**{escape_markdown(name)}** · {escape_markdown(label)}"

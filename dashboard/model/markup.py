"""Text a user typed (a member id, a topic, a file's names), made literal for Streamlit's
Markdown: every page that writes such text with ``st.markdown`` (or an alert, which reads
Markdown too) passes it through :func:`literal` first.

Invariant: ``literal(text)`` renders as exactly ``text``: no emphasis, link, image, HTML tag,
entity, strikethrough, LaTeX, colour directive or table cell of its own. Each
character that could start one gets a backslash, which CommonMark allows before any ASCII
punctuation and drops when it renders. Colons and ``#`` stay bare (sentences and names are full
of them; user text never starts a line, where ``#`` opens a heading): a URL-like id
(``http://x``) may be drawn as a link of its own text, which still reads as typed.
"""

from __future__ import annotations

import re

#: The characters Markdown (with GitHub's extensions and Streamlit's: ``$`` opens LaTeX,
#: ``:colour[...]`` a directive, whose ``[`` is escaped) may read as markup.
MARKUP = re.compile(r"([\\`*_\[\]|<>~$&])")


def literal(text: str) -> str:
    """``text`` with every Markdown-active character escaped (see the module docstring)."""
    return MARKUP.sub(r"\\\1", text)

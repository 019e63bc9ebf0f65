"""Narration templates: a walkthrough step's text with its figures left as placeholders.

A lesson states numbers ("{moved} partitions move", "the group stops for {eager_group_stop_s}
s"), and a number typed by hand goes stale the moment a scenario or a strategy changes. So a
step's text names each figure as a placeholder and a shell fills it with the core's answer for
that step (``sample_data.narration`` computes the figures; this module only reads and fills
the templates, so it needs nothing beyond the standard library).

The form:

1. A placeholder is ``{figure}`` or ``{figure:strategy}``: a lower-case name (letters, digits
   after the first letter, ``_``) and optionally a strategy's registry name, e.g.
   ``{moved}`` (under the step's strategy) or ``{moved:roundrobin}``. Anything else in braces is
   text (``{`` alone, ``{Not A Figure}``).
2. :func:`fill` replaces every placeholder with what ``figure(name, strategy)`` answers; a name
   the caller does not know raises :class:`NarrationError` naming it.
3. :func:`stray_digits` lists the digits a template states outside its placeholders, its
   ``names`` (member ids, topics: a name may hold digits) and the proposal numbers of
   :data:`NAMED_TERMS` (``KIP-848``): a lesson whose text has any states a number by hand.

Invariants: a text without placeholders fills to itself; :func:`fill` of a template whose
figures answer without digits leaves no stray digit that the template did not have.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

from assignors.errors import AssignmentExplorerError

#: A placeholder: ``{figure}`` or ``{figure:strategy}``.
PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*)(?::([a-z][a-z0-9-]*))?\}")
#: Proper names that hold digits and state no figure: Kafka Improvement Proposals.
NAMED_TERMS = re.compile(r"\bKIP-\d+\b")
_DIGITS = re.compile(r"\d+")

#: ``figure(name, strategy)``: the text of one figure; ``strategy`` ``None`` means the step's.
Figure = Callable[[str, str | None], str]


class NarrationError(AssignmentExplorerError, ValueError):
    """A placeholder names a figure nobody computes (the message names it and the known ones)."""


def placeholders(text: str) -> tuple[tuple[str, str | None], ...]:
    """``(figure, strategy)`` of every placeholder in ``text``, in order of appearance."""
    return tuple((match[1], match[2]) for match in PLACEHOLDER.finditer(text))


def strategies_named(text: str) -> tuple[str, ...]:
    """The strategies ``text``'s placeholders name, each once, in order of appearance."""
    return tuple(dict.fromkeys(s for _, s in placeholders(text) if s is not None))


def fill(text: str, figure: Figure) -> str:
    """``text`` with each placeholder replaced by ``figure(name, strategy)`` (step 2)."""
    return PLACEHOLDER.sub(lambda match: figure(match[1], match[2]), text)


def stray_digits(text: str, names: Collection[str] = ()) -> list[str]:
    """The digit runs ``text`` states outside placeholders, ``names`` and named terms (step 3).

    Names are removed longest first, and only where they stand as a whole word (``C1`` in
    ``C12`` is not the name ``C1``).
    """
    rest = NAMED_TERMS.sub(" ", PLACEHOLDER.sub(" ", text))
    for name in sorted(names, key=len, reverse=True):
        rest = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", " ", rest)
    return _DIGITS.findall(rest)

"""Plain text for Plotly's texts: the one way a chart draws a string it did not write itself.

Plotly draws every text of a figure (tick labels, hover labels, annotations, legend entries,
titles, bar and heat-map texts, slider labels) through its own small HTML reader: it turns
``<br>`` into a line break, ``<b>``, ``<i>``, ``<em>``, ``<s>``, ``<u>``, ``<sup>``, ``<sub>`` and
``<span style>`` into styled text and ``<a href>`` into a link; it decodes the entities ``&amp;``,
``&lt;``, ``&gt;``, ``&nbsp;`` (and a few more) and every numeric one (``&#34;``); and where
MathJax is on the page it typesets a text holding two ``$``. A member id, topic, group, strategy
label or caption is typed by somebody: drawn as it is, ``<a href=x>y</a>`` would be a link and
``a&amp;b`` would read ``a&b``.

:func:`plain` writes each character the reader would act on (``& < > " ' $``) as an entity it
decodes back, so the text is drawn exactly as typed, and nothing else. Plotly has no entity for
``&quot;`` in its table (it would be drawn as typed), hence the numeric ones. The same entities
are HTML's, so the offline lesson file (:mod:`.lesson_file`) escapes its page text with it too.

Hover and text templates (``%{x}``) are a second reader: a name inside a template string would be
filled in. Chart builders keep names out of templates: a name goes into the data (``x``, ``y``,
``text``, ``customdata``, a trace's ``name``, read with ``%{fullData.name}``) and the template
only refers to it; Plotly fills a template once, never reading what it filled in as a template.
No figure sets ``meta``: on a trace it makes Plotly read the trace's name as a template, on the
layout every title, annotation and slider label.

Invariants: ``plain`` is injective (distinct names stay distinct, so escaped names work as
category values and ids); its result holds none of ``< > " ' $`` and no ``&`` that does not
start one of the entities above; Plotly's reader draws it back as the input (newlines apart,
which every Plotly text draws as a space).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

#: What Plotly's reader acts on, written as entities it decodes back.
ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;", "$": "&#36;"}
_TABLE = str.maketrans(ENTITIES)


def plain(text: str) -> str:
    """``text`` as Plotly should draw it: every character exactly as typed, no markup."""
    return text.translate(_TABLE)


def plain_all(texts: Iterable[str]) -> list[str]:
    """:func:`plain` of each of ``texts``, in order."""
    return [text.translate(_TABLE) for text in texts]


def plain_array(texts: Iterable[str]) -> np.ndarray:
    """:func:`plain` of each of ``texts`` as a NumPy array (Plotly validates and copies an
    array at once, not item by item). Of objects, not ``dtype=str``: a NumPy string drops its
    trailing NUL characters, and two names would meet as one category."""
    written = plain_all(texts)
    array = np.empty(len(written), dtype=object)
    array[:] = written
    return array

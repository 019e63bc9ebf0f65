"""The one escape for a text a chart did not write itself (:mod:`dashboard.charts.plotly_text`):
Plotly draws it back exactly as typed, with no element, and distinct names stay distinct.

Plotly's reader is modelled in :mod:`tests.dashboard.named_figures` (from plotly.js's
``convertToTspans``); the browser test ``tests/browser/test_no_markup_browser.py`` checks the
same in a real Plotly.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dashboard.charts.plotly_text import plain, plain_all, plain_array
from tests.dashboard.named_figures import plotly_shows, plotly_tags

#: Any text, weighted towards what Plotly's reader acts on.
TEXTS = st.lists(
    st.one_of(
        st.sampled_from([*"<>&\"'$%{}/;#=", "<b>", "<br>", "&amp;", "&#60;", "%{x}", "<a href=x>"]),
        st.characters(blacklist_categories=("Cs",)),
    ),
    max_size=12,
).map("".join)


@pytest.mark.parametrize(
    ("typed", "written"),
    [
        ('<a href="x">y</a>', "&lt;a href=&#34;x&#34;&gt;y&lt;/a&gt;"),
        ("<b>bold</b><br>", "&lt;b&gt;bold&lt;/b&gt;&lt;br&gt;"),
        ("a&amp;b", "a&amp;amp;b"),
        ("it's $x$", "it&#39;s &#36;x&#36;"),
        ("%{x}", "%{x}"),  # a template's business: names stay out of templates
        ("consumer-1", "consumer-1"),
    ],
)
def test_worked_examples(typed: str, written: str) -> None:
    assert plain(typed) == written
    assert plotly_shows(written) == typed
    assert plotly_tags(written) == []


def test_the_model_of_plotlys_reader_reads_markup() -> None:
    """The reader the properties below rely on does see markup (else they could not fail)."""
    assert plotly_tags('<b>x</b><br><a href="y">z</a>') == ["b", "/b", "br", "a", "/a"]
    assert plotly_shows("a&amp;b&#60;<b>c</b>&quot;") == "a&b<c&quot;"


@given(TEXTS)
def test_plotly_draws_it_as_typed(typed: str) -> None:
    """No element, and the text drawn is the text typed (a line break draws as a space, as in
    every Plotly text)."""
    written = plain(typed)
    assert plotly_tags(written) == []
    assert plotly_shows(written) == typed.replace("\r\n", " ").replace("\r", " ").replace("\n", " ")
    assert not set(written) & set("<>\"'$")


@given(st.lists(TEXTS, unique=True))
def test_distinct_names_stay_distinct(typed: list[str]) -> None:
    """Escaped names work as category values and ids: no two collide."""
    written = plain_all(typed)
    assert len(set(written)) == len(typed)
    assert plain_array(typed).tolist() == written

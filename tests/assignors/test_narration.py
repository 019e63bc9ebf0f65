"""Narration templates as a specification (:mod:`assignors.io.narration`).

* Worked examples: which braces are placeholders, how they fill, which strategies they name,
  and the digits a text states by hand (names and proposal numbers are not figures).
* Properties: a text without placeholders fills to itself; filling a template with figures
  that hold no digit leaves exactly the stray digits the template had; a digit typed into any
  word of a template is found.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assignors.io.narration import (
    NarrationError,
    fill,
    placeholders,
    strategies_named,
    stray_digits,
)


def _table(name: str, strategy: str | None) -> str:
    figures = {("moved", None): "2", ("moved", "roundrobin"): "4", ("rounds", None): "1"}
    if (name, strategy) not in figures:
        raise NarrationError(f"no figure named {name!r}")
    return figures[(name, strategy)]


def test_placeholders_are_lower_case_names_with_an_optional_strategy() -> None:
    text = "{moved} here, {moved:roundrobin} there, {rounds}; {Not A Figure}, { moved }, {"
    assert placeholders(text) == (("moved", None), ("moved", "roundrobin"), ("rounds", None))
    assert strategies_named(text + " {kept:roundrobin} {kept:cooperative-sticky}") == (
        "roundrobin",
        "cooperative-sticky",
    )


def test_fill_replaces_each_placeholder_with_its_figure() -> None:
    text = "sticky moves {moved}, roundrobin {moved:roundrobin}, in {rounds} round."
    assert fill(text, _table) == "sticky moves 2, roundrobin 4, in 1 round."


def test_an_unknown_figure_is_named() -> None:
    with pytest.raises(NarrationError, match="'lag_max'"):
        fill("{lag_max}", _table)


@pytest.mark.parametrize(
    ("text", "names", "stray"),
    [
        ("{moved} partitions move from C1 to C3", ["C1", "C3"], []),
        ("3 partitions move", [], ["3"]),
        ("KIP-848 and KIP-932 name proposals", [], []),
        ("C12 is not C1", ["C1"], ["12"]),
        ("zone eu-west-1a reads {cross_rack}", ["eu-west-1a"], []),
        ("after 45 s, {moved} move", [], ["45"]),
    ],
)
def test_stray_digits_are_those_outside_placeholders_names_and_proposals(
    text: str, names: list[str], stray: list[str]
) -> None:
    assert stray_digits(text, names) == stray


WORDS = st.text(alphabet="abcdefghij .,:;", min_size=1, max_size=12)
FIGURE_NAMES = st.sampled_from(["moved", "kept", "rounds", "eager_group_stop_s"])


@st.composite
def templates(draw: st.DrawFn) -> str:
    """Text of plain words with placeholders between them."""
    parts = draw(st.lists(st.tuples(WORDS, FIGURE_NAMES), max_size=6))
    return "".join(f"{words}{{{name}}}" for words, name in parts) + draw(WORDS)


@given(st.text(alphabet="abcdefghij .,:;0123456789"))
def test_a_text_without_placeholders_fills_to_itself(text: str) -> None:
    assert fill(text, _table) == text


@given(templates(), st.sampled_from(["many", "nobody", "C1 and C2"]))
def test_filling_with_digit_free_figures_keeps_the_stray_digits(template: str, value: str) -> None:
    filled = fill(template, lambda name, strategy: f" {value} ")  # a figure stands as words
    assert stray_digits(filled, ["C1", "C2"]) == stray_digits(template) == []


@given(templates(), st.integers(min_value=0, max_value=10_000), st.data())
def test_a_digit_typed_into_a_template_is_found(
    template: str, number: int, data: st.DataObject
) -> None:
    # Between two characters that are not inside a placeholder.
    cuts = [i for i in range(len(template) + 1) if not _inside_placeholder(template, i)]
    at = data.draw(st.sampled_from(cuts))
    typed = f"{template[:at]} {number} {template[at:]}"
    assert stray_digits(typed) == [str(number)]


def _inside_placeholder(text: str, index: int) -> bool:
    opened = text.rfind("{", 0, index)
    return opened != -1 and text.find("}", opened) >= index

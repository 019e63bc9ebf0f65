"""The one change format (:mod:`assignors.io.changes`) fed generated garbage, and random edit
sequences applied one after the other: only the project's errors, and after every edit that
applies, the group stays within the scenario format's limits.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sample_data
from assignors import (
    MAX_MEMBERS,
    MAX_PARTITIONS_PER_TOPIC,
    MAX_TOTAL_PARTITIONS,
    ChangeError,
    apply_one,
    change_from_text,
    decode_json,
    parse_change,
    parse_changes,
)
from tests.garbage import BAD_NUMBERS, JSON_TREES, Raw, is_ours, render

GARBAGE = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
OPS = [
    "add_member",
    "add_members",
    "remove_member",
    "restart_member",
    "subscribe",
    "set_partitions",
    "set_lags",
    "set_produce_rates",
    "skew_lag",
    "grow",
]
FIELD_VALUES = st.one_of(
    st.sampled_from(["C0", "C1", "t0", "t1", "new", "x" * 5_000]),
    st.integers(-3, 8),
    st.sampled_from([2_000_000, 50_000_000, 10**30, 1.5, True]),
    st.lists(st.sampled_from(["t0", "t1", "nope"]), max_size=3),
    st.dictionaries(st.sampled_from(["0", "1", "x", "-1"]), st.integers(-5, 10**6), max_size=3),
    JSON_TREES,
)
CHANGE_OBJECTS = st.builds(
    lambda op, fields: {"op": op, **fields},
    st.sampled_from(OPS),
    st.dictionaries(
        st.sampled_from(
            ["member_id", "topics", "count", "topic", "partitions", "lags", "rates", "factor"]
        ),
        FIELD_VALUES,
        max_size=4,
    ),
)
TEXT_FORMS = st.one_of(
    st.text(max_size=30),
    st.builds(
        "{}{}".format,
        st.sampled_from(
            [
                "add:",
                "add:C9:",
                "remove:",
                "restart:",
                "subscribe:C0:",
                "partitions:t0=",
                "lag:t0:0=",
                "rates:t0:1=",
            ]
        ),
        st.one_of(
            st.text(max_size=10),
            st.sampled_from(["²", "٣", "nan", "inf", "-1", "1e400", "2000000", "50000000"]),
            BAD_NUMBERS.map(lambda raw: raw.text),
        ),
    ),
)


def _decoded(tree: object) -> object:
    """A tree through the JSON gate, as a share link's or a file's edits are read."""
    return decode_json(render(tree), "edit", max_bytes=10_000_000)


def _ours(call: object) -> object:
    try:
        return call()  # type: ignore[operator]
    except Exception as error:  # the test: nothing but the project's errors escapes
        assert is_ours(error), f"{type(error).__name__}: {error}"
        return None


@pytest.mark.parametrize(
    "text", ["partitions:t0=²", "partitions:t0=" + "9" * 5_000, "add:" + "9" * 5_000]
)
def test_text_forms_with_odd_digits_are_refused_in_the_projects_words(text: str) -> None:
    """Before: ``int()`` raised ValueError (a superscript digit, or over 4,300 digits)."""
    with pytest.raises(ChangeError):
        change_from_text(text)


def test_a_superscript_digit_is_a_member_id_not_a_count() -> None:
    """Before: ``"²".isdigit()`` is true and ``int("²")`` raised ValueError."""
    assert getattr(change_from_text("add:²"), "member_id", None) == "²"


def test_a_change_with_nan_is_refused_with_its_path() -> None:
    with pytest.raises(ChangeError, match=r"change\.rates\.0: NaN"):
        parse_change({"op": "set_produce_rates", "topic": "t0", "rates": {"0": float("nan")}})


@GARBAGE
@given(st.one_of(CHANGE_OBJECTS, JSON_TREES))
def test_garbage_change_objects_give_a_change_or_our_error(raw: object) -> None:
    try:
        value = json.loads(render(raw))
    except ValueError:
        value = raw  # a built value: the format's own gate check must catch it
    _ours(lambda: parse_change(value))
    _ours(lambda: parse_changes([value, value]))
    _ours(lambda: parse_change(_decoded(raw)))


@GARBAGE
@given(TEXT_FORMS)
def test_garbage_text_forms_give_a_change_or_our_error(text: str) -> None:
    _ours(lambda: change_from_text(text))


@GARBAGE
@given(st.lists(st.one_of(CHANGE_OBJECTS, TEXT_FORMS), min_size=1, max_size=8))
def test_random_edit_sequences_apply_or_fail_with_our_error_within_the_limits(
    edits: list[object],
) -> None:
    scenario = sample_data.load_sample("range-vs-roundrobin").scenario
    assert scenario is not None
    for edit in edits:
        if isinstance(edit, str):
            change = _ours(lambda edit=edit: change_from_text(edit))
        else:
            change = _ours(lambda edit=edit: parse_change(_decoded(edit)))
        if change is None:
            continue
        after = _ours(lambda change=change, before=scenario: apply_one(before, change))
        if after is None:
            continue
        scenario = after  # type: ignore[assignment]
        counts = [topic.partitions for topic in scenario.topics]
        assert max(counts, default=0) <= MAX_PARTITIONS_PER_TOPIC
        assert sum(counts) <= MAX_TOTAL_PARTITIONS
        assert len(scenario.members) <= MAX_MEMBERS


def test_render_keeps_raw_numbers() -> None:
    assert render({"a": Raw("NaN")}) == '{"a":NaN}'

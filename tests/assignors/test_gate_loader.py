"""The JSON gate and the scenario loaders fed generated garbage: only the project's errors.

Entry points: :func:`assignors.parse_scenario_text` (text and bytes: uploads, pastes),
:func:`assignors.load_scenario_file` (files), :func:`assignors.parse_scenario` (built values),
:func:`assignors.parse_streams_scenario` (Kafka Streams documents). Each problem of issue 21 has
a case that failed before the gate.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assignors import (
    JsonInputError,
    ScenarioError,
    check_json_value,
    decode_json,
    load_scenario_file,
    parse_scenario,
    parse_scenario_text,
    parse_streams_scenario,
)
from assignors.io.json_safe import MAX_INT_DIGITS, MAX_JSON_DEPTH
from tests.garbage import JSON_TREES, KNOWN_BAD, SCENARIO_TREES, deep, is_ours, render

GARBAGE = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
GOOD = (
    '{"topics": [{"name": "t", "partitions": 2}], "members": [{"member_id": "a", "topics": ["t"]}]}'
)


def _parse_or_ours(data: str | bytes) -> None:
    try:
        parse_scenario_text(data, source="upload.json")
    except Exception as error:
        assert is_ours(error), f"{type(error).__name__}: {error}"
        assert "Traceback" not in str(error)


# --- the problems of issue 21, each failing before the gate ---------------------------------


def test_a_5000_digit_integer_is_refused_with_its_json_path() -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario_text(KNOWN_BAD["5000-digit partitions"])
    assert str(caught.value) == (
        "topics[0].partitions: an integer of 5,000 digits; numbers here have at most"
        f" {MAX_INT_DIGITS} digits"
    )


def test_a_utf8_byte_order_mark_is_accepted_in_bytes_text_and_files(tmp_path: Path) -> None:
    expected, _ = parse_scenario_text(GOOD)
    assert parse_scenario_text(b"\xef\xbb\xbf" + GOOD.encode())[0] == expected
    assert parse_scenario_text("\ufeff" + GOOD)[0] == expected
    file = tmp_path / "windows.json"
    file.write_bytes(b"\xef\xbb\xbf" + GOOD.encode())
    assert load_scenario_file(file)[0] == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (KNOWN_BAD["NaN rate"], "topics[0].produce_rates[0]: NaN is not a JSON number"),
        (KNOWN_BAD["1e400 rate"], "members[0].consume_rate: a number beyond the largest"),
        (KNOWN_BAD["64 deep"], f"nested deeper than {MAX_JSON_DEPTH} levels"),
        (KNOWN_BAD["deep"], f"upload.json: not valid JSON: nested deeper than {MAX_JSON_DEPTH}"),
        (KNOWN_BAD["lone surrogate"], "members[0].member_id: text with a lone surrogate"),
        (KNOWN_BAD["empty"], "upload.json: empty; expected a JSON object"),
        ("null", "scenario: expected a JSON object, got null"),
    ],
    ids=["nan", "1e400", "depth-64", "depth-5000", "surrogate", "empty", "null"],
)
def test_bad_numbers_nesting_and_text_are_named_in_the_projects_words(
    text: str, message: str
) -> None:
    with pytest.raises(ScenarioError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_scenario_text(text, source="upload.json")


def test_invalid_utf8_and_utf16_are_named_not_decoded_with_pythons_words() -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario_text(b'{"topics": "\xff"}', source="f.json")
    assert "not UTF-8 text (byte 0xff on line 1" in str(caught.value)
    assert "codec" not in str(caught.value)
    with pytest.raises(ScenarioError, match="UTF-16 text; save the file as UTF-8"):
        parse_scenario_text(GOOD.encode("utf-16"), source="f.json")


def test_a_file_that_is_a_directory_or_has_a_nul_in_its_name_is_one_message(
    tmp_path: Path,
) -> None:
    with pytest.raises(ScenarioError, match="cannot read the file"):
        load_scenario_file(tmp_path)
    with pytest.raises(ScenarioError, match="cannot read the file"):
        load_scenario_file(str(tmp_path / "a\0b.json"))


def test_built_values_pass_the_same_checks() -> None:
    """What a cluster or a table builds: NaN, a Python tuple, a huge int, a non-text key."""
    for value, where in (
        ({"topics": [], "members": [], "x": math.nan}, "x"),
        ({"topics": [], "members": [{"member_id": "a", "topics": ("t",)}]}, "members[0].topics"),
        ({"topics": [{"name": "t", "partitions": 10**150}], "members": []}, "topics[0].partitions"),
        ({"topics": [], "members": [], 3: 1}, "(the document)"),
    ):
        with pytest.raises(ScenarioError, match=where.replace("[", r"\[").replace("]", r"\]")):
            parse_scenario(value, path="")


def test_streams_documents_pass_the_gate_too() -> None:
    with pytest.raises(ScenarioError, match=r"scenario\.clients\[0\]\.capacity: NaN"):
        parse_streams_scenario({"tasks": [], "clients": [{"capacity": math.nan}]})
    with pytest.raises(ScenarioError, match=r"scenario\.name: longer than 4,096"):
        parse_streams_scenario({"tasks": [], "clients": [], "name": "x" * 5_000})


def test_depth_at_the_limit_is_accepted_and_one_more_level_is_not() -> None:
    assert decode_json(deep(MAX_JSON_DEPTH), "t", max_bytes=1_000) is not None
    with pytest.raises(JsonInputError, match="nested deeper"):
        decode_json(deep(MAX_JSON_DEPTH + 1), "t", max_bytes=1_000)


def test_a_gate_error_is_a_scenario_error_and_carries_the_decoded_value() -> None:
    with pytest.raises(JsonInputError) as caught:
        decode_json('{"id": 7, "x": NaN}', "line 1", max_bytes=1_000)
    assert isinstance(caught.value, ScenarioError)
    assert isinstance(caught.value.value, dict) and caught.value.value["id"] == 7


# --- generated garbage ----------------------------------------------------------------------


@GARBAGE
@given(st.binary(max_size=300))
def test_random_bytes_give_only_our_errors(data: bytes) -> None:
    _parse_or_ours(data)
    _parse_or_ours(b"\xef\xbb\xbf" + data)


@GARBAGE
@given(JSON_TREES)
def test_random_json_gives_only_our_errors(tree: object) -> None:
    text = render(tree)
    _parse_or_ours(text)
    _parse_or_ours(text.encode("utf-8", "surrogatepass"))


@GARBAGE
@given(SCENARIO_TREES, st.booleans())
def test_scenario_shaped_garbage_gives_a_scenario_or_only_our_errors(
    tree: object, bom: bool
) -> None:
    data = render(tree).encode("utf-8", "surrogatepass")
    _parse_or_ours(b"\xef\xbb\xbf" + data if bom else data)


@GARBAGE
@given(SCENARIO_TREES)
def test_streams_loader_gives_only_our_errors(tree: object) -> None:
    try:
        value = json.loads(render(tree))
    except ValueError:
        return  # not something a loader is handed: the gate refuses the text first
    try:
        check_json_value(value)
        parse_streams_scenario(value)
    except Exception as error:
        assert is_ours(error), f"{type(error).__name__}: {error}"


@GARBAGE
@given(st.lists(st.sampled_from(list(KNOWN_BAD.values())), min_size=1, max_size=3))
def test_files_of_known_garbage_give_only_our_errors(texts: list[str]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        for index, text in enumerate(texts):
            file = Path(folder) / f"{index}.json"
            file.write_text(text, encoding="utf-8", errors="surrogatepass")
            try:
                load_scenario_file(file)
            except Exception as error:
                assert is_ours(error), f"{type(error).__name__}: {error}"

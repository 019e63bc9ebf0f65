"""The pickers' filtering rules (pure parts)."""

from __future__ import annotations

from dashboard.panels import member_picker

OPTIONS = [f"consumer-{index}" for index in range(1, 13)]


def test_a_substring_matches_case_insensitively() -> None:
    assert member_picker.matching(OPTIONS, "SUMER-1") == [
        "consumer-1",
        "consumer-10",
        "consumer-11",
        "consumer-12",
    ]


def test_a_glob_matches_whole_names() -> None:
    assert member_picker.matching(OPTIONS, "consumer-1?") == [
        "consumer-10",
        "consumer-11",
        "consumer-12",
    ]


def test_an_empty_filter_matches_nothing() -> None:
    assert member_picker.matching(OPTIONS, "  ") == []


def test_modes() -> None:
    matches = ["consumer-2", "consumer-3"]
    current = OPTIONS[:5]
    assert member_picker.choose(OPTIONS, current, matches, member_picker.MODES[0]) == current
    assert member_picker.choose(OPTIONS, current, matches, member_picker.MODES[1]) == matches
    kept = member_picker.choose(OPTIONS, current, matches, member_picker.MODES[2])
    assert kept == [option for option in OPTIONS if option not in matches]

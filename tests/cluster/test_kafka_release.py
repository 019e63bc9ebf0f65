"""What the brokers report -> the release line they run, and the line a scenario answers as.

Specification (:mod:`cluster.kafka_release`):

1. ``metadata.version``: the newest level the answering broker supports names its release
   (Kafka 4.4.0 supports up to 4.4-IV2, level 33); the finalized level, and the finalized levels
   of ``group.version``, ``share.version``, ``streams.version``, ... bound it from below. The
   newest reading wins: a higher level never gives an older line.
2. Without ``metadata.version``, the API version ranges. Checked here against kafka-python's own
   table of what brokers 3.0-4.3 answer (data this project did not write), and in
   ``test_cluster_kafka_version.py`` against real 3.9 and 4.4 brokers.
3. The scenario gets the newest reproduced line (:data:`assignors.KAFKA_VERSIONS`, whatever it
   holds) not newer than the line read; a cluster newer than every known line, or older than
   every reproduced one, is said to be.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assignors import KAFKA_VERSIONS
from cluster.kafka_release import (
    API_MARKERS,
    FEATURE_FIRST_LINES,
    METADATA_VERSIONS,
    FeatureLevels,
    KafkaRelease,
    Reading,
    api_version_reading,
    detect_release,
    metadata_version_reading,
    reproduced_line,
)
from cluster.reader import feature_levels

NEWEST_LEVEL = METADATA_VERSIONS[-1][0]
#: Every release line from 3.0 to 4.4, oldest first.
ALL_LINES = tuple(f"3.{minor}" for minor in range(10)) + tuple(f"4.{minor}" for minor in range(5))


def _key(line: str) -> tuple[int, int]:
    major, minor = line.split(".")[:2]
    return int(major), int(minor)


def _features(supported: int | None = None, **finalized: int) -> FeatureLevels:
    names = {name.replace("_", "."): level for name, level in finalized.items()}
    return FeatureLevels(
        finalized=names,
        supported={} if supported is None else {"metadata.version": (7, supported)},
    )


# 1. metadata.version and the other features -------------------------------------------------


@pytest.mark.parametrize(
    ("supported", "finalized", "line"),
    [
        (33, 33, "4.4"),  # Kafka 4.4.0 as formatted by default
        (33, 21, "4.4"),  # upgraded to 4.4, metadata.version left at 3.9-IV0: the software rules
        (21, 21, "3.9"),  # Kafka 3.9.x
        (25, 22, "4.0"),
        (29, 29, "4.2"),
        (None, 21, "3.9"),  # only the finalized level: a lower bound, all there is
        (None, 1, "3.0"),
        (None, 7, "3.3"),
        (None, 20, "3.8"),
    ],
)
def test_metadata_version_examples(supported: int | None, finalized: int, line: str) -> None:
    release = detect_release(_features(supported, metadata_version=finalized), None)
    assert (release.line, release.beyond) == (line, False)
    assert "metadata.version" in release.evidence


def test_a_level_newer_than_every_known_one_is_a_newer_release_and_says_so() -> None:
    release = detect_release(_features(NEWEST_LEVEL + 1, metadata_version=NEWEST_LEVEL), None)
    assert (release.line, release.beyond, release.kafka_version) == (
        "4.4",
        True,
        KAFKA_VERSIONS[-1],
    )
    assert release.sentence().startswith("Cluster runs a Kafka release newer than 4.4")
    assert "newest line this project reproduces" in release.sentence()


@pytest.mark.parametrize(
    ("feature", "level", "line"),
    [("group.version", 1, "4.0"), ("share.version", 1, "4.1"), ("streams.version", 1, "4.1"),
     ("share.version", 2, "4.4"), ("kraft.version", 1, "3.9")],
)  # fmt: skip
def test_other_features_bound_the_line_from_below(feature: str, level: int, line: str) -> None:
    finalized = FeatureLevels(finalized={"metadata.version": 21, feature: level})
    assert detect_release(finalized, None).line == max("3.9", line, key=_key)


def test_the_answer_of_kafka_python_describe_features_is_read() -> None:
    described = {
        "metadata.version": {"supported": (7, 33), "finalized": (1, 33), "finalized_epoch": 4},
        "group.version": {"supported": (0, 1), "finalized": (0, 1), "finalized_epoch": 4},
        "kraft.version": {"supported": (0, 1), "finalized": (0, 0), "finalized_epoch": 4},
        "share.version": {"supported": (0, 2)},
    }
    levels = feature_levels(described)
    assert dict(levels.finalized) == {"metadata.version": 33, "group.version": 1}
    assert levels.supported["share.version"] == (0, 2)


@given(st.integers(-5, NEWEST_LEVEL + 20), st.integers(-5, NEWEST_LEVEL + 20))
def test_a_higher_metadata_version_never_maps_to_an_older_line(low: int, high: int) -> None:
    low, high = sorted((low, high))
    lower = metadata_version_reading(low, "")
    higher = metadata_version_reading(high, "")
    if lower is not None:
        assert higher is not None and lower.order <= higher.order


@given(
    st.integers(1, NEWEST_LEVEL + 5),
    st.dictionaries(st.sampled_from([f for f, _ in FEATURE_FIRST_LINES]), st.integers(0, 3)),
    st.integers(1, NEWEST_LEVEL + 5),
)
def test_more_or_higher_readings_never_give_an_older_line(
    finalized: int, others: dict[str, int], raised: int
) -> None:
    base = detect_release(FeatureLevels(finalized={"metadata.version": finalized}), None)
    more = detect_release(
        FeatureLevels(finalized={"metadata.version": max(finalized, raised), **others}), None
    )
    assert base.line is not None and more.line is not None
    assert (_key(base.line), base.beyond) <= (_key(more.line), more.beyond)


def test_the_metadata_version_table_is_kafkas_numbering() -> None:
    levels = [level for level, _ in METADATA_VERSIONS]
    assert levels == list(range(1, NEWEST_LEVEL + 1))
    lines = [_key(name.split("-")[0]) for _, name in METADATA_VERSIONS]
    assert lines == sorted(lines)
    assert {name.split("-")[0] for _, name in METADATA_VERSIONS} == set(ALL_LINES)


# 2. the API version ranges ---------------------------------------------------------------------


def _kafka_python_table() -> dict[str, dict[int, tuple[int, int]]]:
    from kafka.protocol.broker_version_data import BROKER_API_VERSIONS

    return {
        ".".join(map(str, version)): ranges
        for version, ranges in BROKER_API_VERSIONS.items()
        if len(version) == 2
    }


@pytest.mark.parametrize("line", [line for line in ALL_LINES if line in _kafka_python_table()])
def test_api_ranges_of_each_line_as_kafka_python_records_them(line: str) -> None:
    reading = api_version_reading(_kafka_python_table()[line])
    assert reading is not None and reading.line == line


def test_api_ranges_older_than_3_0_are_said_to_be() -> None:
    release = detect_release(None, _kafka_python_table()["2.8"])
    assert release.line is None and release.kafka_version is None
    assert "older than Kafka 3.0" in release.sentence()


def test_metadata_version_is_preferred_to_the_api_ranges() -> None:
    release = detect_release(_features(None, metadata_version=21), _kafka_python_table()["3.0"])
    assert release.line == "3.9" and "metadata.version" in release.evidence
    fallback = detect_release(FeatureLevels(), _kafka_python_table()["3.6"])
    assert fallback.line == "3.6" and "API version ranges" in fallback.evidence


@given(
    st.sampled_from(sorted(_kafka_python_table())),
    st.dictionaries(st.sampled_from([key for _, key, _, _ in API_MARKERS]), st.integers(0, 30)),
)
def test_newer_api_versions_never_give_an_older_line(line: str, raise_by: dict[int, int]) -> None:
    ranges = _kafka_python_table()[line]
    raised = {key: (low, high + raise_by.get(key, 0)) for key, (low, high) in ranges.items()}
    before, after = api_version_reading(ranges), api_version_reading(raised)
    if before is not None:
        assert after is not None and _key(before.line) <= _key(after.line)


# 3. the line the scenario answers as -----------------------------------------------------------


@given(
    st.lists(st.sampled_from(ALL_LINES), min_size=1, unique=True).map(
        lambda lines: tuple(sorted(lines, key=_key))
    ),
    st.sampled_from(ALL_LINES),
    st.integers(0, 3),
)
def test_the_newest_known_line_not_newer_than_the_cluster(
    known: tuple[str, ...], line: str, patch: int
) -> None:
    answered = reproduced_line(f"{line}.{patch}", known)
    assert answered in known
    not_newer = [k for k in known if _key(k) <= _key(line)]
    if not_newer:
        assert answered == not_newer[-1]
    else:
        assert answered == known[0]  # older than every reproduced line: the oldest


@pytest.mark.parametrize(
    ("known", "line", "answered", "words"),
    [
        (("3.9", "4.4"), "4.2", "3.9", "the newest reproduced line not newer than 4.2"),
        (("3.9", "4.4"), "3.5", "3.9", "the oldest line this project reproduces"),
        (ALL_LINES, "4.2", "4.2", None),
        (ALL_LINES, "3.5", "3.5", None),
    ],
)
def test_sentences_say_which_line_strategies_answer_as(
    known: tuple[str, ...], line: str, answered: str, words: str | None
) -> None:
    release = detect_release(
        FeatureLevels(finalized={"metadata.version": _first_level(line)}), None, known
    )
    assert (release.line, release.kafka_version) == (line, answered)
    sentence = release.sentence()
    assert sentence.startswith(f"Cluster runs Kafka {line}, read from metadata.version")
    if words is None:
        assert "answer as" not in sentence
    else:
        assert words in sentence


def _first_level(line: str) -> int:
    return next(level for level, name in METADATA_VERSIONS if name.startswith(f"{line}-"))


def test_nothing_read_asks_for_the_version() -> None:
    release = detect_release(None, None, why="ApiVersions failed: timed out")
    assert release == KafkaRelease(None, None, why="ApiVersions failed: timed out")
    assert "could not be read (ApiVersions failed: timed out)" in release.sentence()


def test_readings_order_a_beyond_reading_after_its_line() -> None:
    assert Reading("4.4", "", beyond=True).order > Reading("4.4", "").order
    assert Reading("4.4", "", beyond=True).order < Reading("4.5", "").order

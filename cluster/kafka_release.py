"""Which Kafka release line a cluster runs, from what its brokers report (pure: no I/O).

The reader (:meth:`cluster.reader.ClusterReader.kafka_release`) asks one broker ApiVersions (v3+,
the request behind Kafka's ``Admin.describeFeatures``) and hands this module two plain things:
the feature levels (:class:`FeatureLevels`) and the API version ranges. The answer, a
:class:`KafkaRelease`, is read in this order:

1. ``metadata.version`` (KRaft clusters, Kafka 3.3 on): the newest level the answering broker
   *supports* is the newest its software knows, so it names the release the broker runs (Kafka
   4.4.0 supports up to 4.4-IV2, level 33). The *finalized* level is what the cluster has switched
   on; it lags the software after an upgrade until an operator raises it, while the group
   coordinator's assignors are already the new software's. Finalized levels of the other
   features (``group.version``, ``share.version``, ``streams.version``, ...) are lower bounds:
   a broker can finalize only a level its software has.
2. Failing that (a ZooKeeper-mode cluster reports no ``metadata.version``), the API version
   ranges: each line raised some request's newest version (:data:`API_MARKERS`).
3. Every reading is a lower bound on the line; the newest one wins, so a higher level or a newer
   API version never gives an older line (the property tests hold that).

Then :func:`reproduced_line` maps the line read to the newest line of
:data:`assignors.KAFKA_VERSIONS` that is not newer (whatever that list holds): the line the
scenario's ``kafka_version`` gets. A cluster newer than every line known here is read as the
newest known line and says so; one older than every reproduced line gets the oldest, and says so.

The tables hold what Kafka's own classes say (``MetadataVersion`` and ``Feature`` of
kafka-server-common 3.9.2 to 4.4.0; the requests' newest versions as brokers 3.0-4.4 answer).
A broker started with unstable feature versions enabled (a test setting) also supports the next
line's first levels and is read as that line.

Invariant: every text here is built from this module's own words and numbers; nothing a broker
sent is copied into a sentence except as a number.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from assignors import KAFKA_VERSIONS, release_line

#: ``metadata.version`` feature levels, lowest first: (level, Kafka's name for it). Levels are
#: the same in every release that knows them; a release line starts at its first ``-IV``.
METADATA_VERSIONS: tuple[tuple[int, str], ...] = (
    (1, "3.0-IV1"), (2, "3.1-IV0"), (3, "3.2-IV0"), (4, "3.3-IV0"), (5, "3.3-IV1"),
    (6, "3.3-IV2"), (7, "3.3-IV3"), (8, "3.4-IV0"), (9, "3.5-IV0"), (10, "3.5-IV1"),
    (11, "3.5-IV2"), (12, "3.6-IV0"), (13, "3.6-IV1"), (14, "3.6-IV2"), (15, "3.7-IV0"),
    (16, "3.7-IV1"), (17, "3.7-IV2"), (18, "3.7-IV3"), (19, "3.7-IV4"), (20, "3.8-IV0"),
    (21, "3.9-IV0"), (22, "4.0-IV0"), (23, "4.0-IV1"), (24, "4.0-IV2"), (25, "4.0-IV3"),
    (26, "4.1-IV0"), (27, "4.1-IV1"), (28, "4.2-IV0"), (29, "4.2-IV1"), (30, "4.3-IV0"),
    (31, "4.4-IV0"), (32, "4.4-IV1"), (33, "4.4-IV2"),
)  # fmt: skip
METADATA_VERSION = "metadata.version"
#: Other features whose finalized level bounds the line from below: (feature, level) -> the
#: first line whose software has that level (as a production or a testing level).
FEATURE_FIRST_LINES: Mapping[tuple[str, int], str] = {
    ("kraft.version", 1): "3.9",
    ("transaction.version", 1): "3.9",
    ("transaction.version", 2): "3.9",
    ("group.version", 1): "4.0",
    ("eligible.leader.replicas.version", 1): "4.0",
    ("share.version", 1): "4.1",
    ("streams.version", 1): "4.1",
    ("share.version", 2): "4.4",
}
#: The API version ranges' markers, newest line first: (line, API key, API name, version) -
#: brokers of that line and later answer the request up to at least that version. Kafka 3.4
#: raised only requests between ZooKeeper brokers; a 3.4 KRaft broker reads as 3.3 here (it
#: reports ``metadata.version`` anyway).
API_MARKERS: tuple[tuple[str, int, str, int], ...] = (
    ("4.4", 18, "ApiVersions", 5),
    ("4.3", 35, "DescribeLogDirs", 5),
    ("4.2", 2, "ListOffsets", 11),
    ("4.1", 0, "Produce", 13),
    ("4.0", 2, "ListOffsets", 10),
    ("3.9", 1, "Fetch", 17),
    ("3.8", 0, "Produce", 11),
    ("3.7", 1, "Fetch", 16),
    ("3.6", 24, "AddPartitionsToTxn", 4),
    ("3.5", 1, "Fetch", 15),
    ("3.4", 4, "LeaderAndIsr", 7),
    ("3.3", 29, "DescribeAcls", 3),
    ("3.2", 11, "JoinGroup", 9),
    ("3.1", 1, "Fetch", 13),
    ("3.0", 2, "ListOffsets", 7),
)


@dataclass(frozen=True, slots=True)
class FeatureLevels:
    """What one ApiVersions answer says of the features: the finalized (highest) level per
    feature, cluster-wide, and the (lowest, highest) level the answering broker supports."""

    finalized: Mapping[str, int] = field(default_factory=dict)
    supported: Mapping[str, tuple[int, int]] = field(default_factory=dict)


def _key(line: str) -> tuple[int, int]:
    major, minor = line.split(".")[:2]
    return int(major), int(minor)


@dataclass(frozen=True, slots=True)
class Reading:
    """One lower bound on the release line: ``line`` (``beyond``: a level newer than every one
    :data:`METADATA_VERSIONS` knows, so some line after ``line``) and where it came from."""

    line: str
    evidence: str
    beyond: bool = False

    @property
    def order(self) -> tuple[tuple[int, int], bool]:
        """Sorts readings oldest first; a reading ``beyond`` a line sorts after it."""
        return _key(self.line), self.beyond


def metadata_version_name(level: int) -> str | None:
    """Kafka's name of a ``metadata.version`` level (``33`` -> ``"4.4-IV2"``); None if unknown."""
    return dict(METADATA_VERSIONS).get(level)


def metadata_version_reading(level: int, evidence: str) -> Reading | None:
    """The line a ``metadata.version`` level belongs to; None for a level below 1 (none)."""
    if level < METADATA_VERSIONS[0][0]:
        return None
    name = metadata_version_name(level)
    if name is None:  # above every known level: a release after the newest known one
        return Reading(METADATA_VERSIONS[-1][1].split("-")[0], evidence, beyond=True)
    return Reading(name.split("-")[0], evidence)


def _level_text(level: int) -> str:
    name = metadata_version_name(level)
    if name is None:
        return f"level {level} (newer than any this project knows)"
    return f"{name} (level {level})"


def feature_readings(levels: FeatureLevels) -> list[Reading]:
    """Every lower bound the feature levels give (step 1 of the module docstring)."""
    readings: list[Reading] = []
    supported = levels.supported.get(METADATA_VERSION)
    finalized = levels.finalized.get(METADATA_VERSION)
    if supported is not None:
        text = f"{METADATA_VERSION}: the broker supports up to {_level_text(supported[1])}"
        if finalized is not None:
            text += f", finalized at {_level_text(finalized)}"
        reading = metadata_version_reading(supported[1], text)
        readings += [reading] if reading else []
    if finalized is not None:
        text = f"{METADATA_VERSION} finalized at {_level_text(finalized)}"
        reading = metadata_version_reading(finalized, text)
        readings += [reading] if reading else []
    for (feature, level), line in FEATURE_FIRST_LINES.items():
        if levels.finalized.get(feature, 0) >= level:
            readings.append(Reading(line, f"{feature} finalized at level {level} or more"))
    return readings


def api_version_reading(ranges: Mapping[int, tuple[int, int]]) -> Reading | None:
    """The newest line whose marker request the ranges (API key -> (min, max)) reach."""
    for line, api_key, name, version in API_MARKERS:
        if api_key in ranges and ranges[api_key][1] >= version:
            return Reading(line, f"the API version ranges ({name} up to v{ranges[api_key][1]})")
    return None


def newest_reading(readings: list[Reading]) -> Reading | None:
    """The newest line among ``readings`` (the first of equals: the list is in order of trust)."""
    best: Reading | None = None
    for reading in readings:
        if best is None or reading.order > best.order:
            best = reading
    return best


@dataclass(frozen=True, slots=True)
class KafkaRelease:
    """The release line read from a cluster and the reproduced line a scenario gets.

    ``line``: the line the brokers run (``None``: it could not be read; ``why`` says why);
    ``beyond``: a line newer than ``line`` (a level this project does not know);
    ``kafka_version``: the line of :data:`assignors.KAFKA_VERSIONS` the strategies answer as
    (``None`` with ``line``); ``evidence``: where it was read, in plain words.
    """

    line: str | None
    kafka_version: str | None
    evidence: str = ""
    beyond: bool = False
    why: str = ""

    def sentence(self) -> str:
        """One plain sentence: what the cluster runs, read from where, answered as which line."""
        if self.line is None or self.kafka_version is None:
            return (
                f"The cluster's Kafka version could not be read ({self.why or 'no answer'});"
                " pick the version its brokers run."
            )
        runs = f"a Kafka release newer than {self.line}" if self.beyond else f"Kafka {self.line}"
        text = f"Cluster runs {runs}, read from {self.evidence}."
        answered = f" Strategies answer as Kafka {self.kafka_version},"
        if self.beyond:
            return text + answered + " the newest line this project reproduces."
        if _key(self.kafka_version) > _key(self.line):
            return text + answered + " the oldest line this project reproduces."
        if self.kafka_version != self.line:
            return text + answered + f" the newest reproduced line not newer than {self.line}."
        return text


def reproduced_line(line: str, known: tuple[str, ...] = KAFKA_VERSIONS) -> str:
    """The newest line of ``known`` (oldest first) not newer than ``line``; the oldest of
    ``known`` when every one is newer."""
    wanted = _key(release_line(line))
    older = [version for version in known if _key(version) <= wanted]
    return older[-1] if older else known[0]


def detect_release(
    levels: FeatureLevels | None,
    api_ranges: Mapping[int, tuple[int, int]] | None,
    known: tuple[str, ...] = KAFKA_VERSIONS,
    why: str = "",
) -> KafkaRelease:
    """Steps 1-3 of the module docstring. ``levels`` or ``api_ranges`` ``None``: not read
    (``why`` says why, for the sentence when nothing was)."""
    readings = feature_readings(levels) if levels is not None else []
    if not any(r.evidence.startswith(METADATA_VERSION) for r in readings) and api_ranges:
        api_reading = api_version_reading(api_ranges)
        readings += [api_reading] if api_reading else []
    best = newest_reading(readings)
    if best is None:
        reason = why or "the brokers reported neither metadata.version nor a known API version"
        if api_ranges:
            reason = "the brokers' API version ranges are older than Kafka 3.0's"
        return KafkaRelease(None, None, why=reason)
    return KafkaRelease(
        line=best.line,
        kafka_version=reproduced_line(best.line, known),
        evidence=best.evidence,
        beyond=best.beyond,
    )

"""Which Kafka release a strategy reproduces: the one option name, its values, its checks.

A few of Kafka's assignors changed between releases (docs/kafka-versions.md). A strategy whose
answers differ between the releases listed here takes the release as an option: the scenario's
``kafka_version`` field, the CLI's ``--kafka-version``, the dashboard's Kafka version selector.
Every other strategy ignores it. ``None`` means the newest.

Values: :data:`KAFKA_VERSIONS`, oldest first, each a release line (``major.minor``) that the
differential tests compare with Kafka's own classes (the oracle builds 3.9.2 and 4.4.0). A patch
release (``"3.9.2"``) is read as its line (``"3.9"``).
"""

from __future__ import annotations

import re

from assignors.errors import ScenarioError

#: The release lines a strategy can be asked to reproduce, oldest first.
KAFKA_VERSIONS: tuple[str, ...] = ("3.9", "4.4")
#: The default: the newest release line.
NEWEST_KAFKA_VERSION = KAFKA_VERSIONS[-1]
#: ``major.minor`` or ``major.minor.patch``.
_VERSION = re.compile(r"[0-9]+\.[0-9]+(\.[0-9]+)?")


def kafka_version_problem(value: object) -> str | None:
    """Why ``value`` is not a Kafka version this project reproduces, else ``None``."""
    if not isinstance(value, str):
        return f"expected a Kafka version as text ({', '.join(KAFKA_VERSIONS)}), got {value!r:.40}"
    if _VERSION.fullmatch(value) is None or release_line(value) not in KAFKA_VERSIONS:
        return (
            f"Kafka version {value!r:.40} is not one of {', '.join(KAFKA_VERSIONS)} "
            "(the releases whose assignors are reproduced and checked)"
        )
    return None


def release_line(version: str) -> str:
    """``"3.9.2"`` -> ``"3.9"``; a ``major.minor`` text is returned as it is."""
    return ".".join(version.strip().split(".")[:2])


def parse_kafka_version(value: object, path: str = "kafka_version") -> str:
    """The release line ``value`` names; :class:`ScenarioError` (at ``path``) when unknown."""
    problem = kafka_version_problem(value)
    if problem is not None:
        raise ScenarioError([f"{path}: {problem}"])
    assert isinstance(value, str)
    return release_line(value)


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def at_least(version: str | None, release: str) -> bool:
    """Whether ``version`` (``None``: the newest) is ``release`` or later."""
    return _key(version or NEWEST_KAFKA_VERSION) >= _key(release)

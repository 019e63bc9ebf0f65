"""Which Kafka release a strategy reproduces: the one option name, its values, its checks.

A few of Kafka's assignors changed between releases (docs/kafka-versions.md). A strategy whose
answers differ between the releases listed here takes the release as an option: the scenario's
``kafka_version`` field, the CLI's ``--kafka-version``, the dashboard's Kafka version selector.
Every other strategy ignores it. ``None`` means the newest.

Values: :data:`KAFKA_VERSIONS`, oldest first, each a release line (``major.minor``) from 3.0 to
the newest; a patch release (``"3.4.1"``) is read as its line (``"3.4"``). The differential tests
compare every line a strategy accepts with that line's own Kafka classes (the oracle builds the
newest patch of each line, ``tests/oracle.RELEASES``).

Which lines a strategy answers for is its :class:`KafkaLines`: the first line that has its
assignor (client-side assignors 3.0, the KIP-848 broker-side ones 3.7 (early access), share
groups 4.0, Streams groups 4.1), and the lines after it that are refused because their answers
differ from every implemented line and are not reproduced yet. Invariants: a line is accepted
only if it is at or after ``first`` and not refused; a refusal names the first line that has the
assignor, or the lines that are accepted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from assignors.errors import ScenarioError

#: The release lines a strategy can be asked to reproduce, oldest first.
KAFKA_VERSIONS: tuple[str, ...] = (
    "3.0", "3.1", "3.2", "3.3", "3.4", "3.5", "3.6", "3.7", "3.8", "3.9",
    "4.0", "4.1", "4.2", "4.3", "4.4",
)  # fmt: skip
#: The default: the newest release line.
NEWEST_KAFKA_VERSION = KAFKA_VERSIONS[-1]
#: ``major.minor`` or ``major.minor.patch``.
_VERSION = re.compile(r"[0-9]+\.[0-9]+(\.[0-9]+)?")


def kafka_version_problem(value: object) -> str | None:
    """Why ``value`` is not a Kafka version this project reproduces, else ``None``."""
    if not isinstance(value, str):
        return (
            f"expected a Kafka version as text ({KAFKA_VERSIONS[0]} to {NEWEST_KAFKA_VERSION}), "
            f"got {value!r:.40}"
        )
    if _VERSION.fullmatch(value) is None or release_line(value) not in KAFKA_VERSIONS:
        return (
            f"Kafka version {value!r:.40} is not a release line from {KAFKA_VERSIONS[0]} to "
            f"{NEWEST_KAFKA_VERSION} (major.minor, or a patch release such as 3.4.1)"
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


@dataclass(frozen=True, slots=True)
class KafkaLines:
    """The release lines a strategy answers for (see the module docstring's invariants).

    ``first``: the first line that has the assignor; ``arrived``: what came with it (for the
    message, e.g. "share groups (KIP-932)"); ``refused``: lines from ``first`` on that are not
    reproduced, each with why."""

    first: str = KAFKA_VERSIONS[0]
    arrived: str = ""
    refused: tuple[tuple[str, str], ...] = ()

    @property
    def accepted(self) -> tuple[str, ...]:
        """The release lines answered, oldest first."""
        skipped = {line for line, _ in self.refused}
        return tuple(v for v in KAFKA_VERSIONS if at_least(v, self.first) and v not in skipped)

    def problem(self, strategy: str, version: str | None) -> str | None:
        """Why ``strategy`` does not answer as Kafka ``version`` (a release line), else ``None``."""
        if version is None or version in self.accepted:
            return None
        if not at_least(version, self.first):
            came = f": {self.arrived} came with Kafka {self.first}" if self.arrived else ""
            return (
                f"{strategy} does not exist in Kafka {version}{came}; the first release line "
                f"that has it is {self.first} (ask for {self.first} or later)"
            )
        why = dict(self.refused)[version]
        return (
            f"{strategy} as Kafka {version} is not reproduced: {why}; the lines it answers for "
            f"are {', '.join(self.accepted)}"
        )

    def check(self, strategy: str, version: str | None, path: str = "kafka_version") -> None:
        """:class:`ScenarioError` at ``path`` when ``strategy`` does not answer as ``version``."""
        problem = self.problem(strategy, version)
        if problem is not None:
            raise ScenarioError([f"{path}: {problem}"])


#: Every line from 3.0: the client-side assignors (and the project's own strategies).
EVERY_LINE = KafkaLines()


def _lines(first: str, last: str) -> tuple[str, ...]:
    """The release lines from ``first`` to ``last``, both included."""
    return tuple(v for v in KAFKA_VERSIONS if at_least(v, first) and at_least(last, v))


#: The client-side sticky assignors: every line from 3.0 (3.0-3.3, 3.4 and 3.5-3.6 each answer
#: differently from the newest, ``assignors/client/sticky.py``).
CLIENT_STICKY_LINES = KafkaLines()
#: The broker-side consumer-group assignors (KIP-848): early access from 3.7, reproduced from 3.8.
BROKER_LINES = KafkaLines(
    first="3.7",
    arrived="the consumer rebalance protocol's broker-side assignors (KIP-848, early access)",
    refused=(
        (
            "3.7",
            "KIP-848 ran early access there behind an earlier assignor interface, which the "
            "oracle does not drive, so no answer of that line is checked",
        ),
    ),
)

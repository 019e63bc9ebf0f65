"""Command-line options shared by several commands (``assign``, ``compare``, ``deploy``)."""

from __future__ import annotations

import argparse

from assignors import KAFKA_VERSIONS, NEWEST_KAFKA_VERSION
from assignors.io.compact import COMPACT_FROM_PARTITIONS, FORMS
from assignors.kafka_versions import kafka_version_problem, release_line


def kafka_version_option(value: str) -> str:
    """``--kafka-version``'s value as a release line (``"3.4.1"`` -> ``"3.4"``)."""
    problem = kafka_version_problem(value)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return release_line(value)


def add_kafka_version_argument(parser: argparse.ArgumentParser) -> None:
    """``--kafka-version``: the Kafka release line the strategies reproduce."""
    parser.add_argument(
        "--kafka-version",
        type=kafka_version_option,
        default=None,
        metavar="LINE",
        help=(
            f"the Kafka release line to reproduce, {KAFKA_VERSIONS[0]} to {NEWEST_KAFKA_VERSION} "
            "(a patch release such as 3.4.1 reads as its line); a strategy asked for a line it "
            "did not exist in, or does not reproduce, says so (`list` says which lines each "
            f"answers and what changed); default: the scenario's kafka_version, else "
            f"{NEWEST_KAFKA_VERSION}"
        ),
    )


def add_form_argument(parser: argparse.ArgumentParser) -> None:
    """``--form``: partitions one by one or as runs (the compact form of the scenario format)."""
    parser.add_argument(
        "--form",
        choices=FORMS,
        default="auto",
        help=(
            "how answers list partitions: `verbose` one [topic, partition] pair at a time (the "
            'table: topic[0-2,5]), `compact` as runs such as [topic, "0-499"] and '
            '{"topics": "*", ...} (docs/scenario-format.md); default `auto`: compact for '
            f"groups of {COMPACT_FROM_PARTITIONS:,} partitions or more"
        ),
    )

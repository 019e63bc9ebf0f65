"""Command-line options shared by several commands (``assign``, ``compare``, ``deploy``)."""

from __future__ import annotations

import argparse

from assignors import KAFKA_VERSIONS, NEWEST_KAFKA_VERSION
from assignors.io.compact import COMPACT_FROM_PARTITIONS, FORMS


def add_kafka_version_argument(parser: argparse.ArgumentParser) -> None:
    """``--kafka-version``: the Kafka release the version-dependent strategies reproduce."""
    parser.add_argument(
        "--kafka-version",
        choices=KAFKA_VERSIONS,
        default=None,
        help=(
            "the Kafka release to reproduce where an assignor changed between releases "
            f"(uniform, streams-sticky; `list` says what changed); default: the scenario's "
            f"kafka_version, else {NEWEST_KAFKA_VERSION}"
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

"""Command-line options shared by several commands (``assign``, ``compare``, ``deploy``)."""

from __future__ import annotations

import argparse

from assignors import KAFKA_VERSIONS, NEWEST_KAFKA_VERSION


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

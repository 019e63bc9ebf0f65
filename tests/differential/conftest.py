"""One oracle JVM per Kafka version (4.4.0, and 3.9.2 on first use) per test session, shared
by every differential test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.oracle import PREVIOUS, Oracle


@pytest.fixture(scope="session")
def kafka_oracle() -> Iterator[Oracle]:
    with Oracle() as oracle:
        yield oracle


@pytest.fixture(scope="session")
def previous_kafka_oracle() -> Iterator[Oracle]:
    """The oracle of the newest Kafka 3.9.x (``tests/oracle.RELEASES``)."""
    with Oracle(PREVIOUS) as oracle:
        yield oracle

"""One oracle JVM (Kafka 4.4.0) per test session, shared by every differential test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.oracle import Oracle


@pytest.fixture(scope="session")
def kafka_oracle() -> Iterator[Oracle]:
    with Oracle() as oracle:
        yield oracle

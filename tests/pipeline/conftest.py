"""One local Spark session for every pipeline test (local[2], few shuffle partitions)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("pyspark", reason="the pipeline tests need the spark extra")


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    from tests.pipeline.sample_outputs import spark_for_tests

    session = spark_for_tests("assignment-explorer-tests")
    yield session
    session.stop()

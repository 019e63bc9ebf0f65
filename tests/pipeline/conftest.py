"""One local Spark session for every pipeline test (local[2], few shuffle partitions)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("pyspark", reason="the pipeline tests need the spark extra")


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    from pipeline.session import get_session

    session = get_session(
        "local[2]",
        app_name="assignment-explorer-tests",
        conf={
            "spark.sql.shuffle.partitions": "2",
            "spark.default.parallelism": "2",
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
        },
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()

"""Fixtures shared by the dashboard's tests."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def pipeline_tables(tmp_path_factory: pytest.TempPathFactory) -> Path | None:
    """``lag/`` and ``whatif/whatif`` of the sample history, as ``python -m pipeline`` writes
    them (one local Spark session per test session, about 40 s on 2 cores); ``None`` where
    PySpark is not installed (the ``spark`` extra)."""
    if importlib.util.find_spec("pyspark") is None:
        return None
    from pipeline.session import get_session
    from tests.pipeline.sample_outputs import write_sample_outputs

    spark = get_session(
        "local[2]",
        app_name="dashboard-pipeline-views-test",
        conf={
            "spark.sql.shuffle.partitions": "2",
            "spark.default.parallelism": "2",
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
        },
    )
    spark.sparkContext.setLogLevel("ERROR")
    root = tmp_path_factory.mktemp("pipeline-output")
    try:
        write_sample_outputs(spark, root)
    finally:
        spark.stop()
    return root

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
    from tests.pipeline.sample_outputs import sample_tables

    return sample_tables(
        tmp_path_factory.mktemp("pipeline-output"), "dashboard-pipeline-views-test"
    )

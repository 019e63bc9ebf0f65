"""The local session's Python workers and its Arrow batches (pipeline.session)."""

from __future__ import annotations

from typing import Any

from pipeline.session import ARROW_BYTES_UNBOUNDED


def test_arrow_batches_to_python_are_bounded_by_rows_only(spark: Any) -> None:
    assert spark.conf.get("spark.sql.execution.arrow.maxBytesPerBatch") == ARROW_BYTES_UNBOUNDED
    assert int(ARROW_BYTES_UNBOUNDED) == 2**31 - 1  # Spark's "no byte limit"

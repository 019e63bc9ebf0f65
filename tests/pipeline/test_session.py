"""The local session's Python workers and its Arrow batches (pipeline.session)."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

from pipeline.session import ARROW_BYTES_UNBOUNDED


def test_the_worker_daemon_imports_the_pure_modules_and_starts_no_thread() -> None:
    # A thread does not survive fork: the daemon PySpark forks workers from must have none.
    probe = (
        "import os, sys\n"
        "import pipeline.worker_daemon\n"
        "print(len(os.listdir('/proc/self/task')))\n"
        "print(sorted(m for m in ('numpy', 'pandas', 'pyarrow') if m in sys.modules))\n"
        "print('assignors.simulate' in sys.modules, 'pyspark.worker' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    assert out[:3] == ["1", "[]", "True True"]


def test_local_workers_are_forked_from_the_project_daemon(spark: Any) -> None:
    def main_module(batches: Any) -> Any:
        import pandas as pd

        main = sys.modules["__main__"]
        name = main.__spec__.name if main.__spec__ else ""
        for _ in batches:
            yield pd.DataFrame({"main": [name], "assignors": ["assignors" in sys.modules]})

    rows = spark.range(2).repartition(2).mapInPandas(main_module, "main string, assignors boolean")
    assert {tuple(r) for r in rows.collect()} == {("pipeline.worker_daemon", True)}


def test_arrow_batches_to_python_are_bounded_by_rows_only(spark: Any) -> None:
    assert spark.conf.get("spark.sql.execution.arrow.maxBytesPerBatch") == ARROW_BYTES_UNBOUNDED
    assert int(ARROW_BYTES_UNBOUNDED) == 2**31 - 1  # Spark's "no byte limit"

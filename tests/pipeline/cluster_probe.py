"""Submitted to the test cluster: what each executor's Python sees (one JSON line on stdout).

Per executor (told apart by its working directory): its working directory, ``sys.path``, where
``assignors`` was imported from, and where else on ``sys.path`` (the shipped zip left out) a
package ``assignors`` could be found (None: nowhere).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from importlib.machinery import PathFinder
from typing import Any


def probe(_: Iterator[int]) -> Iterator[dict[str, Any]]:
    import assignors

    time.sleep(1.0)  # long enough that every executor gets a task
    others = [p for p in sys.path if ".zip" not in p]
    spec = PathFinder.find_spec("assignors", others)
    yield {
        "cwd": os.getcwd(),
        "sys_path": list(sys.path),
        "assignors": assignors.__file__,
        "elsewhere": None if spec is None else str(spec.origin),
    }


def main() -> None:
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("assignment-explorer-probe").getOrCreate()
    seen = spark.sparkContext.parallelize(range(8), 8).mapPartitions(probe).collect()
    by_executor = {entry["cwd"]: entry for entry in seen}
    print(json.dumps(list(by_executor.values())))
    spark.stop()


if __name__ == "__main__":
    main()

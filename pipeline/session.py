"""The one place a Spark session is created.

1. ``PYSPARK_PYTHON`` (and the driver's) is set to this interpreter unless already set, so the
   Python workers import the same environment (``assignors``, pandas, pyarrow) as the driver.
2. Master: the ``master`` argument, else ``spark.master`` from standard Spark configuration
   (``spark-defaults.conf``, ``spark-submit --master``), else ``local[*]``.
3. ``spark.sql.shuffle.partitions`` defaults to four times the local cores (Spark's 200 makes
   small jobs slow on a laptop; four tasks per core even out groups of unequal size), adaptive
   coalescing of shuffle partitions is off (it would merge the per-group Python work, a few MB
   of rows but minutes of CPU, into one task), Arrow is on for pandas conversion; ``conf``
   entries override all.
4. On a real cluster the executors need the pure ``assignors`` and ``pipeline`` packages:
   :func:`ship_packages` zips them once and adds the zip with ``addPyFile`` (the same as
   ``spark-submit --py-files assignment_explorer.zip``); in local mode the workers share the
   driver's environment and nothing is shipped.
"""

from __future__ import annotations

import os
import sys
import tempfile
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

DEFAULT_MASTER = "local[*]"
#: The packages the executors import.
SHIPPED_PACKAGES = ("assignors", "pipeline")


def _local_cores(master: str) -> int:
    inside = master[master.find("[") + 1 : master.find("]")] if "[" in master else "*"
    if inside.isdigit():
        return int(inside)
    return os.cpu_count() or 2


def ship_packages(spark: Any) -> Path:
    """Zip :data:`SHIPPED_PACKAGES` from this checkout and add the zip to ``spark`` (step 4)."""
    root = Path(__file__).resolve().parent.parent
    target = Path(tempfile.mkdtemp(prefix="ae-pyfiles-")) / "assignment_explorer.zip"
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for package in SHIPPED_PACKAGES:
            for path in sorted((root / package).rglob("*")):
                if path.suffix in (".py", ".json") and "__pycache__" not in path.parts:
                    archive.write(path, path.relative_to(root))
    spark.sparkContext.addPyFile(str(target))
    return target


def get_session(
    master: str | None = None,
    *,
    app_name: str = "assignment-explorer",
    conf: Mapping[str, str] | None = None,
    ship: bool | None = None,
) -> Any:
    """A Spark session (steps 1-4); ``ship`` None ships packages only when not in local mode."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark import SparkConf
    from pyspark.sql import SparkSession

    configured = SparkConf()
    chosen = master or configured.get("spark.master", None) or DEFAULT_MASTER
    builder = SparkSession.builder.appName(app_name).master(chosen)
    defaults = {
        "spark.sql.shuffle.partitions": str(4 * _local_cores(chosen)),
        # The per-group Python stages are CPU-bound on a few MB of rows: coalescing shuffle
        # partitions by size would run them as one task on one core.
        "spark.sql.adaptive.coalescePartitions.enabled": "false",
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        "spark.sql.session.timeZone": "UTC",
        "spark.ui.showConsoleProgress": "true",
    }
    for key, value in {**defaults, **dict(conf or {})}.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    if ship or (ship is None and not chosen.startswith("local")):
        ship_packages(spark)
    return spark

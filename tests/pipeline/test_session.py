"""The local session's Python workers, its Arrow batches and the zip shipped to a cluster."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

from pipeline.session import ARROW_BYTES_UNBOUNDED, package_zip


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


def test_the_shipped_zip_carries_bytecode_that_python_imports(tmp_path: Path) -> None:
    # Python never writes bytecode into a zip: without it every executor's worker compiles.
    archive = package_zip(tmp_path / "ae.zip")
    names = set(zipfile.ZipFile(archive).namelist())
    sources = {name for name in names if name.endswith(".py")}
    assert "pipeline/scenarios.py" in sources
    assert {name + "c" for name in sources} <= names
    probe = "import assignors.model as a, pipeline.lag_frames as p; print(a.__file__, p.__file__)"
    env = {**os.environ, "PYTHONPATH": str(archive)}
    out = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env=env,
    ).stdout.split()
    assert out == [f"{archive}/assignors/model.pyc", f"{archive}/pipeline/lag_frames.pyc"]


def test_every_project_package_the_pipeline_imports_is_shipped_to_the_executors() -> None:
    """Executors import the pipeline from the shipped zip: a project package it imports (at
    any depth, through the packages shipped) and left out of the zip fails only on a real
    cluster (``guarded`` did once)."""
    import ast
    from pathlib import Path

    from pipeline.session import SHIPPED_PACKAGES

    root = Path(__file__).resolve().parents[2]
    project = {path.parent.name for path in root.glob("*/__init__.py")}
    imported: set[str] = set()
    for package in SHIPPED_PACKAGES:
        for path in (root / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    imported.add(node.module.split(".")[0])
                elif isinstance(node, ast.Import):
                    imported.update(alias.name.split(".")[0] for alias in node.names)
    needed = (imported & project) - {"tests"}
    assert needed <= set(SHIPPED_PACKAGES), sorted(needed - set(SHIPPED_PACKAGES))

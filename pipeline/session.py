"""The one place a Spark session is created.

1. ``PYSPARK_PYTHON`` (and the driver's) is set to this interpreter unless already set, so the
   Python workers import the same environment (``assignors``, pandas, pyarrow) as the driver.
2. Master: the ``master`` argument, else ``spark.master`` from standard Spark configuration
   (``spark-defaults.conf``, ``spark-submit --master``), else ``local[*]``.
3. ``spark.sql.shuffle.partitions`` defaults to four times the local cores (Spark's 200 makes
   small jobs slow on a laptop; four tasks per core even out groups of unequal size; the
   what-if adds a tail of smaller ones, :func:`pipeline.whatif.tapered_shares`), adaptive
   coalescing of shuffle partitions is off (it would merge the per-group Python work, a few MB
   of rows but minutes of CPU, into one task), Arrow is on for pandas conversion, Arrow batches
   to Python are bounded by rows only (:data:`ARROW_BYTES_UNBOUNDED`); in local mode
   the JVM gets :data:`LOCAL_JVM` (parallel collector, 2 GB, later JIT compilation) and the
   Python workers :func:`local_python` (forked from :mod:`pipeline.worker_daemon`, which has
   imported the project's pure modules once); ``conf`` entries override all.
4. On a real cluster the executors need the pure ``assignors`` and ``pipeline`` packages:
   :func:`ship_packages` zips them once and adds the zip with ``addPyFile`` (the same as
   ``spark-submit --py-files assignment_explorer.zip``, which :func:`package_zip` writes; a
   job submitted with that zip ships nothing more); in local mode the workers share the
   driver's environment and nothing is shipped.
5. The executors' interpreter: ``PYSPARK_PYTHON``, or ``spark.pyspark.python`` given in
   ``conf`` (e.g. ``--conf spark.pyspark.python=/opt/venv/bin/python``), else this one.
"""

from __future__ import annotations

import os
import sys
import tempfile
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pipeline import internals

DEFAULT_MASTER = "local[*]"
#: The packages the executors import.
SHIPPED_PACKAGES = ("assignors", "guarded", "pipeline")
#: The zip's file name (``--py-files``).
PACKAGE_ZIP = "assignment_explorer.zip"
#: Local mode's JVM (driver and executor in one; only where this process starts it): the
#: throughput collector instead of G1 and a 2 GB heap instead of 1 GB. On the lag benchmark
#: (6M rows, warm JVM, one comparison at load 6-8) they cut the CPU of the JVM and its
#: workers from 50 to 40 s, and the sort no longer spilled. The JIT compiles a method only
#: after 3 times the usual number of calls and loops (``CompileThresholdScaling``): a local
#: job is short, and at the default the compiler threads were the JVM's largest cost in a
#: fresh session (about 10 of its 20 CPU s on the 1,000-group what-if), while compiling too
#: late leaves the first stages' row loops interpreted while a core idles. Measured:
#:
#: - default -> 10 (JVM CPU, fresh session, load 4-6): what-if on 1,000 groups 19.5 s (mean
#:   of 5) -> 15.6 s (3); lag history on 6M rows 19.4 -> 17.6 s. 30 left rows interpreted
#:   longer (15.8 s); stopping at the first compiler tier (``TieredStopAtLevel=1``) saved more
#:   on the what-if (11.2 s) but doubled the lag history's row work (26.8 s).
#: - 10 -> 3 (quiet machine, alternating, 2026-11-28): the what-if on 10,000 groups took
#:   149.9 / 150.6 s -> 147.5 / 148.3 s (JVM CPU 22 s either way: the compiling moves into the
#:   stages before the per-group one, where a core is free, and those stages run sooner:
#:   the per-group stage started 7.5-7.8 -> 6.8-7.0 s after the call); lag history, first job
#:   of a session, 10.6 / 10.1 -> 9.9 / 9.6 s, run again 6.8 / 6.8 -> 6.6 / 7.0 s.
LOCAL_JVM = {
    "spark.driver.memory": "2g",
    "spark.driver.extraJavaOptions": "-XX:+UseParallelGC -XX:CompileThresholdScaling=3",
}


#: ``spark.sql.execution.arrow.maxBytesPerBatch``: Spark's value meaning "no byte limit".
#: Under any other value (default 64 MB) the JVM measures the Arrow batch it is filling after
#: every row it adds (``ArrowWriter.sizeInBytes`` over every column vector, allocating a list
#: each time), and on the pipeline's narrow rows that check cost more than writing the row:
#: on the lag history (6M rows, fresh session, load 3-6) it was ~30% of the task threads'
#: samples, and lifting it took the task threads from 13.8 to 8.8 CPU s (12.1 to 6.8 s when
#: run again in the session). Batches stay bounded by ``maxRecordsPerBatch`` (10,000 rows by
#: default, 100,000 in the lag job: a few MB of these rows).
ARROW_BYTES_UNBOUNDED = str(2**31 - 1)


def local_python() -> dict[str, str]:
    """Local mode's Python workers: forked from :mod:`pipeline.worker_daemon` (the project's
    pure modules imported once in the daemon, not in every worker), with this checkout's root
    first on their path so that the daemon and the workers import the packages the driver
    imported (the workers unpickle the jobs' functions from them). Not on a cluster: there the
    executors get the packages as a zip with each task (step 4), after their daemon started,
    so a daemon importing them would fail where the project is not installed. The daemon
    hands over to PySpark's private ``pyspark.daemon.manager`` (the entry ``worker_daemon`` in
    :mod:`pipeline.internals`): when that is off, PySpark's own daemon is used."""
    path = {"spark.executorEnv.PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    if not internals.applies("worker_daemon"):
        return path
    return {"spark.python.daemon.module": "pipeline.worker_daemon", **path}


def _local_cores(master: str) -> int:
    inside = master[master.find("[") + 1 : master.find("]")] if "[" in master else "*"
    if inside.isdigit():
        return int(inside)
    return os.cpu_count() or 2


def package_zip(target: Path) -> Path:
    """Write :data:`SHIPPED_PACKAGES` of this checkout into the zip ``target`` (step 4).

    The zip is what ``spark-submit --py-files`` takes (``python -m pipeline package``). Beside
    each module's source it holds the module compiled by this interpreter (``x.pyc`` next to
    ``x.py``, where Python's zip importer looks for it, checked against the source's hash):
    Python never writes bytecode into a zip, so without it every executor's every Python
    worker compiled the packages again. An executor whose Python is another version ignores
    the ``.pyc`` (its magic number differs) and compiles the source as before.
    """
    root = Path(__file__).resolve().parent.parent
    target.parent.mkdir(parents=True, exist_ok=True)
    with (
        zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive,
        tempfile.TemporaryDirectory(prefix="ae-pyc-") as scratch,
    ):
        for package in SHIPPED_PACKAGES:
            for path in sorted((root / package).rglob("*")):
                if path.suffix in (".py", ".json") and "__pycache__" not in path.parts:
                    name = path.relative_to(root)
                    archive.write(path, name)
                    if path.suffix == ".py":
                        archive.write(
                            _compiled(path, name, Path(scratch)), name.with_suffix(".pyc")
                        )
    return target


def _compiled(source: Path, name: Path, scratch: Path) -> str:
    """``source`` compiled to a hash-checked ``.pyc`` under ``scratch`` (tracebacks name
    ``name``, its path in the zip)."""
    import py_compile

    compiled = str(scratch / name.with_suffix(".pyc"))
    py_compile.compile(
        str(source),
        cfile=compiled,
        dfile=str(name),
        doraise=True,
        invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH,
    )
    return compiled


def job_script(target: Path) -> Path:
    """Write ``target``: the file ``spark-submit`` runs, ``python -m pipeline`` from the zip."""
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(
        '"""spark-submit ... --py-files assignment_explorer.zip pipeline_job.py JOB ARGS."""\n\n'
        "from pipeline.__main__ import main\n\nraise SystemExit(main())\n"
    )
    return target


def ship_packages(spark: Any) -> Path:
    """Zip :data:`SHIPPED_PACKAGES` from this checkout and add the zip to ``spark`` (step 4)."""
    target = Path(tempfile.mkdtemp(prefix="ae-pyfiles-")) / PACKAGE_ZIP
    spark.sparkContext.addPyFile(str(package_zip(target)))
    return target


def _submitted_with_packages(spark: Any) -> bool:
    """True when ``spark-submit --py-files`` already ships a zip of the packages."""
    files = spark.sparkContext.getConf().get("spark.submit.pyFiles", "") or ""
    return any(Path(name).name.startswith("assignment_explorer") for name in files.split(","))


def get_session(
    master: str | None = None,
    *,
    app_name: str = "assignment-explorer",
    conf: Mapping[str, str] | None = None,
    ship: bool | None = None,
) -> Any:
    """A Spark session (steps 1-4); ``ship`` None ships packages only when not in local mode."""
    executors_python = dict(conf or {}).get("spark.pyspark.python")
    if executors_python:  # PySpark reads the executors' interpreter from the environment
        os.environ["PYSPARK_PYTHON"] = executors_python
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
        "spark.sql.execution.arrow.maxBytesPerBatch": ARROW_BYTES_UNBOUNDED,
        "spark.sql.session.timeZone": "UTC",
        # pipeline.progress prints stages, groups and time left instead of Spark's bar.
        "spark.ui.showConsoleProgress": "false",
    }
    if chosen.startswith("local"):
        defaults |= LOCAL_JVM | local_python()
    for key, value in {**defaults, **dict(conf or {})}.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    remote = not str(spark.sparkContext.master).startswith("local")
    if ship or (ship is None and remote and not _submitted_with_packages(spark)):
        ship_packages(spark)
    return spark

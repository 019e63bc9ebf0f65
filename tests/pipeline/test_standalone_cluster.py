"""The three jobs on a real standalone cluster give the rows ``local[*]`` gives.

A master and two one-core workers on loopback (:mod:`tests.pipeline.standalone`); executors run
an interpreter that cannot import the checkout, in work directories outside it, so the code
they run is the code the pipeline ships. ``lag`` and ``replay`` run as ``python -m pipeline
... --master spark://...`` from the checkout; ``whatif`` runs through ``spark-submit`` with
only the zip and the job file of ``python -m pipeline package`` (driver outside the checkout
too); ``replay`` runs on one executor, the others on two. The shuffle partitions differ in
every run (and from the local run): the rows may not depend on how groups are spread.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pipeline.__main__ import main
from pipeline.synth import SynthConfig, write_history
from tests.pipeline.compare import OUTPUTS, assert_same_tables
from tests.pipeline.standalone import (
    CHECKOUT,
    StandaloneCluster,
    checkout_paths,
    executor_python,
    print_logs,
    spark_home,
    standalone_cluster,
)

pytestmark = [pytest.mark.spark, pytest.mark.cluster]

WHATIF_OPTIONS = ["--change", "none", "--change", "add:1", "--change", "remove"]
PROBE = Path(__file__).with_name("cluster_probe.py")


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An hour at 60 s of 8 groups, every incident present (STOP, STALL, churn, ...)."""
    folder = tmp_path_factory.mktemp("history")
    config = SynthConfig(
        groups=8,
        hours=1,
        interval_s=60,
        seed=16,
        max_partitions=24,
        max_members=6,
        every_incident=True,
    )
    write_history(config, folder)
    return folder


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneCluster]:
    root = tmp_path_factory.mktemp("standalone")
    with standalone_cluster(root, workers=2, worker_memory="1g") as running:
        yield running


@pytest.fixture(scope="module")
def python_outside(cluster: StandaloneCluster) -> Path:
    """The executors' interpreter: this environment's packages, not the checkout."""
    return executor_python(cluster.root)


def _run(cluster: StandaloneCluster, command: list[str], cwd: Path) -> str:
    """Run a user's command (no PYTHONPATH, no PySpark variables of this process)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHONPATH", "PYSPARK"))}
    done = subprocess.run(
        command,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        stdin=subprocess.DEVNULL,
    )
    if done.returncode != 0:
        print_logs(cluster)
        raise AssertionError(
            f"{' '.join(command)} exited {done.returncode}\n{done.stdout}\n{done.stderr[-6000:]}"
        )
    return done.stdout


def _cluster_conf(python: Path, partitions: int, cores: int = 2) -> list[str]:
    conf = {
        "spark.pyspark.python": str(python),
        "spark.executor.memory": "512m",
        "spark.cores.max": str(cores),
        "spark.sql.shuffle.partitions": str(partitions),
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        # Schedule only once every executor asked for has registered.
        "spark.scheduler.minRegisteredResourcesRatio": "1.0",
        "spark.scheduler.maxRegisteredResourcesWaitingTime": "120s",
    }
    return [part for key, value in conf.items() for part in ("--conf", f"{key}={value}")]


def _local(spark: Any, job: str, history: Path, out: Path, extra: list[str]) -> None:
    arguments = [job, "--input", str(history), "--output", str(out), "--master", "local[2]"]
    assert main([*arguments, *extra]) == 0


def test_executors_import_only_the_shipped_zip(
    cluster: StandaloneCluster, python_outside: Path, tmp_path: Path
) -> None:
    dist = tmp_path / "dist"
    _run(
        cluster,
        [sys.executable, "-m", "pipeline", "package", "--output", str(dist / "ae.zip")],
        CHECKOUT,
    )
    command = [
        str(spark_home() / "bin" / "spark-submit"),
        *("--master", cluster.master_url, "--py-files", str(dist / "ae.zip")),
        *_cluster_conf(python_outside, 4),
        *("--conf", f"spark.pyspark.driver.python={python_outside}"),
        str(PROBE),
    ]
    seen = json.loads(_run(cluster, command, tmp_path).strip().splitlines()[-1])
    assert len(seen) >= 2  # both executors answered
    for executor in seen:
        # the bytecode compiled into the zip, not the source compiled again by each worker
        assert executor["assignors"].endswith("ae.zip/assignors/__init__.pyc"), executor
        assert executor["elsewhere"] is None, executor  # no other path holds the packages
        cwd = executor["cwd"]
        assert not checkout_paths([cwd, *executor["sys_path"]], cwd), executor


def test_lag_whatif_replay_on_the_cluster_equal_local(
    spark: Any,
    cluster: StandaloneCluster,
    python_outside: Path,
    history: Path,
    tmp_path: Path,
) -> None:
    local_out, cluster_out, dist = tmp_path / "local", tmp_path / "cluster", tmp_path / "dist"
    for job, extra in (("lag", []), ("whatif", WHATIF_OPTIONS), ("replay", [])):
        _local(spark, job, history, local_out / job, extra)
    pipeline = [sys.executable, "-m", "pipeline"]
    where = ["--input", str(history), "--master", cluster.master_url]
    _run(
        cluster,
        [
            *pipeline,
            "lag",
            *where,
            "--output",
            str(cluster_out / "lag"),
            *_cluster_conf(python_outside, 5),
        ],
        CHECKOUT,
    )
    _run(
        cluster,
        [
            *pipeline,
            "replay",
            *where,
            "--output",
            str(cluster_out / "replay"),
            *_cluster_conf(python_outside, 3, cores=1),
        ],
        CHECKOUT,
    )
    _run(
        cluster, [*pipeline, "package", "--output", str(dist / "assignment_explorer.zip")], CHECKOUT
    )
    submit = [
        str(spark_home() / "bin" / "spark-submit"),
        *("--master", cluster.master_url, "--py-files", str(dist / "assignment_explorer.zip")),
        *_cluster_conf(python_outside, 7),
        *("--conf", f"spark.pyspark.driver.python={python_outside}"),
        str(dist / "pipeline_job.py"),
        *(
            "whatif",
            "--input",
            str(history),
            "--output",
            str(cluster_out / "whatif"),
            *WHATIF_OPTIONS,
        ),
    ]
    summary = _run(cluster, submit, tmp_path)  # driver outside the checkout as well
    assert "groups: 8 in = " in summary
    compared = {job: assert_same_tables(job, local_out / job, cluster_out / job) for job in OUTPUTS}
    assert all(compared.values())

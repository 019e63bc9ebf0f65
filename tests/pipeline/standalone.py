"""A real Spark standalone cluster on loopback for the tests: one master, one-core workers.

:func:`standalone_cluster` starts, from the PySpark installation (``bin/spark-class``):

1. a master (``org.apache.spark.deploy.master.Master``) on 127.0.0.1 with free ports;
2. ``workers`` workers (``org.apache.spark.deploy.worker.Worker``), each with one core and
   ``worker_memory`` of memory, a work directory of its own under ``root`` and an environment
   without ``PYTHONPATH``, started in ``root`` (never in the checkout);
3. it waits until the master's JSON status lists every worker ALIVE (else it stops everything,
   prints the logs and raises :class:`ClusterError`), yields a :class:`StandaloneCluster`, and
   stops the processes (their process groups) at the end.

:func:`executor_python` makes an interpreter for the executors that sees the third-party
packages of this environment (pandas, pyarrow, pyspark) but not the checkout: a venv whose only
extra path is this environment's site-packages directory, added by a plain ``.pth`` line (so the
editable install's import hook there is never activated).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import sysconfig
import time
import urllib.request
import venv
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.ports import free_port

CHECKOUT = Path(__file__).resolve().parents[2]
READY_TIMEOUT_S = 120.0


class ClusterError(RuntimeError):
    """The standalone cluster did not come up; the message holds its logs."""


@dataclass(frozen=True, slots=True)
class StandaloneCluster:
    """A running cluster: its master URL, the folder holding its logs and work directories."""

    master_url: str
    status_url: str
    root: Path

    def logs(self, tail_lines: int = 60) -> str:
        """The last lines of every daemon's and executor's log, for a failure message."""
        parts = []
        for path in sorted(self.root.rglob("*")):
            if path.is_file() and (path.suffix == ".log" or path.name in ("stdout", "stderr")):
                lines = path.read_text(errors="replace").splitlines()[-tail_lines:]
                parts.append(f"===== {path.relative_to(self.root)}\n" + "\n".join(lines))
        return "\n".join(parts)


def spark_home() -> Path:
    """The PySpark installation (it ships ``bin/spark-class`` and the jars)."""
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def executor_python(root: Path) -> Path:
    """An interpreter that imports this environment's packages but not the checkout."""
    target = root / "executor-venv"
    venv.create(target, with_pip=False, symlinks=True)
    purelib = Path(sysconfig.get_paths(vars={"base": str(target)})["purelib"])
    here = sysconfig.get_paths()["purelib"]
    (purelib / "third_party.pth").write_text(here + "\n")
    return target / "bin" / "python"


def _daemon_env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PYSPARK", "SPARK"))}
    env.update(
        SPARK_HOME=str(spark_home()),
        SPARK_LOCAL_IP="127.0.0.1",
        SPARK_LOG_DIR=str(root / "logs"),
        SPARK_NO_DAEMONIZE="1",
    )
    return env


def _start(root: Path, name: str, arguments: list[str]) -> subprocess.Popen[bytes]:
    log = (root / "logs" / f"{name}.log").open("wb")
    command = [str(spark_home() / "bin" / "spark-class"), *arguments]
    return subprocess.Popen(
        command,
        cwd=root,
        env=_daemon_env(root),
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: stopping it stops its executors too
    )


def _alive_workers(status_url: str) -> int:
    """Workers the master reports ALIVE; 0 while its UI is not up, and while the UI is up but
    still attaching its pages: then ``/json/`` is answered by the HTML page at ``/`` (seen in
    CI, 2026-11-28). A master that never answers JSON runs into the caller's deadline."""
    try:
        with urllib.request.urlopen(status_url, timeout=5) as response:
            status = json.load(response)
    except (OSError, ValueError):  # ValueError: not JSON (yet)
        return 0
    return sum(1 for worker in status.get("workers", []) if worker.get("state") == "ALIVE")


def _stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in reversed(processes):
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
    for process in reversed(processes):
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)


@contextmanager
def standalone_cluster(
    root: Path, *, workers: int = 2, worker_memory: str = "1g"
) -> Iterator[StandaloneCluster]:
    """Steps 1-3: a master and ``workers`` one-core workers on loopback, stopped at the end."""
    (root / "logs").mkdir(parents=True, exist_ok=True)
    port, ui_port = free_port(), free_port()
    cluster = StandaloneCluster(
        master_url=f"spark://127.0.0.1:{port}",
        status_url=f"http://127.0.0.1:{ui_port}/json/",
        root=root,
    )
    master = "org.apache.spark.deploy.master.Master"
    processes = [
        _start(
            root,
            "master",
            [master, "--host", "127.0.0.1", "--port", str(port), "--webui-port", str(ui_port)],
        )
    ]
    try:
        for number in range(1, workers + 1):
            work_dir = root / f"worker-{number}"
            work_dir.mkdir()
            processes.append(
                _start(
                    root,
                    f"worker-{number}",
                    [
                        "org.apache.spark.deploy.worker.Worker",
                        *("--host", "127.0.0.1", "--port", str(free_port())),
                        *("--webui-port", str(free_port()), "--cores", "1"),
                        *("--memory", worker_memory, "--work-dir", str(work_dir)),
                        cluster.master_url,
                    ],
                )
            )
        deadline = time.monotonic() + READY_TIMEOUT_S
        while _alive_workers(cluster.status_url) < workers:
            dead = [p.args[1] for p in processes if p.poll() is not None]
            if dead or time.monotonic() > deadline:
                why = f"exited: {dead}" if dead else f"not ready in {READY_TIMEOUT_S:.0f} s"
                raise ClusterError(f"standalone cluster {why}\n{cluster.logs()}")
            time.sleep(0.5)
        yield cluster
    finally:
        _stop(processes)


def print_logs(cluster: StandaloneCluster) -> None:
    """Write the cluster's logs to the real stderr (past pytest's capture)."""
    print(cluster.logs(), file=sys.__stderr__, flush=True)


def checkout_paths(entries: list[str], cwd: str) -> list[str]:
    """The entries of a path list (relative ones from ``cwd``) that lie inside the checkout's
    source, i.e. inside the checkout but outside the installed environment (``sys.prefix``,
    which holds only third-party packages when it is a venv inside the checkout)."""
    environment = Path(sys.prefix).resolve()
    inside = []
    for entry in entries:
        path = (Path(cwd) / entry).resolve()
        if path.is_relative_to(CHECKOUT) and not path.is_relative_to(environment):
            inside.append(entry)
    return inside

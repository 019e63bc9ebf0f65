"""PySpark's Python worker daemon, with the modules every task imports already imported.

PySpark forks each Python worker from one daemon process (``pyspark.daemon``) and the worker
then imports ``pyspark.worker`` and, when it unpickles the job's functions, :mod:`assignors`
and :mod:`pipeline`: about 0.3 s of CPU per worker where the interpreter compiles the sources
(no ``.pyc`` written: a read-only install or ``PYTHONDONTWRITEBYTECODE``). Run as the daemon
(``spark.python.daemon.module``, set by :func:`pipeline.session.get_session` in local mode),
this module imports them once and then hands over to ``pyspark.daemon``, so every forked
worker starts with them in memory.

Only modules that start no thread are imported here (a thread does not survive ``fork``, and
PySpark's daemon relies on having none): ``pyspark.worker``, every module of :mod:`assignors`
(standard library only; :func:`load_the_core`) and the pipeline's modules that do not import
NumPy, pandas or PyArrow (each starts a thread when imported). A test checks that importing
this module starts none.

Measured on the lag history (6M rows, first job of a fresh session, ``local[2]``, load 4-14,
alternating with the code before): the Python workers' CPU 8.3 and 8.4 s -> 7.3 and 7.4 s.
On a cluster this daemon is not used (:func:`pipeline.session.local_python`).
"""

from __future__ import annotations

import pyspark.worker  # noqa: F401
from pyspark.daemon import manager

import assignors
import pipeline.schema  # noqa: F401


def load_the_core() -> None:
    """Import every module of :mod:`assignors` a task may use: the package is lazy (a public
    name's module loads on first use, a strategy's when it is first asked for), so importing
    it alone would leave each forked worker to import them itself."""
    for name in assignors.__all__:
        getattr(assignors, name)
    assignors.registry.strategies()


load_the_core()

if __name__ == "__main__":
    manager()

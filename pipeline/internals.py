"""PySpark's private parts the pipeline uses, each with the versions it was checked on and a
probe; listed with every other one in :data:`dashboard.runtime.internals.REGISTRY`.

A use asks :func:`applies` first; the first ask probes (once per process) and, when the
internal is not as expected, logs one line on the ``assignment_explorer`` logger and the use
takes its plain path. The probes read PySpark's sources (found without importing PySpark, so a
dashboard start-up does not pay for it); the JVM side of :func:`pipeline.whatif.joinable` is
exercised by the pipeline's Spark tests.

:data:`USES` holds them (a :class:`guarded.Uses`); :func:`reason_off` and :func:`applies` are its
methods.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

from guarded import Internal, Uses


def pyspark_source(relative: str) -> Path | None:
    """The installed PySpark's source file ``relative`` (e.g. ``daemon.py``), found without
    importing PySpark; None without PySpark."""
    spec = importlib.util.find_spec("pyspark")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / relative


def _class(tree: ast.Module, name: str) -> ast.ClassDef | None:
    return next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name), None)


def _init_sets(cls: ast.ClassDef, attribute: str) -> bool:
    """Whether ``cls.__init__`` assigns ``self.<attribute>``."""
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and node.name == "__init__":
            for inner in ast.walk(node):
                targets = (
                    inner.targets
                    if isinstance(inner, ast.Assign)
                    else [inner.target]
                    if isinstance(inner, ast.AnnAssign)
                    else []
                )
                if any(isinstance(t, ast.Attribute) and t.attr == attribute for t in targets):
                    return True
    return False


def _class_has(cls: ast.ClassDef, attribute: str) -> bool:
    """Whether ``cls``'s body assigns ``attribute`` (a class attribute)."""
    for node in cls.body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign)
            else []
        )
        if any(isinstance(t, ast.Name) and t.id == attribute for t in targets):
            return True
    return False


def _parsed(relative: str) -> ast.Module | str:
    """PySpark's ``relative`` source parsed, or why it cannot be."""
    path = pyspark_source(relative)
    if path is None:
        return "PySpark is not installed"
    try:
        return ast.parse(path.read_text("utf-8"))
    except OSError as error:
        return f"cannot read pyspark/{relative}: {error.strerror or error}"


def probe_jvm_handles() -> str | None:
    """Classic DataFrames keep their JVM Dataset as ``_jdf``, sessions theirs as
    ``_jsparkSession``."""
    for relative, class_name, attribute in (
        ("sql/classic/dataframe.py", "DataFrame", "_jdf"),
        ("sql/session.py", "SparkSession", "_jsparkSession"),
    ):
        tree = _parsed(relative)
        if isinstance(tree, str):
            return tree
        cls = _class(tree, class_name)
        if cls is None:
            return f"pyspark/{relative} defines no {class_name}"
        if not _init_sets(cls, attribute):
            return f"{class_name}.__init__ no longer sets {attribute}"
    return None


def probe_active_context() -> str | None:
    """``SparkContext._active_spark_context`` is still a class attribute."""
    tree = _parsed("core/context.py")
    if isinstance(tree, str):
        return tree
    cls = _class(tree, "SparkContext")
    if cls is None:
        return "pyspark/core/context.py defines no SparkContext"
    if not _class_has(cls, "_active_spark_context"):
        return "SparkContext._active_spark_context is gone"
    return None


def probe_daemon() -> str | None:
    """``pyspark.daemon`` has a ``manager()`` taking no argument, and ``pyspark.worker`` exists."""
    tree = _parsed("daemon.py")
    if isinstance(tree, str):
        return tree
    manager = next(
        (n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "manager"), None
    )
    if manager is None:
        return "pyspark.daemon.manager is gone"
    if manager.args.args or manager.args.posonlyargs or manager.args.kwonlyargs:
        return "pyspark.daemon.manager now takes arguments"
    worker = pyspark_source("worker.py")
    if worker is None or not worker.exists():
        return "pyspark.worker is gone"
    return None


INTERNALS: tuple[Internal, ...] = (
    Internal(
        name="whatif.joinable",
        where="pipeline.whatif:joinable",
        what=(
            "Reads Spark's own size estimate of the per-group times through DataFrame._jdf"
            " and SparkSession._jsparkSession (the JVM's plan statistics and the broadcast"
            " threshold), to mark the frame for broadcast before the job runs."
        ),
        library="pyspark",
        checked="pyspark>=4.3,<4.4",
        loses=(
            "the what-if join is planned by Spark at run time (it may shuffle"
            " where a broadcast would do)"
        ),
        probe=probe_jvm_handles,
    ),
    Internal(
        name="whatif.holding",
        where="pipeline.whatif:holding",
        what=(
            "Asks SparkContext._active_spark_context whether a session still runs before"
            " unpersisting a cached frame that is no longer referenced."
        ),
        library="pyspark",
        checked="pyspark>=4.3,<4.4",
        loses="cached per-group times stay in Spark's cache until the session stops",
        probe=probe_active_context,
    ),
    Internal(
        name="worker_daemon",
        where="pipeline.worker_daemon, pipeline.session:local_python",
        what=(
            "Runs as PySpark's Python worker daemon (spark.python.daemon.module), importing"
            " pyspark.worker and the project once, then hands over to pyspark.daemon.manager."
        ),
        library="pyspark",
        checked="pyspark>=4.3,<4.4",
        loses="local Python workers each import the project themselves (~0.3 s of CPU per worker)",
        probe=probe_daemon,
    ),
)

USES = Uses(INTERNALS)
reason_off = USES.reason_off
applies = USES.applies

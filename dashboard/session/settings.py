"""The server's settings read from its environment, once per use (never per session).

* ``AE_PIPELINE_INPUT``: the offset snapshots the Fleet view rebuilds groups from (default: the
  small history shipped in ``sample_data/history``).
* ``AE_PIPELINE_OUTPUT``: where the History and Fleet views read the pipeline's tables
  (``python -m pipeline lag|whatif|replay --output PIPELINE_OUTPUT/lag|whatif|replay``; see
  docs/pipeline.md; default: ``pipeline-output/`` in the checkout). These two are the built-in
  dataset :data:`~dashboard.model.operator_file.BUILTIN_DATASET`.
* ``ASSIGNMENT_EXPLORER_CONFIG``: the operator file (:mod:`dashboard.model.operator_file`):
  clusters and datasets offered by name. :func:`operator_config` reads it again whenever the
  file changes; without it the server offers no cluster by name and the built-in dataset only.

:func:`pipeline_commands` writes the commands those views show when the tables are missing,
with these paths, runnable as shown.
"""

from __future__ import annotations

import logging
import os
import shlex
from pathlib import Path

from dashboard.model.operator_file import (
    BUILTIN_DATASET,
    CONFIG_ENV,
    DatasetEntry,
    OperatorConfig,
    OperatorFileError,
    parse_operator_text,
)

CHECKOUT = Path(__file__).resolve().parents[2]
_LOG = logging.getLogger("assignment_explorer.settings")
#: The operator file last read: (path, modification time, size) -> what it gave.
_READ: dict[tuple[str, int, int], OperatorConfig | OperatorFileError] = {}


def operator_file() -> Path | None:
    """The operator file's path (``None``: no operator file, a laptop's defaults)."""
    value = os.environ.get(CONFIG_ENV, "").strip()
    return Path(value) if value else None


def operator_config() -> OperatorConfig:
    """What the operator file offers (empty without one); raises :class:`OperatorFileError`
    (its message names the key and holds no path; the path goes to the server's log)."""
    path = operator_file()
    if path is None:
        return OperatorConfig()
    try:
        stat = path.stat()
        key = (str(path), stat.st_mtime_ns, stat.st_size)
        if key not in _READ:
            _READ.clear()
            _READ[key] = _parse(path.read_text("utf-8"), path)
    except (OSError, UnicodeDecodeError) as error:
        _LOG.error("the operator file %s cannot be read: %s", path, error)
        raise OperatorFileError(
            (), "cannot be read by the server (its log says why): check the path and its rights"
        ) from None
    found = _READ[key]
    if isinstance(found, OperatorFileError):
        raise found
    return found


def _parse(text: str, path: Path) -> OperatorConfig | OperatorFileError:
    try:
        config = parse_operator_text(text)
    except OperatorFileError as error:
        _LOG.error("the operator file %s is refused: %s", path, error)
        return error
    _LOG.info(
        "operator file %s loaded: %d cluster(s), %d dataset(s), typed addresses %s",
        path,
        len(config.clusters),
        len(config.datasets),
        "on" if config.typed_addresses else "off",
    )
    return config


def operator_problem() -> str | None:
    """Why the operator file cannot be used (``None``: it can, or there is none)."""
    try:
        operator_config()
    except OperatorFileError as error:
        return str(error)
    return None


#: Set (to anything) where the server must say at start how it is set up, configured or not
#: (the image sets it); elsewhere only what is configured is said.
ANNOUNCE_ENV = "AE_ANNOUNCE_SETUP"


def setup_report(login_configured: bool | None) -> list[str]:
    """What the server says at start about its setup: whether a login is configured (``None``:
    its settings cannot be read), whether an operator file is loaded (or why it is refused,
    with its path: this goes to the server's log only). Said always where :data:`ANNOUNCE_ENV`
    is set; elsewhere only what is configured (a laptop's run prints nothing)."""
    always = bool(os.environ.get(ANNOUNCE_ENV))
    lines = []
    if login_configured is None:
        lines.append("login: the secrets file cannot be read: every page is refused until fixed")
    elif login_configured:
        lines.append("login: configured (st.login, the [auth] table of .streamlit/secrets.toml)")
    elif always:
        lines.append(
            "login: none configured: anyone who reaches this port sees the dashboard; put a"
            " login in front (docs/deployment.md)"
        )
    path = operator_file()
    if path is None:
        if always:
            lines.append(f"operator file: none ({CONFIG_ENV} is unset): no cluster offered by name")
        return lines
    problem = operator_problem()
    if problem:
        lines.append(f"operator file: {path} is refused: {problem}")
    else:
        config = operator_config()
        clusters = ", ".join(entry.name for entry in config.clusters) or "none"
        named = ", ".join(entry.name for entry in config.datasets) or "none"
        typed = "on" if config.typed_addresses else "off"
        lines.append(
            f"operator file: {path} loaded: clusters {clusters}, datasets {named},"
            f" typed addresses {typed}"
        )
    return lines


def datasets() -> tuple[DatasetEntry, ...]:
    """The pipeline datasets offered by name: the built-in one first, then the operator's."""
    builtin = DatasetEntry(BUILTIN_DATASET, str(pipeline_output()), str(pipeline_input()))
    return (builtin, *operator_config().datasets)


def dataset(name: str) -> DatasetEntry | None:
    """The dataset named ``name`` (``None``: the server offers none by that name)."""
    return next((entry for entry in datasets() if entry.name == name), None)


def pipeline_input() -> Path:
    """The directory of offset snapshots the Fleet view reads."""
    return Path(os.environ.get("AE_PIPELINE_INPUT") or CHECKOUT / "sample_data" / "history")


def pipeline_output() -> Path:
    """The directory the pipeline's jobs wrote their tables to."""
    return Path(os.environ.get("AE_PIPELINE_OUTPUT") or CHECKOUT / "pipeline-output")


def spark_install_command() -> str:
    """The command that installs the pipeline's ``spark`` extra (PySpark, PyArrow; see
    docs/pipeline.md): from this checkout when the server runs from one, as written there
    otherwise (run in the project's checkout)."""
    if (CHECKOUT / "pyproject.toml").is_file():
        return f"python -m pip install -e {shlex.quote(f'{CHECKOUT}[spark]')}"
    return "python -m pip install -e '.[spark]'"


def pipeline_commands(job: str, snapshots: Path, output: Path) -> str:
    """The commands that write pipeline job ``job``'s tables into ``output`` from the offset
    snapshots in ``snapshots`` (:func:`pipeline_input`), runnable as shown from a fresh
    install: the ``spark`` extra first (``python -m pipeline`` fails without PySpark), then the
    job, every path exact."""
    run = (
        f"python -m pipeline {job} --input {shlex.quote(str(snapshots))}"
        f" --output {shlex.quote(str(output))}"
    )
    return f"{spark_install_command()}\n{run}"


def pipeline_hint(job: str, snapshots: Path, output: Path) -> str:
    """What a page without the pipeline's tables tells the user to run, as Markdown."""
    return (
        "Make them with the Spark pipeline (it needs the `spark` extra and Java 17 on the path;"
        f" see docs/pipeline.md), then reload this page:\n\n```bash\n"
        f"{pipeline_commands(job, snapshots, output)}\n```"
    )

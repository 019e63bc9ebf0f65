"""The server's settings read from its environment, once per use (never per session).

* ``AE_PIPELINE_INPUT``: the offset snapshots the Fleet view rebuilds groups from (default: the
  small history shipped in ``sample_data/history``).
* ``AE_PIPELINE_OUTPUT``: where the History and Fleet views read the pipeline's tables
  (``python -m pipeline lag|whatif|replay --output PIPELINE_OUTPUT/lag|whatif|replay``; see
  docs/pipeline.md; default: ``pipeline-output/`` in the checkout).

:func:`pipeline_commands` writes the commands those views show when the tables are missing,
with these paths, runnable as shown.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]


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

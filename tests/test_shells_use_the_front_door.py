"""The shells ask the core through its front door (issue 20).

* No file under ``dashboard/``, ``pipeline/`` or ``assignors/cli/`` calls the simulator, the
  metrics or the drain projection itself: they ask :func:`assignors.evaluate`.
* The shells (``dashboard/``, ``pipeline/``, ``cluster/``, ``adapters/``) import from
  ``assignors`` only names listed in ``assignors.__all__``, and never a module deeper down.

Both are read from the source with :mod:`ast`, so a comment or a docstring naming a function
does not count, and an aliased import does.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import assignors

ROOT = Path(__file__).resolve().parents[1]
CORE_PARTS = ("plan_rebalance", "simulate", "project_drain", "assignment_metrics")
CALLERS = ("dashboard", "pipeline", "assignors/cli")
SHELLS = ("dashboard", "pipeline", "cluster", "adapters")


def _files(folders: tuple[str, ...]) -> list[Path]:
    return sorted(path for folder in folders for path in (ROOT / folder).rglob("*.py"))


def _called_name(node: ast.Call) -> str | None:
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


@pytest.mark.parametrize("path", _files(CALLERS), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_shell_rebuilds_the_core_from_its_parts(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    calls = [
        f"line {node.lineno}: {_called_name(node)}()"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and _called_name(node) in CORE_PARTS
    ]
    imported = [
        f"line {node.lineno}: imports {alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("assignors")
        for alias in node.names
        if alias.name in CORE_PARTS
    ]
    assert calls + imported == [], "ask assignors.evaluate() instead"


@pytest.mark.parametrize("path", _files(SHELLS), ids=lambda p: str(p.relative_to(ROOT)))
def test_shells_import_only_the_public_names(path: Path) -> None:
    public = set(assignors.__all__)
    problems = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            if node.module.startswith("assignors."):
                problems.append(f"line {node.lineno}: from {node.module} import ...")
            elif node.module == "assignors":
                problems += [
                    f"line {node.lineno}: {alias.name} is not in assignors.__all__"
                    for alias in node.names
                    if alias.name not in public
                ]
        elif isinstance(node, ast.Import):
            problems += [
                f"line {node.lineno}: import {alias.name}"
                for alias in node.names
                if alias.name.startswith("assignors.")
            ]
    assert problems == []


def test_the_checks_see_what_they_look_for() -> None:
    # The scans above would pass on an empty folder list; make sure they read real files.
    assert len(_files(CALLERS)) > 20 and len(_files(SHELLS)) > 30
    assert "evaluate" in assignors.__all__

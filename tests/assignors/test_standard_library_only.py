"""The core imports nothing outside Python's standard library (issue 20).

A fresh interpreter gets a meta-path finder that raises for every module that is neither in
``sys.stdlib_module_names`` nor part of ``assignors``; then ``import assignors`` and an import of
every module under ``assignors/`` must succeed. A subprocess, because this test process has
pytest, Hypothesis and the dashboard's packages loaded already.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

BLOCKER = r"""
import importlib, pkgutil, sys

class Blocker:
    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        if top in sys.stdlib_module_names or top == "assignors":
            return None
        raise ImportError(f"third-party import blocked: {name}")

sys.meta_path.insert(0, Blocker())
for name in list(sys.modules):  # site may have loaded a third-party .pth hook already
    if name.partition(".")[0] not in sys.stdlib_module_names and name != "__main__":
        del sys.modules[name]

import assignors
names = ["assignors"]
for info in pkgutil.walk_packages(assignors.__path__, "assignors."):
    importlib.import_module(info.name)
    names.append(info.name)
print(len(names), " ".join(sorted(names)))
"""


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def test_every_core_module_imports_with_third_party_packages_blocked() -> None:
    result = _run(BLOCKER)
    assert result.returncode == 0, result.stderr
    count, names = result.stdout.split(" ", 1)
    assert int(count) >= 40
    for module in ("assignors.simulate.evaluate", "assignors.io.changes", "assignors.cli.compare"):
        assert module in names.split()


def test_the_blocker_does_block() -> None:
    result = _run(BLOCKER.replace("import assignors\n", "import assignors\nimport streamlit\n", 1))
    assert result.returncode != 0
    assert "third-party import blocked: streamlit" in result.stderr

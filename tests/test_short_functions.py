"""No function in the project's packages runs over 80 lines (issues 20 and 35): long ones read
as numbered steps split into named helpers, as Kafka's assignors do."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("assignors", "dashboard", "pipeline", "cluster", "adapters", "guarded")
MAX_LINES = 80


def long_functions(path: Path, root: Path = ROOT) -> list[str]:
    """``path:line name: length`` for each function (or method, nested or not) in ``path``
    longer than :data:`MAX_LINES` lines, decorators and docstring included."""
    long = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_LINES:
                long.append(f"{path.relative_to(root)}:{node.lineno} {node.name}: {length}")
    return long


@pytest.mark.parametrize("package", PACKAGES)
def test_no_function_is_longer_than_80_lines(package: str) -> None:
    files = sorted((ROOT / package).rglob("*.py"))
    assert files, f"{package}: no modules found"
    long = [entry for path in files for entry in long_functions(path)]
    assert long == [], (
        f"split these into named helpers that read as numbered steps (at most {MAX_LINES}"
        " lines each)"
    )


def test_the_check_catches_a_long_function(tmp_path: Path) -> None:
    """Worked example: an 81-line function is caught, an 80-line one and a long class body
    of short methods are not."""
    module = tmp_path / "generated.py"
    body = "\n".join(f"    x{i} = {i}" for i in range(79))
    module.write_text(
        f"def fits():\n{body}\n\n\ndef too_long():\n{body}\n    x79 = 79\n\n\n"
        "class Many:\n" + "".join(f"    def m{i}(self):\n        pass\n" for i in range(50))
    )
    assert long_functions(module, tmp_path) == ["generated.py:83 too_long: 81"]

"""No function in the core runs over 80 lines (issue 20): long ones read as numbered steps split
into named helpers, as Kafka's assignors do."""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "assignors"
MAX_LINES = 80


def test_no_core_function_is_longer_than_80_lines() -> None:
    long = []
    files = sorted(CORE.rglob("*.py"))
    assert len(files) > 30
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_LINES:
                    long.append(
                        f"{path.relative_to(CORE.parent)}:{node.lineno} {node.name}: {length}"
                    )
    assert long == []

"""The project's layers, read from the packages' own docstrings and checked on the source.

Every package's ``__init__.py`` docstring has a paragraph that starts ``May import:`` and names,
with ``:mod:`` references, what its modules may import besides the standard library and the
package itself (a module of the package reaches its siblings freely). This test holds the code
to those paragraphs, so a docstring can never drift from the code again:

1. Each ``.py`` file under a project package is governed by the nearest ``__init__.py`` above it
   that has a ``May import:`` paragraph. Every import in the file, at module level or inside a
   function, must be the standard library, the governing package itself, or start with one of
   the names the paragraph lists (``:mod:`assignors``` allows all of the core; ``:mod:`plotly```
   all of Plotly).
2. Streamlit's private parts (anything under ``streamlit`` but its public modules,
   :data:`STREAMLIT_PUBLIC`) are imported only where the paragraph names them one by one: in
   ``dashboard/runtime``, the one guarded place (see :mod:`dashboard.runtime.internals`).
3. No import cycle among the project's modules (imports inside functions count: a cycle hidden
   in a function is still a cycle).

The paragraph is read up to its first blank line. Relative imports are resolved first.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("assignors", "adapters", "cluster", "dashboard", "guarded", "pipeline", "sample_data")
#: Streamlit modules any layer may import: the API the documentation describes.
STREAMLIT_PUBLIC = ("streamlit", "streamlit.errors", "streamlit.delta_generator")
_MOD = re.compile(r":mod:`~?(\.?[\w.]+)`")


@dataclass(frozen=True, slots=True)
class Rule:
    package: str
    allowed: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Imported:
    path: Path
    line: int
    module: str


def may_import(docstring: str) -> tuple[str, ...] | None:
    """The ``:mod:`` names of a docstring's ``May import:`` paragraph (``None``: it has none)."""
    start = docstring.find("May import:")
    if start < 0:
        return None
    paragraph = docstring[start:].split("\n\n", 1)[0]
    return tuple(_MOD.findall(paragraph))


def _dotted(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def rules() -> dict[str, Rule]:
    """Package name -> its rule, for every package with a ``May import:`` paragraph."""
    found = {}
    for top in PACKAGES:
        for init in sorted((ROOT / top).rglob("__init__.py")):
            allowed = may_import(ast.get_docstring(ast.parse(init.read_text("utf-8"))) or "")
            if allowed is not None:
                package = _dotted(init)
                resolved = tuple(f"{package}{name}" if name[0] == "." else name for name in allowed)
                found[package] = Rule(package, resolved)
    return found


def governing(path: Path, all_rules: dict[str, Rule]) -> Rule | None:
    """The rule of the nearest package above ``path`` that has one."""
    package = _dotted(path.parent / "__init__.py")
    while package:
        if package in all_rules:
            return all_rules[package]
        package = package.rpartition(".")[0]
    return None


def _absolute(path: Path, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    package = _dotted(path.parent / "__init__.py").split(".")
    base = package[: len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _type_checking_only(tree: ast.AST) -> set[int]:
    """The ids of the nodes under ``if TYPE_CHECKING:`` (imported for the type checker only)."""
    hidden = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            hidden |= {id(child) for stmt in node.body for child in ast.walk(stmt)}
    return hidden


def imports(path: Path, *, at_run_time: bool = False) -> Iterator[Imported]:
    """Every module ``path`` imports; ``from m import n`` yields ``m.n`` (``n`` may be a module
    or a name in ``m``; either way ``m.n`` is within ``m``). ``at_run_time`` leaves out the
    imports under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text("utf-8"))
    hidden = _type_checking_only(tree) if at_run_time else set()
    for node in ast.walk(tree):
        if id(node) in hidden:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Imported(path, node.lineno, alias.name)
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(path, node)
            for alias in node.names:
                yield Imported(path, node.lineno, f"{module}.{alias.name}")


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def is_streamlit_private(module: str) -> bool:
    """Whether ``module`` (``from m import n`` read as ``m.n``) is outside Streamlit's public
    API: anything below a module that is not in :data:`STREAMLIT_PUBLIC`."""
    parts = module.split(".")
    if parts[0] != "streamlit" or len(parts) == 1:
        return False
    if ".".join(parts[:2]) in STREAMLIT_PUBLIC:
        return False
    # `from streamlit import x`: a public name, unless x is one of Streamlit's own modules
    return len(parts) > 2 or parts[1].startswith("_") or parts[1] in STREAMLIT_PRIVATE_MODULES


#: Streamlit's modules below ``streamlit`` that are not its documented API.
STREAMLIT_PRIVATE_MODULES = frozenset(
    {"runtime", "web", "proto", "elements", "commands", "components", "watcher", "config"}
)


def violations(path: Path, rule: Rule) -> list[str]:
    """What ``path`` imports outside its rule."""
    problems = []
    for item in imports(path):
        top = item.module.split(".")[0]
        if top == "__future__" or top in sys.stdlib_module_names:
            continue
        if is_streamlit_private(item.module):
            named = [p for p in rule.allowed if p.startswith("streamlit.")]
            if not any(_within(item.module, p) for p in named):
                problems.append(f"{item.line}: {item.module} (a private part of Streamlit)")
            continue
        if _within(item.module, rule.package):
            continue
        if not any(_within(item.module, prefix) for prefix in rule.allowed):
            problems.append(f"{item.line}: {item.module}")
    return sorted(set(problems))


def _project_files() -> list[Path]:
    return sorted(path for top in PACKAGES for path in (ROOT / top).rglob("*.py"))


@pytest.mark.parametrize("path", _project_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_each_module_imports_only_what_its_package_allows(path: Path) -> None:
    rule = governing(path, rules())
    assert rule is not None, (
        f"{path.relative_to(ROOT)}: no package above it says what it may import; add a"
        " 'May import:' paragraph to its package's __init__.py docstring"
    )
    problems = violations(path, rule)
    assert problems == [], (
        f"{path.relative_to(ROOT)} imports what {rule.package}'s docstring does not allow"
        f" (May import: {', '.join(rule.allowed) or 'the standard library only'}): move the code"
        " to the layer that may import it, or, if the layering really changes, say so in the"
        " package docstring"
    )


def _graph() -> dict[str, set[str]]:
    modules = {_dotted(path): path for path in _project_files()}
    edges: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for item in imports(path, at_run_time=True):
            target = item.module
            while target and target not in modules:
                target = target.rpartition(".")[0]
            # importing a package's __init__ because a sibling is imported through it is no edge
            if target and target != name and not name.startswith(target + "."):
                edges[name].add(target)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(edges[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle() -> None:
    """Imports for the type checker alone (``if TYPE_CHECKING:``) are no cycle: they never run."""
    assert cycles(_graph()) == []


def test_the_checks_catch_what_they_look_for(tmp_path: Path) -> None:
    """Worked examples: a chart that imports Streamlit, a panel that reaches Streamlit's
    runtime, and a cycle are all caught."""
    charts = Rule("dashboard.charts", ("dashboard.model", "assignors", "plotly"))
    chart = ROOT / "dashboard" / "charts" / "_probe_for_the_layer_test.py"
    try:
        chart.write_text("import streamlit as st\nfrom dashboard.panels import tables\n")
        assert violations(chart, charts) == ["1: streamlit", "2: dashboard.panels.tables"]
        chart.write_text("from streamlit.runtime import Runtime\n")
        panels = Rule("dashboard.panels", ("streamlit", "dashboard.model"))
        assert violations(chart, panels) == [
            "1: streamlit.runtime.Runtime (a private part of Streamlit)"
        ]
        assert (
            violations(chart, Rule("dashboard.runtime", ("streamlit", "streamlit.runtime"))) == []
        )
    finally:
        chart.unlink()
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert may_import(
        "Holds x.\n\nMay import: :mod:`assignors` and\n:mod:`plotly`.\n\nNot :mod:`x`."
    ) == (
        "assignors",
        "plotly",
    )


def test_every_layer_of_the_dashboard_has_its_rule() -> None:
    found = rules()
    for layer in ("model", "charts", "session", "runtime", "panels", "views"):
        assert f"dashboard.{layer}" in found, f"dashboard/{layer}/__init__.py states no rule"
    assert not any(_within(p, "streamlit") for p in found["dashboard.charts"].allowed)
    assert not any(
        _within(p, "streamlit") or p == "plotly" for p in found["dashboard.model"].allowed
    )

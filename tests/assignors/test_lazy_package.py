"""``import assignors`` is cheap; each public name's module loads the first time it is read.

The package lists its public names three times: the ``TYPE_CHECKING`` imports (what mypy and a
reader see), the run-time tables ``_DEFINED_IN`` / ``_RENAMED`` (what ``__getattr__`` imports),
and ``__all__``. These tests hold the three to one another and to the objects they name, and
check what a fresh interpreter loads: ``import assignors`` nothing else of the core, and
``python -m assignors assign --strategy range`` the range assignor but no other strategy, no
simulator and nothing of Kafka Streams. The registry resolves a strategy's module by name.
"""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import assignors
from assignors import registry

ROOT = Path(__file__).resolve().parents[2]
INIT = ROOT / "assignors" / "__init__.py"


def _type_checking_imports() -> dict[str, tuple[str, str]]:
    """Public name -> (module, name there) from the ``if TYPE_CHECKING:`` block of the package."""
    tree = ast.parse(INIT.read_text("utf-8"))
    blocks = [
        node
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
    ]
    assert len(blocks) == 1, "one `if TYPE_CHECKING:` block lists the public imports"
    found: dict[str, tuple[str, str]] = {}
    for node in blocks[0].body:
        assert isinstance(node, ast.ImportFrom) and node.module, ast.unparse(node)
        for alias in node.names:
            public = alias.asname or alias.name
            if node.module == "assignors":  # a submodule exported as itself
                found[public] = (f"assignors.{alias.name}", "")
            else:
                found[public] = (node.module, alias.name)
    return found


def test_the_type_checking_imports_the_lazy_table_and_all_list_the_same_names() -> None:
    imports = _type_checking_imports()
    assert imports == assignors._WHERE
    assert sorted(assignors.__all__) == sorted(imports)
    assert len(set(assignors.__all__)) == len(assignors.__all__)


@pytest.mark.parametrize("name", sorted(assignors.__all__))
def test_each_public_name_is_the_object_its_module_defines(name: str) -> None:
    module_name, attribute = assignors._WHERE[name]
    module = importlib.import_module(module_name)
    expected = getattr(module, attribute) if attribute else module
    assert getattr(assignors, name) is expected
    assert name in dir(assignors)


def test_a_name_the_package_does_not_export_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'assign_range'"):
        assignors.assign_range  # noqa: B018
    with pytest.raises(ImportError):
        exec("from assignors import assign_range", {})


def test_the_registry_checks_each_module_defines_the_name_it_is_registered_under(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert list(registry.strategies()) == list(registry._MODULES)
    monkeypatch.setitem(registry._MODULES, "not-range", "client.range")
    with pytest.raises(RuntimeError, match="defines 'range', registered as 'not-range'"):
        registry.get("not-range")


#: Prints, as JSON, the core modules a fresh interpreter holds after each step.
_PROBE = """
import contextlib, io, json, sys
def core():
    return sorted(m for m in sys.modules if m.startswith("assignors"))
steps = {}
import assignors
steps["import"] = core()
try:
    assignors.registry.get("no-such-strategy")
except assignors.UnknownStrategyError as error:
    steps["unknown names"] = str(error)
steps["unknown"] = core()
from assignors.__main__ import main
with contextlib.redirect_stdout(io.StringIO()):
    main(["assign", sys.argv[1], "--strategy", "range"])
    main(["assign", sys.argv[1], "--strategy", "range", "--json"])
steps["assign"] = core()
print(json.dumps(steps))
"""

#: Core modules a partition assignment by ``range`` from the command line has no use for.
_NOT_FOR_RANGE = (
    "assignors.simulate",
    "assignors.streams",
    "assignors.seeds",
    "assignors.broker",
    "assignors.client.sticky",
    "assignors.client.cooperative_sticky",
    "assignors.client.roundrobin",
    "assignors.io.describe",
    "assignors.io.walkthrough",
    "assignors.cli.compare",
    "assignors.cli.deploy",
)


def test_a_fresh_interpreter_loads_only_what_it_uses() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(ROOT / "sample_data" / "range-vs-roundrobin.json")],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    steps = json.loads(done.stdout)
    assert steps["import"] == ["assignors"]
    strategy_packages = tuple(f"assignors.{p}" for p in ("client", "broker", "seeds", "streams"))
    assert not [m for m in steps["unknown"] if m.startswith(strategy_packages)]
    known = steps["unknown names"].partition("known strategies: ")[2]
    assert known.split(", ") == list(registry._MODULES)  # every name, none of them imported
    assert "assignors.client.range" in steps["assign"]
    unused = [m for m in steps["assign"] if m.startswith(_NOT_FOR_RANGE)]
    assert unused == [], "the range command imported modules it does not use"

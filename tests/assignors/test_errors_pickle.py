"""Every error the project raises on purpose survives pickling (a worker process sends its
error back to the dashboard that way): the same class, message and attributes, whatever the
class's ``__init__`` takes. Before, ``UnknownStrategyError`` could not be unpickled at all and
``ScenarioError`` came back with its message cut into characters."""

from __future__ import annotations

import importlib
import pickle
import pkgutil

from hypothesis import given
from hypothesis import strategies as st

import assignors
from assignors.errors import AssignmentExplorerError, ScenarioError, UnknownStrategyError
from assignors.io.json_safe import JsonInputError


def _again(error: AssignmentExplorerError) -> AssignmentExplorerError:
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is type(error)
    assert str(again) == str(error)
    assert again.__dict__ == error.__dict__
    return again


@given(problems=st.lists(st.text(max_size=30), min_size=1, max_size=30))
def test_a_scenario_error_keeps_its_problems(problems: list[str]) -> None:
    assert _again(ScenarioError(problems)).problems == tuple(problems)  # type: ignore[attr-defined]
    assert _again(JsonInputError(problems, value=3)).value == 3  # type: ignore[attr-defined]


@given(name=st.text(max_size=20), known=st.lists(st.text(max_size=10), max_size=5))
def test_an_unknown_strategy_error_keeps_its_name_and_the_known_ones(
    name: str, known: list[str]
) -> None:
    again = _again(UnknownStrategyError(name, known))
    assert isinstance(again, UnknownStrategyError)
    assert (again.name, again.known) == (name, tuple(known))


def _every_error_class() -> list[type[AssignmentExplorerError]]:
    for module in pkgutil.walk_packages(assignors.__path__, "assignors."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    found, todo = [], [AssignmentExplorerError]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


def test_every_error_class_pickles_whatever_its_init_takes() -> None:
    classes = _every_error_class()
    assert len(classes) > 10
    for cls in classes:
        error = cls.__new__(cls, "a message")
        error.args = ("a message",)
        error.__dict__.update({"detail": [1, "two"]})
        again = pickle.loads(pickle.dumps(error))  # (str() may need attributes set by __init__)
        assert (type(again), again.args, again.__dict__) == (cls, error.args, error.__dict__)

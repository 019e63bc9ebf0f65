"""Exceptions whose messages a person can act on.

Every message names where the problem is (a JSON path such as ``members[3].owned_partitions[0]``)
and what was expected there. Shells (CLI, dashboard, pipeline) show ``str(error)`` as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class AssignmentExplorerError(Exception):
    """Base class for every error this project raises on purpose.

    Invariant: every such error survives pickling with its message and attributes (a worker
    process sends its error back to the dashboard that way), whatever its ``__init__`` takes:
    it is rebuilt from its ``args`` and attributes without calling ``__init__`` again.
    """

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuilt, (type(self), self.args, dict(self.__dict__)))


def _rebuilt(
    cls: type[AssignmentExplorerError], args: tuple[object, ...], state: dict[str, object]
) -> AssignmentExplorerError:
    """An error of class ``cls`` with ``args`` and the attributes ``state`` (for pickle)."""
    error = cls.__new__(cls, *args)
    error.args = args
    error.__dict__.update(state)
    return error


class ScenarioError(AssignmentExplorerError, ValueError):
    """A scenario (file, JSON object or cluster snapshot) is not valid.

    ``problems`` lists every problem found, each ``"<json path>: <what is wrong>"``; the message
    is the first few of them.
    """

    MAX_SHOWN = 20

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        shown = list(self.problems[: self.MAX_SHOWN])
        if len(self.problems) > self.MAX_SHOWN:
            shown.append(f"... and {len(self.problems) - self.MAX_SHOWN} more problems")
        super().__init__("; ".join(shown))


class UnknownStrategyError(AssignmentExplorerError, KeyError):
    """A strategy name that the registry does not know."""

    def __init__(self, name: object, known: Sequence[str]) -> None:
        self.name = name
        self.known = tuple(known)
        super().__init__(name)

    def __str__(self) -> str:
        return f"unknown strategy {self.name!r}; known strategies: {', '.join(self.known)}"


class StrategyNotApplicableError(AssignmentExplorerError, ValueError):
    """A strategy cannot run on this scenario (for example a task strategy on a consumer group)."""

"""Small checks shared by the JSON loaders (partition scenarios and Kafka Streams scenarios).

A loader walks the raw JSON once, records every problem in a :class:`Problems` with its JSON path,
and raises :class:`~assignors.errors.ScenarioError` at the end if any were errors, so that a person
sees everything wrong with a file at once rather than one problem per attempt.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from collections.abc import Set as AbstractSet
from typing import Any, cast

#: Keys every loader accepts silently (editors add a ``$schema`` reference to JSON files).
ALWAYS_ALLOWED = frozenset({"$schema"})


def type_name(value: object) -> str:
    """How a JSON value reads in a message: ``"an integer"``, ``"a list"``, ``"null"``, ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def is_int(value: object) -> bool:
    """A JSON integer (``true``/``false`` are not integers here, though Python says so)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: object) -> bool:
    """A finite JSON number (integer or not)."""
    return (is_int(value) or isinstance(value, float)) and math.isfinite(cast(float, value))


class Problems:
    """Errors and warnings, each ``"<json path>: <what is wrong>"``, in the order found."""

    __slots__ = ("errors", "warnings")

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.warnings: list[str] = []

    def error(self, path: str, message: str) -> None:
        self.errors.append(f"{path}: {message}")

    def warn(self, path: str, message: str) -> None:
        self.warnings.append(f"{path}: {message}")

    def unknown_fields(self, obj: Mapping[str, Any], known: Collection[str], path: str) -> None:
        """Warn about each key of ``obj`` outside ``known`` (usually a typo; it is ignored).

        The message lists the known fields: a set sorted by name, a sequence in its own order.
        """
        names = sorted(known) if isinstance(known, AbstractSet) else list(known)
        listed = ", ".join(name for name in names if name not in ALWAYS_ALLOWED)
        for key in obj:
            if key not in known and key not in ALWAYS_ALLOWED:
                here = f"{path}.{key}" if path else key
                self.warn(here, f"unknown field, ignored (known fields: {listed})")

    def integer(
        self, value: object, path: str, *, minimum: int, maximum: int, hint: str = ""
    ) -> int | None:
        """``value`` if it is an integer in ``[minimum, maximum]``; else record why, ``None``."""
        if not is_int(value):
            self.error(path, f"expected an integer, got {type_name(value)}")
            return None
        number = cast(int, value)
        if number < minimum or number > maximum:
            self.error(
                path, f"expected an integer from {minimum:,} to {maximum:,}, got {number:,}{hint}"
            )
            return None
        return number

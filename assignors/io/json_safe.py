"""The one gate JSON input passes through: text or bytes -> a JSON value, or a message.

Every path that reads JSON (a scenario file, an upload or a paste, a batch line, a walkthrough, a
share link's edits) decodes it with :func:`decode_json`; every path that *builds* a JSON value
from the outside world (a cluster's answers, the pipeline's rows) checks it with
:func:`check_json_value` before the loader reads it. Both raise :class:`JsonInputError` (a
:class:`~assignors.errors.ScenarioError`) whose problems say where, by JSON path, and what is
wrong, in the project's words; nothing else escapes, whatever the input.

What the gate accepts, in order:

1. Bytes: at most ``max_bytes``; an optional UTF-8 byte-order mark (Windows editors write one);
   then strict UTF-8 (UTF-16 text is named as such). Text: the same size limit and optional BOM.
2. JSON syntax (``json.loads``); an empty text and nesting deeper than Python can decode are
   refused with a message, not raised.
3. Values (the same for decoded and built values):

   * nesting at most :data:`MAX_JSON_DEPTH` levels (the formats need fewer than ten; deeper values
     would break recursive code further on, such as ``repr`` in a message);
   * integers of at most :data:`MAX_INT_DIGITS` digits (every count, offset and id fits in a Java
     long, 19 digits; Python refuses to even read integers of more than 4,300 digits);
   * finite numbers only: ``NaN``, ``Infinity`` and literals beyond a double (``1e400``) are
     refused (JSON has no such numbers; Python reads them silently);
   * text that can be written back as UTF-8 (no lone surrogate escape such as ``"\\ud800"``);
   * only JSON types (objects with string keys, lists, strings, numbers, booleans, null).

Cost: one ``json.loads`` and one level-by-level pass over the value made of C-level operations
(no Python loop per item); only when that pass finds a problem does a slower walk name its JSON
path. An integer too long for Python (over 4,300 digits) makes a second decode with per-number
hooks that turn refused numbers into markers, so that the walk can name their paths too.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Sequence
from itertools import chain
from typing import cast

from assignors.errors import ScenarioError
from assignors.gc_pause import paused_gc

#: The deepest nesting of lists and objects a JSON input may have.
MAX_JSON_DEPTH = 64
#: The most digits an integer in a JSON input may have.
MAX_INT_DIGITS = 100
#: The most problems one gate error lists.
MAX_PROBLEMS = 20

_UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_SURROGATE_ESCAPES = (b"\\ud", b"\\uD")
_MAX_INT = 10**MAX_INT_DIGITS - 1
_PATH_PART_CHARS = 60


class _BadNumber:
    """Stands in the decoded value for a number the gate refuses, until the walk names its path."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


_SCALARS = frozenset({str, int, float, bool, type(None)})
_JSON_TYPES = _SCALARS | {list, dict}
# C-level type tests for filter() (decoded JSON values are never subclasses of these).
_is_list = list.__instancecheck__
_is_dict = dict.__instancecheck__
_is_str = str.__instancecheck__
_is_int = int.__instancecheck__  # booleans too: harmless for the range test
_is_float = float.__instancecheck__


class JsonInputError(ScenarioError):
    """JSON input the gate refuses; ``problems`` say where (JSON path or source) and why.

    ``value`` is the decoded value when the text parsed but a value in it was refused (refused
    numbers replaced by markers), else ``None``: a caller may still read a sound part of it, such
    as a batch request's ``id``, after checking that part with :func:`check_json_value`.
    """

    def __init__(self, problems: Sequence[str], value: object = None) -> None:
        super().__init__(problems)
        self.value = value


def decode_json(data: str | bytes, source: str, *, max_bytes: int, path: str = "") -> object:
    """The JSON value of ``data`` (steps 1-3 of the module docstring).

    ``source`` names the input in messages about the text as a whole (a file name, "line 3");
    ``path`` is the JSON path of the value's root in messages about a place inside it (``""``
    for paths such as ``topics[0].partitions``). Raises :class:`JsonInputError`, nothing else.
    """
    if isinstance(data, str):
        if len(data) > max_bytes:  # each character is at least one byte
            raise JsonInputError([too_large_message(source, len(data), max_bytes)])
        raw = data.encode("utf-8", "surrogatepass")
    else:
        raw = data
    if len(raw) > max_bytes:
        raise JsonInputError([too_large_message(source, len(raw), max_bytes)])
    text = _text(raw, source)
    if not text.strip():
        raise JsonInputError([f"{source}: empty; expected a JSON object"])
    try:
        with paused_gc():  # decoding makes containers only, no cycles
            value = json.loads(text, parse_constant=_constant)
    except json.JSONDecodeError as error:
        raise JsonInputError([_syntax(source, error)]) from None
    except RecursionError:
        raise JsonInputError([_nested(source)]) from None
    except ValueError:  # Python refused an integer of over 4,300 digits: decode again to find it
        value = _decode_with_hooks(text, source)
    # Only an escape can put a lone surrogate into decoded text: check the strings only then.
    strings = any(escape in raw for escape in _SURROGATE_ESCAPES)
    _raise_problems(value, path, strings=strings)
    return value


def check_json_value(value: object, path: str = "") -> None:
    """Raise :class:`JsonInputError` listing where ``value`` breaks step 3 of the module docstring.

    For values built from the outside world (a cluster's answers, table rows) rather than decoded
    from text. ``path`` is the JSON path of ``value`` itself (``""``: the root of a document).
    """
    _raise_problems(value, path, strings=True)


def too_large_message(source: str, size: int, max_bytes: int) -> str:
    """How a text over the size limit is refused (also used before reading a file)."""
    return (
        f"{source}: {size / 2**20:,.1f} MiB of JSON; scenarios are limited to"
        f" {max_bytes / 2**20:,.0f} MiB (a 100,000-partition snapshot is about 10 MiB; the"
        " compact form writes runs of partitions in far less: docs/scenario-format.md)"
    )


def _raise_problems(value: object, path: str, *, strings: bool) -> None:
    if _quick_ok(value, strings=strings):
        return
    problems = list(_problems(value, path))
    if problems:  # the walk checks every string, so it may find nothing the quick pass feared
        raise JsonInputError(problems, value)


def _text(raw: bytes, source: str) -> str:
    if raw.startswith(_UTF8_BOM):
        raw = raw[len(_UTF8_BOM) :]
    if raw.startswith(_UTF16_BOMS):
        raise JsonInputError([f"{source}: UTF-16 text; save the file as UTF-8 and try again"])
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise JsonInputError(
            [
                f"{source}: not UTF-8 text (byte 0x{raw[error.start]:02x} on line {line:,} is not"
                " part of a UTF-8 character); save the file as UTF-8"
            ]
        ) from None


def _syntax(source: str, error: json.JSONDecodeError) -> str:
    return f"{source}: not valid JSON: {error.msg} at line {error.lineno} column {error.colno}"


def _nested(source: str) -> str:
    return f"{source}: not valid JSON: nested deeper than {MAX_JSON_DEPTH} levels"


def _constant(name: str) -> _BadNumber:
    return _BadNumber(f"{name} is not a JSON number (JSON has no NaN or Infinity); write a number")


def _integer(digits: str) -> int | _BadNumber:
    count = len(digits.lstrip("-"))
    if count > MAX_INT_DIGITS:
        return _BadNumber(
            f"an integer of {count:,} digits; numbers here have at most {MAX_INT_DIGITS} digits"
        )
    return int(digits)


def _decode_with_hooks(text: str, source: str) -> object:
    """The slow decode: every integer through a hook that turns refused ones into markers."""
    try:
        return json.loads(text, parse_int=_integer, parse_constant=_constant)
    except json.JSONDecodeError as error:
        raise JsonInputError([_syntax(source, error)]) from None
    except RecursionError:
        raise JsonInputError([_nested(source)]) from None
    except ValueError as error:  # pragma: no cover - the hook reads every integer Python would
        raise JsonInputError([f"{source}: not valid JSON: {error}"]) from None


def _quick_ok(value: object, *, strings: bool) -> bool:
    """Whether ``value`` passes step 3, decided level by level with C-level passes only.

    Says nothing about where a problem is: on ``False`` :func:`_problems` walks to name it.
    ``strings=False`` skips the lone-surrogate test (text decoded without a surrogate escape).
    """
    items: list[object] = [value]
    for level in range(MAX_JSON_DEPTH + 1):
        kinds = set(map(type, items))
        if not kinds <= _JSON_TYPES or not _numbers_ok(items, kinds):
            return False
        if strings and str in kinds and not _texts_ok(cast("list[str]", _only(_is_str, items))):
            return False
        dicts = cast("list[dict[object, object]]", _only(_is_dict, items) if dict in kinds else [])
        lists = cast("list[list[object]]", _only(_is_list, items) if list in kinds else [])
        if not dicts and not lists:
            return True
        if level == MAX_JSON_DEPTH:  # containers at depth MAX_JSON_DEPTH + 1
            return False
        if dicts:
            keys: list[object] = list(chain.from_iterable(dicts))
            if not set(map(type, keys)) <= {str}:
                return False
            if strings and not _texts_ok(cast("list[str]", keys)):
                return False
        items = list(
            chain(chain.from_iterable(lists), chain.from_iterable(map(dict.values, dicts)))
        )
    return False  # pragma: no cover - the loop returns at the last level


def _only(test: Callable[[object], bool], items: list[object]) -> list[object]:
    """The items ``test`` accepts (a C-level filter when ``test`` is a type's instance check)."""
    return list(filter(test, items))


def _numbers_ok(items: list[object], kinds: set[type]) -> bool:
    if int in kinds:
        integers = list(filter(_is_int, items)) if len(kinds) > 1 else items
        if max(integers) > _MAX_INT or min(integers) < -_MAX_INT:  # type: ignore[type-var]
            return False
    return float not in kinds or all(map(math.isfinite, filter(_is_float, items)))  # type: ignore[arg-type]


def _texts_ok(texts: list[str]) -> bool:
    return all(map(str.isascii, texts)) or all(map(_utf8_safe, texts))


def _utf8_safe(text: str) -> bool:
    """Whether ``text`` can be written as UTF-8 (no lone surrogate)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _scalar_problem(item: object) -> str | None:
    """Why a non-container item breaks step 3, or ``None`` when it is fine."""
    if isinstance(item, _BadNumber):
        return item.reason
    if type(item) is str:
        if _utf8_safe(item):
            return None
        return "text with a lone surrogate escape (\\ud800-\\udfff), not valid Unicode"
    if type(item) is int:
        if -_MAX_INT <= item <= _MAX_INT:
            return None
        return f"an integer of more than {MAX_INT_DIGITS} digits"
    if type(item) is float:
        if math.isfinite(item):
            return None
        if math.isnan(item):
            return "NaN is not a JSON number (JSON has no NaN or Infinity); write a number"
        return "a number beyond the largest a double holds (about 1.8e308)"
    if type(item) is bool or item is None:
        return None
    return f"not a JSON value (a Python {type(item).__name__})"


def _shorten(path: str) -> str:
    return path if len(path) <= 100 else f"{path[:60]}...{path[-30:]}"


def _join(path: str, key: object) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    name = str(key)
    if len(name) > _PATH_PART_CHARS:
        name = name[:_PATH_PART_CHARS] + "..."
    if not name.isprintable():  # a key holding a line break must not break the message's line
        name = name.encode("unicode_escape", "backslashreplace").decode("ascii")
    return f"{path}.{name}" if path else name


def _problems(value: object, root: str) -> Iterator[str]:
    """Each problem of step 3, ``"<path>: <why>"``, at most :data:`MAX_PROBLEMS` of them.

    Iterative (a stack, no recursion); runs only after :func:`_quick_ok` found something.
    """
    found = 0
    where = root or "(the document)"
    if type(value) not in (list, dict):
        reason = _scalar_problem(value)
        if reason is not None:
            yield f"{where}: {reason}"
        return
    stack: list[tuple[object, str, int]] = [(value, root, 1)]
    while stack and found < MAX_PROBLEMS:
        node, path, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            found += 1
            yield f"{_shorten(path) or where}: nested deeper than {MAX_JSON_DEPTH} levels"
            continue
        items: Iterator[tuple[object, object]]
        if isinstance(node, dict):
            for key in node:
                if type(key) is not str:
                    found += 1
                    yield f"{path or where}: an object key that is not text ({key!r:.40})"
                elif not _utf8_safe(key):
                    found += 1
                    yield f"{path or where}: an object key with a lone surrogate escape"
            items = iter(node.items())
        else:
            items = enumerate(node)  # type: ignore[arg-type]
        for key, child in items:
            if type(child) is list or type(child) is dict:
                stack.append((child, _join(path, key), depth + 1))
                continue
            reason = _scalar_problem(child)
            if reason is not None:
                found += 1
                yield f"{_shorten(_join(path, key))}: {reason}"
                if found >= MAX_PROBLEMS:
                    return

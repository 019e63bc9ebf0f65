"""The batch contract: JSON lines in, one JSON line out per line in, in order.

Input line: ``{"id": ..., "strategy": NAME, "scenario": SCENARIO}`` (other keys, such as a
conformance case's ``expected``, are ignored). Output line, flushed at once:

* ``{"id": ..., "assignment": {member_id: [[topic, partition], ...], ...}}`` listing every
  member (plus ``"warnings": [...]`` when the scenario holds claims Kafka would ignore), or for a
  task strategy ``{"id": ..., "assignment": {"clients": {...}, "probing_rebalance_needed": ...}}``;
* ``{"id": ..., "error": "<what is wrong and where>"}`` for a line that cannot be answered.

Invariants: exactly one output line per input line (blank lines included); no traceback ever
reaches the output; a bad line never stops the batch; one line is read with a bounded buffer
(:data:`MAX_LINE_BYTES`), so memory stays bounded whatever the input; every line passes the JSON
gate (:func:`assignors.io.json_safe.decode_json`: a byte-order mark accepted, huge integers, NaN,
deep nesting and bad UTF-8 answered with their JSON path), and a refused line's ``id`` is echoed
when the id itself is sound.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import IO, Any

from assignors import registry
from assignors.errors import AssignmentExplorerError
from assignors.io.json_checks import type_name
from assignors.io.json_safe import JsonInputError, check_json_value, decode_json
from assignors.io.scenario import parse_scenario
from assignors.strategy import PartitionStrategy

#: The longest input line the batch reads (bytes); a longer line gets an error answer.
MAX_LINE_BYTES = 256 * 1024 * 1024
_CHUNK = 1024 * 1024


def read_lines(stream: IO[bytes], max_bytes: int = MAX_LINE_BYTES) -> Iterator[bytes | None]:
    """Yield each line of ``stream`` without its newline; ``None`` for a line over ``max_bytes``.

    An over-long line is read and discarded in chunks, never held whole.
    """
    while True:
        line = stream.readline(max_bytes + 1)
        if not line:
            return
        if len(line) > max_bytes and not line.endswith(b"\n"):
            while True:
                rest = stream.readline(_CHUNK)
                if not rest or rest.endswith(b"\n"):
                    break
            yield None
            continue
        yield line.rstrip(b"\r\n")


def answer_line(line: bytes | None, line_number: int) -> dict[str, Any]:
    """The answer object for one input line (never raises for bad input)."""
    if line is None:
        return _error(None, f"line {line_number}: longer than {MAX_LINE_BYTES // 2**20} MiB")
    if not line.strip():
        return _error(None, f"line {line_number}: empty line; expected a JSON object")
    try:
        request = decode_json(line, f"line {line_number}", max_bytes=MAX_LINE_BYTES)
    except JsonInputError as error:
        return _error(_clean_id(error.value), str(error))
    if not isinstance(request, dict):
        return _error(
            None,
            f"line {line_number}: expected a JSON object (a request), got {type_name(request)}",
        )
    case_id = request.get("id")
    try:
        return {"id": case_id, **answer_request(request)}
    except AssignmentExplorerError as error:
        return _error(case_id, str(error))
    except MemoryError:
        return _error(case_id, "out of memory while answering this line; the scenario is too large")
    except Exception as error:  # a bug of ours must not end the batch or leak a traceback
        return _error(
            case_id, f"internal error ({type(error).__name__}: {error}); please report it"
        )


def answer_request(request: dict[str, Any]) -> dict[str, Any]:
    """``{"assignment": ...}`` (and ``"warnings"``) for a parsed request object."""
    if "strategy" not in request:
        raise _RequestError('strategy: missing; expected a strategy name such as "range"')
    strategy = registry.get(request["strategy"])
    if "scenario" not in request:
        raise _RequestError("scenario: missing; expected a scenario object")
    raw = request["scenario"]
    if isinstance(strategy, PartitionStrategy):
        scenario, warnings = parse_scenario(raw, path="", json_checked=True)
        assignment = strategy.assign(scenario, warnings)
        result: dict[str, Any] = {"assignment": assignment.to_json()}
        if assignment.warnings:
            result["warnings"] = list(assignment.warnings)
        return result
    parsed = strategy.parse(raw)
    return {"assignment": strategy.to_json(strategy.answer(parsed))}


def _clean_id(request: object) -> object:
    """The ``id`` of a request the gate refused, when that id itself passes the gate."""
    if not isinstance(request, dict) or "id" not in request:
        return None
    try:
        check_json_value(request["id"], "id")
    except JsonInputError:
        return None
    return request["id"]


class _RequestError(AssignmentExplorerError):
    """A request line that lacks what the contract requires."""


def _error(case_id: object, message: str) -> dict[str, Any]:
    return {"id": case_id, "error": message}


#: Characters that some line readers (Python's ``str.splitlines``, JavaScript) take for a line
#: break: escaped in answers, so that one answer is one line under every convention.
_LINE_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def answer_text(answer: dict[str, Any]) -> str:
    """One answer as one line of JSON (non-ASCII kept, Unicode line breaks escaped)."""
    return json.dumps(answer, ensure_ascii=False).translate(_LINE_BREAKS)


def run_batch(source: IO[bytes], sink: IO[str]) -> int:
    """Answer every line of ``source`` on ``sink``; return how many lines were answered."""
    count = 0
    for count, line in enumerate(read_lines(source), start=1):
        answer = answer_line(line, count)
        sink.write(answer_text(answer) + "\n")
        sink.flush()
    return count

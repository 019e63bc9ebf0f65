"""The pipeline's input tables and the checks every job runs on them first.

Two tables (full description in ``docs/pipeline.md``), Parquet or JSON lines:

* **offsets**: one row per (``time``, ``cluster``, ``group_id``, ``topic``, ``partition``) with
  ``log_start``, ``log_end``, ``committed`` (null: no commit) and the owning member
  (``member_id``, ``client_id``, ``host``; null: nobody owns the partition).
* **members**: one row per (``time``, ``cluster``, ``group_id``, ``member_id``) with
  ``client_id``, ``host``, ``rack``, ``group_instance_id``, ``topics`` (the subscription, a list
  of strings) and ``assignor`` (the group's chosen strategy, e.g. ``range``).

Checks, in order:

1. A table that lacks a required column is refused with :class:`SnapshotFormatError` naming the
   missing and the present columns (nothing runs).
2. Rows are never dropped. A row whose offsets cannot be right is *flagged*: its ``problem``
   column says why (:data:`PROBLEM_RULES`), in the order below, first match wins:
   a missing ``log_end``; a negative offset; ``log_start`` beyond ``log_end``; ``committed``
   beyond ``log_end`` (a truncated log: the lag rule still defines lag 0, so the row keeps a lag).
   A flagged row other than the last kind has a null lag.

Invariant: every job's output accounts for every input group: ``groups in = groups computed +
groups flagged`` (the summary prints the three counts).
"""

from __future__ import annotations

from typing import Any

from assignors import AssignmentExplorerError

#: The offsets table: column -> Spark SQL type.
OFFSET_COLUMNS: dict[str, str] = {
    "time": "timestamp",
    "cluster": "string",
    "group_id": "string",
    "topic": "string",
    "partition": "int",
    "log_start": "bigint",
    "log_end": "bigint",
    "committed": "bigint",
    "member_id": "string",
    "client_id": "string",
    "host": "string",
}
#: Offsets columns that may be absent from a file (filled with nulls).
OFFSET_OPTIONAL = frozenset({"log_start", "client_id", "host"})

#: The members table: column -> Spark SQL type.
MEMBER_COLUMNS: dict[str, str] = {
    "time": "timestamp",
    "cluster": "string",
    "group_id": "string",
    "member_id": "string",
    "client_id": "string",
    "host": "string",
    "rack": "string",
    "group_instance_id": "string",
    "topics": "array<string>",
    "assignor": "string",
}
MEMBER_OPTIONAL = frozenset({"client_id", "host", "rack", "group_instance_id", "assignor"})

#: Problems a row can be flagged with, in the order they are tested.
PROBLEM_RULES: tuple[str, ...] = (
    "log_end missing",
    "negative offset",
    "log_start beyond log_end",
    "committed beyond log_end (log truncated?): lag counted as 0",
)
#: The one problem that keeps a lag (the lag rules define it).
PROBLEM_WITH_LAG = PROBLEM_RULES[3]


class SnapshotFormatError(AssignmentExplorerError, ValueError):
    """An input table that the pipeline cannot read; the message names what to fix."""


def arrow_schema(columns: dict[str, str]) -> Any:
    """The Arrow schema (``pyarrow.Schema``) of a row contract (name -> Spark SQL type)."""
    import pyarrow as pa

    types = {
        "bigint": pa.int64(),
        "int": pa.int32(),
        "double": pa.float64(),
        "string": pa.string(),
        "timestamp": pa.timestamp("us", tz="UTC"),
    }
    return pa.schema([(name, types[kind]) for name, kind in columns.items()])


def ddl(columns: dict[str, str]) -> str:
    """``name type, ...`` for Spark's schema strings (names :func:`quoted`)."""
    return ", ".join(f"{quoted(name)} {kind}" for name, kind in columns.items())


def quoted(name: str) -> str:
    """``name`` as a Spark SQL identifier: in backticks, a backtick in it doubled."""
    return "`" + name.replace("`", "``") + "`"


def check_columns(present: list[str], table: str, path: Any = None) -> list[str]:
    """The optional columns missing from ``present``; raises when a required one is missing."""
    expected = OFFSET_COLUMNS if table == "offsets" else MEMBER_COLUMNS
    optional = OFFSET_OPTIONAL if table == "offsets" else MEMBER_OPTIONAL
    missing_required = [c for c in expected if c not in present and c not in optional]
    if missing_required:
        where = f" ({path})" if path else ""
        raise SnapshotFormatError(
            f"the {table} table{where} lacks the column(s) {', '.join(missing_required)};"
            f" it has {', '.join(sorted(present)) or 'no columns'}. See docs/pipeline.md for"
            " the format."
        )
    return [c for c in expected if c not in present]

"""Small input tables for the pipeline tests, written as rows of plain values."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pipeline import tables
from pipeline.schema import MEMBER_COLUMNS, OFFSET_COLUMNS, ddl

T0 = 1_767_571_200  # 2026-01-05T00:00:00Z


def when(t: int) -> datetime:
    return datetime.fromtimestamp(t, UTC)


def offsets_rows(spark: Any, rows: list[dict[str, Any]], auto_offset_reset: str = "latest") -> Any:
    """Prepared offsets from rows with ``t`` (epoch s) and any offsets columns."""
    full = [
        tuple(when(row["t"]) if name == "time" else row.get(name) for name in OFFSET_COLUMNS)
        for row in rows
    ]
    frame = spark.createDataFrame(full, ddl(OFFSET_COLUMNS))
    return tables.prepare_offsets(tables.conform(frame, "offsets"), auto_offset_reset)


def members_rows(spark: Any, rows: list[dict[str, Any]]) -> Any:
    """Prepared members from rows with ``t`` (epoch s) and any members columns."""
    full = [
        tuple(when(row["t"]) if name == "time" else row.get(name) for name in MEMBER_COLUMNS)
        for row in rows
    ]
    frame = spark.createDataFrame(full, ddl(MEMBER_COLUMNS))
    return tables.prepare_members(tables.conform(frame, "members"))


def partition(
    t: int,
    group: str,
    topic: str,
    p: int,
    end: int,
    committed: int | None,
    owner: str | None,
    start: int = 0,
    cluster: str = "c1",
) -> dict[str, Any]:
    return {
        "t": t,
        "cluster": cluster,
        "group_id": group,
        "topic": topic,
        "partition": p,
        "log_start": start,
        "log_end": end,
        "committed": committed,
        "member_id": owner,
    }


def member(
    t: int,
    group: str,
    member_id: str,
    topics: list[str],
    assignor: str = "range",
    cluster: str = "c1",
    rack: str | None = None,
) -> dict[str, Any]:
    return {
        "t": t,
        "cluster": cluster,
        "group_id": group,
        "member_id": member_id,
        "topics": topics,
        "assignor": assignor,
        "rack": rack,
    }

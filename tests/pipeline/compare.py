"""Comparing two runs' output tables row by row (floats to 1e-9 relative)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

#: Output tables of each job and the columns that identify a row.
OUTPUTS: dict[str, dict[str, list[str]]] = {
    "lag": {
        "partition_lag": ["cluster", "group_id", "topic", "partition", "t"],
        "member_lag": ["cluster", "group_id", "t", "member_id"],
        "group_lag": ["cluster", "group_id", "t"],
        "partition_health": ["cluster", "group_id", "topic", "partition"],
        "group_health": ["cluster", "group_id"],
    },
    "whatif": {"whatif": ["cluster", "group_id", "strategy", "change"]},
    "replay": {
        "replay_members": ["cluster", "group_id", "strategy", "t", "member_id"],
        "replay_worst": ["cluster", "group_id", "strategy", "t"],
        "replay_summary": ["cluster", "group_id", "strategy"],
    },
}


def _same(left: Any, right: Any) -> bool:
    if pd.isna(left) is True and pd.isna(right) is True:
        return True
    if isinstance(left, float) and isinstance(right, float):
        return math.isclose(left, right, rel_tol=1e-9, abs_tol=0.0)
    return bool(left == right)


def assert_same_tables(job: str, expected_dir: Path, actual_dir: Path) -> int:
    """Every output table of ``job`` under both directories: the same columns and rows (floats
    to 1e-9 relative), whatever the row order; returns the number of rows compared."""
    compared = 0
    for table, keys in OUTPUTS[job].items():
        local = pd.read_parquet(expected_dir / table).sort_values(keys, ignore_index=True)
        remote = pd.read_parquet(actual_dir / table).sort_values(keys, ignore_index=True)
        assert list(remote.columns) == list(local.columns), table
        assert len(remote) == len(local) > 0, table
        assert not local.duplicated(keys).any(), f"{table}: {keys} do not identify a row"
        for column in local.columns:
            pairs = zip(local[column], remote[column], strict=True)
            bad = [i for i, (a, b) in enumerate(pairs) if not _same(a, b)]
            assert not bad, (
                f"{job}/{table}.{column}: {len(bad)} of {len(local)} rows differ, first:"
                f"\n{local.iloc[bad[0]].to_dict()}\n{remote.iloc[bad[0]].to_dict()}"
            )
        compared += len(local)
    return compared

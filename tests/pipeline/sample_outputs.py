"""The pipeline's outputs for the sample offset history, laid out as ``python -m pipeline`` does.

Import this only where pyspark is installed (the pipeline modules import it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipeline import lag_history, tables, whatif

SAMPLE_HISTORY = Path(__file__).resolve().parents[2] / "sample_data" / "history"


def write_sample_outputs(spark: Any, root: Path) -> None:
    """Write ``lag/*`` and ``whatif/whatif`` (range and cooperative-sticky) under ``root``."""
    offsets = tables.prepare_offsets(
        tables.read_table(spark, str(SAMPLE_HISTORY / "offsets"), "offsets")
    )
    members = tables.prepare_members(
        tables.read_table(spark, str(SAMPLE_HISTORY / "members"), "members")
    )
    partitions = lag_history.partition_history(offsets)
    partitions.write.parquet(str(root / "lag" / "partition_lag"))
    member_lag = lag_history.member_history(partitions)
    member_lag.write.parquet(str(root / "lag" / "member_lag"))
    lag_history.group_history(member_lag).write.parquet(str(root / "lag" / "group_lag"))
    statuses, verdicts = lag_history.health(partitions)
    statuses.write.parquet(str(root / "lag" / "partition_health"))
    verdicts.write.parquet(str(root / "lag" / "group_health"))
    rows = whatif.fleet_whatif(offsets, members, strategies=["range", "cooperative-sticky"])
    rows.write.parquet(str(root / "whatif" / "whatif"))

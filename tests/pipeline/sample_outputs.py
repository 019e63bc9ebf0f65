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
    lag_history.write_lag_history(offsets, root / "lag")
    rows = whatif.fleet_whatif(offsets, members, strategies=["range", "cooperative-sticky"])
    rows.write.parquet(str(root / "whatif" / "whatif"))

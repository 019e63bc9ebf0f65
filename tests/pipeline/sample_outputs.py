"""The pipeline's outputs for the sample offset history, laid out as ``python -m pipeline`` does.

Import this only where pyspark is installed (the pipeline modules import it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipeline import lag_history, tables, whatif

SAMPLE_HISTORY = Path(__file__).resolve().parents[2] / "sample_data" / "history"
#: The tests' Spark settings: two local cores, few shuffle partitions, no UI.
TEST_CONF = {
    "spark.sql.shuffle.partitions": "2",
    "spark.default.parallelism": "2",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
}


def spark_for_tests(app_name: str) -> Any:
    """A local Spark session with :data:`TEST_CONF`, logging errors only."""
    from pipeline.session import get_session

    session = get_session("local[2]", app_name=app_name, conf=TEST_CONF)
    session.sparkContext.setLogLevel("ERROR")
    return session


def sample_tables(root: Path, app_name: str, *, replay: bool = False) -> Path:
    """:func:`write_sample_outputs` under ``root`` in a session of its own (stopped after), and
    with ``replay`` the replay table too (``root/replay``); returns ``root``."""
    from pipeline.__main__ import _parser, run_replay

    spark = spark_for_tests(app_name)
    try:
        write_sample_outputs(spark, root)
        if replay:
            argv = ["replay", "--input", str(SAMPLE_HISTORY), "--output", str(root / "replay")]
            run_replay(spark, _parser().parse_args(argv))
    finally:
        spark.stop()
    return root


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

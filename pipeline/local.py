"""One group from the snapshot tables, without Spark: for the dashboard's "open in explorer".

:func:`group_scenario` reads only the group's rows (a Parquet filter), takes its latest sample
``<= at`` and the one before, derives ``lag`` (:func:`assignors.simulate.lag.partition_lag`, per
row) and the produce and consume rates as the Spark jobs do, and rebuilds the Scenario with
:func:`pipeline.scenarios.scenario_from_frames`: the scenario the fleet what-if used.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from assignors import Scenario, partition_lag
from pipeline.scenarios import GroupDataError, scenario_from_frames


def _read(path: Path, cluster: str, group_id: str) -> pd.DataFrame:
    if (path.is_dir() and any(path.rglob("*.json*"))) or path.suffix in (".jsonl", ".json"):
        files = [path] if path.is_file() else sorted(path.rglob("*.json*"))
        frame = pd.concat([pd.read_json(f, lines=True) for f in files], ignore_index=True)
        frame["time"] = pd.to_datetime(frame["time"], utc=True)
    else:
        filters = [("cluster", "==", cluster), ("group_id", "==", group_id)]
        frame = pd.read_parquet(path, filters=filters)
    frame = frame[(frame["cluster"] == cluster) & (frame["group_id"] == group_id)].copy()
    for column in frame.columns:
        if isinstance(frame[column].dtype, pd.CategoricalDtype):
            frame[column] = frame[column].astype(object)
    epoch = pd.Timestamp(0, tz="UTC")
    frame["t"] = ((frame["time"] - epoch) // pd.Timedelta(seconds=1)).astype("int64")
    return frame


def group_frames(
    input_dir: str | Path, cluster: str, group_id: str, at: int | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(offsets rows with lag and rates, members rows) of the group at its latest sample."""
    root = Path(input_dir)
    offsets = _read(root / "offsets", cluster, group_id)
    members = _read(root / "members", cluster, group_id)
    if offsets.empty and members.empty:
        raise GroupDataError(f"no rows for group {group_id!r} on {cluster!r} in {root}")
    times = sorted(set(offsets["t"]) | set(members["t"]))
    if at is not None:
        times = [t for t in times if t <= at]
    if not times:
        raise GroupDataError(f"group {group_id!r} has no sample at or before {at}")
    latest = times[-1]
    previous = times[-2] if len(times) > 1 else None
    now = offsets[offsets["t"] == latest].copy()
    now["lag"] = [
        partition_lag(int(end), None if pd.isna(c) else int(c), None, "latest")
        for end, c in zip(now["log_end"], now["committed"], strict=True)
    ]
    now["produce_rate"] = None
    now["consume_rate"] = None
    if previous is not None:
        before = offsets[offsets["t"] == previous].set_index(["topic", "partition"])
        keys = list(zip(now["topic"], now["partition"], strict=True))
        seconds = latest - previous
        ends = before["log_end"].reindex(keys).to_numpy()
        commits = before["committed"].reindex(keys).to_numpy()
        now["produce_rate"] = (now["log_end"].to_numpy() - ends) / seconds
        now["consume_rate"] = (now["committed"].to_numpy() - commits) / seconds
    return now, members[members["t"] == latest]


def group_scenario(
    input_dir: str | Path, cluster: str, group_id: str, at: int | None = None
) -> tuple[Scenario, tuple[str, ...]]:
    """The group's Scenario as the fleet what-if built it, and the loader's warnings."""
    offsets, members = group_frames(input_dir, cluster, group_id, at)
    scenario, warnings, _ = scenario_from_frames(
        offsets, members, cluster=cluster, group_id=group_id
    )
    return scenario, warnings

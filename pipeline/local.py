"""One group from the snapshot tables, without Spark: for the dashboard's "open in explorer".

:func:`group_scenario` reads only the group's rows (a Parquet filter), takes its latest sample
``<= at`` and the one before, derives ``lag`` (:func:`assignors.simulate.lag.partition_lag`, per
row) and the produce and consume rates as the Spark jobs do, and rebuilds the Scenario with
:func:`pipeline.scenarios.scenario_from_frames`: the scenario the fleet what-if used.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd

from assignors import AssignmentExplorerError, Scenario, decode_json, partition_lag
from pipeline.scenarios import GroupDataError, scenario_from_frames
from pipeline.schema import check_columns

#: The longest JSON line the local reader accepts (one snapshot row is a few hundred bytes).
MAX_ROW_BYTES = 1024 * 1024


def _json_lines(files: list[Path]) -> pd.DataFrame:
    """Rows of JSON lines files, each line through the core's JSON gate (one object a line)."""
    records: list[object] = []
    for file in files:
        for number, line in enumerate(file.read_bytes().splitlines(), start=1):
            if not line.strip():
                continue
            value = decode_json(line, f"{file} line {number}", max_bytes=MAX_ROW_BYTES)
            if not isinstance(value, dict):
                raise GroupDataError(f"{file} line {number}: expected a JSON object (one row)")
            records.append(value)
    return pd.DataFrame.from_records(records)


def _times(column: pd.Series) -> pd.Series:
    """A JSON column of times as UTC timestamps, element by element (rows may mix forms; one
    that is not a time becomes NaT). pandas warns that it parses each element on its own when
    the rows share no format (what is meant here), and that a number among strings may read
    differently in pandas 4; the tests (``tests/pipeline/test_gate_rows.py``) hold today's
    reading, so neither warning is shown."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Could not infer format", UserWarning)
        warnings.filterwarnings("ignore", "Parsing integer or float values")
        return pd.to_datetime(column, utc=True, errors="coerce")


def _read(path: Path, cluster: str, group_id: str, table: str) -> pd.DataFrame:
    """One table's rows of the group; unreadable input is a :class:`GroupDataError` or a
    :class:`~pipeline.schema.SnapshotFormatError` naming the file, never pandas' own error."""
    try:
        if (path.is_dir() and any(path.rglob("*.json*"))) or path.suffix in (".jsonl", ".json"):
            files = [path] if path.is_file() else sorted(path.rglob("*.json*"))
            frame = _json_lines(files)
            for column in check_columns(list(frame.columns), table, path):
                frame[column] = None  # an optional column absent: nulls, as Spark's reader does
            frame["time"] = _times(frame["time"])
        else:
            filters = [("cluster", "==", cluster), ("group_id", "==", group_id)]
            frame = pd.read_parquet(path, filters=filters)
            for column in check_columns(list(frame.columns), table, path):
                frame[column] = None
        if frame["time"].isna().any():
            raise GroupDataError(f"{path}: a row's time is missing or not a time")
        frame = frame[(frame["cluster"] == cluster) & (frame["group_id"] == group_id)].copy()
        for column in frame.columns:
            if isinstance(frame[column].dtype, pd.CategoricalDtype):
                frame[column] = frame[column].astype(object)
        epoch = pd.Timestamp(0, tz="UTC")
        frame["t"] = ((frame["time"] - epoch) // pd.Timedelta(seconds=1)).astype("int64")
    except AssignmentExplorerError:
        raise
    except (OSError, ValueError, TypeError, KeyError, OverflowError) as error:
        raise GroupDataError(f"{path}: cannot read the {table} table ({error})") from None
    return frame


def group_frames(
    input_dir: str | Path, cluster: str, group_id: str, at: int | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(offsets rows with lag and rates, members rows) of the group at its latest sample."""
    root = Path(input_dir)
    offsets = _read(root / "offsets", cluster, group_id, "offsets")
    members = _read(root / "members", cluster, group_id, "members")
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
    """The group's Scenario as the fleet what-if built it, and the loader's warnings.

    Raises the project's errors only: rows that cannot form a scenario (a cell of the wrong
    kind, say) are a :class:`GroupDataError` naming the group.
    """
    try:
        offsets, members = group_frames(input_dir, cluster, group_id, at)
        scenario, warnings, _ = scenario_from_frames(
            offsets, members, cluster=cluster, group_id=group_id
        )
    except AssignmentExplorerError:
        raise
    except (ValueError, TypeError, KeyError, ArithmeticError) as error:
        raise GroupDataError(
            f"group {group_id!r} on {cluster!r}: its rows cannot form a scenario ({error})"
        ) from None
    return scenario, warnings

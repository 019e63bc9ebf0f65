"""The "History" view: lag over time per member and group, and the health verdicts.

``render(dataset)`` draws the view from the directories that ``python -m pipeline lag --output
OUT/lag`` (and optionally ``replay --output OUT/replay``) wrote into the output of the pipeline
dataset picked by name (:mod:`dashboard.panels.dataset_picker`; no page shows its path). Reading
is behind ``st.cache_data`` keyed by the path and its modification time; figures come from
:mod:`dashboard.charts.pipeline_charts`.

1. Verdict counts, and under them the verdict table at full width, worst first (ERR, WARN,
   NOTFOUND, OK).
2. A group picker (worst first): that group's total and worst-member lag, lag per member, and
   its partitions' statuses with the rule that fired.
3. With replay output: the worst member's lag under each strategy, and the summary rows.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from dashboard.charts import pipeline_charts
from dashboard.model.operator_file import DatasetEntry
from dashboard.model.plain import INFO_ICON, escape_markdown
from dashboard.panels import dataset_picker, tables
from dashboard.panels.layout import from_address, page_address

LAG_TABLES = ("group_health", "partition_health", "group_lag")


def _stamp(path: Path) -> float:
    return max((p.stat().st_mtime for p in path.rglob("*")), default=0.0) if path.exists() else 0.0


@st.cache_data(show_spinner="Reading the pipeline output…", max_entries=16)
def read_table(path: str, _stamp: float, group_id: str | None = None) -> pd.DataFrame:
    """A Parquet output directory as a frame (only ``group_id``'s rows when given)."""
    filters = [("group_id", "==", group_id)] if group_id else None
    frame = pd.read_parquet(path, filters=filters)
    for column in frame.columns:
        if isinstance(frame[column].dtype, pd.CategoricalDtype):
            frame[column] = frame[column].astype(object)
    return frame


def _table(root: Path, name: str, group_id: str | None = None) -> pd.DataFrame | None:
    path = root / name
    if not path.exists():
        return None
    return read_table(str(path), _stamp(path), group_id)


#: The History page's own query parameter: the group picked (the address bar carries it).
GROUP_PARAM = "history_group"
_GROUP = "history.group"


#: Columns that name the group picked on the page (left out of its per-group tables).
_PICKED = ("cluster", "group_id")


def render(dataset: DatasetEntry) -> dict[str, str]:
    """Steps 1-3 of the module docstring; returns the page's own query parameters (the group
    picked)."""
    root = Path(dataset.output) / "lag"
    replay_output = Path(dataset.output) / "replay"
    missing = [name for name in LAG_TABLES if not (root / name).exists()]
    if missing:
        st.info(
            escape_markdown(f"No lag history yet (missing {', '.join(missing)}). ")
            + dataset_picker.missing_tables_markdown("lag", dataset),
            icon=INFO_ICON,
        )
        return {}
    verdicts = _table(root, "group_health")
    assert verdicts is not None
    st.subheader("Health")
    # The counts in a third of the width; the table under them at full width (beside them, in
    # two thirds, its right-hand columns were scrolled out of sight at 1280 px).
    left, _ = st.columns([1, 2])
    left.plotly_chart(pipeline_charts.verdict_counts_figure(verdicts), width="stretch")
    table = pipeline_charts.verdict_table(verdicts)
    tables.show(table, height=260)
    if table.empty:
        return {}
    labels = {str(r.group_id): f"{r.group_id} · {r.status}" for r in table.itertuples(index=False)}
    from_address(_GROUP, GROUP_PARAM, list(labels))
    picked = st.selectbox("Group", list(labels), format_func=labels.__getitem__, key=_GROUP)
    group_id = str(picked)
    group_lag = _table(root, "group_lag", group_id)
    member_lag = _table(root, "member_lag", group_id)
    if group_lag is not None:
        st.plotly_chart(pipeline_charts.group_lag_figure(group_lag, [group_id]), width="stretch")
    if member_lag is not None:
        st.plotly_chart(
            pipeline_charts.member_lag_figure(member_lag, f"{group_id}: lag per member"),
            width="stretch",
        )
    statuses = _table(root, "partition_health", group_id)
    if statuses is not None:
        st.caption("Partition statuses over the health window (the first rule that holds)")
        # The group is the one picked above: its cluster and id columns would only widen the
        # grid past the page at 1280 px.
        shown = statuses.drop(columns=list(_PICKED), errors="ignore")
        tables.show(shown.sort_values(["status", "topic", "partition"]))
    if replay_output.exists():
        replay_root = replay_output
        worst = _table(replay_root, "replay_worst", group_id)
        summary = _table(replay_root, "replay_summary", group_id)
        if worst is not None and not worst.empty:
            st.subheader("Replay: which strategy kept the worst member's lag lowest")
            st.plotly_chart(pipeline_charts.replay_worst_figure(worst, group_id), width="stretch")
        if summary is not None:
            shown = summary.drop(columns=list(_PICKED), errors="ignore")
            tables.show(shown.sort_values(["peak_worst_lag", "mean_worst_lag"]))
    return {GROUP_PARAM: group_id}


def page() -> None:
    """The History page: the lag history of the pipeline dataset picked by name."""
    st.title("Assignment Explorer · History")
    dataset = dataset_picker.pick()
    if dataset is None:
        return
    st.caption(f"Lag history and health verdicts of dataset {escape_markdown(dataset.name)}.")
    page_address({dataset_picker.PARAM: dataset.name, **render(dataset)})


if __name__ == "__main__":  # run as a page of the app (st.navigation), not when imported
    page()

"""The "Fleet" view: the fleet what-if table, sortable, worst first, with a way into the explorer.

``render(whatif_output, dataset)`` draws the table that ``python -m pipeline whatif --output
OUT`` wrote (``OUT/whatif``); ``dataset`` names the pipeline dataset it belongs to, whose
snapshots rebuild a group's scenario (:func:`pipeline.local.group_scenario`) for the explorer.

Links name, never point: a link carries the dataset's name (:func:`dataset_link`), never a
directory, and a name the server does not offer is refused with the names it does. No message
holds a server path (an error reading a dataset names the dataset; the server logs the path).

1. Filters (strategy, change) and a sort column; rows worst first, flagged groups on top.
2. A scatter of the groups now (total lag against imbalance).
   The grid shows a few columns (:func:`dashboard.model.fleet.grid_columns`); the picked
   group's every figure is in a table of its own (:func:`dashboard.model.fleet.group_details`).
3. Each row links into the explorer pre-loaded with that group's scenario, in two ways:
   a link (query parameters :data:`QUERY_KEYS`, restored by :func:`restore_from_query`, which
   the app calls at start-up) and, in this session, the "Open in explorer" button, which makes
   the scenario the explorer's source (:func:`open_in_explorer`).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from assignors import AssignmentExplorerError, Scenario
from dashboard.charts import pipeline_charts
from dashboard.model import fleet, sources
from dashboard.model.column_names import header
from dashboard.model.operator_file import DatasetEntry, names_offered, without_paths
from dashboard.model.plain import ERROR_ICON, INFO_ICON, escape_markdown
from dashboard.panels import dataset_picker, source_panel, tables
from dashboard.panels.layout import from_address, page_address
from dashboard.session import settings, state
from dashboard.views import pages

#: Query parameters of a fleet link: the dataset's name, the cluster, the group, the time.
QUERY_KEYS = ("dataset", "cluster", "group", "at")
#: The parameter that named a snapshot directory before links named datasets (refused).
OLD_PATH_PARAM = "pipeline_input"
_LOG = logging.getLogger("assignment_explorer.fleet")
#: The page's own picks and their query parameters (the address bar carries them).
PAGE_PARAMS = {
    "fleet.change": "fleet_change",
    "fleet.strategy": "fleet_strategy",
    "fleet.sort": "fleet_sort",
    "fleet.group": "fleet_group",
}
SORTABLE = (
    "worst_member_lag",
    "lag_total",
    "lag_cv",
    "lag_max_min_ratio",
    "moved",
    "pause_s",
    "drain_s",
    "extra_members_to_drain",
)


def explorer_params(dataset: str, cluster: str, group_id: str, t: int | None) -> dict[str, str]:
    """The query parameters (:data:`QUERY_KEYS`) that load one group's scenario."""
    params = {"dataset": dataset, "cluster": cluster, "group": group_id}
    if t is not None:
        params["at"] = str(int(t))
    return params


def explorer_link(dataset: str, cluster: str, group_id: str, t: int | None) -> str:
    """``?dataset=...&cluster=...&group=...&at=...`` for one group's scenario."""
    return "?" + urlencode(explorer_params(dataset, cluster, group_id, t))


def refused_dataset() -> str:
    """What a link naming a dataset the server does not offer is told: the names it does (the
    link's own text is not repeated: it may be anything, a path among them)."""
    offered = [entry.name for entry in settings.datasets()]
    return (
        f"The link names a dataset this server does not offer: {names_offered('dataset', offered)}."
    )


def open_in_explorer(
    scenario: Scenario,
    warnings: tuple[str, ...],
    label: str,
    link: dict[str, str] | None = None,
) -> None:
    """Make ``scenario`` the explorer's source (the edits start over); ``link``: the query
    parameters that load it again (the address bar carries them)."""
    state.set_source(
        sources.Source(
            kind="cluster",
            label=label,
            key=sources.content_key(f"pipeline:{label}"),
            scenario=scenario,
            warnings=warnings,
            link=tuple((link or {}).items()),
        )
    )


def _load_group(dataset: str, cluster: str, group_id: str, at: int | None) -> bool:
    from pipeline.local import group_scenario

    entry = settings.dataset(dataset)
    if entry is None:
        state.report_error(refused_dataset())
        return False
    where = f"group “{escape_markdown(group_id)}” from dataset {entry.name}"
    if entry.snapshots is None:
        state.report_error(f"Could not rebuild {where}: the dataset has no snapshots configured.")
        return False
    try:
        scenario, warnings = group_scenario(entry.snapshots, cluster, group_id, at)
    except (AssignmentExplorerError, OSError, ValueError) as error:
        _LOG.warning("dataset %s (%s): %s", entry.name, entry.snapshots, error)
        reason = escape_markdown(without_paths(str(error), entry.name))
        state.report_error(f"Could not rebuild {where}: {reason}")
        return False
    open_in_explorer(
        scenario,
        warnings,
        f"pipeline snapshot of {group_id} ({cluster})",
        explorer_params(entry.name, cluster, group_id, at),
    )
    return True


def restore_from_query(params: dict[str, Any]) -> bool:
    """Load the group a fleet link names; False when the link names none (or it failed). A
    link that names a directory (:data:`OLD_PATH_PARAM`) is refused: links name datasets."""
    if params.get(OLD_PATH_PARAM):
        offered = [entry.name for entry in settings.datasets()]
        state.report_error(
            "The link names a directory on the server, which links may not do: a link names a"
            f" dataset (dataset=NAME), and {names_offered('dataset', offered)}."
        )
        return False
    if not params.get("dataset") or not params.get("group"):
        return False
    at = params.get("at")
    return _load_group(
        str(params["dataset"]),
        str(params.get("cluster") or ""),
        str(params["group"]),
        int(str(at)) if at and str(at).lstrip("-").isdigit() else None,
    )


@st.cache_data(show_spinner="Reading the what-if table…", max_entries=8)
def read_whatif(path: str, _stamp: float) -> pd.DataFrame:
    frame = pd.read_parquet(path)
    for column in frame.columns:
        if isinstance(frame[column].dtype, pd.CategoricalDtype):
            frame[column] = frame[column].astype(object)
    return frame


def render(dataset: DatasetEntry) -> bool:
    """Steps 1-3 of the module docstring; whether a group was opened for the explorer."""
    path = Path(dataset.output) / "whatif" / "whatif"
    if not path.exists():
        st.info(
            "No what-if table yet. " + dataset_picker.missing_tables_markdown("whatif", dataset),
            icon=INFO_ICON,
        )
        return False
    stamp = max((p.stat().st_mtime for p in path.rglob("*")), default=0.0)
    table = read_whatif(str(path), stamp)
    flagged = table[table["error"].notna()]["group_id"].nunique()
    groups = table["group_id"].nunique()
    st.caption(f"{groups:,} groups: {groups - flagged:,} computed, {flagged:,} flagged")
    strategies = sorted(s for s in table["strategy"].dropna().unique())
    changes = ["current", *sorted(c for c in table["change"].dropna().unique() if c != "current")]
    left, middle, right = st.columns(3)
    options = ["(all)", *strategies]
    for widget, offered in (
        ("fleet.change", changes),
        ("fleet.strategy", options),
        ("fleet.sort", SORTABLE),
    ):
        from_address(widget, PAGE_PARAMS[widget], offered)
    change = middle.selectbox("Change", changes, key="fleet.change")
    strategy = left.selectbox("Strategy", options, key="fleet.strategy")
    sort_by = right.selectbox("Worst first by", SORTABLE, key="fleet.sort", format_func=header)
    view = pipeline_charts.fleet_table(
        table,
        None if strategy == "(all)" else strategy,
        change,
        sort_by,
        missing_is_worst=fleet.missing_is_worst(sort_by),
    )
    view = view.assign(
        explorer=[
            explorer_link(dataset.name, str(r.cluster), str(r.group_id), r.t)
            for r in view.itertuples(index=False)
        ]
    )
    # The grid shows few enough columns to read whole at 1280 px; a group's other figures are in
    # its details below.
    view = fleet.with_flag(view)
    shown = fleet.grid_view(view)[fleet.grid_columns(list(view.columns), sort_by)]
    tables.show(
        shown,
        column_config={
            "explorer": st.column_config.LinkColumn("explorer", display_text="open", pinned=True),
            "group_id": st.column_config.Column("group", pinned=True),
            # An empty figure reads in words; the header's help says what each means.
            **{
                name: st.column_config.TextColumn(
                    header(name).removesuffix(" (s)"), help=fleet.grid_help(name), alignment="right"
                )
                for name in fleet.EMPTY
                if name in shown.columns
            },
            "flagged": st.column_config.CheckboxColumn("flagged"),
        },
    )
    current = table[table["change"] == "current"]
    if not current.empty:
        st.plotly_chart(pipeline_charts.fleet_scatter_figure(current), width="stretch")
    if view.empty:
        return False
    groups = list(view["group_id"].unique())
    from_address("fleet.group", PAGE_PARAMS["fleet.group"], groups)
    picked = st.selectbox("Group", groups, key="fleet.group")
    row = view[view["group_id"] == picked].iloc[0]
    st.markdown(f"**Every figure of {escape_markdown(str(picked))}**")
    details = fleet.group_details(view, str(picked))
    st.markdown(tables.markdown_table(details))
    if st.button("Open in explorer", key="fleet.open"):
        at = None if pd.isna(row["t"]) else int(row["t"])
        if _load_group(dataset.name, str(row["cluster"]), str(picked), at):
            state.report_notice(f"Loaded {picked} from the pipeline snapshot into the explorer.")
            return True
    return False


def page() -> None:
    """The Fleet page: the pipeline's fleet what-if, with a way into the Explorer."""
    st.title("Assignment Explorer · Fleet")
    problem = state.take_error()
    if problem:
        st.error(escape_markdown(problem), icon=ERROR_ICON)
    dataset = dataset_picker.pick()
    if dataset is None:
        return
    st.caption(f"The fleet what-if of dataset {escape_markdown(dataset.name)}.")
    if render(dataset):
        state.carry_widgets(source_panel.SIDEBAR_VALUES)
        pages.switch_to(pages.EXPLORER)
    page_address(
        {
            dataset_picker.PARAM: dataset.name,
            **{
                param: str(st.session_state[widget])
                for widget, param in PAGE_PARAMS.items()
                if st.session_state.get(widget) is not None
            },
        }
    )


if __name__ == "__main__":  # run as a page of the app (st.navigation), not when imported
    page()

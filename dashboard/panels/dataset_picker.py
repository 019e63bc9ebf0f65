"""The pipeline dataset the History and Fleet pages show, picked by name.

The names are the server's (:func:`dashboard.session.settings.datasets`: the bundled sample
history, then the operator file's datasets). The address carries the name (``dataset=NAME``),
never a directory; a name the server does not offer is refused with the names it does, and the
page shows nothing of any dataset until one is picked.
"""

from __future__ import annotations

import streamlit as st

from dashboard.model.operator_file import DatasetEntry, names_offered
from dashboard.model.plain import ERROR_ICON, escape_markdown
from dashboard.panels.layout import from_address
from dashboard.session import settings

#: The query parameter and the widget of the dataset picked.
PARAM = "dataset"
WIDGET = "pipeline.dataset"


def pick() -> DatasetEntry | None:
    """The dataset to show: the one picked (a picker when the server offers more than one), or
    ``None`` after saying why (the link named a dataset the server does not offer)."""
    offered = settings.datasets()
    names = [entry.name for entry in offered]
    wanted = st.query_params.get(PARAM)
    if wanted is not None and wanted not in names and WIDGET not in st.session_state:
        # The link's own text is not repeated: it may be anything, a path among them.
        st.error(
            escape_markdown(
                "The link names a dataset this server does not offer:"
                f" {names_offered('dataset', names)}."
            ),
            icon=ERROR_ICON,
        )
        return None
    if len(offered) == 1:
        return offered[0]
    from_address(WIDGET, PARAM, names)
    left, _ = st.columns([1, 2])  # a name is short: a third of the page, not all of it
    picked = left.selectbox("Dataset", names, key=WIDGET)
    return settings.dataset(str(picked))


def missing_tables_markdown(job: str, entry: DatasetEntry) -> str:
    """What a page tells the user when dataset ``entry`` lacks job ``job``'s tables (Markdown).
    The commands with their paths only on a laptop (no operator file, the built-in dataset):
    a team server shows no path."""
    from pathlib import Path

    if entry.snapshots is not None and not settings.operator_config().loaded:
        return settings.pipeline_hint(job, Path(entry.snapshots), Path(entry.output) / job)
    return (
        f"Dataset {escape_markdown(entry.name)} has no {job} tables yet: whoever runs this"
        " server makes them with the Spark pipeline (docs/pipeline.md), then this page shows"
        " them."
    )

"""Readable tables: headers in words and numbers with thousands separators, whatever the
pipeline named its columns (``lag_total`` -> "lag total", ``pause_s`` -> "pause (s)").

The data keep their column names (tests and links use them); only what is shown changes,
through Streamlit's ``column_config``. A short table of words can also be drawn as Markdown
(:func:`markdown_table`): the browser then needs none of the data-grid code (~1.3 MB of
JavaScript loaded and run on the first visit).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import pandas as pd
import streamlit as st

from dashboard.model.column_names import header
from dashboard.model.plain import escape_markdown

__all__ = ["column_config", "header", "markdown_table", "show"]


def column_config(frame: pd.DataFrame, **overrides: Any) -> dict[str, Any]:
    """Words for every header, separators for every number (two decimals where fractional)."""
    config: dict[str, Any] = {}
    for name in frame.columns:
        label = header(str(name))
        kind = frame[name].dtype
        if pd.api.types.is_integer_dtype(kind):
            config[name] = st.column_config.NumberColumn(label, format="localized")
        elif pd.api.types.is_float_dtype(kind):
            config[name] = st.column_config.NumberColumn(label, format="%,.2f")
        else:
            config[name] = st.column_config.Column(label)
    config.update(overrides)
    return config


def show(frame: pd.DataFrame, **options: Any) -> None:
    """``st.dataframe`` with readable headers and numbers, full width, no index."""
    overrides = options.pop("column_config", {})
    st.dataframe(
        frame,
        hide_index=True,
        width="stretch",
        column_config=column_config(frame, **overrides),
        **options,
    )


def _cell(value: Any) -> str:
    """A value as one Markdown table cell, read as text (a pipe would end the cell)."""
    return escape_markdown(str(value)).replace("\n", " ")


def markdown_table(frame: pd.DataFrame, text: Collection[str] = ()) -> str:
    """``frame`` as a Markdown table: its index (named) first, left-aligned, then its columns,
    right-aligned as numbers are but for the ``text`` ones; the cells as the frame words them."""
    names = [str(frame.index.name or ""), *(str(name) for name in frame.columns)]
    align = [":---" if name in text else "---:" for name in names[1:]]
    lines = [
        "| " + " | ".join(_cell(name) for name in names) + " |",
        "| :--- | " + " | ".join(align) + " |",
    ]
    for label, row in frame.iterrows():
        lines.append("| " + " | ".join(_cell(v) for v in (label, *row.tolist())) + " |")
    return "\n".join(lines)

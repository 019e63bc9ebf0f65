"""Reading the Plotly figures the app sent, as the browser would get them.

Plotly 6 sends NumPy arrays as typed arrays (``{"dtype": "f8", "bdata": <base64>}``); the
browser decodes them, and so does :func:`values` here, so a test reads plain lists either way.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest


def values(data: Any) -> list[Any]:
    """A data array of a trace as a plain list (decoding a typed array if it is one)."""
    if isinstance(data, dict) and "bdata" in data:
        decoded = np.frombuffer(base64.b64decode(data["bdata"]), dtype=np.dtype(data["dtype"]))
        shape = data.get("shape")
        if shape:
            decoded = decoded.reshape([int(n) for n in str(shape).split(",")])
        return list(decoded.tolist())
    return list(data)


def specs(app: AppTest) -> list[dict[str, Any]]:
    """Every Plotly figure on the page, as the JSON the browser receives."""
    return [json.loads(chart.proto.spec) for chart in app.get("plotly_chart")]


def spec(app: AppTest, key: str) -> dict[str, Any]:
    """The Plotly figure drawn with widget key ``key``, as the JSON the browser receives."""
    (chart,) = [c for c in app.get("plotly_chart") if c.proto.id.endswith(f"-{key}")]
    found: dict[str, Any] = json.loads(chart.proto.spec)
    return found


def lag_panel(app: AppTest, title: str) -> dict[str, float]:
    """Member -> lag in the lag-per-consumer panel titled ``title``."""
    for spec in specs(app):
        for trace in spec["data"]:
            if (
                trace.get("type") == "bar"
                and trace.get("name") == title
                and "hovertemplate" in trace
            ):
                members, lags = trace["x"], trace["y"]
                if trace.get("orientation") == "h":  # sorted horizontal bars: names on y
                    members, lags = lags, members
                return dict(zip(values(members), values(lags), strict=True))
    raise AssertionError(f"no lag panel {title!r}")


def markdown_rows(text: str) -> list[list[str]]:
    """The rows of a Markdown table (header first, the alignment line dropped), cells unescaped."""
    rows = []
    for line in text.strip().splitlines()[:1] + text.strip().splitlines()[2:]:
        cells = re.split(r"(?<!\\)\|", line.strip())[1:-1]
        rows.append([re.sub(r"\\(.)", r"\1", cell).strip() for cell in cells])
    return rows


def comparison_text(app: AppTest) -> str | None:
    """The comparison table at the top, as the Markdown the page shows (``None``: not shown)."""
    for block in app.markdown:
        if block.value.startswith("| strategy |") and "partitions moved" in block.value:
            return str(block.value)
    return None


def comparison(app: AppTest) -> dict[str, dict[str, str]]:
    """The comparison table at the top: row name -> column -> the text shown."""
    text = comparison_text(app)
    if text is None:
        raise AssertionError("no comparison table on the page")
    header, *rows = markdown_rows(text)
    return {row[0]: dict(zip(header[1:], row[1:], strict=True)) for row in rows}


def markdown_frame(app: AppTest, column: str) -> pd.DataFrame | None:
    """The first Markdown table on the page with a ``column`` header, as a frame of the texts
    shown (``None``: there is none)."""
    for block in app.markdown:
        if block.value.startswith("| ") and column in block.value.splitlines()[0]:
            header, *rows = markdown_rows(block.value)
            if column in header:
                return pd.DataFrame(rows, columns=header)
    return None

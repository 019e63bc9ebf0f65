"""Share and export: the edited scenario, assignments and movement as CSV, charts as HTML and
PNG (rendered on the server by :mod:`dashboard.png_export` where kaleido and a Chromium are
available; otherwise the page says why), a link that restores the view, and the consumer
configuration of each picked strategy. Every file is built only when its button is clicked.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import plotly.graph_objects as go
import streamlit as st

from dashboard import compute, png_export, results_panel, share, state, whatif


def _slug(title: str) -> str:
    """A file-name and widget-key friendly form of a chart title."""
    kept = "".join(c if c.isalnum() else "-" for c in title.lower())
    return "-".join(part for part in kept.split("-") if part)


@st.fragment
def render(
    plan: whatif.WhatIf,
    current: compute.Current,
    outcomes: Sequence[compute.StrategyOutcome],
    figures: dict[str, go.Figure],
) -> None:
    """Downloads, the share link and the config snippets (reruns alone)."""
    source = state.source()
    name = (plan.after.name or source.sample or "scenario").replace(" ", "-").lower()
    ran = [o for o in outcomes if o.target is not None and o.metrics is not None]
    left, middle, right = st.columns(3)
    left.download_button(
        "Scenario (JSON)",
        functools.partial(share.scenario_download, plan.after),
        file_name=f"{name[:40]}-edited.json",
        mime="application/json",
        key="export.scenario",
        help="The edited scenario (after the change). It never contains connection settings.",
    )
    assignments = {"current": current.assignment.partitions}
    assignments.update({o.name: o.target.partitions for o in ran if o.target is not None})
    middle.download_button(
        "Assignments (CSV)",
        functools.partial(share.assignment_csv, assignments),
        file_name="assignments.csv",
        mime="text/csv",
        key="export.assignments",
    )

    def movement_text() -> str:
        movements = {
            o.name: results_panel.movement_frame(o.metrics).to_dict("records")
            for o in ran
            if o.metrics is not None
        }
        return share.movement_csv(movements)

    right.download_button(
        "Movement (CSV)",
        movement_text,
        file_name="movement.csv",
        mime="text/csv",
        key="export.movement",
    )
    st.markdown("**Charts**")
    png_problem = png_export.unavailable_reason()
    for title, figure in figures.items():
        slug = _slug(title)
        cols = st.columns(2)
        cols[0].download_button(
            f"{title} (HTML)",
            functools.partial(figure.to_html, include_plotlyjs="cdn", full_html=True),
            file_name=f"{slug}.html",
            mime="text/html",
            key=f"export.html.{slug}",
        )
        if png_problem is None:
            # Rendered only when clicked: a browser starts for it (a few seconds).
            cols[1].download_button(
                f"{title} (PNG)",
                functools.partial(png_export.figure_png, figure),
                file_name=f"{slug}.png",
                mime="image/png",
                key=f"export.png.{slug}",
            )
    if png_problem is not None:
        st.caption(
            f"{png_problem}; use the camera icon on any chart to save it as PNG from your browser."
        )
    st.markdown("**Share**")
    if source.kind == "sample" and source.sample is not None:
        query = share.share_query(
            source.sample, state.selected_strategies(), state.edits(), source.walkthrough_step
        )
        st.code(query, language=None)
        st.caption(
            "Append this to the dashboard's address to restore sample, strategies and edits."
        )
    else:
        st.caption(
            "Links restore sample scenarios only; download the scenario JSON to share this one."
        )
    if ran:
        st.markdown("**Consumer configuration**")
        for o in ran:
            st.markdown(f"*{o.name}*")
            st.code(o.strategy.consumer_config, language="properties")

"""Share and export: the edited scenario, assignments and movement as CSV, charts as HTML and
PNG (rendered on the server by :mod:`dashboard.charts.png_export` where kaleido and a Chromium are
available; otherwise the page says why), a sample's walkthrough as one lesson file that opens
offline (:mod:`dashboard.panels.lesson_export`), a link that restores the view, and the consumer
configuration of each picked strategy. Every file is built only when its button is clicked.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from urllib.parse import urlencode

import streamlit as st

from dashboard.charts import assignment_charts, png_export
from dashboard.charts.figure_build import Figure
from dashboard.charts.figure_files import standalone_html, static_figure
from dashboard.model import share, sources, whatif
from dashboard.model.plain import escape_markdown
from dashboard.panels import lesson_export, protocols_panel, results_panel, source_panel
from dashboard.session import compute, state


def _slug(title: str) -> str:
    """A file-name and widget-key friendly form of a chart title."""
    kept = "".join(c if c.isalnum() else "-" for c in title.lower())
    return "-".join(part for part in kept.split("-") if part)


def chart_builders(
    key: str,
    plan: whatif.WhatIf,
    current: compute.Current,
    outcomes: Sequence[compute.StrategyOutcome],
    colours: Mapping[str, str],
    order: Sequence[str],
) -> dict[str, Callable[[], Figure]]:
    """Every chart of the page, by title, each built only when its export is clicked."""
    ran = [o for o in outcomes if o.simulation is not None and o.metrics is not None]
    builders: dict[str, Callable[[], Figure]] = {
        "Lag per consumer": functools.partial(
            results_panel.lag_figure, key, current, ran, colours, order
        ),
        "Assignment matrix (current)": functools.partial(
            assignment_charts.assignment_matrix, current.assignment.partitions, order=order
        ),
    }
    for o in ran:
        assert o.target is not None
        builders[f"Before → after ({o.name})"] = functools.partial(
            results_panel.animation_figure, key, plan, current, o, colours, order
        )
        builders[f"Assignment matrix ({o.name})"] = functools.partial(
            assignment_charts.assignment_matrix, o.target.partitions, order=order
        )
    if ran:
        builders["Lag drain"] = functools.partial(results_panel.drain_figure, key, plan, ran)
        builders[f"Protocols ({ran[0].name})"] = functools.partial(
            protocols_panel.timeline_figure, key, plan, ran[0], colours, order
        )
    return builders


def _html_of(build: Callable[[], Figure]) -> str:
    return standalone_html(build())


def _png_of(build: Callable[[], Figure]) -> bytes:
    return png_export.figure_png(static_figure(build()))


#: The panel's key: its open/closed state lives in the session under it.
PANEL = "panel.export"


@st.fragment
def render(
    plan: whatif.WhatIf,
    current: compute.Current,
    outcomes: Sequence[compute.StrategyOutcome],
    key: str,
    colours: Mapping[str, str],
    order: Sequence[str],
) -> None:
    """The *Share and export* panel (reruns alone). Its contents are built and sent only while
    it is open: closed, as on a first visit, the browser draws none of its buttons and code
    blocks (opening it reruns this fragment)."""
    panel = st.expander("Share and export", key=PANEL, on_change="rerun")
    if panel.open:
        with panel:
            _contents(plan, current, outcomes, key, colours, order)


def _contents(
    plan: whatif.WhatIf,
    current: compute.Current,
    outcomes: Sequence[compute.StrategyOutcome],
    key: str,
    colours: Mapping[str, str],
    order: Sequence[str],
) -> None:
    """Downloads, the share link and the config snippets, top to bottom:

    1. The data: the edited scenario, the assignments and the movement (:func:`_data_downloads`).
    2. Every chart as HTML, and as PNG where the server can render one (:func:`_chart_downloads`).
    3. A sample's walkthrough as one lesson file (:func:`lesson_download`), when it has one.
    4. The link that restores the view (:func:`_share_link`).
    5. Each strategy's consumer configuration.

    Every file is built only when its button is clicked (the buttons get functions).
    """
    source = state.source()
    name = (plan.after.name or source.sample or "scenario").replace(" ", "-").lower()
    ran = [o for o in outcomes if o.target is not None and o.metrics is not None]
    _data_downloads(plan, current, ran, name)
    _chart_downloads(chart_builders(key, plan, current, outcomes, colours, order))
    lesson_download(source)
    _share_link(source)
    if ran:
        st.markdown("**Consumer configuration**")
        for o in ran:
            st.markdown(f"*{escape_markdown(o.name)}*")
            st.code(o.strategy.consumer_config, language="properties")


def _movement_text(ran: Sequence[compute.StrategyOutcome]) -> str:
    movements = {
        o.name: results_panel.movement_frame(o.metrics).to_dict("records")
        for o in ran
        if o.metrics is not None
    }
    return share.movement_csv(movements)


def _data_downloads(
    plan: whatif.WhatIf,
    current: compute.Current,
    ran: Sequence[compute.StrategyOutcome],
    name: str,
) -> None:
    """Step 1 of :func:`_contents`: three buttons side by side (``name``: the file names'
    stem)."""
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
    right.download_button(
        "Movement (CSV)",
        functools.partial(_movement_text, ran),
        file_name="movement.csv",
        mime="text/csv",
        key="export.movement",
    )


def _chart_downloads(figures: Mapping[str, Callable[[], Figure]]) -> None:
    """Step 2 of :func:`_contents`: per chart an HTML button and, where the server can render
    a PNG, a PNG button; else one sentence saying why not and what to use instead."""
    st.markdown("**Charts**")
    png_problem = png_export.unavailable_reason()
    for title, build in figures.items():
        slug = _slug(title)
        cols = st.columns(2)
        cols[0].download_button(
            f"{escape_markdown(title)} (HTML)",
            functools.partial(_html_of, build),
            file_name=f"{slug}.html",
            mime="text/html",
            key=f"export.html.{slug}",
        )
        if png_problem is None:
            # Rendered only when clicked: a browser starts for it (a few seconds).
            cols[1].download_button(
                f"{escape_markdown(title)} (PNG)",
                functools.partial(_png_of, build),
                file_name=f"{slug}.png",
                mime="image/png",
                key=f"export.png.{slug}",
            )
    if png_problem is not None:
        st.caption(
            f"{escape_markdown(png_problem)}; use the camera icon on any chart to save it as PNG"
            " from your browser."
        )


#: The lesson file's button.
LESSON_LABEL = "Lesson file (HTML, opens offline)"


def lesson_download(source: sources.Source) -> None:
    """Step 3 of :func:`_contents` (and the Kafka Streams page's export): the sample's whole
    walkthrough as one HTML file, every step's title, narration and figures, that a teacher
    opens with no server or network."""
    if source.sample is None or not source.walkthrough:
        return
    st.markdown("**Lesson**")
    st.download_button(
        LESSON_LABEL,
        functools.partial(lesson_export.sample_lesson_html, source.sample),
        file_name=lesson_export.file_name(source.sample),
        mime="text/html",
        key="export.lesson",
        help=f"All {len(source.walkthrough)} walkthrough steps in one file (about 5 MB): "
        "Plotly inside, arrow keys or the buttons to step through. Opens in any browser "
        "without this server or a network.",
    )


def _share_link(source: sources.Source) -> None:
    """Step 4 of :func:`_contents`: the link (none for a scenario too large to pack into one)."""
    st.markdown("**Share**")
    params = source_panel.link_params(source)
    if params is None:
        st.caption(
            f"This scenario is too large for a link (over {share.MAX_SCENARIO_PARAM:,} "
            "characters packed); download the scenario JSON to share it."
        )
        return
    base = st.context.url or ""
    st.code(base + "?" + urlencode(params), language=None)
    st.caption(
        "The address bar always holds this link: copy it from there or here. It restores "
        + (
            "the sample, walkthrough step, strategies and edits."
            if source.kind == "sample"
            else "the scenario itself (packed into the link), strategies and edits; "
            "never connection settings or passwords."
        )
    )

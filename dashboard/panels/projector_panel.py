"""Projector mode: the page as a class sees it from the back of the room.

Everything projector mode does is here, switched by one flag
(:mod:`dashboard.session.projector`):

1. :func:`switch`: the sidebar's switch (the link's ``projector=1`` sets it too).
2. :func:`apply`, once per run before the page: the page's look (:func:`page_css`: no sidebar,
   no menu, no control but the walkthrough's ◀ Previous and Next ▶, headings of 28 px and more,
   text of 20 px and more), the walkthrough opened, and the keys (Left / Right step, Escape
   leaves: :mod:`dashboard.runtime.arrow_keys`).
3. :func:`plotly_chart`, which the Explorer's charts are drawn through: in projector mode each
   figure is :func:`dashboard.charts.projector_style.projected` first (text of 18 px and more,
   its own background and black or white text).
4. :func:`dataframe`, which the Kafka Streams page's tables are drawn through: in projector mode
   an HTML table that the page's text sizes reach (a data grid draws its 14 px cells on a canvas
   that no style sheet can enlarge), its cells read as text.

The walkthrough panel asks :func:`walkthrough_offer` whether to offer its start (never in
projector mode: the walkthrough is open).
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from dashboard.charts import projector_style
from dashboard.charts.figure_build import Figure
from dashboard.model.plain import escape_markdown
from dashboard.runtime import arrow_keys
from dashboard.session import projector

#: The widget keys of the walkthrough's buttons that stay (see teach_panel), and the walkthrough
#: panel's key (opened in projector mode).
PREVIOUS = "teach.back"
NEXT = "teach.next"
WALKTHROUGH = "panel.teach"
#: Table text in projector mode (px): a table's cells and headers.
TABLE_TEXT_PX = 22
#: The button Escape presses (hidden: projector mode shows no other control).
LEAVE = "projector.leave"

#: The parts of a page projector mode hides (Streamlit's test ids).
_HIDDEN = (
    "stSidebar",
    "stSidebarCollapsedControl",
    "stHeader",
    "stToolbar",
    "stDecoration",
    "stElementToolbar",
    "stSelectbox",
    "stMultiSelect",
    "stRadio",
    "stButtonGroup",
    "stCheckbox",
    "stToggle",
    "stSlider",
    "stNumberInput",
    "stTextInput",
    "stTextArea",
    "stFileUploader",
    "stDownloadButton",
    "stPopover",
)


def switch() -> None:
    """The switch, in the sidebar (where the page's other settings are)."""
    st.sidebar.toggle(
        "Projector mode",
        key=projector.KEY,
        help="Large text, high contrast, no controls but the walkthrough's ◀ Previous and Next ▶"
        " (Left / Right keys). Escape, or the address without `projector=1`, leaves it.",
    )


def page_css() -> str:
    """The page's look in projector mode (module docstring, step 2), as one style sheet."""
    hidden = ", ".join(f'[data-testid="{test_id}"]' for test_id in _HIDDEN)
    keep = "".join(
        f":not(.{arrow_keys.widget_class(key)}):not(.{arrow_keys.widget_class(key)} *)"
        for key in (PREVIOUS, NEXT)
    )
    buttons = f'[data-testid="stMain"] [data-testid="stButton"]{keep}'
    panel = arrow_keys.widget_class(WALKTHROUGH)
    expanders = f'[data-testid="stExpander"]:not(.{panel} *):not(.{panel})'
    # Alerts go, but the walkthrough's own (the question for the class) stay.
    alerts = f'[data-testid="stAlert"]:not(.{panel} *)'
    return f"""<style>
{hidden}, {buttons}, {expanders}, {alerts}, .modebar-container {{ display: none !important; }}
[data-testid="stMainBlockContainer"] {{ max-width: 100%; padding: 1rem 2.5rem 4rem; }}
[data-testid="stMain"] h1 {{ font-size: 44px !important; }}
[data-testid="stMain"] h2, [data-testid="stMain"] h3, [data-testid="stMain"] h4 {{
  font-size: 30px !important; line-height: 1.25 !important; }}
[data-testid="stMain"] p, [data-testid="stMain"] li, [data-testid="stMain"] summary p {{
  font-size: 22px !important; line-height: 1.45 !important; }}
[data-testid="stMain"] [data-testid="stCaptionContainer"] p {{ font-size: 20px !important; }}
.{panel} p:has(> strong:only-child) {{ font-size: 30px !important; }}
.{panel} summary {{ pointer-events: none; }}
[data-testid="stMain"] table, [data-testid="stMain"] th, [data-testid="stMain"] td,
[data-testid="stMain"] th p, [data-testid="stMain"] td p {{
  font-size: {TABLE_TEXT_PX}px !important; line-height: 1.35 !important; }}
.{arrow_keys.widget_class(PREVIOUS)} button p, .{arrow_keys.widget_class(NEXT)} button p {{
  font-size: 22px !important; }}
</style>"""


def apply() -> None:
    """Projector mode's page look, open walkthrough and keys; nothing when it is off."""
    if not projector.is_on():
        return
    st.session_state[WALKTHROUGH] = True
    st.html(page_css())
    st.button("Leave projector mode", key=LEAVE, on_click=projector.turn_off)
    arrow_keys.bind_keys({"ArrowLeft": PREVIOUS, "ArrowRight": NEXT, "Escape": LEAVE})


def walkthrough_offer() -> bool:
    """Whether the walkthrough panel offers its start (not in projector mode, where it is
    open)."""
    return not projector.is_on()


def plotly_chart(figure: Figure, **options: Any) -> None:
    """``st.plotly_chart(figure, **options)``, the figure projected first in projector mode
    (for the page's theme: the one Streamlit reports, light until it knows)."""
    if projector.is_on():
        dark = st.context.theme.type == "dark"
        figure = projector_style.projected(figure, "dark" if dark else "light")
    st.plotly_chart(figure, **options)


def as_text(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every header and cell as text that Markdown shows as written (an HTML
    table reads its cells as Markdown; client and task ids come from users' files)."""
    cells = frame.map(lambda value: escape_markdown(str(value)))
    return cells.set_axis([escape_markdown(str(name)) for name in frame.columns], axis="columns")


def dataframe(frame: pd.DataFrame, **options: Any) -> None:
    """``st.dataframe(frame, **options)``; in projector mode an HTML table of ``frame`` as text
    (:func:`as_text`), without its index, in the projector's table text (module docstring,
    step 4)."""
    if not projector.is_on():
        st.dataframe(frame, **options)
        return
    st.table(as_text(frame), hide_index=True)

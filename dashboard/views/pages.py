"""The app's pages, as data: each view's script, title, address and icon, in menu order, and
the one rule that sends a source to the page that shows it (:func:`follow_source`).

``app.py`` builds ``st.navigation`` from :data:`PAGES`; a view that sends the user to another
page (the Fleet page's *Open in explorer*) names it here. A page's script path is relative to
``dashboard/app.py``, the main script; the default page answers at ``/``, every other page at
``/<url_path>``, so links made before the pages existed (``/?sample=...``) still open the
Explorer.

With a login (:mod:`dashboard.panels.login_panel`), ``app.py`` builds the menu from the pages the
user may open and records them (:func:`remember_shown`); a view sends the user on with
:func:`switch_to`, which refuses, in words, a page the user may not open.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

import streamlit as st

from dashboard.model.plain import WARNING_ICON, escape_markdown
from dashboard.panels import source_panel
from dashboard.session import state


@dataclass(frozen=True, slots=True)
class PageSpec:
    """One page: ``script`` relative to the main script, ``url_path`` its address."""

    script: str
    title: str
    url_path: str
    icon: str
    default: bool = False
    uses_source: bool = True
    """Whether the page shows the loaded source (then the shared sidebar has the source picker)."""


# Material icons ship with Streamlit's own fonts: they draw the same on every machine (an
# emoji needs a colour-emoji font that a server-side browser or a lean desktop may lack).
EXPLORER = PageSpec(
    "views/explorer_view.py", "Explorer", "explorer", ":material/compare_arrows:", default=True
)
STREAMS = PageSpec("views/streams_view.py", "Kafka Streams", "streams", ":material/stream:")
LIVE = PageSpec("views/live_view.py", "Live group", "live", ":material/sensors:")
DEPLOY = PageSpec("views/deploy_view.py", "Deploy", "deploy", ":material/rocket_launch:")
HISTORY = PageSpec(
    "views/history_view.py", "History", "history", ":material/timeline:", uses_source=False
)
FLEET = PageSpec("views/fleet_view.py", "Fleet", "fleet", ":material/dataset:", uses_source=False)
CLASSROOM = PageSpec(
    "views/classroom_view.py", "Classroom", "classroom", ":material/school:", uses_source=False
)
PAGES = (EXPLORER, STREAMS, LIVE, DEPLOY, HISTORY, FLEET, CLASSROOM)
#: The pages whose content is the loaded source: the router sends a source to the one it fits.
SOURCE_PAGES = (EXPLORER, STREAMS)
_SHOWN = "pages.shown"


def remember_shown(shown: Collection[PageSpec]) -> None:
    """Record the pages in this run's menu (the ones the signed-in user may open)."""
    st.session_state[_SHOWN] = tuple(spec.url_path for spec in shown)


def switch_to(spec: PageSpec, query_params: Mapping[str, str] | None = None) -> None:
    """Open page ``spec`` (``st.switch_page``) when it is in the menu; otherwise say that the
    user's account may not open it, and stay."""
    if spec.url_path in st.session_state.get(_SHOWN, tuple(page.url_path for page in PAGES)):
        st.switch_page(spec.script, query_params=query_params)
    st.warning(
        f"Your account may not open the {escape_markdown(spec.title)} page.", icon=WARNING_ICON
    )


def follow_source(spec: PageSpec) -> None:
    """On a page of :data:`SOURCE_PAGES`, open the page that shows the loaded source when this
    one cannot: a Streams application opened on the Explorer goes to the Streams page; a
    consumer group that replaced a Streams application there (picked in its sidebar) goes to
    the Explorer; a consumer group opened on the Streams page from the menu stays (the page
    says where to find an application). The link's parameters go along. Called after the
    shared sidebar's source controls have run (a pick there may load a source), before the
    page runs."""
    if spec not in SOURCE_PAGES:
        return
    source = state.source()
    if source.streams is not None:
        state.mark_streams_shown(source.key)
        if spec == EXPLORER:
            state.carry_widgets(source_panel.SIDEBAR_VALUES)
            switch_to(STREAMS, query_params=source_panel.link_params(source))
        return
    shown = state.take_streams_shown()
    if spec == STREAMS and shown is not None and shown != source.key:
        state.carry_widgets(source_panel.SIDEBAR_VALUES)
        switch_to(EXPLORER, query_params=source_panel.link_params(source))

"""Assignment Explorer dashboard: ``streamlit run dashboard/app.py``.

The entry point configures the page, restores what a link names, and routes: ``st.navigation``
with one page per view (:mod:`dashboard.views.pages`), each at its own address. It opens on the
Explorer with the default sample and no configuration.

Routing, in order:

0. With a login configured (Streamlit's ``[auth]`` secrets), nothing below runs before the user
   has signed in, and the menu holds only the pages the user's groups may open
   (:func:`dashboard.panels.login_panel.gate`; docs/login.md).
1. A link's query parameters load its source once per session: a Fleet link
   (``pipeline_input``, ``group``) a pipeline group, any other link (or none) a sample, an
   uploaded scenario or the default sample
   (:func:`dashboard.panels.source_panel.restore_from_query`); then the link's strategies,
   edits and Kafka version. Every page keeps the address bar on what it shows
   (:func:`dashboard.panels.layout.sync_address_bar`), so the address reopens it.
2. The shared sidebar: on the pages that show the loaded source (Explorer, Kafka Streams,
   Live group, Deploy), the source picker, drawn here so that its controls keep their values from
   page to page.
3. The source's page: a Streams application opened on the Explorer moves to the Streams page,
   and a consumer group picked on the Streams page moves to the Explorer, the link's
   parameters following (:func:`dashboard.views.pages.follow_source`).
4. The page runs; a view adds its own sidebar controls below the shared ones.
"""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

# `streamlit run dashboard/app.py` puts dashboard/ on the path, not the checkout: make the
# project's top-level packages (sample_data among them) importable from a source checkout.
_CHECKOUT = str(Path(__file__).resolve().parent.parent)
if _CHECKOUT not in sys.path:
    sys.path.insert(0, _CHECKOUT)

from dashboard.model.plain import ERROR_ICON, escape_markdown  # noqa: E402
from dashboard.panels import login_panel, projector_panel, source_panel  # noqa: E402
from dashboard.runtime import internals, server_socket  # noqa: E402
from dashboard.session import compute, settings, state  # noqa: E402
from dashboard.views import fleet_view, pages  # noqa: E402

compute.freeze_imports()
server_socket.nodelay_listeners()  # served by serve.py: set already, before the first request
st.set_page_config(page_title="Assignment Explorer", page_icon="🧩", layout="wide")
internals.show_off_notice()  # private library uses probed once per process; what is off, said


def main() -> None:
    """One run of the app. Everything a run builds is local to it: Streamlit keeps the main
    script's module as ``sys.modules["__main__"]`` until the next run of any session, so a
    module-level ``scenario`` would keep a closed tab's group alive after its session went."""
    problem = settings.operator_problem()
    if problem:  # a refused operator file serves nothing: what it offers or forbids is unknown
        st.error(escape_markdown(problem), icon=ERROR_ICON)
        st.stop()
    may_open = login_panel.gate([spec.url_path for spec in pages.PAGES])
    shown = [spec for spec in pages.PAGES if spec.url_path in may_open]
    pages.remember_shown(shown)
    if not state.has_source():
        params = dict(st.query_params)
        if fleet_view.restore_from_query(params):
            source_panel.restore_choices(params)
        else:
            source_panel.restore_from_query(params)
    built = {
        spec: st.Page(
            spec.script,
            title=spec.title,
            icon=spec.icon,
            url_path=spec.url_path,
            default=spec.default,
        )
        for spec in shown
    }
    current = st.navigation(list(built.values()), position="top")
    spec = next(spec for spec, page in built.items() if page is current)
    state.restore_carried_widgets()  # a page switch made in code kept the sidebar's values
    projector_panel.apply()  # projector mode's look, keys and open walkthrough (when on)
    if spec.uses_source:
        # The shared sidebar: drawn here, so its controls keep their values on every page.
        with st.sidebar:
            source_panel.render()
        pages.follow_source(spec)
    current.run()
    projector_panel.switch()  # last in the sidebar, on every page


main()

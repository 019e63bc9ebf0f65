"""The dashboard served: ``streamlit run dashboard/serve.py`` (``scripts/run.sh``, the image, the
browser tests and benchmarks). It serves ``dashboard/app.py`` as ``streamlit run
dashboard/app.py`` would, through Streamlit's ``st.App``, with two changes to the server for a
faster first page: Plotly's and the first page's other element chunks fetched early, Plotly's
imported when the websocket opens (:mod:`dashboard.runtime.page_head`), and small writes sent at
once on every connection (:mod:`dashboard.runtime.server_socket`; here set before the first
request, while ``app.py`` alone sets it on its first run).
"""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
if str(_HERE.parent) not in sys.path:  # a source checkout: the project's packages importable
    sys.path.insert(0, str(_HERE.parent))

import streamlit as st  # noqa: E402
from starlette.middleware import Middleware  # noqa: E402

from dashboard.runtime import internals, page_head, server_socket  # noqa: E402
from dashboard.session import login, settings  # noqa: E402


def _login_configured() -> bool | None:
    """Whether a login is configured (``None``: its settings cannot be read; every page then
    says so and serves nothing)."""
    try:
        return login.login_configured()
    except login.LoginConfigError:
        return None


# How the server is set up (login, operator file), said once at start (see settings.setup_report).
for _line in settings.setup_report(_login_configured()):
    print(f"assignment-explorer: {_line}", file=sys.stderr, flush=True)

# Every private use probed once, what is off logged now (and shown in the sidebar by app.py).
internals.check_internals()
# Streamlit binds its socket before it imports this module, and serves nothing until after.
server_socket.nodelay_listeners()

_CHUNKS = (
    page_head.first_page_chunks(page_head.streamlit_static_dir())
    if internals.applies("page_head.first_page_chunks")
    else []
)
_ON_CONNECT = (
    page_head.plotly_on_connect(_CHUNKS)
    if internals.applies("page_head.plotly_on_connect")
    else b""
)
app = st.App(
    _HERE / "app.py",
    middleware=[Middleware(page_head.HeadTags, tags=page_head.early_tags(_CHUNKS) + _ON_CONNECT)],
)

"""The login's widgets: the sign-in screen, who is signed in with a Sign out button, and the
pages a signed-in user may open.

:func:`gate` runs first in every run of ``app.py``, before a link is read or a page is built:

1. No ``[auth]`` in Streamlit's secrets: every page, nothing shown (today's behaviour).
2. Configured, nobody signed in: a sign-in screen (a title, one sentence, a Sign in button that
   calls ``st.login``), then the run stops: no page, no sidebar of the app, no link loaded.
3. Signed in: the sidebar says who (``st.text``: the provider's words are never Markdown) with a
   Sign out button (``st.logout``: Streamlit's cookie is dropped and the provider's own
   end-session page follows when it has one), and the pages the user's groups may open are
   returned (:func:`dashboard.model.access.allowed_pages`). None: a message, then the run stops.

A configuration that cannot be read fails closed: its message, and no page.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from dashboard.model import access
from dashboard.model.plain import ERROR_ICON, WARNING_ICON, escape_markdown
from dashboard.session import login

SIGN_IN = "login.sign_in"
SIGN_OUT = "login.sign_out"


def gate(page_names: Sequence[str]) -> tuple[str, ...]:
    """The names among ``page_names`` this session may open; stops the run (after drawing
    why) when it may open none, or must sign in first."""
    try:
        if not login.login_configured():
            login.remember_groups(None)
            return tuple(page_names)
        if not login.signed_in():
            _sign_in_screen()
        rules = login.access_rules(page_names)
    except login.LoginConfigError as error:
        st.error(escape_markdown(str(error)), icon=ERROR_ICON)
        st.stop()
    claims = login.claims()
    _signed_in_as(access.display_name(claims))
    groups = access.user_groups(claims, rules.groups_claim)
    login.remember_groups(groups)
    shown = access.allowed_pages(groups, rules, page_names)
    if not shown:
        st.title("Assignment Explorer")
        st.warning(
            "Your account may open no page of this dashboard: ask its operator to add one of "
            "your groups to the access rules.",
            icon=WARNING_ICON,
        )
        st.stop()
    return shown


def _sign_in_screen() -> None:
    st.title("Assignment Explorer")
    st.write("Sign in to open the dashboard.")
    if st.button("Sign in", key=SIGN_IN, type="primary"):
        st.login()
    st.stop()


def _signed_in_as(name: str) -> None:
    with st.sidebar:
        # st.text, not Markdown: escaped Markdown still draws a URL-like name as a link.
        st.text(f"Signed in as {name}")
        if st.button("Sign out", key=SIGN_OUT):
            st.logout()

"""The login, as the session sees it: whether an OIDC provider is configured (Streamlit's own
``[auth]`` section of ``.streamlit/secrets.toml``), who is signed in (``st.user``), and the
operator's access rules (the ``[access]`` table of the file ``ASSIGNMENT_EXPLORER_CONFIG``
names; see :mod:`dashboard.model.access`).

Invariants: a login is required exactly when ``[auth]`` is configured; a secrets file that exists
but cannot be read fails closed (:class:`LoginConfigError`, the app shows it and serves no page);
no message raised here names a path on the server.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from pathlib import Path
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitSecretNotFoundError

from dashboard.model import access
from dashboard.model.operator_file import CONFIG_ENV, OperatorFileError
from dashboard.session import settings

CONFIG_VARIABLE = CONFIG_ENV
_LOG = logging.getLogger(__name__)


class LoginConfigError(Exception):
    """The login or access configuration cannot be read; the message says what (no path)."""


def login_configured() -> bool:
    """Whether ``[auth]`` is in Streamlit's secrets. No secrets file: no login (today's
    behaviour). A secrets file that exists but does not parse raises :class:`LoginConfigError`:
    it may hold an ``[auth]`` the server would otherwise ignore."""
    try:
        return "auth" in st.secrets
    except StreamlitSecretNotFoundError as error:
        files = st.get_option("secrets.files") or []
        if any(Path(name).exists() for name in files):
            _LOG.error("the secrets file cannot be read: %s", error)
            raise LoginConfigError(
                "The server's secrets file cannot be read, so its login settings are unknown: "
                "no page is served. The server's log says why."
            ) from error
        return False


#: Where :func:`remember_groups` keeps the signed-in user's groups for the rest of the run.
GROUPS_KEY = "login.groups"


def remember_groups(groups: frozenset[str] | None) -> None:
    """Keep the user's groups (``None``: no login configured) for the panels that filter by
    them (the clusters a user may pick)."""
    st.session_state[GROUPS_KEY] = groups


def session_groups() -> frozenset[str] | None:
    """The signed-in user's groups as the login gate found them this run; ``None`` when no
    login is configured (nothing is filtered). Fails closed: with a login configured and no
    groups remembered, the empty set (only what is open to everyone)."""
    if GROUPS_KEY in st.session_state:
        found = st.session_state[GROUPS_KEY]
        return None if found is None else frozenset(found)
    try:
        return None if not login_configured() else frozenset()
    except LoginConfigError:
        return frozenset()


def signed_in() -> bool:
    """Whether this session's browser has signed in (Streamlit's identity cookie)."""
    return bool(st.user.is_logged_in)


def claims() -> dict[str, Any]:
    """The signed-in user's ID-token claims (empty when nobody is signed in)."""
    return dict(st.user.to_dict())


def access_rules(known_pages: Collection[str]) -> access.AccessRules:
    """The operator's ``[access]`` table (:func:`dashboard.model.access.parse_access`), from the
    operator file as :func:`dashboard.session.settings.operator_config` reads it (no file: the
    open defaults). A file that cannot be used fails closed: :class:`LoginConfigError`."""
    try:
        table = settings.operator_config().access
        return access.parse_access({"access": table}, known_pages)
    except OperatorFileError as error:
        reason = str(error)
    except access.AccessConfigError as error:
        reason = f"The operator file ({CONFIG_VARIABLE}): {error}"
    raise LoginConfigError(f"{reason} No page is served until it is fixed.")

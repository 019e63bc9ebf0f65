"""Closed tabs' sessions, freed on time.

Streamlit keeps a closed tab's session for ``server.disconnectedSessionTTL`` seconds so that a
reload can resume it, in a TTL cache that drops expired entries only when it is next written to
(a new tab connecting). With no new visitor, a closed tab's session (its scenario, its uploaded
file, its widgets) would stay in the server's memory indefinitely, and Streamlit does not shut
down a session that merely expires. :func:`free_expired_sessions`, called by the cache sweeper
(:mod:`dashboard.budget`), drops the expired ones and shuts each down (which also drops its
uploaded files).

It reads Streamlit's runtime internals; where they are not as expected (another Streamlit
release, no server running as under AppTest) it does nothing.
"""

from __future__ import annotations

import contextlib
from typing import Any


def _session_storage_cache() -> Any | None:
    with contextlib.suppress(Exception):
        from streamlit.runtime import Runtime

        if not Runtime.exists():
            return None
        manager = getattr(Runtime.instance(), "_session_mgr", None)
        storage = getattr(manager, "_session_storage", None)
        cache = getattr(storage, "_cache", None)
        if callable(getattr(cache, "expire", None)):
            return cache
    return None


def free_expired_sessions() -> int:
    """Drop and shut down every stored session whose reconnect time has run out; how many."""
    cache = _session_storage_cache()
    if cache is None:
        return 0
    freed = 0
    for _session_id, info in cache.expire():
        session = getattr(info, "session", None)
        if session is not None:
            with contextlib.suppress(Exception):
                session.shutdown()
        freed += 1
    return freed

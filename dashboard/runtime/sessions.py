"""Closed tabs' sessions, freed on time.

Streamlit keeps a closed tab's session for ``server.disconnectedSessionTTL`` seconds so that a
reload can resume it, in a TTL cache that drops expired entries only when it is next written to
(a new tab connecting). With no new visitor, a closed tab's session (its scenario, its uploaded
file, its widgets) would stay in the server's memory indefinitely, and Streamlit does not shut
down a session that merely expires. :func:`free_expired_sessions`, called by the cache sweeper
(:mod:`dashboard.runtime.budget`), drops the expired ones and shuts each down (which also drops its
uploaded files).

A session that is shut down can still be referenced: Streamlit's send loop (``Runtime.
_loop_coroutine``) keeps the last session it flushed, and that flush's messages, in its local
variables until it flushes another session; with no other visitor, for ever (the loop is created
before the dashboard freezes its start-up objects, so ``gc.get_referrers`` does not even show
it). One closed 400,000-partition tab kept ~115 MB that way. :func:`hollow` therefore empties a
session it shuts down (its state, its fragments and their arguments, its queued messages), and
the send loop's leftover messages are emptied on the event loop's thread, between two of its
steps: whatever still points at the session then points at an empty shell.

It reads Streamlit's runtime internals; where they are not as expected (another Streamlit
release, no server running as under AppTest) it does nothing.
"""

from __future__ import annotations

import contextlib
import threading
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
    """Drop, shut down and empty every stored session whose reconnect time has run out, and
    empty a gone session the send loop still holds; how many sessions were emptied."""
    cache = _session_storage_cache()
    if cache is None:
        return 0
    freed = 0
    for _session_id, info in cache.expire():
        session = getattr(info, "session", None)
        if session is not None:
            with contextlib.suppress(Exception):
                session.shutdown()
            hollow(session)
        freed += 1
    return freed + _empty_send_loop_leftovers(cache)


def hollow(session: Any) -> None:
    """Empty a shut-down session: widget and session state (with the widgets' metadata, which
    holds their callbacks' arguments), fragments and their arguments, queued messages."""
    state = getattr(session, "_session_state", None)
    widgets = getattr(state, "_new_widget_state", None)
    for owner, call in (
        (state, "clear"),
        (getattr(widgets, "widget_metadata", None), "clear"),
        (getattr(widgets, "states", None), "clear"),
        (getattr(session, "_fragment_storage", None), "clear"),
        (getattr(session, "_fragment_storage", None), "clear_outside_wrappers"),
        (getattr(session, "_browser_queue", None), "clear"),
    ):
        with contextlib.suppress(Exception):
            getattr(owner, call)()


_hollowed_last: list[str] = []


def _empty_send_loop_leftovers(stored: Any, wait_s: float = 2.0) -> int:
    """On the event loop's thread, between two steps of the send loop: if the session it last
    flushed is neither active nor stored for a reconnect (closed by any path), empty it and the
    messages the loop still holds. Waits up to ``wait_s``; 1 when it emptied one, else 0."""
    done = threading.Event()
    emptied = [0]

    def empty() -> None:
        try:
            emptied[0] = _empty_leftovers_now(runtime, loop, stored)
        finally:
            done.set()

    with contextlib.suppress(Exception):
        from streamlit.runtime import Runtime

        runtime = Runtime.instance()
        loop = runtime._get_async_objs().eventloop
        loop.call_soon_threadsafe(empty)
        done.wait(wait_s)
    return emptied[0]


def _empty_leftovers_now(runtime: Any, loop: Any, stored: Any) -> int:
    """The event loop's side of :func:`_empty_send_loop_leftovers`."""
    import asyncio

    for task in asyncio.all_tasks(loop):
        frame = getattr(task.get_coro(), "cr_frame", None)
        if frame is None or frame.f_code.co_name != "_loop_coroutine":
            continue
        local = frame.f_locals
        info = local.get("active_session_info")
        session_id = getattr(getattr(info, "session", None), "id", None)
        if session_id is None or session_id in _hollowed_last:
            return 0
        if runtime._session_mgr.is_active_session(session_id) or session_id in stored:
            return 0
        hollow(info.session)
        with contextlib.suppress(Exception):
            local["msg_list"].clear()
        with contextlib.suppress(Exception):
            local["msg"].Clear()
        _hollowed_last[:] = [session_id]
        return 1
    return 0


def session_alive() -> bool:
    """False once the browser tab of this script's session has gone (True outside a server)."""
    try:
        from streamlit.runtime import Runtime
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        context = get_script_run_ctx()
        if context is None or not Runtime.exists():
            return True
        return Runtime.instance().is_active_session(context.session_id)
    except Exception:  # no runtime to ask: nobody to stop for
        return True

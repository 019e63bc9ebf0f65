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

It reads Streamlit's runtime internals, each through its entry in
:mod:`dashboard.runtime.internals` (``sessions.free_expired_sessions``,
``sessions.send_loop_leftovers``, ``sessions.hollow``, ``sessions.session_alive``): where one
no longer applies, that part is off and a line says so at start-up. With no server running (as
under AppTest) there is nothing to free.
"""

from __future__ import annotations

import threading
from typing import Any

from dashboard.runtime import internals

_STORAGE = "sessions.free_expired_sessions"
_SEND_LOOP = "sessions.send_loop_leftovers"
_HOLLOW = "sessions.hollow"
_ALIVE = "sessions.session_alive"


def _session_storage_cache() -> Any | None:
    """The live session store's TTL cache (None: no server, or the use is off)."""
    if not internals.applies(_STORAGE):
        return None
    runtime = internals.live_runtime()
    if runtime is None:
        return None
    # the probe may have seen the classes only; a server with another session store differs
    manager = getattr(runtime, "_session_mgr", None)
    cache = getattr(getattr(manager, "_session_storage", None), "_cache", None)
    if not callable(getattr(cache, "expire", None)):
        internals.switch_off(
            _STORAGE, f"this server's session store has no _cache.expire ({manager!r})"
        )
        return None
    return cache


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
            session.shutdown()
            hollow(session)
        freed += 1
    return freed + _empty_send_loop_leftovers(cache)


def hollow(session: Any) -> None:
    """Empty a shut-down session: widget and session state (with the widgets' metadata, which
    holds their callbacks' arguments), fragments and their arguments, queued messages.
    Nothing when ``sessions.hollow`` is off."""
    if not internals.applies(_HOLLOW):
        return
    state = session._session_state
    widgets = state._new_widget_state
    state.clear()
    widgets.widget_metadata.clear()
    widgets.states.clear()
    session._fragment_storage.clear()
    session._fragment_storage.clear_outside_wrappers()
    session._browser_queue.clear()


_hollowed_last: list[str] = []


def _empty_send_loop_leftovers(stored: Any, wait_s: float = 2.0) -> int:
    """On the event loop's thread, between two steps of the send loop: if the session it last
    flushed is neither active nor stored for a reconnect (closed by any path), empty it and the
    messages the loop still holds. Waits up to ``wait_s``; 1 when it emptied one, else 0 (and
    0 when ``sessions.send_loop_leftovers`` is off)."""
    runtime = internals.live_runtime()
    if runtime is None or not internals.applies(_SEND_LOOP):
        return 0
    loop = runtime._get_async_objs().eventloop
    done = threading.Event()
    emptied = [0]

    def empty() -> None:
        try:
            emptied[0] = _empty_leftovers_now(runtime, loop, stored)
        finally:
            done.set()

    if loop.is_closed():  # the server is stopping
        return 0
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
        if runtime.is_active_session(session_id) or session_id in stored:
            return 0
        hollow(info.session)
        # between two steps the loop may not have bound these yet (or be past them)
        if isinstance(local.get("msg_list"), list):
            local["msg_list"].clear()
        if callable(getattr(local.get("msg"), "Clear", None)):
            local["msg"].Clear()
        _hollowed_last[:] = [session_id]
        return 1
    return 0


def session_alive() -> bool:
    """False once the browser tab of this script's session has gone (True outside a server, and
    when ``sessions.session_alive`` is off: nobody to stop for that we could tell)."""
    if not internals.applies(_ALIVE):
        return True
    from streamlit.runtime import Runtime
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    context = get_script_run_ctx()
    if context is None or not Runtime.exists():
        return True
    return Runtime.instance().is_active_session(context.session_id)

"""Every private part of a library the project uses, in one place, with the versions it was
checked on; at start-up each is probed once and one that no longer applies is switched off and
said so.

:data:`REGISTRY` lists them all: the dashboard's own (:data:`INTERNALS`: Streamlit's runtime and
bundle, Plotly's figure internals, ``/proc/self/fd``), the pipeline's
(:data:`pipeline.internals.INTERNALS`: PySpark) and the cluster reader's and the adapters'
(:data:`cluster.internals.INTERNALS`: kafka-python). Each entry says where it is used, what it
does and why, the library versions it was checked on, what the user loses when it is off, and
has a ``probe()`` that looks at the internal itself (an attribute set, a local variable's name,
a regex matching the installed bundle, a readable path) and returns None while it is as
expected, else a one-line reason.

How a use goes through its entry:

1. The code that uses an internal asks :func:`applies` (its name) before it does; the first
   ask runs the probe (once per process) and, if it fails, logs one line on the
   ``assignment_explorer`` logger, e.g. ``streamlit 1.68.0: sessions.free_expired_sessions is
   off (Runtime.__init__ no longer sets _session_mgr); closed tabs' memory is freed only when
   Streamlit expires them``. The feature is then off: it does nothing, or takes its plain path.
2. :func:`check_internals` (``dashboard/serve.py``, the top of ``dashboard/app.py``) asks for
   every entry of :data:`REGISTRY` once per server process, so the lines appear at start-up.
3. :func:`show_off_notice` draws a warning in the sidebar naming what is off, so the page says
   it too; nothing is drawn while every entry applies.
4. A use that finds the internal changed only at run time (a live object not shaped as the
   probe saw) calls :func:`switch_off` with the reason: logged the same way, off from then on.

``tests/dashboard/test_internals.py`` runs every probe on the installed versions, takes each
internal away to show its probe fails with a reason and its feature goes off visibly, and scans
the project's sources for a private use that no entry names.
"""

from __future__ import annotations

import importlib.metadata
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cluster import internals as cluster_internals
from guarded import Internal, Uses
from pipeline import internals as pipeline_internals

logger = logging.getLogger("assignment_explorer")


def _installed(distribution: str) -> bool:
    try:
        importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def _sets_in_init(cls: type, *names: str) -> str | None:
    """None if ``cls.__init__`` assigns (or reads) every attribute of ``names``, else which not."""
    code = cls.__dict__["__init__"].__code__ if "__init__" in cls.__dict__ else None
    if code is None:
        return f"{cls.__name__} no longer defines __init__"
    missing = [name for name in names if name not in code.co_names]
    return f"{cls.__name__}.__init__ no longer sets {', '.join(missing)}" if missing else None


# 1. Streamlit's runtime (dashboard/runtime/sessions.py) --------------------------------------


def live_runtime() -> Any | None:
    """The server's Streamlit ``Runtime`` (None: no server, or AppTest's stand-in for one)."""
    from streamlit.runtime import Runtime

    if not Runtime.exists():
        return None
    runtime = Runtime.instance()
    return runtime if type(runtime) is Runtime else None


def _probe_session_storage() -> str | None:
    from streamlit.runtime import Runtime
    from streamlit.runtime.memory_session_storage import MemorySessionStorage
    from streamlit.runtime.websocket_session_manager import WebsocketSessionManager

    runtime = live_runtime()
    if runtime is not None:
        manager = getattr(runtime, "_session_mgr", None)
        if manager is None:
            return "Runtime._session_mgr is gone"
        storage = getattr(manager, "_session_storage", None)
        if storage is None:
            return f"{type(manager).__name__}._session_storage is gone"
    else:
        reason = _sets_in_init(Runtime, "_session_mgr") or _sets_in_init(
            WebsocketSessionManager, "_session_storage"
        )
        if reason:
            return reason
        storage = MemorySessionStorage()
    cache = getattr(storage, "_cache", None)
    if cache is None:
        return f"{type(storage).__name__}._cache is gone"
    if not callable(getattr(cache, "expire", None)):
        return f"the session store's cache ({type(cache).__name__}) has no expire()"
    return None


#: The send loop's local variables :mod:`.sessions` empties (``Runtime._loop_coroutine``).
SEND_LOOP_LOCALS = ("active_session_info", "msg_list", "msg")


def _probe_send_loop() -> str | None:
    from streamlit.runtime.runtime import AsyncObjects, Runtime

    loop = getattr(Runtime, "_loop_coroutine", None)
    if loop is None:
        return "Runtime._loop_coroutine is gone"
    missing = [name for name in SEND_LOOP_LOCALS if name not in loop.__code__.co_varnames]
    if missing:
        return f"Runtime._loop_coroutine has no local {', '.join(missing)}"
    if not callable(getattr(Runtime, "_get_async_objs", None)):
        return "Runtime._get_async_objs is gone"
    if "eventloop" not in AsyncObjects._fields:
        return "AsyncObjects.eventloop is gone"
    return None


def _probe_hollow() -> str | None:
    from streamlit.runtime.app_session import AppSession
    from streamlit.runtime.forward_msg_queue import ForwardMsgQueue
    from streamlit.runtime.fragment import MemoryFragmentStorage
    from streamlit.runtime.state.session_state import SessionState

    reason = _sets_in_init(AppSession, "_session_state", "_fragment_storage", "_browser_queue")
    if reason:
        return reason
    widgets = getattr(SessionState(), "_new_widget_state", None)
    if widgets is None:
        return "SessionState._new_widget_state is gone"
    for owner, attribute in ((widgets, "widget_metadata"), (widgets, "states")):
        if not callable(getattr(getattr(owner, attribute, None), "clear", None)):
            return f"{type(owner).__name__}.{attribute} is gone or cannot be cleared"
    for cls, method in (
        (MemoryFragmentStorage, "clear"),
        (MemoryFragmentStorage, "clear_outside_wrappers"),
        (ForwardMsgQueue, "clear"),
    ):
        if not callable(vars(cls).get(method)):  # its own, not a Protocol's stub
            return f"{cls.__name__}.{method} is gone"
    return None


def _probe_session_alive() -> str | None:
    from streamlit.runtime import Runtime
    from streamlit.runtime.scriptrunner import ScriptRunContext, get_script_run_ctx

    for method in ("exists", "instance", "is_active_session"):
        if not callable(getattr(Runtime, method, None)):
            return f"Runtime.{method} is gone"
    if not callable(get_script_run_ctx):
        return "get_script_run_ctx is not callable"
    if "session_id" not in getattr(ScriptRunContext, "__dataclass_fields__", {}):
        return "ScriptRunContext.session_id is gone"
    return None


# 2. Streamlit's bundle (dashboard/runtime/page_head.py) ---------------------------------------


def _static_dir() -> Path:
    from dashboard.runtime import page_head

    return page_head.streamlit_static_dir()


def probe_first_page_chunks(static_dir: Path | None = None) -> str | None:
    """The page head's reading of Streamlit's ``index.html`` and bundle, on ``static_dir``
    (the installed Streamlit's by default): every regex matches, every first-page element is
    found."""
    from dashboard.runtime import page_head

    static_dir = static_dir or _static_dir()
    try:
        index_html = (static_dir / "index.html").read_text()
    except OSError as error:
        return f"cannot read Streamlit's index.html: {error.strerror or error}"
    if "</head>" not in index_html:
        return "Streamlit's index.html has no </head>"
    main = page_head._MAIN.search(index_html)
    if main is None:
        return "Streamlit's index.html names no index.*.js bundle"
    try:
        main_js = (static_dir / "static" / "js" / main.group(1)).read_text()
    except OSError as error:
        return f"cannot read Streamlit's bundle {main.group(1)}: {error.strerror or error}"
    if page_head._TABLE.search(main_js) is None:
        return f"no Vite dependency table (m.f=[...]) in {main.group(1)}"
    chunks = page_head.lazy_chunks(main_js, page_head.FIRST_PAGE_ELEMENTS)
    missing = [
        name
        for name in page_head.FIRST_PAGE_ELEMENTS
        if not any(c.startswith(f"{name}.") for c in chunks)
    ]
    if missing:
        return f"no lazy import of {', '.join(missing)} in {main.group(1)}"
    return None


def probe_plotly_on_connect(static_dir: Path | None = None) -> str | None:
    """Streamlit's bundle opens its connection with ``new WebSocket(`` (the constructor the page
    head's script wraps)."""
    from dashboard.runtime import page_head

    static_dir = static_dir or _static_dir()
    try:
        index_html = (static_dir / "index.html").read_text()
        main = page_head._MAIN.search(index_html)
        main_js = (static_dir / "static" / "js" / main.group(1)).read_text() if main else ""
    except OSError as error:
        return f"cannot read Streamlit's page: {error.strerror or error}"
    if "new WebSocket(" not in main_js:
        return "Streamlit's bundle no longer calls new WebSocket("
    return None


# 3. The server's process and Plotly ---------------------------------------------------------

#: Where :mod:`.server_socket` lists the process's descriptors.
PROC_FDS = Path("/proc/self/fd")


def probe_proc_fds(path: Path | None = None) -> str | None:
    """``/proc/self/fd`` (or ``path``) can be listed and holds descriptor numbers."""
    path = path or PROC_FDS
    try:
        names = os.listdir(path)
    except OSError as error:
        return f"cannot list {path}: {error.strerror or error}"
    if not names or not all(name.isdigit() for name in names):
        return f"{path} does not list descriptor numbers"
    return None


def _probe_figure_parts() -> str | None:
    import plotly.graph_objects as go

    figure = go.Figure(data=[go.Scatter(x=[1])], frames=[go.Frame(data=[go.Scatter(x=[2])])])
    for attribute, kind in (("_data", list), ("_layout", dict), ("_frame_objs", list | tuple)):
        value = getattr(figure, attribute, None)
        if not isinstance(value, kind):
            return f"Figure.{attribute} is gone or not a {kind}"
    frame = figure._frame_objs[0]
    if not isinstance(getattr(frame, "_props", None), dict):
        return "Frame._props is gone or not a dict"
    if not isinstance(figure._data[0], dict) or figure._data[0].get("type") != "scatter":
        return "Figure._data no longer holds the traces as plain dicts"
    return None


#: The dashboard's own private uses (the pipeline's and the cluster reader's follow in
#: :data:`REGISTRY`).
INTERNALS: tuple[Internal, ...] = (
    Internal(
        name="sessions.free_expired_sessions",
        where="dashboard.runtime.sessions:free_expired_sessions",
        what=(
            "Reaches Runtime._session_mgr._session_storage._cache (a TTL cache) to drop and shut"
            " down closed tabs' sessions whose reconnect time ran out, which Streamlit only"
            " drops when a new tab connects and never shuts down."
        ),
        library="streamlit",
        checked="streamlit>=1.67,<1.68",
        loses="closed tabs' memory is freed only when Streamlit drops them (a new tab connecting)",
        probe=_probe_session_storage,
    ),
    Internal(
        name="sessions.send_loop_leftovers",
        where="dashboard.runtime.sessions:_empty_send_loop_leftovers",
        what=(
            "Empties the locals (active_session_info, msg_list, msg) of Streamlit's send loop"
            " (Runtime._loop_coroutine) on its event loop (Runtime._get_async_objs), which keep"
            " the last closed session and its messages alive."
        ),
        library="streamlit",
        checked="streamlit>=1.67,<1.68",
        loses="the last closed tab's session may stay in memory until another tab is served",
        probe=_probe_send_loop,
    ),
    Internal(
        name="sessions.hollow",
        where="dashboard.runtime.sessions:hollow",
        what=(
            "Empties a shut-down AppSession's _session_state (with _new_widget_state),"
            " _fragment_storage and _browser_queue, so what still points at it holds no data."
        ),
        library="streamlit",
        checked="streamlit>=1.67,<1.68",
        loses=(
            "a closed tab's session is shut down but not emptied (its data stays while referenced)"
        ),
        probe=_probe_hollow,
    ),
    Internal(
        name="sessions.session_alive",
        where="dashboard.runtime.sessions:session_alive",
        what=(
            "Asks Runtime.instance().is_active_session(get_script_run_ctx().session_id) whether"
            " the tab that started a long job is still open, so the job of a closed tab stops."
        ),
        library="streamlit",
        checked="streamlit>=1.67,<1.68",
        loses="a big group's computation runs to its end after its tab is closed",
        probe=_probe_session_alive,
    ),
    Internal(
        name="page_head.first_page_chunks",
        where="dashboard.runtime.page_head:first_page_chunks, dashboard.serve",
        what=(
            "Reads the chunk names of the first page's elements (Plotly's first) from"
            " Streamlit's index.html and Vite bundle with regular expressions, to preload them."
        ),
        library="streamlit",
        checked="streamlit>=1.67,<1.68",
        loses=(
            "the first page's charts and widgets load their code only after its"
            " first run (slower first page)"
        ),
        probe=probe_first_page_chunks,
    ),
    Internal(
        name="page_head.plotly_on_connect",
        where="dashboard.runtime.page_head:plotly_on_connect, dashboard.serve",
        what=(
            "Replaces window.WebSocket in the page with a subclass that imports Plotly's chunk"
            " when Streamlit's bundle opens its connection."
        ),
        library="streamlit",
        checked="streamlit>=1.67,<1.68",
        loses="Plotly's code is evaluated only when the first chart is drawn (slower first chart)",
        probe=probe_plotly_on_connect,
    ),
    Internal(
        name="server_socket.nodelay_listeners",
        where="dashboard.runtime.server_socket:_descriptors",
        what=(
            "Lists /proc/self/fd to find the server's listening sockets (Streamlit binds them"
            " with protocol 0, so asyncio leaves Nagle's algorithm on) and sets TCP_NODELAY."
        ),
        library="streamlit",
        checked="streamlit>=1.67,<1.68 (Linux)",
        loses=(
            "only descriptors 3-255 are searched for the listening socket (small"
            " writes may wait ~40 ms)"
        ),
        probe=probe_proc_fds,
    ),
    Internal(
        name="budget.figure_parts",
        where="dashboard.runtime.budget:_children",
        what=(
            "Sizes a Plotly figure from its plain parts (Figure._data, ._layout, ._frame_objs"
            " and each frame's ._props) instead of walking its wrapper objects."
        ),
        library="plotly",
        checked="plotly>=6.9,<7.2 (6.9 and 7.1 checked)",
        loses=(
            "figures are sized by walking their wrapper objects (~10 ms more per large animation)"
        ),
        probe=_probe_figure_parts,
    ),
)

#: Every private use in the project: the dashboard's, the pipeline's, the cluster reader's and
#: the adapters'.
REGISTRY: tuple[Internal, ...] = (
    *INTERNALS,
    *pipeline_internals.INTERNALS,
    *cluster_internals.INTERNALS,
)

USES = Uses(INTERNALS)
reason_off = USES.reason_off
applies = USES.applies
switch_off = USES.switch_off


@dataclass(frozen=True, slots=True)
class Off:
    """A use that is off: its entry and why."""

    entry: Internal
    reason: str

    @property
    def line(self) -> str:
        return self.entry.off_line(self.reason)


def check_internals() -> tuple[Off, ...]:
    """Probe every entry of :data:`REGISTRY` (each once per process; later calls return the
    same answer) and return those that are off, each logged once. An entry of a library that
    is not installed (PySpark without the ``spark`` extra) is not probed: no feature of it can
    run, so none is off, and a fresh install starts without a warning."""
    off = []
    for uses in (USES, pipeline_internals.USES, cluster_internals.USES):
        for entry in uses.entries:
            if not _installed(entry.library):
                continue
            reason = uses.reason_off(entry.name)
            if reason is not None:
                off.append(Off(entry, reason))
    return tuple(off)


def off_notice(off: Sequence[Off]) -> str | None:
    """The sidebar's words for ``off`` (None when nothing is off)."""
    if not off:
        return None
    count = len(off)
    head = (
        f"{count} server feature{'s are' if count > 1 else ' is'} off on the installed libraries:"
    )
    return "\n".join([head, *(f"- {item.line}" for item in off)])


def show_off_notice() -> None:
    """Check every entry (once per process) and, if any is off, say so in the sidebar."""
    import streamlit as st

    notice_markdown = off_notice(check_internals())  # names of our own entries only
    if notice_markdown is not None:
        st.sidebar.warning(notice_markdown, icon="⚠️")

"""Threads of the server for short blocking work that must not hold a page's run: a live
group's readings (a slow or silent cluster waits here, not in the script thread).

One pool for the whole server, created on first use and bounded (:data:`MAX_THREADS`), so that
many watching tabs share a few threads; a page keeps its :class:`~concurrent.futures.Future` in
its session and looks at it on its next run.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import ParamSpec, TypeVar

#: Readings in flight at once across every session (a fifth waits for a free thread).
MAX_THREADS = 4

P = ParamSpec("P")
T = TypeVar("T")

_pool: ThreadPoolExecutor | None = None
_lock = threading.Lock()


def submit(work: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> Future[T]:
    """Run ``work(*args, **kwargs)`` on the server's shared threads; its future."""
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=MAX_THREADS, thread_name_prefix="ae-watch")
        pool = _pool
    return pool.submit(work, *args, **kwargs)

"""Heavy work in a worker process that the session can stop: cancellable, with progress.

A big group's computation (parse, plan, every strategy, metrics) takes seconds to minutes of
pure Python. Run in the script thread, nothing can stop it: a closed tab or a new click leaves
it running to the end, holding a core and the server's memory, and it competes with every other
session for the one interpreter lock. :func:`run` runs it in a forked child process instead:

1. The child is forked from the server, so it inherits the inputs (a parsed scenario) without
   copying them; it computes, pickles the answer into a pipe and exits. Its peak memory goes back
   to the system when it exits, and the operating system shares the cores between it and the
   server fairly.
2. While the child works, the script thread polls the pipe and redraws a progress line every
   :data:`POLL_S`. Each redraw is where Streamlit stops a script whose session asked for a rerun
   or went away (a new action, a closed tab): the exception it raises ends :func:`run`, which
   kills the child. The session's liveness is also checked directly, and a ``deadline_s`` bounds
   the wait.
3. Every live child is recorded; :func:`stop_all` (called at exit) kills them, so the server
   never waits for work nobody will see. Children also ask the kernel to kill them when the
   thread that started them ends (``PR_SET_PDEATHSIG``), so a server killed outright leaves none.

Invariants: when :func:`run` returns or raises, its child has exited and been reaped; a child
never writes to the session; answers cross the pipe pickled (read-only mappings included).
"""

from __future__ import annotations

import atexit
import contextlib
import copyreg
import ctypes
import multiprocessing
import os
import pickle
import signal
import threading
import time
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from types import MappingProxyType
from typing import Any, TypeVar

T = TypeVar("T")

#: Seconds between two looks at the child (and two progress redraws).
POLL_S = 0.25
#: Seconds a child gets to end after SIGTERM before SIGKILL.
KILL_GRACE_S = 1.0
_PR_SET_PDEATHSIG = 1
#: How much lower a child's scheduling priority is than the server's.
NICENESS = 10


def read_only(content: dict[Any, Any]) -> MappingProxyType[Any, Any]:
    """Rebuilds a read-only mapping on unpickling (the type itself cannot be named)."""
    return MappingProxyType(content)


copyreg.pickle(MappingProxyType, lambda proxy: (read_only, (dict(proxy),)))


class JobCancelled(Exception):
    """The job was stopped before it finished (its session went away or the deadline passed)."""


class JobFailed(Exception):
    """The job raised; the message carries the child's exception type and text."""

    def __init__(self, message: str, original: BaseException | None = None) -> None:
        super().__init__(message)
        self.original = original


_live: dict[int, BaseProcess] = {}
_live_lock = threading.Lock()


def live_pids() -> list[int]:
    """Process ids of the children running now (for tests and the status line)."""
    with _live_lock:
        return [pid for pid, process in _live.items() if process.is_alive()]


def _die_with_parent() -> None:
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _child(function: Callable[..., Any], args: tuple[Any, ...], sender: Connection) -> None:
    """The child's whole life: compute, send ``("ok", answer)`` or ``("error", ...)``, exit."""
    _die_with_parent()
    # Below the server: a session's heavy work yields the cores to every session's reruns.
    with contextlib.suppress(OSError):
        os.nice(NICENESS)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        answer = function(*args)
        payload = pickle.dumps(("ok", answer), protocol=pickle.HIGHEST_PROTOCOL)
    except BaseException as error:  # the parent re-raises it; nothing may escape a child
        try:
            payload = pickle.dumps(("error", error, traceback.format_exc()))
        except Exception:
            payload = pickle.dumps(("error", None, f"{type(error).__name__}: {error}"))
    with contextlib.suppress(BrokenPipeError, OSError):
        sender.send_bytes(payload)
    sender.close()
    os._exit(0)


def _end(process: BaseProcess) -> None:
    """Stop ``process`` (SIGTERM, then SIGKILL) and reap it; forget it."""
    if process.is_alive():
        process.terminate()
        process.join(KILL_GRACE_S)
        if process.is_alive():
            process.kill()
    process.join()
    with _live_lock:
        _live.pop(process.pid or -1, None)


def stop_all() -> None:
    """Kill every running child (server shutdown)."""
    with _live_lock:
        processes = list(_live.values())
    for process in processes:
        with contextlib.suppress(Exception):
            process.kill()
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(KILL_GRACE_S)
    with _live_lock:
        _live.clear()


def _streaming_child(
    function: Callable[..., None], args: tuple[Any, ...], sender: Connection
) -> None:
    """A streaming child's whole life: ``function(emit, *args)``, each emitted item sent as
    ``("item", x)`` at once, then ``("ok", None)`` or ``("error", ...)``; exit."""

    def emit(item: Any) -> None:
        sender.send_bytes(pickle.dumps(("item", item), protocol=pickle.HIGHEST_PROTOCOL))

    def work() -> None:
        function(emit, *args)

    _child(work, (), sender)


def stream(
    function: Callable[..., None],
    *args: Any,
    on_item: Callable[[Any], None],
    on_wait: Callable[[float], None] | None = None,
    still_wanted: Callable[[], bool] | None = None,
    deadline_s: float | None = None,
) -> None:
    """``function(emit, *args)`` computed in a child process; ``on_item(x)`` in the caller for
    each ``emit(x)`` of the child, as soon as it arrives (show partial answers there).

    Otherwise as :func:`run`: ``on_wait`` between items, cancellation by ``still_wanted`` or
    ``deadline_s`` (:class:`JobCancelled`), the child's exception as :class:`JobFailed`. Items
    cross the pipe pickled: keep them small (the caller's thread unpickles them).
    """

    def receive(payload: bytes) -> bool:
        status, *rest = pickle.loads(payload)
        if status == "item":
            on_item(rest[0])
            return False
        if status == "ok":
            return True
        original, text = rest
        raise JobFailed(text.strip().splitlines()[-1] if text else "the job failed", original)

    _supervise(_streaming_child, function, args, receive, on_wait, still_wanted, deadline_s)


def _supervise(
    child: Callable[..., None],
    function: Callable[..., Any],
    args: tuple[Any, ...],
    receive: Callable[[bytes], bool],
    on_wait: Callable[[float], None] | None,
    still_wanted: Callable[[], bool] | None,
    deadline_s: float | None,
) -> None:
    """Start ``child(function, args, sender)`` in a forked process and hand each message it
    sends to ``receive`` until ``receive`` returns True; the child is ended and reaped on the
    way out, whatever happens."""
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=child, args=(function, args, sender), daemon=True)
    process.start()
    sender.close()
    with _live_lock:
        _live[process.pid or -1] = process
    started = time.monotonic()
    try:
        while True:
            if receiver.poll(POLL_S):
                try:
                    payload = receiver.recv_bytes()
                except EOFError:
                    raise JobFailed(
                        f"the worker process ended with code {process.exitcode}"
                    ) from None
                if receive(payload):
                    return
                continue
            elapsed = time.monotonic() - started
            if not process.is_alive() and not receiver.poll(0):
                raise JobFailed(f"the worker process ended with code {process.exitcode}")
            if still_wanted is not None and not still_wanted():
                raise JobCancelled("nobody waits for this result any more")
            if deadline_s is not None and elapsed > deadline_s:
                raise JobCancelled(f"not done after {deadline_s:.0f} s")
            if on_wait is not None:
                on_wait(elapsed)
    finally:
        receiver.close()
        _end(process)


def run(
    function: Callable[..., T],
    *args: Any,
    on_wait: Callable[[float], None] | None = None,
    still_wanted: Callable[[], bool] | None = None,
    deadline_s: float | None = None,
) -> T:
    """``function(*args)`` computed in a child process; its answer.

    ``on_wait(elapsed_s)`` is called every :data:`POLL_S` while the child works (draw progress
    there: Streamlit stops the script at such a call when its session wants it stopped, and the
    child is killed on the way out). ``still_wanted()`` returning False, or ``deadline_s``
    passing, kills the child and raises :class:`JobCancelled`. The child's own exception comes
    back as :class:`JobFailed` (with ``original`` set when it could be pickled).
    """
    answers: list[Any] = []

    def receive(payload: bytes) -> bool:
        answers.append(payload)
        return True

    _supervise(_child, function, args, receive, on_wait, still_wanted, deadline_s)
    status, *rest = pickle.loads(answers[0])
    if status == "ok":
        answer: T = rest[0]
        return answer
    original, text = rest
    raise JobFailed(text.strip().splitlines()[-1] if text else "the job failed", original)


atexit.register(stop_all)

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
3. At most :func:`configured_workers` children run at once, server-wide (``AE_WORKERS``,
   default the number of cores), and a job starts only while the server and its running
   children use less than :func:`configured_memory` (``AE_MEMORY_BYTES``, default 6 GiB;
   proportional set sizes, so pages a child shares with the server count once), unless no other
   job runs. A further job waits its turn, in arrival order, still cancellable, and tells its
   session how many are ahead (``on_queued``). This bounds the memory heavy work can take at
   once and how much of the machine one team member's uploads can take from the others' reruns.
4. Every live child is recorded; :func:`stop_all` (called at exit) kills them, so the server
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
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
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


def configured_workers() -> int:
    """Heavy jobs that may run at once: ``AE_WORKERS`` (a positive integer), else the cores."""
    raw = os.environ.get("AE_WORKERS", "").strip()
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    return max(1, os.cpu_count() or 1)


def configured_memory() -> int:
    """Bytes the server and its workers may use when a job starts: ``AE_MEMORY_BYTES``
    (suffixes K/M/G allowed), default 6 GiB (a quarter of a 24 GB machine shared by a team)."""
    from dashboard.runtime.budget import parse_bytes

    raw = os.environ.get("AE_MEMORY_BYTES", "").strip()
    return parse_bytes(raw) if raw else 6 << 30


def pss_bytes(pid: int) -> int:
    """Proportional set size of one process (0 when it has gone): its resident pages, each
    page shared with other processes divided among them."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as rollup:
            for line in rollup:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        return 0
    return 0


def memory_in_use() -> int:
    """The server's and its running workers' memory (sum of proportional set sizes)."""
    return pss_bytes(os.getpid()) + sum(pss_bytes(pid) for pid in live_pids())


class _Turns:
    """First come, first served turns for at most ``limit`` jobs at once; with another job
    running, a turn also waits until ``memory_ok()``."""

    def __init__(self, limit: int, memory_ok: Callable[[], bool] = lambda: True) -> None:
        self.limit = limit
        self.memory_ok = memory_ok
        self._running = 0
        self._queue: list[object] = []
        self._changed = threading.Condition()

    def wait_turn(self, ticket: object, timeout: float) -> int:
        """Take a turn if ``ticket`` is first in line and a place is free (0), else wait up to
        ``timeout`` s and return how many jobs are ahead of it, running or waiting (it stays in
        line)."""
        with self._changed:
            if ticket not in self._queue:
                self._queue.append(ticket)
            if not self._may_start(ticket):
                self._changed.wait(timeout)
            if self._may_start(ticket):
                self._queue.pop(0)
                self._running += 1
                return 0
            return self._queue.index(ticket) + self._running

    def _may_start(self, ticket: object) -> bool:
        if self._queue[0] is not ticket or self._running >= self.limit:
            return False
        return self._running == 0 or self.memory_ok()

    def leave(self, ticket: object, had_turn: bool) -> None:
        """Give the turn back (``had_turn``) or leave the line."""
        with self._changed:
            if had_turn:
                self._running -= 1
            elif ticket in self._queue:
                self._queue.remove(ticket)
            self._changed.notify_all()


def _memory_limit() -> int:
    """:func:`configured_memory`, or its default with a warning when the setting is malformed."""
    try:
        return configured_memory()
    except ValueError as error:
        print(f"AE_MEMORY_BYTES ignored ({error}); using 6 GiB", file=sys.stderr)
        return 6 << 30


_MEMORY_LIMIT = _memory_limit()
_turns = _Turns(configured_workers(), lambda: memory_in_use() < _MEMORY_LIMIT)


def queued_text(ahead: int, elapsed: float) -> str:
    """The progress line of a job waiting for its turn."""
    jobs_ahead = "1 heavy job" if ahead == 1 else f"{ahead} heavy jobs"
    return (
        f"Waiting for a free worker: {jobs_ahead} ahead of this one on the server "
        f"({elapsed:.0f} s); it starts as soon as one ends."
    )


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
    on_queued: Callable[[int, float], object] | None = None,
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

    caller = _Caller(receive, on_wait, still_wanted, deadline_s, on_queued)
    _supervise(_streaming_child, function, args, caller)


@dataclass(frozen=True)
class _Caller:
    """What the session that asked for a job wants told and when it stops wanting the answer."""

    receive: Callable[[bytes], bool]
    on_wait: Callable[[float], None] | None
    still_wanted: Callable[[], bool] | None
    deadline_s: float | None
    on_queued: Callable[[int, float], object] | None = None

    def check(self, elapsed: float) -> None:
        """Raise :class:`JobCancelled` when nobody wants the answer or the deadline passed."""
        if self.still_wanted is not None and not self.still_wanted():
            raise JobCancelled("nobody waits for this result any more")
        if self.deadline_s is not None and elapsed > self.deadline_s:
            raise JobCancelled(f"not done after {self.deadline_s:.0f} s")


def _supervise(
    child: Callable[..., None], function: Callable[..., Any], args: tuple[Any, ...], caller: _Caller
) -> None:
    """Wait for a turn (:func:`_wait_turn`), start ``child(function, args, sender)`` in a
    forked process and hand each message it sends to ``caller.receive`` until that returns
    True; the child is ended and reaped, and the turn given back, whatever happens."""
    ticket = object()
    started = time.monotonic()
    had_turn = False
    try:
        _wait_turn(ticket, started, caller)
        had_turn = True
        _watch(child, function, args, caller, started)
    finally:
        _turns.leave(ticket, had_turn)


def _wait_turn(ticket: object, started: float, caller: _Caller) -> None:
    """Until ``ticket`` gets a turn: report the jobs ahead every :data:`POLL_S` (``on_queued``,
    else ``on_wait``), and stop waiting as a running job would be stopped."""
    while ahead := _turns.wait_turn(ticket, POLL_S):
        elapsed = time.monotonic() - started
        caller.check(elapsed)
        if caller.on_queued is not None:
            caller.on_queued(ahead, elapsed)
        elif caller.on_wait is not None:
            caller.on_wait(elapsed)


def _watch(
    child: Callable[..., None],
    function: Callable[..., Any],
    args: tuple[Any, ...],
    caller: _Caller,
    started: float,
) -> None:
    """Fork the child and follow it (see :func:`_supervise`)."""
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=child, args=(function, args, sender), daemon=True)
    process.start()
    sender.close()
    with _live_lock:
        _live[process.pid or -1] = process
    try:
        while True:
            if receiver.poll(POLL_S):
                try:
                    payload = receiver.recv_bytes()
                except EOFError:
                    raise JobFailed(
                        f"the worker process ended with code {process.exitcode}"
                    ) from None
                if caller.receive(payload):
                    return
                continue
            elapsed = time.monotonic() - started
            if not process.is_alive() and not receiver.poll(0):
                raise JobFailed(f"the worker process ended with code {process.exitcode}")
            caller.check(elapsed)
            if caller.on_wait is not None:
                caller.on_wait(elapsed)
    finally:
        receiver.close()
        _end(process)


def run(
    function: Callable[..., T],
    *args: Any,
    on_wait: Callable[[float], None] | None = None,
    still_wanted: Callable[[], bool] | None = None,
    deadline_s: float | None = None,
    on_queued: Callable[[int, float], object] | None = None,
) -> T:
    """``function(*args)`` computed in a child process; its answer.

    ``on_wait(elapsed_s)`` is called every :data:`POLL_S` while the child works (draw progress
    there: Streamlit stops the script at such a call when its session wants it stopped, and the
    child is killed on the way out). ``still_wanted()`` returning False, or ``deadline_s``
    passing, kills the child and raises :class:`JobCancelled`. The child's own exception comes
    back as :class:`JobFailed` (with ``original`` set when it could be pickled). While the job
    waits for a turn (module doc, point 3), ``on_queued(jobs_ahead, elapsed_s)`` is called
    instead of ``on_wait`` when given.
    """
    answers: list[Any] = []

    def receive(payload: bytes) -> bool:
        answers.append(payload)
        return True

    _supervise(
        _child, function, args, _Caller(receive, on_wait, still_wanted, deadline_s, on_queued)
    )
    status, *rest = pickle.loads(answers[0])
    if status == "ok":
        answer: T = rest[0]
        return answer
    original, text = rest
    raise JobFailed(text.strip().splitlines()[-1] if text else "the job failed", original)


atexit.register(stop_all)

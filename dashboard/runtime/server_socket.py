"""Small writes leave the server at once: TCP_NODELAY on the server's listening sockets.

Streamlit 1.67 binds its listening socket itself (``socket.socket(family)``: protocol number 0),
and asyncio turns Nagle's algorithm off only on sockets whose protocol reads ``IPPROTO_TCP``. So
every connection it accepted kept Nagle on: a response written in two parts (headers, then
body) held the body until the browser acknowledged the headers, and the browser delays that
acknowledgement by up to 40 ms. Measured on this machine: the second and later requests on a
kept-alive connection took 44 ms each, even ``/_stcore/health`` (the first, 1 ms); a first page
fetches ~60 of Streamlit's modules over six connections, so ~0.45 s of its load was that wait,
and the websocket's messages after the first waited the same way.

Linux copies TCP_NODELAY from a listening socket to each connection it accepts. It is set once
per process: by ``dashboard/serve.py`` before the first request, or, when ``dashboard/app.py`` is
run directly, on its first run, after which every connection accepted (the next page load, its
modules and its websocket) sends small writes at once; the page that ran first keeps the
connections it already has.

Listing ``/proc/self/fd`` is its entry ``server_socket.nodelay_listeners`` in
:mod:`dashboard.runtime.internals`: where it cannot be listed, descriptors 3-255 are tried
instead and a line says so at start-up.
"""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Iterable

from dashboard.runtime import internals

_done = False


def _descriptors() -> Iterable[int]:
    """The process's open file descriptors (``/proc/self/fd``; descriptors 3-255 when the
    entry ``server_socket.nodelay_listeners`` is off)."""
    name = "server_socket.nodelay_listeners"
    if internals.applies(name):
        try:
            return [int(fd) for fd in os.listdir(internals.PROC_FDS)]
        except OSError as error:
            internals.switch_off(name, f"cannot list {internals.PROC_FDS}: {error.strerror}")
    return range(3, 256)


def set_nodelay(fd: int) -> bool:
    """TCP_NODELAY on ``fd`` if it is a listening TCP socket (IPv4 or IPv6); True if set.
    Works on a duplicate of ``fd``: a socket option belongs to the socket, not to the
    descriptor, and ``fd`` itself is neither closed nor changed otherwise."""
    try:
        if not stat.S_ISSOCK(os.fstat(fd).st_mode):
            return False
        sock = socket.socket(fileno=os.dup(fd))
    except OSError:
        return False
    with sock:
        if sock.family not in (socket.AF_INET, socket.AF_INET6):
            return False
        if sock.type != socket.SOCK_STREAM:
            return False
        if not sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN):
            return False
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return True


def nodelay_listeners() -> int:
    """Once per process: TCP_NODELAY on every listening TCP socket it has; how many were set
    (0 on later calls)."""
    global _done
    if _done:
        return 0
    _done = True
    return sum(set_nodelay(fd) for fd in _descriptors())

"""TCP_NODELAY on the server's listening sockets (``dashboard/runtime/server_socket.py``), on real
sockets of this process: set on listening TCP sockets only, inherited by what they accept,
once per process."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator

import pytest

from dashboard.runtime import server_socket


def _nodelay(sock: socket.socket) -> int:
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)


@pytest.fixture()
def listener() -> Iterator[socket.socket]:
    """Bound as Streamlit 1.67 binds it: ``socket.socket(family)``, protocol number 0."""
    with socket.socket(socket.AF_INET) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock


def test_a_listening_socket_gets_it_and_passes_it_to_what_it_accepts(
    listener: socket.socket,
) -> None:
    assert _nodelay(listener) == 0
    assert server_socket.set_nodelay(listener.fileno())
    assert _nodelay(listener) == 1
    with socket.create_connection(listener.getsockname()):
        accepted, _ = listener.accept()
        with accepted:
            assert accepted.proto == 0  # why asyncio would not set it itself
            assert _nodelay(accepted) == 1
    assert os.fstat(listener.fileno())  # the descriptor is still open


def test_other_descriptors_are_left_alone(listener: socket.socket) -> None:
    with socket.create_connection(listener.getsockname()) as client:
        assert not server_socket.set_nodelay(client.fileno())  # connected, not listening
        assert _nodelay(client) == 0
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        assert not server_socket.set_nodelay(udp.fileno())
    with socket.socket(socket.AF_UNIX) as unix:
        assert not server_socket.set_nodelay(unix.fileno())
    read, write = os.pipe()
    try:
        assert not server_socket.set_nodelay(read)
    finally:
        os.close(read)
        os.close(write)
    assert not server_socket.set_nodelay(read)  # closed


def test_every_listener_of_the_process_once(
    listener: socket.socket, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server_socket, "_done", False)
    assert server_socket.nodelay_listeners() >= 1
    assert _nodelay(listener) == 1
    assert server_socket.nodelay_listeners() == 0

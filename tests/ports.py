"""Ports for the servers the suite starts (Kafka brokers, Spark's master and workers, the
dashboard): one helper, so every fixture asks the OS the same way."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now (the OS picks it).

    Another process may take it before the caller binds it; fixtures that start a server on it
    wait for that server's own answer rather than trusting the port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])

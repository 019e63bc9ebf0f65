"""A recording SOCKS5 proxy on loopback: sees every Kafka request a client sends.

Why SOCKS5: a broker's Metadata and FindCoordinator answers name the broker's own address, so a
plain port-forwarder would only see the bootstrap connection; a client configured with
``proxy_url="socks5://..."`` sends *every* connection through the proxy, to any broker.

How it works, per accepted connection (one thread each):

1. SOCKS5 handshake: no authentication; a CONNECT to an IPv4, IPv6 or host-name target. Only
   loopback targets (127.0.0.0/8, ::1, localhost) are relayed; anything else is refused.
2. With ``tls`` set, the proxy then *terminates* TLS on the client side (the test's own CA and
   certificate, optionally requiring a client certificate) and talks plaintext to the broker, or,
   with ``upstream_tls`` set too, TLS again (to a broker's SASL_SSL listener): the proxy sees
   the requests in clear between the two TLS sessions.
3. Relay both ways. Bytes from the client are split into Kafka request frames (int32 size, then
   the request header: int16 API key, int16 API version, int32 correlation id); each header is
   recorded in :attr:`RecordingProxy.requests` before the frame is forwarded unchanged.
"""

from __future__ import annotations

import ipaddress
import select
import socket
import ssl
import struct
import threading
from dataclasses import dataclass, field
from types import TracebackType

#: Kafka API key -> name, for the keys a test may see.
API_NAMES = {
    0: "Produce",
    1: "Fetch",
    2: "ListOffsets",
    3: "Metadata",
    8: "OffsetCommit",
    9: "OffsetFetch",
    10: "FindCoordinator",
    11: "JoinGroup",
    12: "Heartbeat",
    13: "LeaveGroup",
    14: "SyncGroup",
    15: "DescribeGroups",
    16: "ListGroups",
    17: "SaslHandshake",
    18: "ApiVersions",
    19: "CreateTopics",
    20: "DeleteTopics",
    21: "DeleteRecords",
    32: "DescribeConfigs",
    36: "SaslAuthenticate",
    47: "OffsetDelete",
    60: "DescribeCluster",
    68: "ConsumerGroupHeartbeat",
    69: "ConsumerGroupDescribe",
    76: "ShareGroupHeartbeat",
    77: "ShareGroupDescribe",
    78: "ShareFetch",
    79: "ShareAcknowledge",
    88: "StreamsGroupHeartbeat",
    89: "StreamsGroupDescribe",
    90: "DescribeShareGroupOffsets",
}


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    api_key: int
    api_version: int
    target: str

    @property
    def name(self) -> str:
        return API_NAMES.get(self.api_key, f"ApiKey{self.api_key}")


@dataclass
class RecordingProxy:
    """Start with ``with RecordingProxy() as proxy:``; point clients at ``proxy.url``."""

    tls: ssl.SSLContext | None = None
    upstream_tls: ssl.SSLContext | None = None
    requests: list[RecordedRequest] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    _server: socket.socket | None = None
    _threads: list[threading.Thread] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.getsockname()[:2]
        return f"socks5://{host}:{port}"

    def __enter__(self) -> RecordingProxy:
        self._server = socket.create_server(("127.0.0.1", 0))
        self._server.settimeout(0.2)
        accept = threading.Thread(target=self._accept_loop, name="proxy-accept", daemon=True)
        accept.start()
        self._threads.append(accept)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._stop.set()
        for thread in list(self._threads):
            thread.join(timeout=5)
        if self._server is not None:
            self._server.close()

    def seen(self) -> list[tuple[str, int]]:
        """Distinct (API name, version) pairs in the order first seen."""
        with self._lock:
            pairs = [(r.name, r.api_version) for r in self.requests]
        return list(dict.fromkeys(pairs))

    def keys(self) -> set[int]:
        with self._lock:
            return {r.api_key for r in self.requests}

    def clear(self) -> None:
        with self._lock:
            self.requests.clear()

    # -- internals ------------------------------------------------------------------------------

    def _accept_loop(self) -> None:
        assert self._server is not None
        while not self._stop.is_set():
            try:
                client, _ = self._server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            thread = threading.Thread(target=self._serve, args=(client,), daemon=True)
            thread.start()
            self._threads.append(thread)

    @staticmethod
    def _read_exact(sock: socket.socket, count: int) -> bytes:
        data = b""
        while len(data) < count:
            chunk = sock.recv(count - len(data))
            if not chunk:
                raise ConnectionError("closed during the SOCKS handshake")
            data += chunk
        return data

    def _socks_handshake(self, client: socket.socket) -> tuple[str, int]:
        version, methods = self._read_exact(client, 2)
        self._read_exact(client, methods)
        if version != 5:
            raise ConnectionError(f"not SOCKS5 (version {version})")
        client.sendall(b"\x05\x00")  # no authentication
        _, command, _, address_type = self._read_exact(client, 4)
        if address_type == 1:
            host = socket.inet_ntop(socket.AF_INET, self._read_exact(client, 4))
        elif address_type == 4:
            host = socket.inet_ntop(socket.AF_INET6, self._read_exact(client, 16))
        else:
            host = self._read_exact(client, self._read_exact(client, 1)[0]).decode()
        (port,) = struct.unpack(">H", self._read_exact(client, 2))
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
        if command != 1 or not loopback:
            client.sendall(b"\x05\x02\x00\x01" + b"\x00" * 6)  # not allowed
            raise ConnectionError(f"refused CONNECT to {host}:{port} (loopback only)")
        client.sendall(b"\x05\x00\x00\x01" + socket.inet_aton("127.0.0.1") + b"\x00\x00")
        return host, port

    def _serve(self, client: socket.socket) -> None:
        upstream: socket.socket | None = None
        try:
            client.settimeout(10)
            host, port = self._socks_handshake(client)
            upstream = socket.create_connection((host, port), timeout=10)
            if self.upstream_tls is not None:
                upstream = self.upstream_tls.wrap_socket(upstream, server_hostname=host)
            if self.tls is not None:
                client = self.tls.wrap_socket(client, server_side=True)
            self._relay(client, upstream, f"{host}:{port}")
        except (OSError, ConnectionError, ValueError) as error:
            with self._lock:
                self.errors.append(f"{type(error).__name__}: {error}")
        finally:
            client.close()
            if upstream is not None:
                upstream.close()

    @staticmethod
    def _receive(sock: socket.socket) -> bytes | None:
        """Whatever application data is there (``b""``: closed), or None if none came in 0.2 s.

        A TLS socket can be readable with no application data (a session ticket after the
        handshake): a blocking read would then wait for data the other side is still waiting
        to send, so reads time out and the loop goes on.
        """
        sock.settimeout(0.2)
        try:
            return sock.recv(65536)
        except (TimeoutError, ssl.SSLWantReadError):
            return None
        finally:
            sock.settimeout(30)

    def _relay(self, client: socket.socket, upstream: socket.socket, target: str) -> None:
        pending = b""
        client.settimeout(30)
        upstream.settimeout(30)
        while not self._stop.is_set():
            buffered = [
                sock
                for sock in (client, upstream)
                if isinstance(sock, ssl.SSLSocket) and sock.pending() > 0
            ]
            readable = buffered or select.select([client, upstream], [], [], 0.2)[0]
            for sock in readable:
                data = self._receive(sock)
                if data is None:
                    continue
                if not data:
                    return
                if sock is upstream:
                    client.sendall(data)
                    continue
                pending += data
                while len(pending) >= 4:
                    (size,) = struct.unpack(">i", pending[:4])
                    if len(pending) < 4 + size:
                        break
                    api_key, api_version = struct.unpack(">hh", pending[4:8])
                    with self._lock:
                        self.requests.append(RecordedRequest(api_key, api_version, target))
                    upstream.sendall(pending[: 4 + size])
                    pending = pending[4 + size :]

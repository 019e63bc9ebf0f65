"""Before kafka-python bootstraps: reach one bootstrap server step by step, and name what failed.

kafka-python retries every failure until its bootstrap timeout and then reports only "Unable to
bootstrap", so a refused port, a name that does not resolve, a TLS mismatch and a server that is
not Kafka all look alike and all take the whole timeout. :func:`probe` walks the steps itself, on
one bootstrap server after another, until one passes them all:

1. DNS: the host name resolves (else :class:`~cluster.errors.NameNotResolvedError`, at once).
2. TCP: the port accepts a connection (refused: :class:`~cluster.errors.RefusedConnectionError`
   at once; no answer: :class:`~cluster.errors.RequestTimeoutError` naming the step).
3. TLS, when the security protocol uses it: the handshake with the settings' CA file (and client
   certificate); an untrusted certificate, a host name the certificate does not name and a server
   that does not speak TLS each get their own :class:`~cluster.errors.TlsHandshakeError`.
4. Kafka: an ApiVersions request (version 0, the one every broker answers; it is on the reader's
   read-only allow-list) and its answer's frame and correlation id; a server that answers
   something else is :class:`~cluster.errors.NotKafkaError`, a TLS listener met without TLS says
   so, silence is a time-out naming the request.

5. SASL, when the security protocol uses it: a SaslHandshake (version 1) naming the settings'
   mechanism; a listener that does not accept it is an
   :class:`~cluster.errors.AuthenticationFailedError` that lists the mechanisms it does accept.
6. The login itself: SaslAuthenticate (version 1) with the settings' user and password (PLAIN in
   one round, SCRAM in two, with kafka-python's SCRAM client); a broker that refuses it is an
   :class:`~cluster.errors.AuthenticationFailedError` carrying the broker's own reason, at once.
   kafka-python alone retries a refused login until its bootstrap timeout and then, depending on
   which it read first (the refusal or the closed socket), reports either the refusal or only a
   time-out; the probe reads the answer itself. The password goes to the broker only, over the
   settings' security protocol, as kafka-python would send it; nothing here logs it.

If every server fails, the first server's failure is raised. The whole probe is bounded by the
settings' timeout.
"""

from __future__ import annotations

import socket
import ssl
import struct
import time
from typing import Any

from cluster import internals
from cluster.errors import (
    AuthenticationFailedError,
    ClusterError,
    ConnectionSettingsError,
    NameNotResolvedError,
    NotKafkaError,
    RefusedConnectionError,
    RequestTimeoutError,
    TlsHandshakeError,
)

_CORRELATION_ID = 0x5AFE
_UNSUPPORTED_SASL_MECHANISM = 33
_API_VERSIONS, _SASL_HANDSHAKE, _SASL_AUTHENTICATE = 18, 17, 36
_MAX_FRAME = 100 * 2**20


def split_server(server: str) -> tuple[str, int]:
    """``host:port`` (``[v6]:port`` too) -> (host, port); port 9092 when none is given."""
    host, _, port = server.strip().rpartition(":")
    if not host or not port.isdigit():
        return server.strip().strip("[]"), 9092
    return host.strip("[]"), int(port)


def _tls_context(settings: Any) -> ssl.SSLContext:
    """The TLS context of ``settings``. A CA file or client certificate the ``ssl`` module
    cannot load is a setting to change (:class:`ConnectionSettingsError`), named by the setting,
    not by its path, with the library's reason in words; not a connection failure."""
    try:
        context = ssl.create_default_context(cafile=settings.ssl_cafile)
    except OSError as error:  # ssl.SSLError is one
        raise ConnectionSettingsError(
            f"the CA file holds no certificate TLS can use ({_tls_reason(error)}): set it to the"
            " PEM file of the CA that signed the brokers' certificates."
        ) from None
    context.check_hostname = bool(settings.ssl_check_hostname)
    if settings.ssl_certfile:
        password = settings.ssl_key_password.reveal() if settings.ssl_key_password else None
        try:
            context.load_cert_chain(settings.ssl_certfile, settings.ssl_keyfile, password)
        except OSError as error:
            raise ConnectionSettingsError(
                f"the client certificate and key cannot be used ({_tls_reason(error)}): set"
                " them to the PEM files of one certificate and its private key, and the key's"
                " password if it has one."
            ) from None
    return context


def _tls_reason(error: OSError) -> str:
    """The ``ssl`` module's reason in words (``NO_CERTIFICATE_OR_CRL_FOUND`` -> "no certificate
    or crl found"): no file name, no source line of the C library."""
    reason = getattr(error, "reason", None) or error.strerror or type(error).__name__
    return str(reason).replace("_", " ").lower()


def _string(text: str) -> bytes:
    data = text.encode("utf-8")
    return struct.pack(">h", len(data)) + data


def _request(
    api_key: int, version: int, correlation: int, client_id: str, payload: bytes = b""
) -> bytes:
    """A request frame with request header v1 (key, version, correlation id, client id)."""
    body = struct.pack(">hhi", api_key, version, correlation) + _string(client_id) + payload
    return struct.pack(">i", len(body)) + body


def login_refused(settings: Any, reason: str) -> AuthenticationFailedError:
    """The one message for a refused SASL login: who, with what, the broker's reason, what to do."""
    mechanism = settings.sasl_mechanism
    return AuthenticationFailedError(
        f"the brokers at {settings.bootstrap_servers} refused user {settings.sasl_username!r}"
        f" with {mechanism} ({reason}): check the user name and password, and that the user has"
        f" {mechanism} credentials on this cluster."
    )


def _check_sasl_mechanism(sock: socket.socket, settings: Any) -> bool:
    """Step 5: the listener accepts the settings' SASL mechanism (else name the ones it does).

    False when the answer is neither (the listener closed, another error): kafka-python's own
    attempt will say why.
    """
    mechanism = str(settings.sasl_mechanism)
    payload = _string(mechanism)
    body = _exchange(
        sock, _request(_SASL_HANDSHAKE, 1, _CORRELATION_ID + 1, settings.client_id, payload)
    )
    if body is None or len(body) < 10:
        return False
    error_code, count = struct.unpack(">hi", body[4:10])
    if error_code != _UNSUPPORTED_SASL_MECHANISM:
        return bool(error_code == 0)
    enabled, offset = [], 10
    for _ in range(max(count, 0)):
        (length,) = struct.unpack(">h", body[offset : offset + 2])
        enabled.append(body[offset + 2 : offset + 2 + length].decode("utf-8", "replace"))
        offset += 2 + length
    raise AuthenticationFailedError(
        f"the listener at {settings.bootstrap_servers} does not accept the SASL mechanism"
        f" {mechanism}: choose one it accepts ({', '.join(enabled) or 'none listed'})."
    )


def _exchange(sock: socket.socket, request: bytes) -> bytes | None:
    """Send one request frame; its answer's body (correlation id first), None if the peer closed."""
    sock.sendall(request)
    head = _read(sock, 4)
    if len(head) < 4:
        return None
    (size,) = struct.unpack(">i", head)
    body = _read(sock, min(size, _MAX_FRAME))
    return body if len(body) == size else None


def _authenticate_round(
    sock: socket.socket, settings: Any, correlation: int, token: bytes
) -> bytes | None:
    """One SaslAuthenticate v1 exchange: the server's token; a refusal raises, with its reason.

    The answer: correlation id, error code (int16), error message (nullable string), the
    server's token (bytes), session lifetime (int64). None when the listener closed.
    """
    payload = struct.pack(">i", len(token)) + token
    request = _request(_SASL_AUTHENTICATE, 1, correlation, settings.client_id, payload)
    body = _exchange(sock, request)
    if body is None or len(body) < 8:
        return None
    error_code, length = struct.unpack(">hh", body[4:8])
    message = body[8 : 8 + length].decode("utf-8", "replace") if length >= 0 else ""
    offset = 8 + max(length, 0)
    if error_code != 0:
        raise login_refused(settings, message or f"error code {error_code}")
    if len(body) < offset + 4:
        return None
    (size,) = struct.unpack(">i", body[offset : offset + 4])
    return body[offset + 4 : offset + 4 + max(size, 0)]


def _scram_client(user: str, password: str, mechanism: str) -> Any:
    from kafka.net.sasl.scram import ScramClient  # kafka-python 3 (the pinned major)

    return ScramClient(user, password, mechanism)


def _check_sasl_login(sock: socket.socket, settings: Any) -> None:
    """Step 6: log in as the settings' user; a refusal raises :func:`login_refused`."""
    user = str(settings.sasl_username)
    password = settings.sasl_password.reveal() if settings.sasl_password else ""
    correlation = _CORRELATION_ID + 2
    if settings.sasl_mechanism == "PLAIN":
        token = b"\0" + user.encode("utf-8") + b"\0" + password.encode("utf-8")
        _authenticate_round(sock, settings, correlation, token)
        return
    if not internals.applies("preflight.scram_client"):  # logged once; kafka-python logs in
        return
    client = _scram_client(user, password, str(settings.sasl_mechanism))
    first = _authenticate_round(sock, settings, correlation, client.first_message())
    if first is None:
        return
    try:
        client.process_server_first_message(first)
        final = _authenticate_round(sock, settings, correlation + 1, client.final_message())
        if final is not None:
            client.process_server_final_message(final)
    except (ValueError, KeyError) as error:
        raise AuthenticationFailedError(
            f"the SCRAM exchange with {settings.bootstrap_servers} broke off ({error}): the"
            " broker's answer is not one a Kafka SCRAM login gives; check the bootstrap servers."
        ) from None


def _read(sock: socket.socket, count: int) -> bytes:
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            break
        data += chunk
    return data


def _check_kafka_answer(server: str, head: bytes, uses_tls: bool) -> None:
    """Step 4: the answer's first 8 bytes are a Kafka frame size and our correlation id."""
    if not head:
        hint = (
            "a TLS listener does that to a client that does not speak TLS: set the security"
            " protocol to SSL or SASL_SSL, or use the broker's plaintext port"
            if not uses_tls
            else "check that this port is a Kafka listener"
        )
        raise NotKafkaError(
            f"the server at {server} closed the connection at the first Kafka request; {hint}."
        )
    if not uses_tls and head[:1] == b"\x15" and head[1:2] == b"\x03":
        raise NotKafkaError(
            f"the server at {server} answered with a TLS alert: it is a TLS listener; set the"
            " security protocol to SSL or SASL_SSL."
        )
    if len(head) == 8:
        size, correlation = struct.unpack(">ii", head)
        if 4 <= size <= _MAX_FRAME and correlation == _CORRELATION_ID:
            return
    raise NotKafkaError(
        f"the server at {server} answered, but not in Kafka's protocol (its first bytes:"
        f" {head[:16]!r}); check that the bootstrap servers name a Kafka listener's host and port."
    )


def _probe_one(server: str, settings: Any, deadline: float) -> None:
    host, port = split_server(server)
    timeout_s = settings.timeout_s

    def remaining() -> float:
        return max(deadline - time.monotonic(), 0.05)

    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise NameNotResolvedError(
            f"the host name {host!r} of bootstrap server {server} does not resolve"
            f" ({error.strerror}); check its spelling in the bootstrap servers."
        ) from None
    family, kind, proto, _, address = addresses[0]
    sock = socket.socket(family, kind, proto)
    step = "connecting (TCP)"
    try:
        sock.settimeout(remaining())
        sock.connect(address)
        if settings.uses_ssl:
            step = "in the TLS handshake"
            sock = _tls_handshake(sock, server, host, settings)
        step = "waiting for the answer to ApiVersions, the first Kafka request"
        sock.settimeout(remaining())
        sock.sendall(_request(_API_VERSIONS, 0, _CORRELATION_ID, settings.client_id))
        head = _read(sock, 8)
        _check_kafka_answer(server, head, settings.uses_ssl)
        if settings.uses_sasl:
            step = "waiting for the answer to SaslHandshake"
            _read(sock, struct.unpack(">i", head[:4])[0] - 4)  # the rest of ApiVersions' answer
            if _check_sasl_mechanism(sock, settings):
                step = "waiting for the answer to SaslAuthenticate"
                _check_sasl_login(sock, settings)
    except ClusterError:
        raise
    except ConnectionRefusedError:
        raise RefusedConnectionError(
            f"nothing listens at {server} (connection refused); check the host and port in the"
            " bootstrap servers."
        ) from None
    except TimeoutError:
        hint = (
            " A plaintext client gets no answer from some TLS listeners: check the security"
            " protocol."
            if "ApiVersions" in step and not settings.uses_ssl
            else ""
        )
        raise RequestTimeoutError(
            f"timed out after {timeout_s:g} s at {server}, {step}; check the host, the port"
            f" and any firewall in between, or raise the timeout.{hint}"
        ) from None
    except (ConnectionResetError, BrokenPipeError):
        _check_kafka_answer(server, b"", settings.uses_ssl)
    except OSError as error:
        raise RefusedConnectionError(
            f"cannot connect to {server} ({error.strerror or error}); check the host and port in"
            " the bootstrap servers."
        ) from None
    finally:
        sock.close()


def _tls_handshake(sock: socket.socket, server: str, host: str, settings: Any) -> ssl.SSLSocket:
    context = _tls_context(settings)
    try:
        return context.wrap_socket(sock, server_hostname=host)
    except ssl.SSLCertVerificationError as error:
        reason = error.verify_message or str(error)
        if "hostname" in reason.lower() or "IP address mismatch" in reason:
            raise TlsHandshakeError(
                f"the TLS certificate of {server} does not name {host!r} ({reason}); connect by a"
                " name the certificate lists, or turn off the host name check."
            ) from None
        raise TlsHandshakeError(
            f"the TLS certificate of {server} is not trusted ({reason}): set the CA file to the"
            " CA that signed the brokers' certificates."
        ) from None
    except (ssl.SSLError, ConnectionResetError, BrokenPipeError) as error:
        reason = getattr(error, "reason", None) or type(error).__name__
        raise TlsHandshakeError(
            f"the TLS handshake with {server} failed ({reason}): the port does not speak TLS; set"
            " the security protocol to PLAINTEXT or SASL_PLAINTEXT, or use the broker's TLS port."
        ) from None


def probe(settings: Any) -> None:
    """Steps 1-6 of the module docstring on each bootstrap server until one passes them all."""
    deadline = time.monotonic() + settings.timeout_s
    servers = [s.strip() for s in settings.bootstrap_servers.split(",") if s.strip()]
    first: ClusterError | None = None
    for server in servers:
        try:
            _probe_one(server, settings, deadline)
            return
        except ClusterError as error:
            first = first or error
            if time.monotonic() >= deadline:
                break
    if first is not None:
        raise first

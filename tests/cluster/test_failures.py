"""The reader names what failed, against real endpoints, within the default 5 s.

Each endpoint is real: a closed port, a name in the reserved ``.invalid`` domain (never resolves),
a socket that accepts and never answers, one that answers like an HTTP server, TLS to Apache
Kafka's plaintext listener, plaintext to its SASL_SSL listener, a wrong password and an
untrusted CA on the SASL_SSL listener. For each: the error type, one sentence that says what to
change, no class name twice, and the time it took (refused, DNS, not Kafka and TLS at once).
"""

from __future__ import annotations

import re
import socket
import struct
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import trustme
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cluster.connection import DEFAULT_TIMEOUT_S, ConnectionSettings, Secret, describe_error
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
from cluster.reader import ClusterReader
from tests.kafka_cluster.cluster import KafkaCluster
from tests.ports import free_port


def _answer_like_a_scram_impostor(connection: socket.socket) -> None:
    """Kafka framing, a SaslHandshake that accepts SCRAM, then a server-first SCRAM message whose
    nonce is not the client's (a server that is not the broker it claims to be)."""
    answers = [
        struct.pack(">hi", 0, 0),  # ApiVersions v0: no error, no API listed
        struct.pack(">hih", 0, 1, 13) + b"SCRAM-SHA-256",  # SaslHandshake v1: accepted
        struct.pack(">hhi", 0, -1, 30) + b"r=not-your-nonce,s=c2FsdA==,i=1" + struct.pack(">q", 0),
    ]
    for answer in answers:
        size = struct.unpack(">i", connection.recv(4))[0]
        request = b""
        while len(request) < size:
            request += connection.recv(size - len(request))
        body = request[4:8] + answer  # the request's correlation id, then the answer
        connection.sendall(struct.pack(">i", len(body)) + body)


@pytest.fixture
def fake_server() -> Iterator[dict[str, str]]:
    """Loopback servers: ``silent`` accepts and never answers, ``http`` answers garbage,
    ``impostor`` speaks Kafka up to a SCRAM answer no broker gives."""
    servers = {"silent": socket.create_server(("127.0.0.1", 0)),
               "http": socket.create_server(("127.0.0.1", 0)),
               "impostor": socket.create_server(("127.0.0.1", 0))}  # fmt: skip
    stop = threading.Event()
    held: list[socket.socket] = []

    def serve(name: str, server: socket.socket) -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except TimeoutError:
                continue
            held.append(connection)
            if name == "http":
                connection.recv(4096)
                connection.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
            if name == "impostor":
                _answer_like_a_scram_impostor(connection)

    threads = [threading.Thread(target=serve, args=item, daemon=True) for item in servers.items()]
    for thread in threads:
        thread.start()
    yield {name: f"127.0.0.1:{s.getsockname()[1]}" for name, s in servers.items()}
    stop.set()
    for thread in threads:
        thread.join(timeout=5)
    for sock in [*servers.values(), *held]:
        sock.close()


def _fails(settings: ConnectionSettings) -> tuple[ClusterError, float]:
    started = time.monotonic()
    with pytest.raises(ClusterError) as caught, ClusterReader(settings) as reader:
        reader.list_groups()
    return caught.value, time.monotonic() - started


def _one_clear_sentence(message: str) -> None:
    names = re.findall(r"\b(\w+(?:Error|Exception))\b", message)
    assert len(names) == len(set(names)), f"a class name twice: {message}"
    assert "Traceback" not in message and "\n" not in message
    assert message.endswith("."), message


def test_default_timeout_is_5_s() -> None:
    assert DEFAULT_TIMEOUT_S == 5.0


def test_a_refused_port_is_named_at_once() -> None:
    port = free_port()
    error, elapsed = _fails(ConnectionSettings(f"127.0.0.1:{port}"))
    assert isinstance(error, RefusedConnectionError)
    assert str(error) == (
        f"nothing listens at 127.0.0.1:{port} (connection refused); check the host and port in"
        " the bootstrap servers."
    )
    assert elapsed < 1.0


def test_a_name_that_does_not_resolve_is_named_at_once() -> None:
    error, elapsed = _fails(ConnectionSettings("nosuch.invalid:9092"))
    assert isinstance(error, NameNotResolvedError)
    assert str(error).startswith(
        "the host name 'nosuch.invalid' of bootstrap server nosuch.invalid:9092 does not resolve"
    )
    assert str(error).endswith("check its spelling in the bootstrap servers.")
    assert elapsed < DEFAULT_TIMEOUT_S


def test_a_silent_server_times_out_naming_the_step(fake_server: dict[str, str]) -> None:
    error, elapsed = _fails(ConnectionSettings(fake_server["silent"], timeout_s=1.5))
    assert isinstance(error, RequestTimeoutError)
    assert str(error).startswith(
        f"timed out after 1.5 s at {fake_server['silent']}, waiting for the answer to"
        " ApiVersions, the first Kafka request;"
    )
    _one_clear_sentence(str(error))
    assert 1.4 < elapsed < 1.5 + 2.0


def test_a_server_that_does_not_speak_kafka(fake_server: dict[str, str]) -> None:
    error, elapsed = _fails(ConnectionSettings(fake_server["http"]))
    assert isinstance(error, NotKafkaError)
    assert str(error) == (
        f"the server at {fake_server['http']} answered, but not in Kafka's protocol (its first"
        " bytes: b'HTTP/1.1'); check that the bootstrap servers name a Kafka listener's"
        " host and port."
    )
    assert elapsed < 1.0


def test_a_scram_answer_no_broker_gives_is_named(fake_server: dict[str, str]) -> None:
    settings = ConnectionSettings(
        fake_server["impostor"], security_protocol="SASL_PLAINTEXT",
        sasl_mechanism="SCRAM-SHA-256", sasl_username="u", sasl_password=Secret("p"),
    )  # fmt: skip
    error, elapsed = _fails(settings)
    assert isinstance(error, AuthenticationFailedError)
    assert str(error) == (
        f"the SCRAM exchange with {fake_server['impostor']} broke off (Server nonce, did not start"
        " with client nonce!): the broker's answer is not one a Kafka SCRAM login gives; check the"
        " bootstrap servers."
    )
    assert elapsed < 2.0


def test_tls_to_a_plaintext_listener(kafka_cluster: KafkaCluster) -> None:
    plaintext = kafka_cluster.bootstrap.split(",")[0]
    settings = ConnectionSettings(
        plaintext, security_protocol="SSL", ssl_cafile=str(kafka_cluster.ca_file)
    )
    error, elapsed = _fails(settings)
    assert isinstance(error, TlsHandshakeError)
    assert str(error).startswith(f"the TLS handshake with {plaintext} failed (")
    assert str(error).endswith(
        "the port does not speak TLS; set the security protocol to PLAINTEXT or SASL_PLAINTEXT,"
        " or use the broker's TLS port."
    )
    _one_clear_sentence(str(error))
    assert elapsed < 2.0


def test_plaintext_to_a_tls_listener(kafka_cluster: KafkaCluster) -> None:
    secure = kafka_cluster.secure_bootstrap.split(",")[0]
    error, elapsed = _fails(ConnectionSettings(secure))
    assert isinstance(error, NotKafkaError)
    assert "TLS listener" in str(error) and "SSL or SASL_SSL" in str(error)
    _one_clear_sentence(str(error))
    assert elapsed < 2.0


def test_an_untrusted_ca(kafka_cluster: KafkaCluster, tmp_path: Path) -> None:
    other = tmp_path / "other-ca.pem"
    trustme.CA().cert_pem.write_to_path(str(other))
    error, elapsed = _fails(kafka_cluster.secure_settings("reader", ssl_cafile=str(other)))
    assert isinstance(error, TlsHandshakeError)
    first = kafka_cluster.secure_bootstrap.split(",")[0]
    assert str(error) == (
        f"the TLS certificate of {first} is not trusted (unable to get local issuer"
        " certificate): set the CA file to the CA that signed the brokers' certificates."
    )
    assert elapsed < 2.0


REFUSALS = {
    "SCRAM-SHA-512": "Authentication failed during authentication due to invalid credentials with"
    " SASL mechanism SCRAM-SHA-512",
    "PLAIN": "Authentication failed: Invalid username or password",
}


@pytest.mark.parametrize("mechanism", sorted(REFUSALS))
def test_a_wrong_password_is_named_at_once(kafka_cluster: KafkaCluster, mechanism: str) -> None:
    # The preflight logs in itself and reads the broker's refusal: kafka-python alone retried
    # until its timeout and then reported the refusal or, when it read the closed socket first,
    # only a time-out.
    settings = kafka_cluster.secure_settings(
        "reader",
        sasl_mechanism=mechanism,
        sasl_password=Secret("not-the-password"),
        timeout_s=DEFAULT_TIMEOUT_S,
    )
    error, elapsed = _fails(settings)
    assert isinstance(error, AuthenticationFailedError)
    assert not isinstance(error, TlsHandshakeError)
    assert str(error) == (
        f"the brokers at {kafka_cluster.secure_bootstrap} refused user 'reader' with"
        f" {mechanism} ({REFUSALS[mechanism]}): check the user name and password, and that the"
        f" user has {mechanism} credentials on this cluster."
    )
    assert "not-the-password" not in str(error)
    assert elapsed < DEFAULT_TIMEOUT_S  # not the bootstrap timeout run out


def test_an_unknown_user_is_refused_like_a_wrong_password(kafka_cluster: KafkaCluster) -> None:
    settings = kafka_cluster.secure_settings("reader", sasl_username="nobody")
    error, _ = _fails(settings)
    assert isinstance(error, AuthenticationFailedError)
    assert str(error).startswith(
        f"the brokers at {kafka_cluster.secure_bootstrap} refused user 'nobody' with SCRAM-SHA-512"
    ), str(error)


def test_a_mechanism_the_listener_does_not_accept(kafka_cluster: KafkaCluster) -> None:
    error, _ = _fails(kafka_cluster.secure_settings("reader", sasl_mechanism="SCRAM-SHA-256"))
    assert isinstance(error, AuthenticationFailedError)
    # Named by the preflight's SaslHandshake, which lists what the listener accepts (kafka-python
    # alone sometimes reported only a bootstrap time-out here).
    accepted = str(error).split("choose one it accepts (")[-1].rstrip(").")
    assert str(error).startswith(
        f"the listener at {kafka_cluster.secure_bootstrap} does not accept the SASL mechanism"
        " SCRAM-SHA-256: choose one it accepts ("
    ), str(error)
    assert set(accepted.split(", ")) == {"PLAIN", "SCRAM-SHA-512"}, accepted


@pytest.mark.parametrize(
    ("raised", "shown"),
    [
        ("[Error 58] SaslAuthenticationFailedError: SaslAuthenticationFailedError: bad",
         "SaslAuthenticationFailedError: bad"),
        ("KafkaConnectionError: KafkaConnectionError: socket disconnected (backoff 0.21 secs)",
         "KafkaConnectionError: socket disconnected"),
        ("[Error 33] UnsupportedSaslMechanismError", "UnsupportedSaslMechanismError"),
    ],
)  # fmt: skip
def test_describe_error_names_the_class_once(raised: str, shown: str) -> None:
    assert describe_error(raised) == shown


#: What a file named as a CA file or a client certificate may hold instead of PEM: text with
#: markup and a path in it, a Markdown link, binary.
NOT_PEM = st.one_of(
    st.sampled_from(["<b>not</b> a [certificate](http://127.0.0.1:9/x) /etc/ssl/x.pem", ""]),
    st.text(max_size=200),
    st.binary(max_size=200),
)


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(held=NOT_PEM, which=st.sampled_from(["CA file", "client certificate"]))
def test_a_tls_file_that_is_no_certificate_says_which_setting_to_change(
    fake_server: dict[str, str], tmp_path: Path, held: str | bytes, which: str
) -> None:
    """Named at once as a setting (not "check the host and port"), by the setting's name: no
    path, none of the file's text, no library class or source line, one sentence."""
    path = tmp_path / "named <b>file.pem"
    path.write_bytes(held if isinstance(held, bytes) else held.encode())
    authority = trustme.CA()
    ca_file = tmp_path / "ca.pem"
    authority.cert_pem.write_to_path(str(ca_file))
    files = (
        {"ssl_cafile": str(path)}
        if which == "CA file"
        else {"ssl_cafile": str(ca_file), "ssl_certfile": str(path), "ssl_keyfile": str(path)}
    )
    error, elapsed = _fails(
        ConnectionSettings(fake_server["silent"], security_protocol="SSL", timeout_s=2, **files)
    )
    message = str(error)
    assert isinstance(error, ConnectionSettingsError), message
    assert message.startswith(f"the {which}"), message
    assert str(tmp_path) not in message and "/" not in message and "<" not in message
    assert "_ssl.c" not in message and "SSLError" not in message
    _one_clear_sentence(message)
    assert elapsed < 1.0

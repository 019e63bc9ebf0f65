"""Connection settings, secrets and error messages; the sticky user-data decoder.

* Settings are validated before anything is sent, with messages naming what is missing.
* Secrets never show: ``repr``/``str`` of the settings and of a Secret, kafka-python's own
  debug log while a real client logs in (SASL/PLAIN over TLS to Apache Kafka), and the CLI's
  output after a refused login all lack the password (more in test_security.py).
* ``to_kafka_config`` maps each security protocol and SASL mechanism to kafka-python's keys.
* The sticky user data written by kafka-python's own StickyAssignor encoder (and the Java
  layout without the version prefix) decodes to the previous assignment and generation.
"""

from __future__ import annotations

import logging
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from cluster.connection import ConnectionSettings, Secret
from cluster.errors import (
    ConnectionSettingsError,
    ConsumerProtocolGroupError,
)
from cluster.reader import ClusterReader
from cluster.snapshot import decode_sticky_user_data
from tests.kafka_cluster.cluster import KafkaCluster

PASSWORD = "s3cr3t-Pa55-word-7f1c"


def _sasl(bootstrap: str, mechanism: str = "SCRAM-SHA-512", **extra: object) -> ConnectionSettings:
    return ConnectionSettings(
        bootstrap,
        security_protocol="SASL_PLAINTEXT",
        sasl_mechanism=mechanism,  # type: ignore[arg-type]
        sasl_username="reader",
        sasl_password=Secret(PASSWORD),
        **extra,  # type: ignore[arg-type]
    )


def test_secrets_never_show_in_repr_or_description() -> None:
    settings = _sasl("broker:9092", ssl_key_password=Secret("key-pass-123"))
    for text in (
        repr(settings),
        str(settings),
        str(settings.describe()),
        f"{settings.sasl_password}",
    ):
        assert PASSWORD not in text and "key-pass-123" not in text
    assert "sasl_password='***'" in repr(settings)
    assert repr(Secret(PASSWORD)) == "Secret('***')"
    with pytest.raises(TypeError):
        import pickle

        pickle.dumps(Secret(PASSWORD))


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (ConnectionSettings(""), "no bootstrap servers given"),
        # Found by the generated UI runs: a port out of range read as "nothing listens", and a
        # name with an empty part crashed in the resolver (UnicodeError) with a traceback.
        (ConnectionSettings("b:99999"), "bootstrap server 'b:99999': the port after the last"),
        (ConnectionSettings("b:abc"), "must be a number from 1 to 65535, got 'abc'"),
        (ConnectionSettings(":9092"), "bootstrap server ':9092' has no host name"),
        (ConnectionSettings("a:1,.61"), "bootstrap server '.61': '.61' is not a host name"),
        (
            ConnectionSettings("b:1", security_protocol="SASL_SSL"),
            "SASL_SSL needs a SASL mechanism: one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512",
        ),
        (
            ConnectionSettings("b:1", security_protocol="SASL_PLAINTEXT", sasl_mechanism="PLAIN"),
            "SASL_PLAINTEXT needs a SASL user name",
        ),
        (
            ConnectionSettings("b:1", sasl_mechanism="PLAIN", sasl_username="u"),
            "SASL settings given but the security protocol is PLAINTEXT",
        ),
        (ConnectionSettings("b:1", ssl_cafile="/ca.pem"), "TLS files given but the security"),
        (ConnectionSettings("b:1", timeout_s=0), "the timeout must be positive"),
        (ConnectionSettings("b:1", proxy_url="http://p:1"), "the proxy must be a socks5:// URL"),
    ],
)
def test_incomplete_settings_are_refused_before_connecting(
    settings: ConnectionSettings, message: str
) -> None:
    with pytest.raises(ConnectionSettingsError) as caught:
        ClusterReader(settings)
    assert message in str(caught.value)


def test_kafka_config_for_each_protocol(tmp_path: Path) -> None:
    ca = tmp_path / "ca.pem"
    ca.write_text("x")
    plain = ConnectionSettings("a:1, b:2", timeout_s=2.5).to_kafka_config()
    assert plain["bootstrap_servers"] == ["a:1", "b:2"]
    assert plain["request_timeout_ms"] == plain["bootstrap_timeout_ms"] == 2500
    assert "sasl_plain_password" not in plain and "ssl_cafile" not in plain
    for mechanism in ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"):
        config = ConnectionSettings(
            "a:1", security_protocol="SASL_SSL", ssl_cafile=str(ca),
            sasl_mechanism=mechanism, sasl_username="u", sasl_password=Secret("p"),  # type: ignore[arg-type]
        ).to_kafka_config()  # fmt: skip
        assert config["security_protocol"] == "SASL_SSL"
        assert config["sasl_mechanism"] == mechanism
        assert (config["sasl_plain_username"], config["sasl_plain_password"]) == ("u", "p")
        assert config["ssl_cafile"] == str(ca) and config["ssl_check_hostname"] is True


@pytest.mark.broker
def test_password_never_reaches_logs_over_a_real_sasl_plain_login(
    kafka_cluster: KafkaCluster, caplog: pytest.LogCaptureFixture
) -> None:
    # A real SASL/PLAIN login over TLS to Apache Kafka: kafka-python logs its SaslAuthenticate
    # request bytes at DEBUG, and the client configuration too: both must come out redacted.
    caplog.set_level(logging.DEBUG, logger="kafka")
    password = kafka_cluster.passwords["reader"]
    with ClusterReader(kafka_cluster.secure_settings("reader", sasl_mechanism="PLAIN")) as reader:
        reader.list_groups()
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "Starting KafkaAdminClient with configuration" in logged
    assert "SaslAuthenticateRequest" in logged and "Authenticated as reader" in logged
    assert password not in logged
    assert "***" in logged


@pytest.mark.broker
def test_cli_sasl_failure_prints_no_password(kafka_cluster: KafkaCluster) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "cluster", "snapshot", "--group", "g",
         "--bootstrap-servers", kafka_cluster.secure_bootstrap, "--security-protocol", "SASL_SSL",
         "--ssl-cafile", str(kafka_cluster.ca_file),
         "--sasl-mechanism", "SCRAM-SHA-512", "--sasl-username", "reader"],
        capture_output=True, text=True, timeout=60, check=False,
        env={**os.environ, "AE_SASL_PASSWORD": PASSWORD},
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.startswith(
        f"error: the brokers at {kafka_cluster.secure_bootstrap} refused user 'reader' with"
        " SCRAM-SHA-512"
    )
    assert PASSWORD not in result.stdout + result.stderr
    assert "Traceback" not in result.stderr


def test_cli_without_a_password_says_where_to_put_it() -> None:
    env = {k: v for k, v in os.environ.items() if k != "AE_SASL_PASSWORD"}
    result = subprocess.run(
        [sys.executable, "-m", "cluster", "groups", "--bootstrap-servers", "127.0.0.1:9",
         "--security-protocol", "SASL_SSL", "--sasl-mechanism", "PLAIN", "--sasl-username", "u"],
        capture_output=True, text=True, timeout=60, check=False, env=env, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr == (
        "error: SASL password needed: set the environment variable AE_SASL_PASSWORD (passwords"
        " are never read from the command line)\n"
    )


def test_kip848_group_message_says_what_cannot_be_read() -> None:
    message = str(ConsumerProtocolGroupError("orders"))
    assert "KIP-848" in message and "group.protocol=consumer" in message
    assert "ConsumerGroupDescribe" in message and "DescribeGroups" in message


def test_sticky_user_data_from_kafka_pythons_encoder() -> None:
    from kafka.coordinator.assignors.sticky.user_data import StickyAssignorUserData

    data = bytes(StickyAssignorUserData([("orders", [0, 3]), ("pay", [1])], 7).encode())
    assert decode_sticky_user_data(data) == ([("orders", 0), ("orders", 3), ("pay", 1)], 7)


def test_sticky_user_data_in_javas_layout() -> None:
    body = struct.pack(">i", 1) + struct.pack(">h", 6) + b"orders" + struct.pack(">iii", 2, 4, 5)
    assert decode_sticky_user_data(body) == ([("orders", 4), ("orders", 5)], None)  # version 0
    assert decode_sticky_user_data(body + struct.pack(">i", 12)) == (
        [("orders", 4), ("orders", 5)],
        12,
    )
    assert decode_sticky_user_data(b"\x00\x00\x00\x05") is None  # 5 topics announced, none there
    assert decode_sticky_user_data(b"") is None


@pytest.mark.parametrize("during", ["connecting", "describing groups", "listing offsets"])
def test_an_unexpected_broker_error_says_what_to_do(during: str) -> None:
    # Any error no rule names still ends with what to change; Kafka's own retriable flag
    # decides whether waiting helps.
    from kafka import errors as kafka_errors

    from cluster.connection import translate_error

    settings = ConnectionSettings(bootstrap_servers="localhost:9092")
    passing = str(
        translate_error(kafka_errors.CoordinatorLoadInProgressError("x"), settings, during)
    )
    assert passing.endswith("load the group again in a few seconds."), passing
    lasting = str(translate_error(kafka_errors.UnknownError(), settings, during))
    assert f"while {during}: UnknownError. Load the group again;" in lasting, lasting
    assert "broker's log" in lasting

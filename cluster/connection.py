"""Connection settings -> a kafka-python admin client, and kafka-python errors -> ours.

The only module that sees a password in clear. Steps:

1. :class:`ConnectionSettings` holds what a user gives: bootstrap servers, security protocol,
   TLS files, SASL mechanism and credentials, one timeout. Secrets are :class:`Secret` values:
   their ``repr`` and ``str`` are ``***``, so printing, logging or exporting the settings never
   shows them; only :meth:`ConnectionSettings.to_kafka_config` reveals them, to kafka-python.
2. :meth:`ConnectionSettings.validate` refuses incomplete settings before anything is sent
   (SASL without a mechanism or user, a TLS file that does not exist, ...).
3. :func:`open_admin` creates the ``KafkaAdminClient`` (it bootstraps at once: ApiVersions,
   SASL handshake when asked, Metadata), with every timeout set from ``timeout_s``, after
   installing a log filter that redacts the secrets from kafka-python's own debug line.
4. :func:`translate_error` turns whatever kafka-python raised into a specific
   :class:`~cluster.errors.ClusterError` (unreachable, authentication failed, not authorised,
   timed out) whose message never includes a secret.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from cluster.errors import (
    AuthenticationFailedError,
    BootstrapUnreachableError,
    ClusterError,
    ConnectionSettingsError,
    NotAuthorizedError,
    RequestTimeoutError,
    TlsHandshakeError,
)
from cluster.preflight import login_refused, probe

SecurityProtocol = Literal["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"]
SaslMechanism = Literal["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"]
SECURITY_PROTOCOLS: tuple[SecurityProtocol, ...] = (
    "PLAINTEXT",
    "SSL",
    "SASL_PLAINTEXT",
    "SASL_SSL",
)
SASL_MECHANISMS: tuple[SaslMechanism, ...] = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
DEFAULT_TIMEOUT_S = 5.0
DEFAULT_CLIENT_ID = "assignment-explorer-reader"
REDACTED = "***"


class Secret:
    """A string that never shows itself: ``repr``/``str``/format give ``***``."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """The clear value; call only where it goes to the client library."""
        return self._value

    def __repr__(self) -> str:
        return f"Secret({REDACTED!r})"

    def __str__(self) -> str:
        return REDACTED

    def __format__(self, spec: str) -> str:
        return REDACTED

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __reduce__(self) -> Any:  # pickling would write the clear value: refuse
        raise TypeError("a Secret cannot be pickled")


@dataclass(frozen=True, slots=True)
class ConnectionSettings:
    """How to reach a cluster (step 1 of the module docstring); secrets never show."""

    bootstrap_servers: str
    security_protocol: SecurityProtocol = "PLAINTEXT"
    ssl_cafile: str | None = None
    ssl_certfile: str | None = None
    ssl_keyfile: str | None = None
    ssl_key_password: Secret | None = field(default=None, repr=False)
    ssl_check_hostname: bool = True
    sasl_mechanism: SaslMechanism | None = None
    sasl_username: str | None = None
    sasl_password: Secret | None = field(default=None, repr=False)
    timeout_s: float = DEFAULT_TIMEOUT_S
    client_id: str = DEFAULT_CLIENT_ID
    #: ``socks5://host:port``: reach the brokers through a SOCKS5 proxy (bastion setups).
    proxy_url: str | None = None
    #: Skip API-version discovery and assume this broker version, e.g. ``(2, 0)``; for brokers
    #: whose ApiVersions answer kafka-python cannot decode. ``None``: discover (the default).
    broker_version: tuple[int, ...] | None = None

    def __repr__(self) -> str:
        shown = ", ".join(f"{key}={value!r}" for key, value in self.describe().items())
        return f"ConnectionSettings({shown})"

    def describe(self) -> dict[str, Any]:
        """Every field, secrets replaced by ``***`` (for logs, errors and exports)."""
        return {
            "bootstrap_servers": self.bootstrap_servers,
            "security_protocol": self.security_protocol,
            "ssl_cafile": self.ssl_cafile,
            "ssl_certfile": self.ssl_certfile,
            "ssl_keyfile": self.ssl_keyfile,
            "ssl_key_password": None if self.ssl_key_password is None else REDACTED,
            "ssl_check_hostname": self.ssl_check_hostname,
            "sasl_mechanism": self.sasl_mechanism,
            "sasl_username": self.sasl_username,
            "sasl_password": None if self.sasl_password is None else REDACTED,
            "timeout_s": self.timeout_s,
            "client_id": self.client_id,
            "proxy_url": self.proxy_url,
            "broker_version": self.broker_version,
        }

    def secrets(self) -> list[str]:
        """The clear secrets (for redaction only)."""
        return [s.reveal() for s in (self.sasl_password, self.ssl_key_password) if s is not None]

    @property
    def uses_ssl(self) -> bool:
        return self.security_protocol in ("SSL", "SASL_SSL")

    @property
    def uses_sasl(self) -> bool:
        return self.security_protocol in ("SASL_PLAINTEXT", "SASL_SSL")

    def validate(self) -> None:
        """Step 2: raise :class:`ConnectionSettingsError` listing what is missing or wrong."""
        problems: list[str] = []
        servers = [s.strip() for s in self.bootstrap_servers.split(",") if s.strip()]
        if not servers:
            problems.append("no bootstrap servers given (host:port, comma-separated)")
        problems.extend(filter(None, map(server_problem, servers)))
        if self.security_protocol not in SECURITY_PROTOCOLS:
            problems.append(
                f"unknown security protocol {self.security_protocol!r};"
                f" expected one of {', '.join(SECURITY_PROTOCOLS)}"
            )
        if not self.timeout_s > 0:
            problems.append(f"the timeout must be positive, got {self.timeout_s}")
        if self.uses_sasl:
            if self.sasl_mechanism not in SASL_MECHANISMS:
                problems.append(
                    f"{self.security_protocol} needs a SASL mechanism: one of"
                    f" {', '.join(SASL_MECHANISMS)} (got {self.sasl_mechanism!r})"
                )
            if not self.sasl_username:
                problems.append(f"{self.security_protocol} needs a SASL user name")
            if self.sasl_password is None or not self.sasl_password.reveal():
                problems.append(f"{self.security_protocol} needs a SASL password")
        elif self.sasl_mechanism or self.sasl_username or self.sasl_password:
            problems.append(
                f"SASL settings given but the security protocol is {self.security_protocol};"
                " use SASL_PLAINTEXT or SASL_SSL"
            )
        if not self.uses_ssl and (self.ssl_cafile or self.ssl_certfile or self.ssl_keyfile):
            problems.append(
                f"TLS files given but the security protocol is {self.security_protocol};"
                " use SSL or SASL_SSL"
            )
        for name in ("ssl_cafile", "ssl_certfile", "ssl_keyfile"):
            path = getattr(self, name)
            if path is not None and not os.path.isfile(path):
                problems.append(f"{name.replace('_', ' ')} {path!r} is not a readable file")
        if self.proxy_url is not None and not self.proxy_url.startswith(
            ("socks5://", "socks5h://")
        ):
            problems.append(f"the proxy must be a socks5:// URL, got {self.proxy_url!r}")
        if bool(self.ssl_certfile) != bool(self.ssl_keyfile):
            problems.append("a client certificate needs both the certificate and the key file")
        if problems:
            raise ConnectionSettingsError("; ".join(problems))

    def to_kafka_config(self) -> dict[str, Any]:
        """kafka-python ``KafkaAdminClient`` keyword arguments (the only place secrets go)."""
        timeout_ms = int(self.timeout_s * 1000)
        config: dict[str, Any] = {
            "bootstrap_servers": [
                s.strip() for s in self.bootstrap_servers.split(",") if s.strip()
            ],
            "client_id": self.client_id,
            "security_protocol": self.security_protocol,
            "request_timeout_ms": timeout_ms,
            "bootstrap_timeout_ms": timeout_ms,
            "reconnect_backoff_max_ms": min(1000, timeout_ms),
            "retry_backoff_ms": 100,
        }
        if self.proxy_url is not None:
            config["proxy_url"] = self.proxy_url
        if self.broker_version is not None:
            config["api_version"] = tuple(self.broker_version)
        if self.uses_ssl:
            config.update(
                ssl_cafile=self.ssl_cafile,
                ssl_certfile=self.ssl_certfile,
                ssl_keyfile=self.ssl_keyfile,
                ssl_check_hostname=self.ssl_check_hostname,
            )
            if self.ssl_key_password is not None:
                config["ssl_password"] = self.ssl_key_password.reveal()
        if self.uses_sasl:
            config.update(
                sasl_mechanism=self.sasl_mechanism,
                sasl_plain_username=self.sasl_username,
                sasl_plain_password=None
                if self.sasl_password is None
                else self.sasl_password.reveal(),
            )
        return config


class _RedactSecrets(logging.Filter):
    """Replaces the secrets in a log record's message with ``***`` (step 3)."""

    def __init__(self, secrets: list[str]) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if s]

    def filter(self, record: logging.LogRecord) -> bool:
        if self.secrets:
            message = record.getMessage()
            if any(secret in message for secret in self.secrets):
                for secret in self.secrets:
                    message = message.replace(secret, REDACTED)
                record.msg, record.args = message, None
        return True


def server_problem(server: str) -> str | None:
    """What is wrong with one bootstrap server's ``host:port`` text (``None`` when nothing
    is): a host name must be there, a port (Kafka's 9092 when none is written) must be a
    number from 1 to 65535, and the name must be one the resolver takes (IDNA: no empty part
    between dots, none over 63 characters), so that the message names the mistake rather
    than a failed connection (or, for the name, a crash in the resolver)."""
    host, colon, port = server.rpartition(":")
    if not colon:
        host, port = server, "9092"
    host = host.strip("[]")
    write = "write host:port, e.g. broker1:9092"
    if not host:
        return f"bootstrap server {server!r} has no host name; {write}"
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        return (
            f"bootstrap server {server!r}: the port after the last ':' must be a number from 1"
            f" to 65535, got {port!r}; {write}"
        )
    try:
        host.encode("idna")
    except UnicodeError:
        return (
            f"bootstrap server {server!r}: {host!r} is not a host name (a part between dots is"
            f" empty or over 63 characters); {write}"
        )
    return None


def _secret_forms(secrets: list[str]) -> list[str]:
    """Each secret as text and as it shows inside a ``bytes`` repr (SASL request dumps)."""
    forms: set[str] = set()
    for secret in secrets:
        if secret:
            forms.add(secret)
            forms.add(repr(secret.encode("utf-8"))[2:-1])
    return sorted(forms, key=len, reverse=True)


def _install_redaction(settings: ConnectionSettings) -> None:
    """Attach the redacting filter to every kafka-python logger (filters do not inherit)."""
    secrets = _secret_forms(settings.secrets())
    if not secrets:
        return
    import kafka  # noqa: F401  (imports the modules whose loggers need the filter)

    names = [
        name
        for name, logger in logging.Logger.manager.loggerDict.items()
        if (name == "kafka" or name.startswith("kafka.")) and isinstance(logger, logging.Logger)
    ]
    for name in names:
        logger = logging.getLogger(name)
        for existing in logger.filters:
            if isinstance(existing, _RedactSecrets):
                existing.secrets = sorted(
                    set(existing.secrets) | set(secrets), key=len, reverse=True
                )
                break
        else:
            logger.addFilter(_RedactSecrets(secrets))


def redact(text: str, settings: ConnectionSettings) -> str:
    """``text`` with every secret of ``settings`` replaced by ``***``."""
    for secret in _secret_forms(settings.secrets()):
        text = text.replace(secret, REDACTED)
    return text


class _FailureCollector(logging.Handler):
    """Keeps kafka-python's warnings while bootstrapping: they hold the real cause of a
    bootstrap timeout (a SASL failure is retried until the timeout, then reported only as
    "Unable to bootstrap")."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if len(self.messages) < 200:
            self.messages.append(record.getMessage())


def open_admin(settings: ConnectionSettings) -> Any:
    """A bootstrapped ``KafkaAdminClient`` (step 3); failures become ClusterError (step 4).

    Without a proxy, :func:`cluster.preflight.probe` first reaches a bootstrap server step by
    step (DNS, TCP, TLS, a Kafka answer, the SASL mechanism and login) so those failures are
    named at once; kafka-python then bootstraps within the settings' timeout.
    """
    settings.validate()
    _install_redaction(settings)
    if settings.proxy_url is None:
        probe(settings)
    from kafka import KafkaAdminClient

    collector = _FailureCollector()
    kafka_logger = logging.getLogger("kafka")
    kafka_logger.addHandler(collector)
    try:
        return KafkaAdminClient(**settings.to_kafka_config())
    except Exception as error:
        raise translate_error(
            error, settings, during="connecting", causes=collector.messages
        ) from None
    finally:
        kafka_logger.removeHandler(collector)


_KAFKA_PREFIX = re.compile(r"^(\[Error -?\d+\] )?")
_BACKOFF = re.compile(r" \(backoff [\d.]+ secs\)$")


def describe_error(error: BaseException | str) -> str:
    """``Name: message`` once: kafka-python's ``[Error 58] X: X: text`` becomes ``X: text``."""
    if isinstance(error, BaseException):
        name, text = type(error).__name__, str(error)
    else:
        name, text = "", error
    text = _BACKOFF.sub("", _KAFKA_PREFIX.sub("", text.strip()))
    words = re.match(r"^((?:\w+(?:Error|Exception): )+)(.*)$", text, flags=re.S)
    if words:
        names = [n for n in words.group(1).split(": ") if n]
        name, text = names[-1], words.group(2)
    text = text.strip()
    if name and text and text != name:
        return f"{name}: {text}"
    return name or text


def _principal(settings: ConnectionSettings) -> str:
    if settings.uses_sasl and settings.sasl_username:
        return f"User:{settings.sasl_username}"
    if settings.ssl_certfile:
        return "the principal of your client certificate"
    return "User:ANONYMOUS"


def not_authorized(
    settings: ConnectionSettings, operation: str, resource_type: str, name: str, code: str
) -> NotAuthorizedError:
    """The ACL message: who, which operation on which resource, and the command that grants it."""
    principal = _principal(settings)
    flag = {"group": "--group", "topic": "--topic", "cluster": "--cluster"}[resource_type]
    target = "" if resource_type == "cluster" else f" {name}"
    shown = "the cluster" if resource_type == "cluster" else f"{resource_type} {name!r}"
    grant = f"kafka-acls.sh --add --allow-principal {principal}"
    if principal.startswith("User:"):
        how = f"grant it with {grant} --operation {operation} {flag}{target}"
    else:
        how = (
            f"grant that principal {operation} on {shown} (kafka-acls.sh --add ... {flag}{target})"
        )
    return NotAuthorizedError(
        f"{principal} is not allowed to {operation.upper()} {shown} ({code}): {how}."
    )


_TLS_UNTRUSTED = ("CERTIFICATE_VERIFY_FAILED",)
_TLS_SIGNS = ("Handshake failed", "SSL:", "WRONG_VERSION_NUMBER")


def _from_causes(causes: list[str], settings: ConnectionSettings) -> ClusterError | None:
    """A decisive failure among kafka-python's bootstrap warnings, as our error."""
    servers = settings.bootstrap_servers
    user, mechanism = settings.sasl_username, settings.sasl_mechanism
    for raw in reversed(causes):
        cause = redact(raw, settings)
        if "SaslAuthenticationFailed" in cause:
            detail = cause.split("SaslAuthenticationFailedError: ")[-1]
            return login_refused(settings, _BACKOFF.sub("", detail))
        if "UnsupportedSaslMechanism" in cause or "IllegalSaslState" in cause:
            return AuthenticationFailedError(
                f"the listener at {servers} does not accept the SASL mechanism {mechanism}:"
                " choose the mechanism the cluster uses (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)."
            )
        if settings.uses_ssl and any(sign in cause for sign in _TLS_UNTRUSTED):
            return TlsHandshakeError(
                f"the TLS certificate of {servers} is not trusted: set the CA file to the CA that"
                " signed the brokers' certificates."
            )
        if settings.uses_ssl and any(sign in cause for sign in _TLS_SIGNS):
            return TlsHandshakeError(
                f"the TLS handshake with {servers} failed ({describe_error(cause)}): check that"
                " the port speaks TLS, the CA file and the client certificate."
            )
    timed_out = any("Timeout" in cause or "timed out" in cause for cause in causes)
    disconnected = not timed_out and any("socket disconnected" in cause for cause in causes)
    if disconnected and settings.uses_sasl:
        return AuthenticationFailedError(
            f"the brokers at {servers} closed the connection during SASL authentication as"
            f" {user!r} with {mechanism}: most likely the user name or password is wrong; check"
            " them."
        )
    if disconnected:
        return AuthenticationFailedError(
            f"the brokers at {servers} closed every connection after the first request: a SASL"
            " listener does that to a client that does not authenticate; set the security"
            " protocol to SASL_PLAINTEXT or SASL_SSL with a mechanism, user and password."
        )
    return None


def translate_error(
    error: BaseException,
    settings: ConnectionSettings,
    during: str = "reading",
    causes: list[str] | None = None,
) -> ClusterError:
    """Step 4: a kafka-python (or socket/TLS) exception -> a specific ClusterError.

    ``causes`` are kafka-python's warnings collected while connecting; a bootstrap that timed out
    because of a SASL or TLS failure is reported as that failure. Messages name the class once.
    """
    if isinstance(error, ClusterError):
        return error
    from kafka import errors as kafka_errors

    detail = redact(describe_error(error), settings)
    if during == "connecting":
        decisive = _from_causes(causes or [], settings)
        if decisive is not None:
            return decisive
    sasl_failures = (
        kafka_errors.SaslAuthenticationFailedError,
        kafka_errors.UnsupportedSaslMechanismError,
        kafka_errors.IllegalSaslStateError,
    )
    if isinstance(error, sasl_failures):
        return _from_causes([detail], settings) or AuthenticationFailedError(detail)
    if isinstance(error, kafka_errors.AuthorizationError):
        return NotAuthorizedError(
            f"{_principal(settings)} is not allowed to do this while {during} ({detail}): it"
            " needs DESCRIBE on the group and its topics (kafka-acls.sh --operation Describe)."
        )
    timeouts = (
        kafka_errors.KafkaTimeoutError,
        kafka_errors.RequestTimedOutError,
        getattr(kafka_errors, "NoBrokersAvailable", kafka_errors.KafkaTimeoutError),
    )
    if isinstance(error, timeouts):
        if during == "connecting":
            last = redact(describe_error(causes[-1]), settings) if causes else "none reported"
            return RequestTimeoutError(
                f"timed out after {settings.timeout_s:g} s connecting to"
                f" {settings.bootstrap_servers} (last problem: {last}); check the security"
                " protocol and credentials, or raise the timeout."
            )
        return RequestTimeoutError(
            f"timed out after {settings.timeout_s:g} s while {during}; the cluster may be busy:"
            " raise the timeout."
        )
    if isinstance(error, kafka_errors.KafkaConnectionError | ConnectionError | OSError):
        if during == "connecting":
            return BootstrapUnreachableError(
                f"lost the connection to {settings.bootstrap_servers} while connecting"
                f" ({detail}); check the bootstrap servers and the security protocol."
            )
        return ClusterError(
            f"the broker closed the connection while {during} ({detail}); a broker does that"
            " when it restarts or does not support the request."
        )
    return _unexpected(error, detail, during)


def _unexpected(error: BaseException, detail: str, during: str) -> ClusterError:
    """Any other error: what the broker said, and what to do about it. Kafka marks an error
    it expects to pass (a coordinator moving, a leader election) as retriable."""
    if getattr(error, "retriable", False):
        advice = "Kafka marks this error as passing: load the group again in a few seconds"
    else:
        advice = (
            "Load the group again; if the error stays, the broker's log names its cause (look"
            " for this error there), or the principal lacks a permission the request needs"
        )
    return ClusterError(f"the cluster answered with an error while {during}: {detail}. {advice}.")

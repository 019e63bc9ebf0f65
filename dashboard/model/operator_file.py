"""The operator file: what a team server offers by name (clusters, pipeline datasets) and what it
switches off, read from one TOML file (its path in :data:`CONFIG_ENV`; no file: no offer, and
the dashboard behaves as on a laptop).

The shape, every key optional unless said::

    [clusters.staging]                      # a cluster users pick by name on the Live page
    bootstrap_servers = "b1:9093,b2:9093"   # required (a string or a list of strings)
    security_protocol = "SASL_SSL"          # PLAINTEXT (default), SSL, SASL_PLAINTEXT, SASL_SSL
    sasl_mechanism = "SCRAM-SHA-512"        # required with SASL_*: PLAIN, SCRAM-SHA-256/512
    username = "reader"                     # required with SASL_*
    password_env = "STAGING_PASSWORD"       # with SASL_*: exactly one of password_env and
    # password_file = "/run/secrets/staging"  #   password_file, never the password itself
    ca_file = "/etc/ssl/staging-ca.pem"     # the CA that signed the brokers' certificates
    groups = ["payments-team"]              # who may use it (read by the login, part of [access])

    [datasets.fleet]                        # a pipeline dataset the History and Fleet pages show
    output = "/data/pipeline-output"        # required: where `python -m pipeline` wrote its tables
    snapshots = "/data/offset-snapshots"    # the snapshots it read (Fleet rebuilds groups there)

    [dashboard]
    typed_addresses = false                 # users may only pick a cluster by name

    [access]                                # the login's own table, checked by its own module

Invariants of :func:`parse_operator_text`:

1. Pure: text in, a frozen :class:`OperatorConfig` out, or :class:`OperatorFileError`; it reads
   no file and no environment variable (a password is resolved where a connection is made, on
   the server, and never stored in these types: they hold only the reference).
2. Every key is known: an unknown key, a wrong type or a missing required key is refused with
   the key's dotted path (:attr:`OperatorFileError.key`) and what to write instead. The top-level
   ``[access]`` table is kept as written (:attr:`OperatorConfig.access`) for the login's own
   parser (:mod:`dashboard.model.access`): the file is read in one place, its tables checked
   by the module that knows them.
3. Names (of clusters and datasets) are short words of letters, digits, ``.``, ``_`` and ``-``:
   they travel in links and are shown on pages, so they carry no markup and no path.
4. No message holds the file's own path (a message is shown in the browser; the server logs
   where the file is).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

#: The environment variable that holds the operator file's path.
CONFIG_ENV = "ASSIGNMENT_EXPLORER_CONFIG"
#: The pipeline dataset every server offers: the bundled sample history (or the server's
#: ``AE_PIPELINE_INPUT``/``AE_PIPELINE_OUTPUT``).
BUILTIN_DATASET = "sample-history"
#: The security protocols and SASL mechanisms the cluster reader speaks (the same tuples as
#: :mod:`cluster.connection`'s, which this pure layer may not import; a test holds them equal).
SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
#: Top-level tables another module checks (the login's ``[access]``), kept as written.
OTHER_TABLES = ("access",)
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class OperatorFileError(ValueError):
    """The operator file cannot be used: :attr:`key` is the dotted path of the key at fault
    (empty for the file as a whole) and the message says what to change."""

    def __init__(self, key: tuple[str, ...], problem: str) -> None:
        self.key = key
        where = f"`{dotted(key)}`" if key else "the file"
        super().__init__(f"The operator file ({CONFIG_ENV}): {where} {problem}")


def dotted(key: tuple[str, ...]) -> str:
    """A key's path as TOML writes it (a part that is not a bare key is quoted)."""
    bare = re.compile(r"[A-Za-z0-9_-]+")
    return ".".join(part if bare.fullmatch(part) else repr(part) for part in key)


@dataclass(frozen=True, slots=True)
class ClusterEntry:
    """One cluster offered by name. The password is only referred to (an environment variable
    or a file on the server), so no value of this type holds a secret."""

    name: str
    bootstrap_servers: str
    security_protocol: str = "PLAINTEXT"
    sasl_mechanism: str | None = None
    username: str | None = None
    password_env: str | None = None
    password_file: str | None = None
    ca_file: str | None = None
    groups: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DatasetEntry:
    """One pipeline dataset offered by name: the pipeline's output directory and, optionally,
    the offset snapshots it read (without them the Fleet page cannot open a group)."""

    name: str
    output: str
    snapshots: str | None = None


@dataclass(frozen=True, slots=True)
class OperatorConfig:
    """What the operator file offers (an empty config: no file, a laptop's defaults)."""

    clusters: tuple[ClusterEntry, ...] = ()
    datasets: tuple[DatasetEntry, ...] = ()
    typed_addresses: bool = True
    loaded: bool = field(default=False, compare=False)
    #: The ``[access]`` table as written (the login's rules: :mod:`dashboard.model.access`
    #: parses it), so the file is read in one place.
    access: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def cluster(self, name: str) -> ClusterEntry | None:
        return next((entry for entry in self.clusters if entry.name == name), None)

    def dataset(self, name: str) -> DatasetEntry | None:
        return next((entry for entry in self.datasets if entry.name == name), None)


def parse_operator_text(text: str) -> OperatorConfig:
    """The operator file's text as an :class:`OperatorConfig` (invariants in the module's
    docstring); raises :class:`OperatorFileError`."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise OperatorFileError((), f"is not valid TOML: {error}") from None
    known = ("clusters", "datasets", "dashboard")
    for key in document:
        if key not in known and key not in OTHER_TABLES:
            raise OperatorFileError(
                (key,),
                "is not a table of the operator file: it has [clusters.NAME], [datasets.NAME]"
                " and [dashboard] (and [access], for the login); remove it or fix its name",
            )
    clusters = _named(document, "clusters", _cluster)
    datasets = _named(document, "datasets", _dataset)
    dashboard = _table(document, ("dashboard",))
    _only(dashboard, ("dashboard",), ("typed_addresses",))
    typed = _get(dashboard, ("dashboard", "typed_addresses"), bool, "true or false", default=True)
    return OperatorConfig(
        tuple(clusters),
        tuple(datasets),
        bool(typed),
        loaded=True,
        access=document.get("access", {}),
    )


def _named(document: Mapping[str, Any], table: str, build: Callable[..., Any]) -> list[Any]:
    entries = _table(document, (table,))
    built = []
    for name, body in entries.items():
        path = (table, name)
        if not NAME.fullmatch(name):
            raise OperatorFileError(
                path,
                "is not a usable name: a name is 1 to 64 letters, digits, '.', '_' or '-',"
                " starting with a letter or digit (it is shown on pages and carried in links)",
            )
        if not isinstance(body, dict):
            raise OperatorFileError(path, f"must be a table ([{table}.{name}]), not {_kind(body)}")
        built.append(build(name, body, path))
    return built


def _cluster(name: str, body: dict[str, Any], path: tuple[str, ...]) -> ClusterEntry:
    keys = (
        "bootstrap_servers",
        "security_protocol",
        "sasl_mechanism",
        "username",
        "password_env",
        "password_file",
        "ca_file",
        "groups",
    )
    if "password" in body:
        raise OperatorFileError(
            (*path, "password"),
            "holds a password in the file: name where the server finds it instead, with"
            ' password_env = "VARIABLE" or password_file = "/path/to/file"',
        )
    _only(body, path, keys)
    servers = _get(body, (*path, "bootstrap_servers"), (str, list), "a string", required=True)
    if isinstance(servers, list):
        servers = ",".join(_strings(servers, (*path, "bootstrap_servers")))
    if not servers.strip():
        raise OperatorFileError((*path, "bootstrap_servers"), 'must name a broker, "host:port"')
    protocol = _choice(body, (*path, "security_protocol"), SECURITY_PROTOCOLS, "PLAINTEXT")
    mechanism = _choice(body, (*path, "sasl_mechanism"), SASL_MECHANISMS, None)
    entry = ClusterEntry(
        name=name,
        bootstrap_servers=servers.strip(),
        security_protocol=str(protocol),
        sasl_mechanism=mechanism,
        username=_get(body, (*path, "username"), str, "a string"),
        password_env=_get(body, (*path, "password_env"), str, "a string"),
        password_file=_absolute(body, (*path, "password_file")),
        ca_file=_absolute(body, (*path, "ca_file")),
        groups=tuple(
            _strings(_get(body, (*path, "groups"), list, "a list", default=[]), (*path, "groups"))
        ),
    )
    _check_sasl(entry, path)
    return entry


def _check_sasl(entry: ClusterEntry, path: tuple[str, ...]) -> None:
    """SASL settings are complete for a SASL protocol and absent otherwise."""
    sasl = entry.security_protocol.startswith("SASL_")
    given = {
        "sasl_mechanism": entry.sasl_mechanism,
        "username": entry.username,
        "password_env": entry.password_env,
        "password_file": entry.password_file,
    }
    if not sasl:
        for key, value in given.items():
            if value is not None:
                raise OperatorFileError(
                    (*path, key),
                    f"is set but security_protocol is {entry.security_protocol}: set"
                    ' security_protocol = "SASL_SSL" (or SASL_PLAINTEXT), or remove it',
                )
        return
    for key in ("sasl_mechanism", "username"):
        if given[key] is None:
            raise OperatorFileError((*path, key), f"is required with {entry.security_protocol}")
    if (entry.password_env is None) == (entry.password_file is None):
        raise OperatorFileError(
            (*path, "password_env"),
            "or password_file (exactly one) must say where the server finds the password",
        )
    if entry.password_env is not None and not ENV_NAME.fullmatch(entry.password_env):
        raise OperatorFileError(
            (*path, "password_env"), "must be an environment variable's name, e.g. KAFKA_PASSWORD"
        )


def _dataset(name: str, body: dict[str, Any], path: tuple[str, ...]) -> DatasetEntry:
    if name == BUILTIN_DATASET:
        raise OperatorFileError(path, "is the bundled sample history's name: choose another")
    _only(body, path, ("output", "snapshots"))
    output = _absolute(body, (*path, "output"), required=True)
    assert output is not None
    return DatasetEntry(name, output, _absolute(body, (*path, "snapshots")))


def _table(document: Mapping[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    value = document.get(path[-1], {})
    if not isinstance(value, dict):
        raise OperatorFileError(path, f"must be a table ([{path[-1]}]), not {_kind(value)}")
    return value


def _only(body: Mapping[str, Any], path: tuple[str, ...], keys: tuple[str, ...]) -> None:
    for key in body:
        if key not in keys:
            raise OperatorFileError(
                (*path, key), f"is not a known key here: the keys are {', '.join(keys)}"
            )


def _get(
    body: Mapping[str, Any],
    path: tuple[str, ...],
    kind: type | tuple[type, ...],
    described: str,
    *,
    required: bool = False,
    default: Any = None,
) -> Any:
    if path[-1] not in body:
        if required:
            raise OperatorFileError(path, "is required")
        return default
    value = body[path[-1]]
    # A TOML boolean is no integer here, and a number no string.
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise OperatorFileError(path, f"must be {described}, not {_kind(value)}")
    return value


def _choice(
    body: Mapping[str, Any], path: tuple[str, ...], choices: tuple[str, ...], default: str | None
) -> str | None:
    value = _get(body, path, str, "a string", default=default)
    if value is not None and value not in choices:
        raise OperatorFileError(path, f"must be one of {', '.join(choices)}, not {value!r}")
    return value  # type: ignore[no-any-return]


def _absolute(
    body: Mapping[str, Any], path: tuple[str, ...], *, required: bool = False
) -> str | None:
    value = _get(body, path, str, "a string", required=required)
    if value is not None and not value.startswith("/"):
        raise OperatorFileError(path, "must be an absolute path (starting with /)")
    return value  # type: ignore[no-any-return]


def _strings(values: list[Any], path: tuple[str, ...]) -> list[str]:
    for value in values:
        if not isinstance(value, str):
            raise OperatorFileError(path, f"must hold strings only, not {_kind(value)}")
    return values


def _kind(value: Any) -> str:
    kinds = {bool: "a boolean", int: "a number", float: "a number", str: "a string"}
    kinds.update({list: "a list", dict: "a table"})
    return kinds.get(type(value), "a date or time")


#: An absolute path inside a message: a slash after a start, a space or a quote, up to the
#: next space, quote, bracket, colon or comma.
_PATH = re.compile(r"(?:(?<=^)|(?<=[\s'\"(\[=]))/[^\s'\"()\[\]:,]*")


def without_paths(text: str, name: str) -> str:
    """``text`` (an error from reading dataset ``name``) with every absolute path in it
    replaced by ``<name>``: what a page may show (the server logs the full text)."""
    return _PATH.sub(f"<{name}>", text)


def names_offered(kind: str, names: list[str] | tuple[str, ...]) -> str:
    """``kind``'s names as a sentence's end: what a refused link may name instead."""
    if not names:
        return f"this server offers no {kind} by name"
    return f"it may name {'one of ' if len(names) > 1 else ''}{', '.join(names)}"

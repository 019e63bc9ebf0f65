"""The operator file (:mod:`dashboard.model.operator_file`): worked examples of what it accepts
and refuses, and properties over generated files: what is written is what is read, any unknown
key is refused with its path, and a password never shows in what the types print.
"""

from __future__ import annotations

import json
import os
import string
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cluster import connection
from cluster.errors import ConnectionSettingsError
from dashboard.model import operator_file
from dashboard.model.operator_file import (
    ClusterEntry,
    DatasetEntry,
    OperatorFileError,
    parse_operator_text,
    without_paths,
)
from dashboard.panels import cluster_source

TEAM_FILE = """
[clusters.staging]
bootstrap_servers = ["b1.staging:9093", "b2.staging:9093"]
security_protocol = "SASL_SSL"
sasl_mechanism = "SCRAM-SHA-512"
username = "reader"
password_env = "STAGING_PASSWORD"
ca_file = "/etc/ssl/staging-ca.pem"
groups = ["payments"]

[clusters.local]
bootstrap_servers = "localhost:9092"

[datasets.fleet]
output = "/data/pipeline-output"
snapshots = "/data/snapshots"

[dashboard]
typed_addresses = false

[access]
allowed_groups = ["engineers"]   # the login's table: not read here
"""


def toml_value(value: Any) -> str:
    """A string, boolean or list of strings as TOML (JSON's string escapes are TOML's)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def toml_text(document: dict[str, Any]) -> str:
    """A document of tables (two levels under ``clusters`` and ``datasets``) as TOML text."""
    lines: list[str] = []
    for table, body in document.items():
        if table in ("clusters", "datasets"):
            for name, entry in body.items():
                lines.append(f"[{json.dumps(table, ensure_ascii=False)}.{json.dumps(name)}]")
                lines += [
                    f"{json.dumps(k, ensure_ascii=False)} = {toml_value(v)}"
                    for k, v in entry.items()
                ]
        elif isinstance(body, dict):
            lines.append(f"[{json.dumps(table)}]")
            lines += [
                f"{json.dumps(k, ensure_ascii=False)} = {toml_value(v)}" for k, v in body.items()
            ]
        else:
            lines.insert(0, f"{json.dumps(table, ensure_ascii=False)} = {toml_value(body)}")
    return "\n".join(lines) + "\n"


def test_a_team_file_gives_its_clusters_datasets_and_switch() -> None:
    config = parse_operator_text(TEAM_FILE)
    assert config.loaded and config.typed_addresses is False
    assert config.cluster("staging") == ClusterEntry(
        name="staging",
        bootstrap_servers="b1.staging:9093,b2.staging:9093",
        security_protocol="SASL_SSL",
        sasl_mechanism="SCRAM-SHA-512",
        username="reader",
        password_env="STAGING_PASSWORD",
        ca_file="/etc/ssl/staging-ca.pem",
        groups=("payments",),
    )
    assert config.cluster("local") == ClusterEntry("local", "localhost:9092")
    assert config.datasets == (DatasetEntry("fleet", "/data/pipeline-output", "/data/snapshots"),)
    assert config.cluster("nope") is None and config.dataset("nope") is None


def test_an_empty_file_offers_nothing_and_allows_typing() -> None:
    config = parse_operator_text("")
    assert (config.clusters, config.datasets, config.typed_addresses) == ((), (), True)


SASL = 'bootstrap_servers = "b:9093"\nsecurity_protocol = "SASL_SSL"\n'


@pytest.mark.parametrize(
    ("text", "key", "says"),
    [
        ("[clusters.a]\n" + SASL + 'password = "hunter2"', "clusters.a.password", "password_env"),
        ("[clusters.a]\nbootstrap_servers = 'b:1'\npasword = 'x'", "clusters.a.pasword", "keys"),
        ("[clusters.a]\nsecurity_protocol = 'SSL'", "clusters.a.bootstrap_servers", "required"),
        ("[clusters.a]\nbootstrap_servers = ' '", "clusters.a.bootstrap_servers", "host:port"),
        ("[clusters.a]\nbootstrap_servers = 9092", "clusters.a.bootstrap_servers", "a number"),
        (
            "[clusters.a]\nbootstrap_servers = 'b:1'\nsecurity_protocol = 'TLS'",
            "clusters.a.security_protocol",
            "SASL_SSL",
        ),
        ("[clusters.a]\n" + SASL, "clusters.a.sasl_mechanism", "required with SASL_SSL"),
        (
            "[clusters.a]\n" + SASL + "sasl_mechanism = 'PLAIN'\nusername = 'u'",
            "clusters.a.password_env",
            "exactly one",
        ),
        (
            "[clusters.a]\n" + SASL + "sasl_mechanism = 'PLAIN'\nusername = 'u'\n"
            "password_env = 'A'\npassword_file = '/p'",
            "clusters.a.password_env",
            "exactly one",
        ),
        (
            "[clusters.a]\n" + SASL + "sasl_mechanism = 'PLAIN'\nusername = 'u'\n"
            "password_file = 'secrets/p'",
            "clusters.a.password_file",
            "absolute path",
        ),
        (
            "[clusters.a]\nbootstrap_servers = 'b:1'\nusername = 'u'",
            "clusters.a.username",
            'security_protocol = "SASL_SSL"',
        ),
        ("[clusters.a]\nbootstrap_servers = 'b:1'\ngroups = 'x'", "clusters.a.groups", "a list"),
        ("[clusters.a]\nbootstrap_servers = 'b:1'\ngroups = [1]", "clusters.a.groups", "strings"),
        ("[clusters.'a b']\nbootstrap_servers = 'b:1'", "clusters.'a b'", "letters, digits"),
        ("[clusters.'[x](http://h)']\n", "clusters.'[x](http://h)'", "usable name"),
        ("clusters = 'x'", "clusters", "must be a table"),
        ("[datasets.fleet]\nsnapshots = '/s'", "datasets.fleet.output", "required"),
        ("[datasets.fleet]\noutput = 'out'", "datasets.fleet.output", "absolute path"),
        ("[datasets.sample-history]\noutput = '/o'", "datasets.sample-history", "choose another"),
        ("[dashboard]\ntyped_addresses = 'no'", "dashboard.typed_addresses", "true or false"),
        ("[dashboard]\ntyped_address = false", "dashboard.typed_address", "typed_addresses"),
        ("[server]\nport = 1", "server", "[clusters.NAME]"),
    ],
)
def test_a_bad_file_is_refused_naming_the_key_and_the_fix(text: str, key: str, says: str) -> None:
    with pytest.raises(OperatorFileError) as refused:
        parse_operator_text(text)
    message = str(refused.value)
    assert operator_file.dotted(refused.value.key) == key
    assert f"`{key}`" in message and says in message, message
    assert "hunter2" not in message


def test_text_that_is_not_toml_is_refused_with_its_place() -> None:
    with pytest.raises(OperatorFileError, match=r"not valid TOML.*line 2") as refused:
        parse_operator_text("[clusters.a]\nbootstrap_servers = \n")
    assert refused.value.key == ()


def test_the_reader_speaks_the_protocols_and_mechanisms_the_file_may_name() -> None:
    assert operator_file.SECURITY_PROTOCOLS == connection.SECURITY_PROTOCOLS
    assert operator_file.SASL_MECHANISMS == connection.SASL_MECHANISMS


names = st.from_regex(operator_file.NAME, fullmatch=True)
words = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=20)
paths = st.lists(st.text(string.ascii_letters + "._-", min_size=1, max_size=8), min_size=1).map(
    lambda parts: "/" + "/".join(parts)
)


@st.composite
def clusters(draw: st.DrawFn) -> dict[str, Any]:
    body: dict[str, Any] = {
        "bootstrap_servers": draw(st.from_regex(r"[a-z0-9.]{1,12}:[0-9]{2,5}", fullmatch=True))
    }
    protocol = draw(st.sampled_from(operator_file.SECURITY_PROTOCOLS))
    body["security_protocol"] = protocol
    if protocol.startswith("SASL_"):
        body["sasl_mechanism"] = draw(st.sampled_from(operator_file.SASL_MECHANISMS))
        body["username"] = draw(words)
        if draw(st.booleans()):
            body["password_env"] = draw(st.from_regex(operator_file.ENV_NAME, fullmatch=True))
        else:
            body["password_file"] = draw(paths)
    if draw(st.booleans()):
        body["ca_file"] = draw(paths)
    body["groups"] = draw(st.lists(words, max_size=3))
    return body


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    datasets = draw(st.dictionaries(names.filter(lambda n: n != "sample-history"), st.just(0)))
    return {
        "clusters": draw(st.dictionaries(names, clusters(), max_size=3)),
        "datasets": {
            name: {
                "output": draw(paths),
                **({"snapshots": draw(paths)} if draw(st.booleans()) else {}),
            }
            for name in datasets
        },
        "dashboard": {"typed_addresses": draw(st.booleans())},
    }


@given(documents())
@settings(max_examples=30, deadline=None)
def test_what_a_file_says_is_what_is_read(document: dict[str, Any]) -> None:
    config = parse_operator_text(toml_text(document))
    assert config.typed_addresses is document["dashboard"]["typed_addresses"]
    assert [entry.name for entry in config.clusters] == list(document["clusters"])
    for entry in config.clusters:
        written = document["clusters"][entry.name]
        for key, value in written.items():
            assert getattr(entry, key) == (tuple(value) if key == "groups" else value), key
    for entry in config.datasets:
        assert (entry.output, entry.snapshots) == (
            document["datasets"][entry.name]["output"],
            document["datasets"][entry.name].get("snapshots"),
        )


@st.composite
def with_unknown_key(draw: st.DrawFn) -> tuple[dict[str, Any], tuple[str, ...]]:
    """A valid document with one key added where none such is known, and that key's path."""
    document = draw(documents())
    places: list[tuple[str, ...]] = [(), ("dashboard",)]
    places += [("clusters", name) for name in document["clusters"]]
    places += [("datasets", name) for name in document["datasets"]]
    place = draw(st.sampled_from(places))
    known = {"clusters", "datasets", "dashboard", "access", "password"}
    known |= {field for body in document["clusters"].values() for field in body}
    known |= {"output", "snapshots", "typed_addresses", "security_protocol", "ca_file"}
    key = draw(words.filter(lambda word: word not in known and word != ""))
    if place == ():
        document = {key: "x", **document}
    else:
        table = document[place[0]] if len(place) == 1 else document[place[0]][place[1]]
        table[key] = "x"
    return document, (*place, key)


@given(with_unknown_key())
@settings(max_examples=25, deadline=None)
def test_any_unknown_key_is_refused_with_its_path(
    case: tuple[dict[str, Any], tuple[str, ...]],
) -> None:
    document, path = case
    with pytest.raises(OperatorFileError) as refused:
        parse_operator_text(toml_text(document))
    assert refused.value.key == path
    assert f"`{operator_file.dotted(path)}`" in str(refused.value)


secrets = st.text(
    string.ascii_letters + string.digits + string.punctuation, min_size=8, max_size=40
)


@given(password=secrets, where=st.sampled_from(["env", "file"]))
@settings(max_examples=25, deadline=None)
def test_a_password_is_read_only_where_the_connection_is_made_and_never_printed(
    password: str, where: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Whichever way the file points at it, the password reaches the connection settings
    (revealed only to the client library) and shows in no ``repr`` or ``str`` of the file's
    types or of those settings."""
    variable = "AE_TEST_OPERATOR_PASSWORD"
    secret_file = tmp_path_factory.mktemp("secret") / "password"
    secret_file.write_text(password + "\n")
    reference = (
        f'password_env = "{variable}"' if where == "env" else f'password_file = "{secret_file}"'
    )
    text = (
        f"[clusters.staging]\n{SASL}sasl_mechanism = 'SCRAM-SHA-512'\nusername = 'r'\n{reference}"
    )
    config = parse_operator_text(text)
    entry = config.cluster("staging")
    assert entry is not None
    os.environ[variable] = password
    try:
        resolved = cluster_source._password(entry)
    finally:
        del os.environ[variable]
    assert resolved is not None and resolved.reveal() == password
    shown = [repr(config), str(config), repr(entry), str(entry), repr(resolved), str(resolved)]
    assert not any(password in text for text in shown)


def test_a_password_the_server_cannot_read_is_refused_without_its_path(tmp_path: Any) -> None:
    missing = str(tmp_path / "nowhere" / "password")
    entry = ClusterEntry("staging", "b:1", "SASL_SSL", "PLAIN", "u", password_file=missing)
    with pytest.raises(ConnectionSettingsError) as refused:
        cluster_source._password(entry)
    assert "staging" in str(refused.value) and str(tmp_path) not in str(refused.value)
    unset = ClusterEntry("staging", "b:1", "SASL_SSL", "PLAIN", "u", password_env="AE_UNSET_X")
    with pytest.raises(ConnectionSettingsError, match="AE_UNSET_X"):
        cluster_source._password(unset)


@given(st.lists(st.tuples(words.filter(lambda w: "/" not in w), paths), min_size=1, max_size=4))
def test_no_path_survives_in_a_message_shown(parts: list[tuple[str, str]]) -> None:
    text = " ".join(f"{word} {path}: '{path}'" for word, path in parts)
    shown = without_paths(text, "fleet")
    assert not any(path in shown for _, path in parts if len(path) > 1)
    assert all(word in shown for word, _ in parts)


def test_the_server_says_at_start_how_it_is_set_up(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A laptop's run says nothing; the image (``AE_ANNOUNCE_SETUP``) says whether a login and
    an operator file are configured; a configured file is always named, and a refused one with
    the key at fault."""
    from dashboard.session import settings as server

    monkeypatch.delenv(operator_file.CONFIG_ENV, raising=False)
    monkeypatch.delenv(server.ANNOUNCE_ENV, raising=False)
    assert server.setup_report(login_configured=False) == []
    monkeypatch.setenv(server.ANNOUNCE_ENV, "1")
    lines = server.setup_report(login_configured=False)
    assert lines[0].startswith("login: none configured") and "operator file: none" in lines[1]
    assert server.setup_report(login_configured=True)[0].startswith("login: configured")
    path = tmp_path / "explorer.toml"
    path.write_text(TEAM_FILE)
    monkeypatch.setenv(operator_file.CONFIG_ENV, str(path))
    monkeypatch.delenv(server.ANNOUNCE_ENV)
    assert server.setup_report(login_configured=False) == [
        f"operator file: {path} loaded: clusters staging, local, datasets fleet,"
        " typed addresses off"
    ]
    path.write_text(TEAM_FILE.replace("username", "user_name"))
    (line,) = server.setup_report(login_configured=False)
    assert f"{path} is refused" in line and "`clusters.staging.user_name`" in line

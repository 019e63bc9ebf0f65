"""Links name, never point (issue 41), in the real app (AppTest).

The attacks of the issue's first bullet, replayed: a Fleet link that named a directory on the
server (``pipeline_input=``) read whatever pipeline tables sat there, and its errors said what
was on the disk ("No such file", "Permission denied", the columns a file lacked). Now a link
names a dataset or a cluster the server offers (the operator file's names, and the bundled
``sample-history``); any other name is refused with the names it may use, and nothing shown
holds a server path. The operator file is the one ``ASSIGNMENT_EXPLORER_CONFIG`` names.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.model.operator_file import BUILTIN_DATASET, CONFIG_ENV
from dashboard.views import pages
from tests.dashboard.app_session import open_address, shown_text, start_app

ROOT = Path(__file__).resolve().parents[2]
HISTORY = ROOT / "sample_data" / "history"
HISTORY_PAGE = next(spec for spec in pages.PAGES if spec.title == "History")
FLEET_PAGE = next(spec for spec in pages.PAGES if spec.title == "Fleet")


def shown(app: AppTest) -> list[str]:
    """Every text the page shows (main area and sidebar): messages, Markdown, captions, titles,
    text, code, and the options and labels of the widgets."""
    texts: list[str] = []
    for kind in ("error", "warning", "info", "success", "markdown", "caption", "title", "text"):
        texts += [str(element.value) for element in getattr(app, kind)]
    texts += [str(element.value) for element in app.code]
    for kind in ("selectbox", "radio", "text_input", "multiselect"):
        for widget in getattr(app, kind):
            texts.append(str(widget.label))
            texts += [str(option) for option in getattr(widget, "options", [])]
    return texts


def assert_shows_no(app: AppTest, *fragments: str) -> None:
    for text in shown(app):
        for fragment in fragments:
            assert fragment not in text, (fragment, text)


def loaded_label(app: AppTest) -> str:
    return str(app.session_state["ae.source"].label)


@pytest.fixture
def operator_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A team server's operator file: a SCRAM cluster ``staging`` (its password in an
    environment variable), a plain cluster ``local``, and dataset ``fleet`` whose snapshots
    lack every group."""
    output = tmp_path / "team-output"
    (tmp_path / "team-snapshots").mkdir()
    path = tmp_path / "explorer.toml"
    path.write_text(
        f"""
[clusters.staging]
bootstrap_servers = "staging-broker.internal:9093"
security_protocol = "SASL_SSL"
sasl_mechanism = "SCRAM-SHA-512"
username = "reader"
password_env = "AE_TEST_STAGING_PASSWORD"

[clusters.local]
bootstrap_servers = "127.0.0.1:1"

[clusters.tls]
bootstrap_servers = "127.0.0.1:2"
security_protocol = "SSL"
ca_file = "{tmp_path / "missing-ca.pem"}"

[datasets.fleet]
output = "{output}"
snapshots = "{tmp_path / "team-snapshots"}"
"""
    )
    monkeypatch.setenv(CONFIG_ENV, str(path))
    monkeypatch.setenv("AE_PIPELINE_OUTPUT", str(tmp_path / "no-output"))
    monkeypatch.setenv("AE_PIPELINE_INPUT", str(HISTORY))
    yield path


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    """A copy of the bundled history in a directory nothing configures (the attack's bait)."""
    bait = tmp_path / "unconfigured"
    shutil.copytree(HISTORY, bait)
    return bait


def test_a_link_naming_a_directory_reads_nothing_and_says_what_it_may_name(
    planted: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attack 1: the planted copy of the history opened as a group by its directory."""
    monkeypatch.setenv("AE_PIPELINE_INPUT", str(HISTORY))
    app = start_app(pipeline_input=str(planted), cluster="cluster-1", group="group-00001")
    assert "pipeline snapshot" not in loaded_label(app)  # the default sample, not the bait
    assert any(
        "names a directory" in text and BUILTIN_DATASET in text for text in app.error.values
    ), app.error.values
    assert_shows_no(app, str(planted), str(planted.parent))


@pytest.mark.parametrize(
    "probe",
    [
        "/root/offsets",
        "/proc/1/cwd",
        "/etc",
        "../../../../etc",
        "sample_data/history",
        "![x](http://127.0.0.1:9/x)",
    ],
)
@pytest.mark.parametrize("param", ["pipeline_input", "dataset"])
def test_a_link_probing_the_disk_learns_nothing(probe: str, param: str) -> None:
    """Attack 1's probes: whether a directory exists, is readable or holds tables, asked through
    the old parameter and through ``dataset=``: every answer is the same refusal."""
    app = start_app(**{param: probe, "cluster": "cluster-1", "group": "group-00001"})
    assert "pipeline snapshot" not in loaded_label(app)
    errors = app.error.values
    assert len(errors) == 1 and BUILTIN_DATASET in errors[0], errors
    assert_shows_no(app, probe, "No such file", "Permission denied", "lacks the column")


def test_a_fleet_link_names_the_bundled_history_and_opens_its_group(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AE_PIPELINE_INPUT", str(HISTORY))
    app = start_app(dataset=BUILTIN_DATASET, cluster="cluster-1", group="group-00001")
    assert "pipeline snapshot of group-00001" in loaded_label(app)
    assert dict(app.query_params)["dataset"] == BUILTIN_DATASET
    assert_shows_no(app, str(HISTORY))


@pytest.mark.parametrize("page", [HISTORY_PAGE, FLEET_PAGE], ids=lambda spec: spec.title)
def test_a_page_link_naming_an_unknown_dataset_lists_the_names(
    operator_file: Path, page: pages.PageSpec
) -> None:
    app = open_address(page, dataset="/srv/other")
    assert [shown_text(v) for v in app.error.values] == [
        "The link names a dataset this server does not offer: it may name one of"
        f" {BUILTIN_DATASET}, fleet."
    ]
    assert not app.dataframe and not app.selectbox  # nothing of any dataset
    assert_shows_no(app, "/srv/other", str(operator_file.parent))


@pytest.mark.parametrize("page", [HISTORY_PAGE, FLEET_PAGE], ids=lambda spec: spec.title)
def test_a_configured_dataset_is_named_never_pointed_at(
    operator_file: Path, page: pages.PageSpec
) -> None:
    """The team's dataset has no tables yet: the page says so by its name, shows no path and
    no command with one (the operator runs the pipeline, not the viewer)."""
    app = open_address(page, dataset="fleet")
    assert app.selectbox(key="pipeline.dataset").value == "fleet"
    assert any("Dataset fleet has no" in text for text in app.info.values), app.info.values
    assert dict(app.query_params)["dataset"] == "fleet"
    assert_shows_no(app, str(operator_file.parent), str(ROOT), "python -m pipeline")


def test_an_error_reading_a_configured_dataset_names_the_dataset_not_its_path(
    operator_file: Path,
) -> None:
    app = start_app(dataset="fleet", cluster="cluster-1", group="group-00001")
    assert "pipeline snapshot" not in loaded_label(app)
    assert any("dataset fleet" in text for text in app.error.values), app.error.values
    assert_shows_no(app, str(operator_file.parent))


def test_a_link_naming_an_unknown_cluster_lists_the_names(operator_file: Path) -> None:
    app = start_app(live_cluster="prod-eu")
    assert app.radio(key="source.kind").value == "Cluster"
    assert (
        "The link names a cluster this server does not offer: it may name one of staging,"
        " local, tls." in [shown_text(v) for v in app.error.values]
    )
    offered = ["staging", "local", "tls", "Type an address"]
    assert app.selectbox(key="cluster.name").options == offered
    assert_shows_no(app, "prod-eu", "staging-broker.internal", "127.0.0.1:1")


def test_a_link_naming_a_cluster_picks_it_and_shows_not_its_address(operator_file: Path) -> None:
    app = start_app(live_cluster="staging")
    assert app.selectbox(key="cluster.name").value == "staging"
    assert not [w for w in app.text_input if w.key == "cluster.bootstrap"]  # no address form
    assert_shows_no(app, "staging-broker.internal", "AE_TEST_STAGING_PASSWORD")


def test_typing_an_address_can_be_switched_off(
    operator_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    operator_file.write_text(operator_file.read_text() + "\n[dashboard]\ntyped_addresses = false\n")
    app = start_app(live_cluster="staging")
    assert app.selectbox(key="cluster.name").options == ["staging", "local", "tls"]
    assert not [w for w in app.text_input if w.key == "cluster.bootstrap"]


def test_a_named_cluster_without_its_password_says_so_without_connecting(
    operator_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AE_TEST_STAGING_PASSWORD", raising=False)
    app = start_app(live_cluster="staging")
    app.button(key="cluster.connect").click().run()
    assert any(
        "cluster staging: its password is not set on the server" in shown_text(text)
        for text in app.error.values
    ), app.error.values
    assert_shows_no(app, "staging-broker.internal")


@pytest.mark.parametrize("name", ["local", "tls"])
def test_a_named_cluster_that_fails_is_named_not_pointed_at(operator_file: Path, name: str) -> None:
    """Nothing listens at ``local``'s address, and ``tls``'s CA file is missing: each failure
    is said with the cluster's name, never its address or the server's path to its CA."""
    app = start_app(live_cluster=name)
    app.number_input(key="cluster.timeout").set_value(1.0)
    app.button(key="cluster.connect").click().run()
    assert any("Could not connect" in text and name in text for text in app.error.values), (
        app.error.values
    )
    assert_shows_no(app, "127.0.0.1", str(operator_file.parent))


def test_a_refused_operator_file_stops_every_page_and_names_the_key(
    operator_file: Path,
) -> None:
    operator_file.write_text(
        '[clusters.staging]\nbootstrap_servers = "b:1"\npassword = "hunter2"\n'
    )
    app = start_app()
    assert len(app.error) == 1
    message = shown_text(app.error[0].value)
    assert "`clusters.staging.password`" in message and "password_env" in message, message
    assert_shows_no(app, "hunter2", str(operator_file))
    assert not app.selectbox and not app.button  # nothing else is served

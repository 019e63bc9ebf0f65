"""The login in the real app script (AppTest, with Streamlit's simulated ``st.user``): with
``[auth]`` in the secrets nothing but the sign-in screen is drawn before sign-in, a signed-in
user is named as plain text beside a Sign out button, the menu holds only the pages the user's
groups may open, and a configuration that cannot be read fails closed. The same against a real
provider in a real browser: tests/browser/test_login_browser.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.session import login
from dashboard.views import pages
from tests.dashboard.app_session import APP, assert_no_exception, page_title, shown_text

AUTH = {
    "redirect_uri": "http://localhost:8501/oauth2callback",
    "cookie_secret": "not-a-secret-in-tests",
    "client_id": "assignment-explorer",
    "client_secret": "not-a-secret-either",
    "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration",
}
ACCESS = '[access]\ngroups_claim = "roles"\n[access.pages]\nlive = ["kafka-ops"]\n'


def _run(user: dict[str, object], page: pages.PageSpec | None = None) -> AppTest:
    app = AppTest.from_file(APP, default_timeout=120)
    app.secrets["auth"] = AUTH
    app.user = user
    app.run()
    assert_no_exception(app)
    if page is not None:
        app.switch_page(page.script).run()
        assert_no_exception(app)
    return app


@pytest.fixture(autouse=True)
def access_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "explorer.toml"
    path.write_text(ACCESS)
    monkeypatch.setenv(login.CONFIG_VARIABLE, str(path))
    return path


def test_before_sign_in_only_the_sign_in_screen_is_drawn() -> None:
    app = _run({"is_logged_in": False})
    assert [button.label for button in app.button] == ["Sign in"]
    assert [text.value for text in app.markdown] == ["Sign in to open the dashboard."]
    assert page_title(app) == "Assignment Explorer"
    assert not app.sidebar.button and not app.get("plotly_chart")
    # An address of another page shows the same screen, and no page of the app.
    app = _run({"is_logged_in": False}, pages.LIVE)
    assert [button.label for button in app.button] == ["Sign in"]


def test_a_signed_in_user_is_named_as_typed_beside_a_sign_out_button() -> None:
    name = "Eve **bold** [x](http://127.0.0.1:9/) <b>b</b> :red[r] $x$"
    app = _run({"is_logged_in": True, "name": name, "roles": ["kafka-ops"]})
    assert f"Signed in as {name}" in [text.value for text in app.sidebar.text]
    assert "Sign out" in [button.label for button in app.sidebar.button]
    assert page_title(app) == "Assignment Explorer"  # the Explorer, as without a login


def test_the_menu_holds_the_pages_the_users_groups_may_open() -> None:
    member = _run({"is_logged_in": True, "name": "Ann", "roles": ["kafka-ops"]}, pages.LIVE)
    assert page_title(member) == "Assignment Explorer · Live group"
    # The claim the file names is read: the same group under "groups" opens nothing restricted.
    for user in (
        {"is_logged_in": True, "name": "Bob", "roles": ["guests"]},
        {"is_logged_in": True, "name": "Cy", "groups": ["kafka-ops"]},
    ):
        outsider = _run(user)
        assert page_title(outsider) == "Assignment Explorer"
        with pytest.raises(ValueError, match="Could not find a navigation page"):
            outsider.switch_page(pages.LIVE.script)  # not in the menu: no address opens it
        outsider.switch_page(pages.FLEET.script).run()  # an unrestricted page still opens
        assert page_title(outsider) == "Assignment Explorer · Fleet"


def test_no_page_for_the_users_groups_says_so(access_file: Path) -> None:
    every_page = "\n".join(f'{spec.url_path} = ["kafka-ops"]' for spec in pages.PAGES)
    access_file.write_text(f"[access.pages]\n{every_page}\n")
    app = _run({"is_logged_in": True, "name": "Bob", "groups": ["guests"]})
    assert "may open no page" in app.warning[0].value
    assert "Sign out" in [button.label for button in app.sidebar.button]


@pytest.mark.parametrize(
    "content", ['[access.pages]\nadmin = ["ops"]\n', "[access\n", b"\xff\xfe[access]", None]
)
def test_an_unreadable_access_table_fails_closed(
    access_file: Path, content: str | bytes | None
) -> None:
    if content is None:
        access_file.unlink()  # named, but gone
    elif isinstance(content, bytes):
        access_file.write_bytes(content)
    else:
        access_file.write_text(content)
    app = _run({"is_logged_in": True, "name": "Ann", "roles": ["kafka-ops"]})
    # One reader: the operator file's, whole file first, then its [access] table.
    said = shown_text(app.error[0].value)
    assert said.startswith("The operator file (ASSIGNMENT_EXPLORER_CONFIG)"), said
    assert str(access_file.parent) not in app.error[0].value  # no server path in the page
    assert not app.title and not app.sidebar.button


def test_without_auth_the_access_table_is_not_applied() -> None:
    app = AppTest.from_file(APP, default_timeout=120)
    app.run()
    app.switch_page(pages.LIVE.script).run()
    assert_no_exception(app)
    assert page_title(app) == "Assignment Explorer · Live group"
    assert not any("Signed in" in text.value for text in app.sidebar.text)


def test_a_page_a_view_sends_the_user_to_is_refused_in_words_when_not_in_the_menu(
    access_file: Path,
) -> None:
    access_file.write_text('[access.pages]\nexplorer = ["kafka-ops"]\n')
    app = _run({"is_logged_in": True, "name": "Bob", "groups": ["guests"]}, pages.CLASSROOM)
    lesson = next(button for button in app.button if button.label == "Open the lesson")
    lesson.click().run()
    assert_no_exception(app)
    assert page_title(app) == "Assignment Explorer · Classroom"
    assert [box.value for box in app.warning] == ["Your account may not open the Explorer page."]


CLUSTERS = """
[clusters.shared]
bootstrap_servers = "127.0.0.1:1"

[clusters.ops-only]
bootstrap_servers = "127.0.0.1:2"
groups = ["kafka-ops"]
"""


@pytest.mark.parametrize(
    ("user", "offered"),
    [
        ({"is_logged_in": True, "name": "Ann", "roles": ["kafka-ops"]}, ["shared", "ops-only"]),
        ({"is_logged_in": True, "name": "Bob", "roles": ["guests"]}, ["shared"]),
        ({"is_logged_in": True, "name": "Cy", "groups": ["kafka-ops"]}, ["shared"]),
    ],
)
def test_a_user_outside_a_clusters_groups_is_not_offered_it(
    access_file: Path, user: dict[str, object], offered: list[str]
) -> None:
    # The operator file's clusters are filtered by the groups in the claim [access] names: a
    # cluster with no groups is open to every signed-in user. A link naming a cluster the
    # user may not see is refused like a name the server does not offer.
    access_file.write_text(ACCESS + CLUSTERS)
    app = AppTest.from_file(APP, default_timeout=120)
    app.secrets["auth"] = AUTH
    app.user = user
    app.query_params["live_cluster"] = "ops-only"
    app.run()
    assert_no_exception(app)
    assert app.radio(key="source.kind").value == "Cluster"
    picker = app.selectbox(key="cluster.name")
    assert [o for o in picker.options if o != "Type an address"] == offered
    refused = [e.value for e in app.error if "does not offer" in e.value]
    assert bool(refused) == ("ops-only" not in offered)
    assert (picker.value == "ops-only") == ("ops-only" in offered)

"""The login against a real OpenID Connect provider (npm's oidc-provider on loopback), in
Chromium: no page of the dashboard before sign-in, a user in the allowed group sees the
restricted page, a user outside it does not, the signed-in user is named as typed (no Markdown
made of it), and signing out ends the session (the provider's too: signing in again asks for the
login again)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser import oidc_provider, served_app
from tests.browser.oidc_provider import User
from tests.ports import free_port

pytestmark = pytest.mark.browser

OPS = User("ann", "Ann **Ops** [x](http://127.0.0.1:9/) <b>b</b>", ("kafka-ops", "dev"))
GUEST = User("bob", "Bob", ("guests",))
ACCESS = '[access.pages]\nlive = ["kafka-ops"]\n'
LIVE_TITLE = "Assignment Explorer · Live group"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The dashboard with a login, at ``http://localhost:PORT``, and its provider."""
    if not served_app.CHROMIUM.exists():
        pytest.skip(f"Chromium not found at {served_app.CHROMIUM}: apt-get install -y chromium")
    why = oidc_provider.missing()
    if why:
        pytest.fail(why)  # scripts/test.sh installs it: a missing provider is a broken set-up
    work = tmp_path_factory.mktemp("login")
    provider_port = free_port()
    (work / "secrets.toml").write_text(
        oidc_provider.secrets_toml(f"http://127.0.0.1:{provider_port}")
    )
    (work / "explorer.toml").write_text(ACCESS)
    env = {
        "STREAMLIT_SECRETS_FILES": str(work / "secrets.toml"),
        "ASSIGNMENT_EXPLORER_CONFIG": str(work / "explorer.toml"),
    }
    with served_app.serve(work / "streamlit.log", env) as served:
        url = served.url.replace("127.0.0.1", "localhost")
        redirect = f"{url}/oauth2callback"
        with oidc_provider.provider([OPS, GUEST], redirect, work, provider_port):
            yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with served_app.chromium() as launched:
        yield launched


@pytest.fixture()
def tab(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(60_000)
    yield page
    context.close()


def _sign_in_screen(tab: Any) -> None:
    tab.get_by_role("button", name="Sign in").wait_for()
    served_app.wait_idle(tab)
    assert tab.locator('[data-testid="stSidebarNav"], [data-testid="stTopNavLink"]').count() == 0
    assert tab.locator(".js-plotly-plot").count() == 0
    assert "Sign in to open the dashboard." in tab.locator("body").inner_text()


def _sign_in(tab: Any, app: str, user: User) -> None:
    """From the sign-in screen through the provider's login and consent pages, back to the app."""
    tab.goto(app)
    tab.get_by_role("button", name="Sign in").click()
    tab.locator('input[name="login"]').fill(user.login)
    tab.locator('input[name="password"]').fill("any password")
    tab.locator('button[type="submit"]').click()
    consent = tab.get_by_role("button", name="Continue")
    consent.wait_for()
    consent.click()
    tab.wait_for_url(re.compile(re.escape(app)))
    tab.get_by_text("Signed in as").wait_for()
    served_app.wait_idle(tab)


def test_no_page_is_served_before_sign_in(app: str, tab: Any) -> None:
    for address in (app, f"{app}/live", f"{app}/?sample=range-vs-roundrobin"):
        tab.goto(address)
        _sign_in_screen(tab)


def test_a_user_in_the_allowed_group_sees_the_restricted_page(app: str, tab: Any) -> None:
    _sign_in(tab, app, OPS)
    caption = tab.get_by_text("Signed in as").first
    assert caption.inner_text() == f"Signed in as {OPS.name}"  # as typed: no Markdown, no HTML
    assert caption.locator("*").count() == 0  # one text node: no link, no bold, no tag
    assert tab.locator('a[href*="127.0.0.1:9"]').count() == 0
    tab.locator('[data-testid="stTopNavLink"]', has_text="Live group").click()
    tab.get_by_role("heading", name=LIVE_TITLE).wait_for()


def test_a_user_outside_the_group_does_not(app: str, tab: Any) -> None:
    _sign_in(tab, app, GUEST)
    menu = " ".join(tab.locator('[data-testid="stTopNavLink"]').all_inner_texts())
    assert "Fleet" in menu and "Live group" not in menu
    tab.goto(f"{app}/live")
    tab.get_by_text("Signed in as Bob").wait_for()
    served_app.wait_idle(tab)
    assert tab.get_by_role("heading", name=LIVE_TITLE).count() == 0


def test_sign_out_ends_the_session(app: str, tab: Any) -> None:
    _sign_in(tab, app, OPS)
    tab.get_by_role("button", name="Sign out").click()
    tab.get_by_role("button", name=re.compile("sign me out", re.I)).click()  # the provider's
    tab.wait_for_url(re.compile(re.escape(app)))
    _sign_in_screen(tab)
    tab.goto(f"{app}/live")  # the cookie is gone: a new session starts signed out
    _sign_in_screen(tab)
    tab.get_by_role("button", name="Sign in").click()  # the provider asks for the login again
    tab.locator('input[name="login"]').wait_for()

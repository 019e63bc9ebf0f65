"""A real OpenID Connect provider on loopback for the login tests: npm's ``oidc-provider``
(tests/oidc_provider/provider.mjs; ``npm ci`` there installs it, scripts/test.sh does), with the
users and groups a test gives it, and the Streamlit secrets that point the dashboard at it."""

from __future__ import annotations

import contextlib
import json
import secrets
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.browser.served_app import stop
from tests.ports import free_port

PROVIDER_DIR = Path(__file__).resolve().parents[1] / "oidc_provider"
CLIENT_ID = "assignment-explorer"
CLIENT_SECRET = "test-client-secret"  # the same in provider.mjs
START_TIMEOUT_S = 30.0


@dataclass(frozen=True, slots=True)
class User:
    login: str
    name: str
    groups: tuple[str, ...]


def missing() -> str | None:
    """Why the provider cannot run here (``None``: it can)."""
    if shutil.which("node") is None:
        return "node is not installed (apt-get install -y nodejs npm)"
    if not (PROVIDER_DIR / "node_modules" / "oidc-provider").is_dir():
        return f"oidc-provider is not installed: npm ci --prefix {PROVIDER_DIR}"
    return None


def secrets_toml(issuer: str) -> str:
    """Streamlit's ``[auth]`` for the provider at ``issuer``; the app's port is filled in by
    Streamlit (``{port}``); the app is opened at ``localhost``, the provider at 127.0.0.1, so
    their cookies never meet. oidc-provider knows the prompts ``login``, ``consent`` and
    ``none``, not the ``select_account`` Streamlit asks for unless told: ``consent`` here (the
    login page still comes only when the provider has no session of the browser)."""
    return (
        "[auth]\n"
        'redirect_uri = "http://localhost:{port}/oauth2callback"\n'
        f'cookie_secret = "{secrets.token_hex(16)}"\n'
        f'client_id = "{CLIENT_ID}"\n'
        f'client_secret = "{CLIENT_SECRET}"\n'
        f'server_metadata_url = "{issuer}/.well-known/openid-configuration"\n'
        'client_kwargs = { prompt = "consent" }\n'
    )


def _ready(issuer: str) -> bool:
    try:
        with urllib.request.urlopen(f"{issuer}/.well-known/openid-configuration", timeout=2):
            return True
    except OSError:
        return False


@contextlib.contextmanager
def provider(
    users: Sequence[User], redirect_uri: str, work: Path, port: int | None = None
) -> Iterator[str]:
    """The provider, listening on 127.0.0.1 (``port``, or a free one), for one client whose
    redirect address is ``redirect_uri``; yields its issuer URL."""
    port = port or free_port()
    users_file = work / "users.json"
    table: Mapping[str, object] = {
        user.login: {"name": user.name, "groups": list(user.groups)} for user in users
    }
    users_file.write_text(json.dumps(table))
    log = work / "provider.log"
    with open(log, "wb") as output:
        process = subprocess.Popen(
            ["node", "provider.mjs", str(port), redirect_uri, str(users_file)],
            cwd=PROVIDER_DIR,
            stdout=output,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    issuer = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not _ready(issuer):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the OIDC provider did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)
        yield issuer
    finally:
        stop(process)

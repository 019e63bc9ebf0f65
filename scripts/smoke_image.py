"""Smoke test of a built image without a container engine: ``python scripts/smoke_image.py IMAGE``.

``podman run`` cannot start containers in every sandbox (crun may not be allowed to set resource
limits), so this runs the image the way its configuration says, by hand: the image's file system
mounted read-only with ``podman image mount``, entered with ``chroot`` as the image's ``User``
(resolved in the image's own ``/etc/passwd``), with the image's ``Env``, ``WorkingDir`` and
``Entrypoint``/``Cmd``. Only the Streamlit port and address are overridden (a free loopback port),
and the network is the host's.

Checks, in order, failing with exit status 1 on the first that does not hold:

1. the image's user is not root, and the server process runs under that user's id;
2. ``/_stcore/health`` answers ``ok`` within ``START_TIMEOUT_S``;
3. the main page answers with Streamlit's page;
4. the image carries the project's Streamlit settings: ``streamlit config show``, run in the image
   as the server is (its user, environment and working directory), gives the values of
   ``.streamlit/config.toml`` in this checkout, the toolbar mode and the session TTL among them
   (without the file the image had Streamlit's defaults: the *Deploy* button, a 120 s TTL);
5. when Playwright and Chromium are available (the project's test environment has them), the
   dashboard renders in a real browser: its title and a Plotly chart on the default sample, no
   Python exception on the page and no *Deploy* button in the toolbar. Without them this check is
   skipped with the reason printed.

Standard library only (Playwright is imported lazily), so the host's ``python3`` can run it.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

START_TIMEOUT_S = 90.0
CONFIG_SHOW_TIMEOUT_S = 60.0
PROJECT_CONFIG = Path(__file__).resolve().parents[1] / ".streamlit" / "config.toml"
# Options the image must show with the project's values (the issue-36 defects); the others in
# the file are compared where `streamlit config show` lists them (it hides a few, e.g.
# global.minCachedMessageSize).
REQUIRED_OPTIONS = ("client.toolbarMode", "server.disconnectedSessionTTL")
BROWSER_TIMEOUT_MS = 90_000
CHROMIUM = Path(os.environ.get("AE_CHROMIUM", "/usr/bin/chromium"))


class SmokeFailure(Exception):
    """A check did not hold; the message says which and what was seen."""


@dataclass(frozen=True, slots=True)
class ImageConfig:
    """What the image says about how it runs (``podman image inspect`` ``.Config``)."""

    user: str
    env: dict[str, str]
    command: tuple[str, ...]
    working_dir: str


def image_config(image: str) -> ImageConfig:
    raw = subprocess.run(
        ["podman", "image", "inspect", "--format", "{{json .Config}}", image],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    config = json.loads(raw)
    env = dict(item.split("=", 1) for item in config.get("Env") or [])
    command = tuple(config.get("Entrypoint") or []) + tuple(config.get("Cmd") or [])
    if not command:
        raise SmokeFailure(f"{image} names no command (Entrypoint/Cmd)")
    return ImageConfig(
        user=config.get("User") or "root",
        env=env,
        command=command,
        working_dir=config.get("WorkingDir") or "/",
    )


def resolve_user(root: Path, user: str) -> tuple[int, int, str]:
    """(uid, gid, home) of ``user`` ("name", "uid" or "name:group") in the image's passwd."""
    name = user.split(":", 1)[0]
    for line in (root / "etc" / "passwd").read_text().splitlines():
        fields = line.split(":")
        if len(fields) >= 6 and name in (fields[0], fields[2]):
            return int(fields[2]), int(fields[3]), fields[5]
    if name.isdigit():
        return int(name), int(name), "/"
    raise SmokeFailure(f"user {user!r} is not in the image's /etc/passwd")


@contextlib.contextmanager
def mounted(image: str) -> Iterator[Path]:
    path = subprocess.run(
        ["podman", "image", "mount", image], check=True, capture_output=True, text=True
    ).stdout.strip()
    try:
        yield Path(path)
    finally:
        subprocess.run(["podman", "image", "unmount", image], check=False, capture_output=True)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def fetch(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=5) as response:
        return int(response.status), response.read().decode("utf-8", "replace")


def process_uid(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Uid:"):
            return int(line.split()[1])
    raise SmokeFailure(f"no Uid line for process {pid}")


def wait_for_health(url: str, server: subprocess.Popen[bytes], log: Path) -> float:
    started = time.monotonic()
    while True:
        with contextlib.suppress(OSError):
            status, body = fetch(f"{url}/_stcore/health")
            if status == 200 and body.strip() == "ok":
                return time.monotonic() - started
        if server.poll() is not None:
            raise SmokeFailure(f"the server exited with {server.returncode}:\n{log.read_text()}")
        if time.monotonic() - started > START_TIMEOUT_S:
            raise SmokeFailure(f"not healthy after {START_TIMEOUT_S:.0f} s:\n{log.read_text()}")
        time.sleep(0.3)


def flat_options(table: dict[str, object], prefix: str = "") -> dict[str, object]:
    """``{"server": {"port": 1}}`` -> ``{"server.port": 1}``; nested sections (theme.light) too."""
    options: dict[str, object] = {}
    for key, value in table.items():
        if isinstance(value, dict):
            options |= flat_options(value, f"{prefix}{key}.")
        else:
            options[f"{prefix}{key}"] = value
    return options


def shown_config(text: str) -> dict[str, object]:
    """The options set in ``streamlit config show``'s output (TOML after a few lines of preamble;
    an option left at Streamlit's default is printed commented out, so it is not in the result)."""
    start = text.find("\n[")
    if start < 0:
        raise SmokeFailure(f"`streamlit config show` printed no section: {text[:500]!r}")
    return flat_options(tomllib.loads(text[start + 1 :]))


def run_in_image(
    chroot: list[str], env: dict[str, str], shell: str
) -> subprocess.CompletedProcess[str]:
    """One shell command in the image's file system as its user, output captured."""
    return subprocess.run(
        [*chroot, "/bin/sh", "-c", shell],
        env=env,
        capture_output=True,
        text=True,
        timeout=CONFIG_SHOW_TIMEOUT_S,
        check=False,
    )


def check_config(chroot: list[str], env: dict[str, str], working_dir: str) -> str:
    """Compares the configuration the image's server reads with the project's file."""
    result = run_in_image(
        chroot, env, f"cd {shlex.quote(working_dir)} && exec streamlit config show"
    )
    if result.returncode != 0:
        raise SmokeFailure(f"`streamlit config show` failed in the image:\n{result.stderr[-2000:]}")
    shown = shown_config(result.stdout)
    with PROJECT_CONFIG.open("rb") as file:
        expected = flat_options(tomllib.load(file))
    missing = [name for name in REQUIRED_OPTIONS if name not in shown]
    if missing:
        raise SmokeFailure(
            f"the image leaves {', '.join(missing)} at Streamlit's defaults (`streamlit config "
            f"show` lists them commented out): it does not read {PROJECT_CONFIG.name}"
        )
    differ = [
        f"{name} = {shown[name]!r}, not {value!r}"
        for name, value in expected.items()
        if name in shown and shown[name] != value
    ]
    if differ:
        raise SmokeFailure(
            f"the image does not use {PROJECT_CONFIG.name} of this checkout: " + "; ".join(differ)
        )
    compared = sum(name in shown for name in expected)
    return (
        f"config: the image's Streamlit settings match .streamlit/config.toml ({compared} of "
        f"{len(expected)} options listed by `streamlit config show`; "
        + ", ".join(f"{name} = {shown[name]!r}" for name in REQUIRED_OPTIONS)
        + ")"
    )


def check_login_extra(chroot: list[str], env: dict[str, str]) -> str:
    """Checks that the image can sign users in: ``st.login`` needs the ``login`` extra's
    Authlib, which Streamlit imports only when a login is configured (so the page checks
    cannot see it missing)."""
    probe = "import authlib, importlib.metadata as m; print(m.version('Authlib'))"
    result = run_in_image(chroot, env, f"exec python -c {shlex.quote(probe)}")
    if result.returncode != 0:
        raise SmokeFailure(
            "the image cannot sign users in (the login extra is missing: install '.[login]'):\n"
            + result.stderr[-1000:]
        )
    return f"login: Authlib {result.stdout.strip()} is installed (st.login can run)"


def check_in_browser(url: str) -> str:
    """Renders the main page in Chromium; returns what was checked, or why it was skipped."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return "browser check skipped: Playwright is not installed for this Python"
    if not CHROMIUM.exists():
        return f"browser check skipped: no Chromium at {CHROMIUM}"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_page()
            page.set_default_timeout(BROWSER_TIMEOUT_MS)
            page.goto(url)
            page.get_by_text("Assignment Explorer").first.wait_for()
            page.locator(".js-plotly-plot").first.wait_for()
            errors = page.locator("[data-testid='stException']").all_inner_texts()
            # The toolbar is drawn with the page; the Deploy button is in it unless the mode is
            # "minimal" (Streamlit's default shows it to a browser on localhost).
            page.locator("[data-testid='stToolbar']").first.wait_for(state="attached")
            deploy_buttons = page.locator("[data-testid='stAppDeployButton']").count()
        finally:
            browser.close()
    if errors:
        raise SmokeFailure(f"the dashboard shows an exception: {errors[0][:2000]}")
    if deploy_buttons:
        raise SmokeFailure("the toolbar has Streamlit's Deploy button (toolbarMode is not minimal)")
    return (
        "browser check: the dashboard rendered the default sample with a chart, no exception, "
        "no Deploy button"
    )


def stop(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is None:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)


def smoke(image: str) -> None:
    config = image_config(image)
    with mounted(image) as root, tempfile.TemporaryDirectory(prefix="ae-smoke-") as scratch:
        uid, gid, home = resolve_user(root, config.user)
        if uid == 0:
            raise SmokeFailure(f"the image runs as root (User={config.user!r})")
        port = free_port()
        env = config.env | {
            "HOME": home,
            "STREAMLIT_SERVER_PORT": str(port),
            "STREAMLIT_SERVER_ADDRESS": "127.0.0.1",
        }
        chroot = ["chroot", f"--userspec={uid}:{gid}", str(root)]
        print(check_config(chroot, env, config.working_dir))
        print(check_login_extra(chroot, env))
        shell = f"cd {shlex.quote(config.working_dir)} && exec " + shlex.join(config.command)
        log = Path(scratch) / "server.log"
        with open(log, "wb") as output:
            server = subprocess.Popen(
                [*chroot, "/bin/sh", "-c", shell],
                env=env,
                stdout=output,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        try:
            url = f"http://127.0.0.1:{port}"
            seconds = wait_for_health(url, server, log)
            print(f"health: ok after {seconds:.1f} s on {url} (user {config.user}, uid {uid})")
            if process_uid(server.pid) != uid:
                raise SmokeFailure(f"the server runs as uid {process_uid(server.pid)}, not {uid}")
            status, page = fetch(url + "/")
            if status != 200 or '<div id="root">' not in page:
                raise SmokeFailure(f"the main page answered {status}: {page[:300]!r}")
            print(f"main page: {status}, Streamlit's page ({len(page)} bytes)")
            print(check_in_browser(url))
        finally:
            stop(server)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python scripts/smoke_image.py IMAGE", file=sys.stderr)
        return 2
    try:
        smoke(argv[0])
    except SmokeFailure as failure:
        print(f"smoke test failed: {failure}", file=sys.stderr)
        return 1
    print(f"smoke test passed: {argv[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

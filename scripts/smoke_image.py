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
4. when Playwright and Chromium are available (the project's test environment has them), the
   dashboard renders in a real browser: its title and a Plotly chart on the default sample, and
   no Python exception on the page. Without them this check is skipped with the reason printed.

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
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

START_TIMEOUT_S = 90.0
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
        finally:
            browser.close()
    if errors:
        raise SmokeFailure(f"the dashboard shows an exception: {errors[0][:2000]}")
    return "browser check: the dashboard rendered the default sample with a chart, no exception"


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
        shell = f"cd {shlex.quote(config.working_dir)} && exec " + shlex.join(config.command)
        log = Path(scratch) / "server.log"
        with open(log, "wb") as output:
            server = subprocess.Popen(
                ["chroot", f"--userspec={uid}:{gid}", str(root), "/bin/sh", "-c", shell],
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

"""``scripts/run.sh``, the README's first command, run as a user runs it (issue 36).

The module's first run installs the project for real into a virtual environment of its own
(``AE_VENV`` in a temporary folder, never the checkout's ``.venv``; pip's download cache makes it
take about half a minute here), on a free port (``AE_PORT``). Each run is read line by line until
it prints the dashboard's address, which must answer and be the last line printed; then it is
stopped as Ctrl+C stops it (SIGINT to its process group).
"""

from __future__ import annotations

import ipaddress
import os
import queue
import re
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.ports import free_port

CHECKOUT = Path(__file__).resolve().parents[1]
RUN_SH = CHECKOUT / "scripts" / "run.sh"
FIRST_RUN_TIMEOUT_S = 600.0
START_TIMEOUT_S = 120.0
URL_LINE = re.compile(r"^\s*(http://localhost:\d+)\s*$")


@dataclass(frozen=True, slots=True)
class Run:
    """What one ``run.sh`` printed: every line up to its address, the address, the seconds it
    took to print it, whether the address answered, and what it printed while stopping."""

    lines: list[str]
    url: str | None
    seconds: float
    answered: bool
    returncode: int
    after_stop: list[str]
    #: The addresses the server listened on when it printed its address (from ``/proc/net``).
    listening: list[str]

    @property
    def text(self) -> str:
        return "\n".join(self.lines + self.after_stop)


def _read_lines(stream: Iterable[str], lines: queue.Queue[str | None]) -> None:
    for line in stream:
        lines.put(line.rstrip("\n"))
    lines.put(None)


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return bool(response.status == 200 and '<div id="root">' in response.read().decode())
    except OSError:
        return False


def listening_addresses(port: int) -> list[str]:
    """The local addresses of the sockets listening on TCP ``port`` (Linux ``/proc/net``)."""
    found = []
    for table, width in (("/proc/net/tcp", 4), ("/proc/net/tcp6", 16)):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if state != "0A" or int(hex_port, 16) != port:  # 0A: LISTEN
                continue
            raw = bytes.fromhex(address)
            # The kernel writes each 32-bit word in host (little-endian) order.
            ordered = b"".join(raw[i : i + 4][::-1] for i in range(0, width, 4))
            found.append(str(ipaddress.ip_address(ordered)))
    return sorted(found)


def run_script(env: dict[str, str], timeout_s: float, *args: str) -> Run:
    """Runs ``run.sh`` until it prints an address (or exits), checks the address, stops it."""
    started = time.monotonic()
    process = subprocess.Popen(
        ["bash", str(RUN_SH), *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    assert process.stdout is not None
    output: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_read_lines, args=(process.stdout, output), daemon=True).start()
    lines: list[str] = []
    url = None
    ended = False  # the reader put its end mark: the script closed its output
    try:
        while url is None and not ended:
            line = output.get(timeout=max(0.1, started + timeout_s - time.monotonic()))
            ended = line is None
            if line is not None:
                lines.append(line)
                if match := URL_LINE.match(line):
                    url = match.group(1)
        seconds = time.monotonic() - started
        answered = url is not None and _answers(url)
        listening = listening_addresses(int(url.rsplit(":", 1)[1])) if url else []
        time.sleep(1.0)  # anything printed after the address would land here
        while not ended and not output.empty():
            line = output.get()
            ended = line is None
            if line is not None:
                lines.append(line)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGINT)
        try:
            returncode = process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            returncode = process.wait(timeout=10)
    after_stop = []
    while not ended:
        line = output.get(timeout=10)
        ended = line is None
        if line is not None:
            after_stop.append(line)
    return Run(lines, url, seconds, answered, returncode, after_stop, listening)


def script_env(venv: Path, port: int, **extra: str) -> dict[str, str]:
    """The caller's environment without a display (no browser opens), with the test's venv/port."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.pop("VIRTUAL_ENV", None)
    return env | {"AE_VENV": str(venv), "AE_PORT": str(port)} | extra


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield tmp_path_factory.mktemp("run-sh") / "venv"


@pytest.fixture(scope="module")
def first_run(venv: Path) -> Run:
    return run_script(script_env(venv, free_port()), FIRST_RUN_TIMEOUT_S)


def assert_started(run: Run) -> None:
    assert run.url is not None, f"run.sh printed no address:\n{run.text}"
    assert run.answered, f"{run.url} did not answer with the dashboard:\n{run.text}"
    assert run.lines[-1].strip() == run.url, (
        f"the address is not the last line printed:\n{run.text}"
    )
    assert "warning" not in run.text.lower(), f"run.sh printed a warning:\n{run.text}"
    assert "Traceback" not in run.text, f"run.sh printed a traceback:\n{run.text}"
    assert run.returncode == 0, f"Ctrl+C ended run.sh with {run.returncode}:\n{run.text}"


def test_the_first_run_installs_says_how_long_and_prints_the_address_last(
    first_run: Run, venv: Path
) -> None:
    assert_started(first_run)
    assert "first run: installing" in first_run.text
    assert re.search(r"\d+ MB to download", first_run.text), first_run.text
    assert (venv / ".assignment-explorer-installed").is_file()
    print(f"first run: the address after {first_run.seconds:.0f} s")


def test_a_later_run_skips_the_install(first_run: Run, venv: Path) -> None:
    assert first_run.url is not None
    run = run_script(script_env(venv, free_port()), START_TIMEOUT_S)
    assert_started(run)
    # Nothing else: no install, and nothing from the server while it starts (issue 36: a fresh
    # install logged three "pyspark (not installed): ... is off" lines).
    assert run.lines == [
        "starting the dashboard (Ctrl+C stops it)...",
        "the dashboard is ready; open this address in a browser:",
        f"  {run.url}",
    ], run.text
    print(f"later run: the address after {run.seconds:.1f} s")


def test_a_changed_pyproject_installs_again(first_run: Run, venv: Path) -> None:
    """The stamp holds the hash of the checkout's path and pyproject.toml; any other hash is a
    changed pyproject.toml (the real file is left alone)."""
    assert first_run.url is not None
    stamp = venv / ".assignment-explorer-installed"
    stamp.write_text("0" * 64 + "\n")
    run = run_script(script_env(venv, free_port()), FIRST_RUN_TIMEOUT_S)
    assert_started(run)
    assert "pyproject.toml changed since the last install" in run.text
    assert stamp.read_text().strip() != "0" * 64


def test_with_a_display_the_page_is_opened(first_run: Run, venv: Path, tmp_path: Path) -> None:
    """With a display, the address goes to xdg-open (here a stand-in that records it)."""
    assert first_run.url is not None
    opened = tmp_path / "opened"
    (tmp_path / "xdg-open").write_text(f'#!/bin/sh\necho "$1" > {opened}\n')
    (tmp_path / "xdg-open").chmod(0o755)
    env = script_env(venv, free_port(), DISPLAY=":0")
    env["PATH"] = f"{tmp_path}:{env['PATH']}"
    run = run_script(env, START_TIMEOUT_S)
    assert_started(run)
    assert "opening it in your browser" in run.text
    assert opened.read_text().strip() == run.url


def test_without_a_display_nothing_claims_to_open_it(first_run: Run) -> None:
    assert "open this address in a browser" in first_run.text
    assert "opening" not in first_run.text


def test_a_port_in_use_fails_without_an_address(first_run: Run, venv: Path) -> None:
    assert first_run.url is not None
    with socket.socket() as taken:
        taken.bind(("", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = run_script(script_env(venv, port), START_TIMEOUT_S)
    assert run.url is None, run.text
    assert run.returncode != 0
    assert "stopped before it answered" in run.text, run.text


def test_it_listens_on_this_machine_only_unless_told(first_run: Run, venv: Path) -> None:
    """Issue 41: a laptop's dashboard is not served to its whole network by default; AE_ADDRESS
    (or --server.address) opens it to others, and the script says what that means."""
    assert first_run.listening == ["127.0.0.1"], first_run.listening
    run = run_script(script_env(venv, free_port(), AE_ADDRESS="0.0.0.0"), START_TIMEOUT_S)
    assert_started(run)
    assert run.listening == ["0.0.0.0"], run.listening
    assert "other machines can reach this dashboard" in run.text
    env = script_env(venv, free_port(), AE_ADDRESS="127.0.0.1")
    flag = run_script(env, START_TIMEOUT_S, "--server.address", "0.0.0.0")  # the flag wins
    assert_started(flag)
    assert flag.listening == ["0.0.0.0"], flag.listening

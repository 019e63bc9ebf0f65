"""``python -m assignors assign`` and ``compare`` fed generated garbage files and flag values.

Bad input ends with exit code 2 and one line on stderr, never a traceback; good input exits 0.
Generated cases call the commands' ``main`` in-process (fast); the problems of issue 21 run
through real subprocesses, as users run them.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assignors.__main__ import main
from tests.garbage import BAD_NUMBERS, KNOWN_BAD, SCENARIO_TREES, one_line_of_ours, render

GARBAGE = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SAMPLE = str(Path(__file__).resolve().parents[2] / "sample_data" / "range-vs-roundrobin.json")
STRATEGIES = st.sampled_from(["range", "sticky", "cooperative-sticky", "uniform", "lag-aware"])


def _run(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, err.getvalue()


def _expect_ours(code: int, stderr: str) -> None:
    assert code in (0, 2), (code, stderr)
    if code == 2:
        assert one_line_of_ours(stderr), stderr
    assert "Traceback" not in stderr


def _subprocess(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "assignors", *argv], capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize("name", ["5000-digit partitions", "NaN rate", "deep", "lone surrogate"])
def test_assign_refuses_known_garbage_with_one_line_and_exit_2(name: str, tmp_path: Path) -> None:
    """Before the gate, the 5,000-digit file exited 1 with a 31-line traceback."""
    file = tmp_path / "bad.json"
    file.write_text(KNOWN_BAD[name], encoding="utf-8")
    process = _subprocess("assign", str(file), "--strategy", "range")
    assert process.returncode == 2, process.stderr
    assert one_line_of_ours(process.stderr), process.stderr
    assert process.stderr.startswith("error: ")


def test_assign_reads_a_file_with_a_byte_order_mark(tmp_path: Path) -> None:
    file = tmp_path / "windows.json"
    file.write_bytes(b"\xef\xbb\xbf" + Path(SAMPLE).read_bytes())
    process = _subprocess("assign", str(file), "--strategy", "range")
    assert process.returncode == 0, process.stderr
    assert "C0" in process.stdout


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--partitions", "t0:50000000"], "got 50,000,000 (the most partitions one topic may"),
        (["--partitions", "t0:" + "9" * 5000], "a count of 5,000 digits is too big"),
        (["--add-member", "x" * 10_000], "10,000 characters; at most 4,096"),
        (["--horizon", "1e308", "--step", "1e-300"], "grid steps is too many"),
    ],
    ids=["50M-partitions", "5000-digits", "10k-member-id", "grid-overflow"],
)
def test_compare_bounds_its_flag_values(flags: list[str], message: str) -> None:
    """Before: 50M partitions ran out of memory, the id was accepted, the grid overflowed."""
    process = _subprocess("compare", SAMPLE, "--strategy", "range", *flags)
    assert process.returncode == 2, process.stderr[-2000:]
    assert one_line_of_ours(process.stderr), process.stderr[-2000:]
    assert message in process.stderr


@GARBAGE
@given(SCENARIO_TREES, STRATEGIES, st.booleans())
def test_assign_on_garbage_files_gives_a_table_or_one_line(
    tree: object, strategy: str, bom: bool
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        file = Path(folder) / "s.json"
        data = render(tree).encode("utf-8", "surrogatepass")
        file.write_bytes(b"\xef\xbb\xbf" + data if bom else data)
        _expect_ours(*_run(["assign", str(file), "--strategy", strategy]))
        _expect_ours(*_run(["assign", str(file), "--strategy", "streams-ha", "--json"]))


FLAG_VALUES = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["t0:4", "t0:0", "C0", "C9", "C0:t0", "C0:t0,t1", "t0:", ":", "nan", "inf"]),
    st.sampled_from(["-1", "1e308", "1e-300", "0", "t0:٣", "t0:²", "x" * 5_000]),
    st.sampled_from(
        ["add:", "add:²", "partitions:t0=²", "lag:t0:0=1e400", "rates:t0:0=nan", "skew", "add:3"]
    ),
    st.builds(
        "{}:{}".format,
        st.sampled_from(["add", "partitions:t0=", "lag:t0:0=", "rates:t0:1=", "subscribe:C0"]),
        st.one_of(st.text(max_size=8), BAD_NUMBERS.map(lambda raw: raw.text)),
    ),
    BAD_NUMBERS.map(lambda raw: raw.text[:200]),
)
FLAGS = st.sampled_from(
    [
        "--change",
        "--add-member",
        "--remove-member",
        "--restart-member",
        "--subscribe",
        "--partitions",
        "--horizon",
        "--step",
        "--default-consume-rate",
        "--session-timeout",
        "--rebalance-timeout",
        "--strategy",
    ]
)


@GARBAGE
@given(st.lists(st.tuples(FLAGS, FLAG_VALUES), max_size=4), STRATEGIES)
def test_compare_with_garbage_flags_gives_a_report_or_one_line(
    flags: list[tuple[str, str]], strategy: str
) -> None:
    argv = ["compare", SAMPLE, "--strategy", strategy]
    for flag, value in flags:
        argv += [flag, value] if not value.startswith("-") else [f"{flag}={value}"]
    _expect_ours(*_run(argv))


LISTING = Path(__file__).resolve().parent / "listings" / "kafka-offsets.txt"


@GARBAGE
@given(
    st.lists(
        st.tuples(st.sampled_from(["--partitions", "--broker-rack"]), FLAG_VALUES), max_size=3
    ),
    st.one_of(st.none(), SCENARIO_TREES.map(render), st.sampled_from(list(KNOWN_BAD.values()))),
)
def test_from_describe_with_garbage_flags_and_kcat_files_gives_a_scenario_or_one_line(
    flags: list[tuple[str, str]], kcat: str | None
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        argv = ["from-describe", str(LISTING)]
        for flag, value in flags:
            argv += [f"{flag}={value}"]
        if kcat is not None:
            file = Path(folder) / "kcat.json"
            file.write_bytes(kcat.encode("utf-8", "surrogatepass"))
            argv += ["--kcat", str(file)]
        _expect_ours(*_run(argv))


@pytest.mark.parametrize("flags", [["--partitions", "t0:²"], ["--broker-rack", "²:a"]])
def test_from_describe_refuses_odd_digits_in_flags_with_one_line(
    flags: list[str], tmp_path: Path
) -> None:
    """Before: ``"²".isdigit()`` is true and ``int("²")`` raised ValueError (a traceback)."""
    kcat = tmp_path / "kcat.json"
    kcat.write_text('{"brokers": [], "topics": []}')
    code, stderr = _run(["from-describe", str(LISTING), *flags, "--kcat", str(kcat)])
    assert code == 2 and one_line_of_ours(stderr), stderr

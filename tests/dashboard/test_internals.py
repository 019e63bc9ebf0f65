"""The registry of private library uses (:mod:`dashboard.runtime.internals`): every probe passes
on the installed versions; each fails with a reason when its internal is taken away, and the
feature then goes off visibly (a logged line, the sidebar's notice, its plain path); and no
private use in the project's sources is missing from the registry."""

from __future__ import annotations

import ast
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cluster import internals as cluster_internals
from dashboard.runtime import internals
from pipeline import internals as pipeline_internals
from tests.test_layers import is_streamlit_private

ROOT = Path(__file__).resolve().parents[2]
MODULES = (internals, pipeline_internals, cluster_internals)
_OWNER = {entry.name: module for module in MODULES for entry in module.INTERNALS}


@pytest.fixture(autouse=True)
def _fresh_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test probes afresh (the answers are kept once per process otherwise)."""
    for module in MODULES:
        monkeypatch.setattr(module.USES, "_reasons", {})


def test_the_registry_lists_every_package_once_with_its_facts() -> None:
    names = [entry.name for entry in internals.REGISTRY]
    assert len(names) == len(set(names))
    assert {entry.name for module in MODULES for entry in module.INTERNALS} == set(names)
    for entry in internals.REGISTRY:
        assert re.fullmatch(r"[\w-]+>=[\d.]+,<[\d.]+( \(.+\))?", entry.checked), entry
        assert entry.checked.startswith(entry.library), entry
        assert entry.what and entry.loses and entry.where, entry


def test_each_layer_lists_its_entries_in_one_registry_of_uses() -> None:
    for module in MODULES:
        assert module.USES.entries == module.INTERNALS
        assert module.applies == module.USES.applies


@pytest.mark.parametrize("entry", internals.REGISTRY, ids=lambda e: e.name)
def test_each_probe_passes_on_the_installed_versions(entry: Any) -> None:
    assert entry.probe() is None


# How each internal is taken away ------------------------------------------------------------


def _fake_static(tmp_path: Path, index_html: str, bundle: str) -> None:
    (tmp_path / "static" / "js").mkdir(parents=True)
    (tmp_path / "index.html").write_text(index_html)
    (tmp_path / "static" / "js" / "index.abc.js").write_text(bundle)


def _no_session_mgr(mp: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from streamlit.runtime import Runtime

    def init(self: Any, config: Any) -> None:
        self._other = config

    mp.setattr(Runtime, "__init__", init)


def _no_loop_locals(mp: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from streamlit.runtime import Runtime

    async def loop(self: Any) -> None:
        for info in self.sessions():
            info.flush()

    mp.setattr(Runtime, "_loop_coroutine", loop)


def _no_clear_outside_wrappers(mp: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from streamlit.runtime.fragment import MemoryFragmentStorage

    mp.delattr(MemoryFragmentStorage, "clear_outside_wrappers")


def _no_is_active_session(mp: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from streamlit.runtime import Runtime

    mp.delattr(Runtime, "is_active_session")


def _bundle_without_table(mp: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _fake_static(
        tmp_path,
        '<head><script src="./static/js/index.abc.js"></script></head>',
        "const x=import(`./PlotlyChart.h.js`);",
    )
    mp.setattr(internals, "_static_dir", lambda: tmp_path)


def _bundle_without_websocket(mp: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _fake_static(
        tmp_path,
        '<head><script src="./static/js/index.abc.js"></script></head>',
        "const s=new EventSource(url);",
    )
    mp.setattr(internals, "_static_dir", lambda: tmp_path)


def _no_proc(mp: pytest.MonkeyPatch, tmp_path: Path) -> None:
    mp.setattr(internals, "PROC_FDS", tmp_path / "no-proc" / "fd")


def _figure_without_frames(mp: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import plotly.graph_objects as go

    class Figure(go.Figure):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            del self._frame_objs

    mp.setattr(go, "Figure", Figure)


def _pyspark_sources(mp: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A PySpark whose sources no longer have what the pipeline reaches for."""
    stubs = {
        "sql/classic/dataframe.py": "class DataFrame:\n    def __init__(self, jdf):\n"
        "        self._java_frame = jdf\n",
        "sql/session.py": "class SparkSession:\n    def __init__(self, j):\n"
        "        self._jsparkSession = j\n",
        "core/context.py": "class SparkContext:\n    _active_context = None\n",
        "daemon.py": "def manager(port):\n    pass\n",
        "worker.py": "",
    }
    for relative, text in stubs.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    mp.setattr(pipeline_internals, "pyspark_source", lambda relative: tmp_path / relative)


def _no_find_coordinator_ids(mp: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from kafka.admin import KafkaAdminClient

    mp.delattr(KafkaAdminClient, "_find_coordinator_ids")


def _no_describe_configs_request(mp: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import kafka.protocol.admin

    mp.delattr(kafka.protocol.admin, "DescribeConfigsRequest")


def _no_api_message(mp: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import kafka.protocol.api_message

    mp.delattr(kafka.protocol.api_message, "ApiMessage")


def _other_assignment_type(mp: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from kafka.coordinator.assignors import abstract

    mp.setattr(abstract, "ConsumerProtocolAssignment", type("Other", (), {}))


def _scram_client_elsewhere(mp: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import kafka.net.sasl.scram

    mp.delattr(kafka.net.sasl.scram, "ScramClient")


#: Entry name -> how to take its internal away (and the words its reason must contain).
TAKE_AWAY: dict[str, tuple[Callable[[pytest.MonkeyPatch, Path], None], str]] = {
    "sessions.free_expired_sessions": (_no_session_mgr, "_session_mgr"),
    "sessions.send_loop_leftovers": (_no_loop_locals, "active_session_info"),
    "sessions.hollow": (_no_clear_outside_wrappers, "clear_outside_wrappers"),
    "sessions.session_alive": (_no_is_active_session, "is_active_session"),
    "page_head.first_page_chunks": (_bundle_without_table, "m.f=["),
    "page_head.plotly_on_connect": (_bundle_without_websocket, "new WebSocket("),
    "server_socket.nodelay_listeners": (_no_proc, "cannot list"),
    "budget.figure_parts": (_figure_without_frames, "_frame_objs"),
    "whatif.joinable": (_pyspark_sources, "_jdf"),
    "whatif.holding": (_pyspark_sources, "_active_spark_context"),
    "worker_daemon": (_pyspark_sources, "takes arguments"),
    "reader.admin_manager": (_no_find_coordinator_ids, "_find_coordinator_ids"),
    "reader.describe_configs_request": (_no_describe_configs_request, "DescribeConfigsRequest"),
    "protocol.api_message": (_no_api_message, "ApiMessage"),
    "adapters.consumer_protocol": (_other_assignment_type, "ConsumerProtocolAssignment"),
    "preflight.scram_client": (_scram_client_elsewhere, "ScramClient"),
}


def test_every_entry_has_a_way_to_take_it_away() -> None:
    assert set(TAKE_AWAY) == {entry.name for entry in internals.REGISTRY}


@pytest.mark.parametrize("entry", internals.REGISTRY, ids=lambda e: e.name)
def test_a_taken_away_internal_is_off_and_said_so(
    entry: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    take_away, words = TAKE_AWAY[entry.name]
    take_away(monkeypatch, tmp_path)
    caplog.set_level(logging.WARNING, logger="assignment_explorer")

    off = {item.entry.name: item for item in internals.check_internals()}

    assert entry.name in off, f"{entry.name}'s probe did not notice its internal was gone"
    reason = off[entry.name].reason
    assert words in reason and "\n" not in reason
    assert not _OWNER[entry.name].applies(entry.name)
    lines = [r.getMessage() for r in caplog.records if entry.name in r.getMessage()]
    assert lines == [entry.off_line(reason)], "one line, logged once"
    assert lines[0].startswith(f"{entry.library} ") and entry.loses in lines[0]
    internals.check_internals()  # asked again: not logged again
    assert [r.getMessage() for r in caplog.records if entry.name in r.getMessage()] == lines
    assert f"- {lines[0]}" in (internals.off_notice(tuple(off.values())) or "")


def test_nothing_is_said_when_everything_applies(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="assignment_explorer")
    assert internals.check_internals() == ()
    assert internals.off_notice(()) is None
    assert caplog.records == []


def test_a_library_that_is_not_installed_turns_nothing_off(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 36: a fresh install (no ``spark`` extra) logged three "pyspark (not installed): ...
    is off" lines at start-up and showed them in a warning box in the sidebar, for a pipeline
    that cannot run there anyway."""
    import importlib.metadata

    installed_version = importlib.metadata.version

    def version(distribution: str) -> str:
        if distribution == "pyspark":
            raise importlib.metadata.PackageNotFoundError(distribution)
        return installed_version(distribution)

    monkeypatch.setattr(importlib.metadata, "version", version)
    _pyspark_sources(monkeypatch, tmp_path)  # the probes would find every PySpark use off
    caplog.set_level(logging.WARNING, logger="assignment_explorer")

    assert internals.check_internals() == ()
    assert caplog.records == []


# The features' plain paths ------------------------------------------------------------------


def test_sessions_free_nothing_and_stop_nothing_when_off(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from dashboard.runtime import sessions

    _no_session_mgr(monkeypatch, tmp_path)
    assert sessions.free_expired_sessions() == 0
    _no_is_active_session(monkeypatch, tmp_path)
    assert sessions.session_alive() is True

    class Session:
        _session_state = None  # hollow would fail on it: it must not be touched

    _no_clear_outside_wrappers(monkeypatch, tmp_path)
    sessions.hollow(Session())


def test_a_live_store_without_its_cache_is_switched_off(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from dashboard.runtime import sessions

    class Manager:
        _session_storage = object()

    class Live:
        _session_mgr = Manager()

    # the probe passed before the server existed (on the classes); the live store differs
    monkeypatch.setattr(internals.USES, "_reasons", {"sessions.free_expired_sessions": None})
    monkeypatch.setattr(internals, "live_runtime", lambda: Live())
    caplog.set_level(logging.WARNING, logger="assignment_explorer")
    assert sessions.free_expired_sessions() == 0
    assert not internals.applies("sessions.free_expired_sessions")
    assert "no _cache.expire" in caplog.records[0].getMessage()


def test_budget_sizes_a_figure_by_walking_it_when_off(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import plotly.graph_objects as go

    from dashboard.runtime import budget

    figure = go.Figure(data=[go.Scatter(x=list(range(2000)))])
    plain = budget.estimate_bytes(figure)
    monkeypatch.setattr(internals.USES, "_reasons", {"budget.figure_parts": "Figure._data is gone"})
    walked = budget.estimate_bytes(figure)
    assert walked > 2000 * 8 and walked != plain


def test_server_socket_tries_the_low_descriptors_when_proc_is_off(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from dashboard.runtime import server_socket

    assert list(server_socket._descriptors()) != list(range(3, 256))
    _no_proc(monkeypatch, tmp_path)  # gone after the probe passed: switched off when used
    assert list(server_socket._descriptors()) == list(range(3, 256))
    assert not internals.applies("server_socket.nodelay_listeners")


def test_pipeline_plain_paths_when_off(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from pipeline import session, whatif

    assert "spark.python.daemon.module" in session.local_python()
    monkeypatch.setattr(pipeline_internals.USES, "_reasons", {})
    _pyspark_sources(monkeypatch, tmp_path)
    assert "spark.python.daemon.module" not in session.local_python()
    times = object()  # not touched: no Spark call when the estimate is off
    assert whatif.joinable(times) == (times, None)
    frame = object()
    assert whatif.holding(frame, cached=object()) is frame


def test_the_cluster_reader_says_what_is_off(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from cluster.errors import ClusterError
    from cluster.reader import ClusterReader

    _no_find_coordinator_ids(monkeypatch, tmp_path)
    reader = ClusterReader.__new__(ClusterReader)
    with pytest.raises(ClusterError, match=r"reader\.admin_manager is off .*cannot be read"):
        reader.describe_consumer_group("g")


def test_the_sidebar_shows_what_is_off(monkeypatch: pytest.MonkeyPatch) -> None:
    from streamlit.testing.v1 import AppTest

    def page() -> None:
        from dashboard.runtime import internals

        internals.show_off_notice()

    at = AppTest.from_function(page).run()
    assert not at.sidebar.warning, at.sidebar.warning[0].value
    monkeypatch.setattr(internals.USES, "_reasons", {"budget.figure_parts": "Figure._data is gone"})
    at = AppTest.from_function(page).run()
    (notice,) = at.sidebar.warning
    assert notice.value.startswith("1 server feature is off")
    assert "budget.figure_parts is off (Figure._data is gone)" in notice.value


# Completeness: no private use outside the modules the registry names ----------------------

SCANNED = ("dashboard", "pipeline", "cluster", "adapters")
#: ``x._name`` uses that are not a library's private parts.
NOT_A_LIBRARY = {
    ("dashboard/runtime/jobs.py", "os._exit"),  # the standard library's documented exit
    ("cluster/connection.py", "other._value"),  # Secret.__eq__ on its own class
}


def _private_import(module: str) -> bool:
    parts = module.split(".")
    top, rest = parts[0], parts[1:]
    if any(part.startswith("_") and not part.startswith("__") for part in rest):
        return top in ("streamlit", "plotly", "pyspark", "kafka", "py4j")
    if top == "streamlit":
        return is_streamlit_private(module)
    if top == "plotly":
        return bool(rest) and rest[0] in ("basedatatypes", "basewidget", "validators")
    if top == "pyspark":
        return bool(rest) and rest[0] in ("daemon", "worker", "core", "java_gateway")
    if top == "kafka":
        return bool(rest) and rest[0] in ("protocol", "net", "vendor")
    return top == "py4j"


def private_uses(path: Path, text: str) -> list[str]:
    """Private library uses in one source: imports of private modules, ``x._name`` on anything
    but ``self``/``cls``, ``getattr(x, "_name")``, and ``/proc/self`` paths."""
    found = []
    relative = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            found += [f"import {a.name}" for a in node.names if _private_import(a.name)]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                if _private_import(f"{node.module}.{alias.name}"):
                    found.append(f"from {node.module} import {alias.name}")
        elif isinstance(node, ast.Attribute) and re.fullmatch(r"_[a-z]\w*", node.attr):
            base = ast.unparse(node.value)
            use = f"{base}.{node.attr}"
            if base not in ("self", "cls") and (relative, use) not in NOT_A_LIBRARY:
                found.append(use)
        elif (
            isinstance(node, ast.Call)
            and ast.unparse(node.func) in ("getattr", "hasattr", "setattr", "delattr")
            and len(node.args) > 1
            and isinstance(node.args[1], ast.Constant)
            and re.fullmatch(r"_[a-z]\w*", str(node.args[1].value))
        ):
            found.append(ast.unparse(node))
        elif isinstance(node, ast.Constant) and "/proc/self" in str(node.value):
            found.append(repr(node.value))
    return found


def _named_modules() -> set[str]:
    named = {module.__name__ for module in MODULES}
    for entry in internals.REGISTRY:
        named |= {place.split(":")[0].strip() for place in entry.where.split(",")}
    return named


def test_the_scan_finds_what_it_looks_for(tmp_path: Path) -> None:
    source = (
        "from streamlit.runtime import Runtime\nimport kafka.protocol.admin\n"
        "from plotly.basedatatypes import BaseFigure\nfrom pyspark.daemon import manager\n"
        "x = frame._jdf\ny = getattr(runtime, '_session_mgr')\nz = '/proc/self/fd'\n"
        "self._mine = 1\nimport streamlit as st\nfrom pyspark.sql import functions\n"
    )
    assert private_uses(tmp_path / "probe.py", source) == [
        "from streamlit.runtime import Runtime",
        "import kafka.protocol.admin",
        "from plotly.basedatatypes import BaseFigure",
        "from pyspark.daemon import manager",
        "frame._jdf",
        "getattr(runtime, '_session_mgr')",
        "'/proc/self/fd'",
    ]


def test_every_private_use_is_in_a_module_the_registry_names() -> None:
    named = _named_modules()
    missing = {}
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            uses = private_uses(path, path.read_text("utf-8"))
            if uses and module not in named:
                missing[module] = uses
    assert missing == {}, (
        "private library uses outside the modules dashboard.runtime.internals.REGISTRY names:"
        f" {missing}; add an entry (where, what, checked, loses, probe) or use a public API"
    )

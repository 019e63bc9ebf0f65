"""The *Watch* switch, in the real dashboard (AppTest) against Apache Kafka, and against a broker
that never answers.

Live: a KIP-848 group of Java consumers is loaded; the switch starts off. With it on, a member
joins while the first one's revocation is held (``java/GroupMembers.java``): a later reading
shows the group mid-reconciliation, with what changed since the previous reading; once released,
a reading shows every member at its target. Switching off stops the readings; the members
leaving makes a reading fail: the message is shown and the last good reading stays.

Live Streams: a Kafka Streams group (KIP-1071) of one instance is loaded and watched; a second
instance joins, and the readings name it, the epochs that moved, and the active tasks the first
instance gave up and the standbys it got.

Silent broker: a TCP server that accepts and never answers keeps a reading in flight until the
reader's time-out; every page run in between must leave that one reading alone (one in flight at
most), and its failure must be shown without replacing the source.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.views import pages
from tests.cluster.dashboard_live import dashboard_with_live_group
from tests.cluster.test_consumer_groups import settled
from tests.dashboard.app_session import assert_no_exception, open_page, page_title
from tests.kafka_broker import unique_name
from tests.kafka_cluster.cluster import KafkaCluster
from tests.kafka_cluster.java_members import JavaGroup

DEADLINE_S = 120.0


def run_until(app: AppTest, condition: Callable[[AppTest], bool], what: str) -> None:
    """Rerun the page (as the watching fragment does between runs) until ``condition``."""
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        app.run()
        assert_no_exception(app)
        if condition(app):
            return
        time.sleep(0.5)
    shown = [m.value for m in app.markdown] + [w.value for w in app.warning]
    raise AssertionError(f"never {what}; the page showed: {shown}")


def states(app: AppTest) -> dict[str, str]:
    """Member (named by its client id) -> state, from the reconciliation table."""
    for frame in app.dataframe:
        table = frame.value
        if "pending revocation" in table.columns:
            return dict(zip(table["member"], table["state"], strict=True))
    return {}


def changes_line(app: AppTest) -> str:
    return next((m.value for m in app.markdown if m.value.startswith("**Since the reading")), "")


@pytest.mark.broker
def test_watching_a_live_group_shows_its_reconciliation_then_stops(
    kafka_cluster: KafkaCluster, tmp_path: Path
) -> None:
    from cluster.connection import ConnectionSettings
    from cluster.reader import ClusterReader

    topic = unique_name("watched")
    kafka_cluster.create_topics({topic: 6}, replication_factor=1)
    group_id = unique_name("kip848-watch")
    java = JavaGroup(kafka_cluster, group_id, "uniform", topic, ["c0"], tmp_path)
    try:
        with ClusterReader(ConnectionSettings(kafka_cluster.bootstrap, timeout_s=10.0)) as reader:
            settled(reader, group_id, 1, java)
        app = dashboard_with_live_group(kafka_cluster.bootstrap, group_id, "consumer (KIP-848)")
        assert states(app) == {"c0": "at target"}
        # The Live group page shows the same reconciliation, alone; back to the Explorer.
        open_page(app, pages.LIVE)
        assert page_title(app) == "Assignment Explorer · Live group"
        assert states(app) == {"c0": "at target"}
        open_page(app, pages.EXPLORER)
        assert states(app) == {"c0": "at target"}
        assert app.toggle(key="watch.on").value is False  # off by default
        assert "ae.watch_job" not in app.session_state

        java.hold("c0")
        java.join("c1")
        app.select_slider(key="watch.interval").set_value(5)
        app.toggle(key="watch.on").set_value(True).run()
        assert_no_exception(app)
        assert any("Watching group" in c.value for c in app.caption)
        lines: list[str] = []  # every "since the reading at ..." line the page showed

        def seen(a: AppTest, wanted: dict[str, str]) -> bool:
            lines.append(changes_line(a))
            return states(a) == wanted

        run_until(
            app,
            lambda a: seen(a, {"c0": "revoking", "c1": "waiting for partitions"}),
            "mid-reconciliation",
        )
        assert any("joined" in line and "group epoch" in line for line in lines), lines
        assert any("still reconciling" in w.value for w in app.warning)

        java.release("c0")
        lines.clear()
        run_until(app, lambda a: seen(a, {"c0": "at target", "c1": "at target"}), "reconciled")
        assert any(" got " in line for line in lines), lines
        assert any(" gave up " in line for line in lines), lines
        moved = [
            spec
            for spec in _specs(app)
            if [f["name"] for f in spec.get("frames", [])] == ["previous reading", "this reading"]
        ]
        assert moved, "no animation of the change between two readings"

        # Switched off: no reading starts any more, however long the page stays.
        app.toggle(key="watch.on").set_value(False).run()
        run_until(app, lambda a: "ae.watch_job" not in a.session_state, "idle")
        readings = app.session_state["ae.watch_last"].readings
        started = app.session_state["ae.watch_last"].started
        wait_past(started + 6.0)
        app.run()
        assert "ae.watch_job" not in app.session_state
        assert app.session_state["ae.watch_last"].readings == readings
        assert not any("Watching group" in c.value for c in app.caption)

        # On again, then the group goes away: the failure is shown, the last reading stays.
        app.toggle(key="watch.on").set_value(True).run()
        java.close()
        run_until(
            app, lambda a: any("Could not re-read group" in w.value for w in a.warning), "failed"
        )
        # The members leave one at a time, so a reading may catch the group with c1 alone
        # before the group is gone: the page keeps whichever reading came last, never nothing.
        kept = states(app)
        assert kept, "the failed re-read cleared the last reading"
        assert kept.items() <= {"c0": "at target", "c1": "at target"}.items(), kept
        assert group_id in app.markdown[0].value

        # Another source: the switch goes away and no reading starts.
        app.radio(key="source.kind").set_value("Sample").run()
        assert_no_exception(app)
        run_until(app, lambda a: "ae.watch_job" not in a.session_state, "idle")
        assert not any("Watching group" in c.value for c in app.caption)
    finally:
        java.close()


@pytest.mark.broker
def test_watching_a_streams_group_names_who_joined_and_the_tasks_that_moved(
    kafka_cluster: KafkaCluster, tmp_path: Path
) -> None:
    """A Kafka Streams group (KIP-1071) on the watch: a second instance joins, and a later
    reading names it, the epochs that moved and, per member, the tasks (with their kind) the
    first instance gave up and got."""
    from cluster.connection import ConnectionSettings
    from cluster.reader import ClusterReader
    from tests.cluster.test_streams_groups import agreed
    from tests.kafka_cluster.java_streams import StreamsApplication

    counted, piped = unique_name("counted"), unique_name("piped")
    kafka_cluster.create_topics(
        {counted: 4, piped: 3, f"{counted}-counts": 4, f"{piped}-upper": 3}, replication_factor=1
    )
    group_id = unique_name("streams-watch")
    with StreamsApplication(kafka_cluster, group_id, counted, piped, ["s1"], tmp_path) as streams:
        with ClusterReader(ConnectionSettings(kafka_cluster.bootstrap, timeout_s=10.0)) as reader:
            agreed(reader, group_id, streams, 1)
        app = dashboard_with_live_group(kafka_cluster.bootstrap, group_id, "Kafka Streams")
        assert app.toggle(key="watch.on").value is False  # off by default
        assert changes_line(app) == ""
        app.select_slider(key="watch.interval").set_value(5)
        app.toggle(key="watch.on").set_value(True).run()
        assert_no_exception(app)
        streams.start("s2")
        lines: list[str] = []

        # s1 ran every task alone (no standbys: one instance); s2 takes active tasks, stateful
        # ones among them, and s1 becomes their standby (one replica per stateful task).
        wanted = ("joined", "gave up active", "got standby")

        def seen(a: AppTest) -> bool:
            lines.append(changes_line(a))
            return all(any(word in line for line in lines) for word in wanted)

        run_until(app, seen, "the join, the active tasks s1 gave up and its new standbys")
        joined = next(line for line in lines if "joined" in line)
        assert "group epoch" in joined, joined
        assert any("Watching group" in c.value for c in app.caption)
        app.toggle(key="watch.on").set_value(False).run()


def _specs(app: AppTest) -> list[dict[str, Any]]:
    from tests.dashboard import plotly_spec

    return plotly_spec.specs(app)


def wait_past(moment: float) -> None:
    """Wait until ``time.monotonic()`` is past ``moment`` (a reading would be due by then)."""
    while time.monotonic() <= moment:
        time.sleep(0.2)


@contextmanager
def silent_broker() -> Iterator[int]:
    """A TCP server on loopback that accepts connections and never answers; yields its port."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except (TimeoutError, OSError):
                continue
            held.append(connection)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield int(server.getsockname()[1])
    finally:
        stop.set()
        thread.join(timeout=5)
        for connection in held:
            connection.close()
        server.close()


def _watching_script(port: int) -> None:
    """The page's watch, on a group 'loaded' from the silent broker (a sample stands in for
    its first reading)."""
    import streamlit as st

    from dashboard.panels import cluster_source, watch
    from dashboard.session import samples, state

    if not state.has_source():
        source = samples.sample_source("range-vs-roundrobin")
        state.set_source(source)
        st.session_state["ae.cluster_loaded"] = cluster_source.LoadedGroup(
            state.family(source), "silent-group", f"127.0.0.1:{port}"
        )
        st.session_state["ae.watch_for"] = state.family(source)
        st.session_state["cluster.timeout"] = 3.0
    st.session_state[watch.WATCH] = True
    watch.live()
    st.markdown(f"source: {state.source().key}")


def test_a_reading_in_flight_is_the_only_one_and_its_failure_keeps_the_source() -> None:
    with silent_broker() as port:
        app = AppTest.from_function(_watching_script, args=(port,), default_timeout=60)
        app.run()
        assert_no_exception(app)
        first = app.session_state["ae.watch_job"]
        source = app.markdown[-1].value
        seen = {id(first.future)}
        runs_in_flight = 0
        while not first.future.done():
            runs_in_flight += 1
            app.run()
            assert_no_exception(app)
            job = app.session_state.get("ae.watch_job")
            if job is not None:
                seen.add(id(job.future))
            time.sleep(0.2)
        assert seen == {id(first.future)}  # one reading in flight, never a second
        assert runs_in_flight >= 2  # the page ran while the silent broker held the reading
        app.run()
        assert_no_exception(app)
        warnings = [w.value for w in app.warning]
        assert any("Could not re-read group 'silent-group'" in w for w in warnings), warnings
        assert any("Showing the last good reading" in w for w in warnings)
        assert app.markdown[-1].value == source  # the failed reading replaced nothing

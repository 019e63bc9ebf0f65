"""Watch's log of the last changes (issue 36): a live group's offsets move at every reading, so
the badges of a membership change gave way to "no member or epoch changed" one interval later;
the log keeps the last changes (time, who joined or left, what moved) while the group is watched.

No cluster: a sample stands in for the group's first reading, and each next reading is handed to
the watch as a finished reading job, as the worker thread leaves it.
"""

from __future__ import annotations

import dataclasses
from concurrent.futures import Future

import pandas as pd
from streamlit.testing.v1 import AppTest

from assignors import Scenario, with_current_ownership
from dashboard.panels import watch
from tests.dashboard.app_session import assert_no_exception

NEXT = "test.next_reading"


def _watched_page() -> None:
    """A watched group's changes and log; the reading the test put in ``NEXT`` is handed to the
    watch as a finished job."""
    import dataclasses
    import time
    from concurrent.futures import Future

    import streamlit as st

    from assignors import with_current_ownership
    from dashboard.panels import cluster_source, watch
    from dashboard.session import samples, state

    if not state.has_source():
        source = samples.sample_source("member-leaves-roundrobin-vs-sticky")
        state.set_source(
            dataclasses.replace(source, scenario=with_current_ownership(source.scenario))
        )
        st.session_state["ae.cluster_loaded"] = cluster_source.LoadedGroup(
            state.family(source), "watched-group", "127.0.0.1:9"
        )
        st.session_state["ae.watch_for"] = state.family(source)
    st.session_state[watch.WATCH] = True
    reading = st.session_state.pop("test.next_reading", None)  # NEXT (the script runs alone)
    if reading is not None:
        done: Future[watch.Reading] = Future()
        done.set_result((reading, ()))
        st.session_state["ae.watch_job"] = watch.ReadingJob(
            state.family(state.source()), done, time.monotonic()
        )
    watch.live()
    order = [member.member_id for member in state.source().scenario.members]
    watch.render_changes(order, {}, animate=False)


def _first() -> Scenario:
    from dashboard.session import samples

    scenario = samples.sample_source("member-leaves-roundrobin-vs-sticky").scenario
    return with_current_ownership(scenario)


def _without(scenario: Scenario, member_id: str) -> Scenario:
    """``member_id`` left; the first member left took its partitions."""
    gone = next(m for m in scenario.members if m.member_id == member_id)
    keeper = next(m for m in scenario.members if m.member_id != member_id)
    members = tuple(
        dataclasses.replace(m, owned_partitions=m.owned_partitions + gone.owned_partitions)
        if m.member_id == keeper.member_id
        else m
        for m in scenario.members
        if m.member_id != member_id
    )
    return dataclasses.replace(scenario, members=members)


def _offsets_moved(scenario: Scenario) -> Scenario:
    """The same members and owners; only the lag moved (as at every live reading)."""
    topics = tuple(
        dataclasses.replace(t, lags=tuple(lag + 5 for lag in (t.lags or (0,) * t.partitions)))
        for t in scenario.topics
    )
    return dataclasses.replace(scenario, topics=topics)


def _read(app: AppTest, reading: Scenario) -> AppTest:
    app.session_state[NEXT] = reading
    app.run()
    assert_no_exception(app)
    return app


def _log(app: AppTest) -> pd.DataFrame:
    tables = [frame.value for frame in app.dataframe if "joined" in frame.value.columns]
    assert len(tables) == 1, [frame.value.columns for frame in app.dataframe]
    return tables[0]


def test_the_log_keeps_each_change_after_the_badges_move_on() -> None:
    app = AppTest.from_function(_watched_page, default_timeout=60)
    app.run()
    assert_no_exception(app)
    assert not [frame for frame in app.dataframe if "joined" in frame.value.columns]

    first = _first()
    left = first.members[-1].member_id
    moved = len(first.members[-1].owned_partitions)
    after_leave = _without(first, left)
    _read(app, after_leave)
    log = _log(app)
    assert log.to_dict("records") == [
        {
            "time": log["time"][0],
            "joined": "",
            "left": left,
            "partitions moved": moved,
            "what moved": log["what moved"][0],
        }
    ]
    assert first.members[0].member_id in log["what moved"][0]

    # The next reading moves only offsets: the badges say nothing changed; the log keeps it.
    _read(app, _offsets_moved(after_leave))
    assert any("no member or epoch changed" in m.value for m in app.markdown)
    assert list(_log(app)["left"]) == [left]

    # Back it comes: the newest change first, the one before kept.
    _read(app, dataclasses.replace(_offsets_moved(after_leave), members=first.members))
    log = _log(app)
    assert list(log["joined"]) == [left, ""]
    assert list(log["left"]) == ["", left]


def test_the_log_holds_the_last_changes_only() -> None:
    app = AppTest.from_function(_watched_page, default_timeout=60)
    app.run()
    first = _first()
    left = first.members[-1].member_id
    for _ in range(watch.LOG_SIZE // 2 + 1):
        _read(app, _without(first, left))
        _read(app, first)
    log = _log(app)
    assert len(log) == watch.LOG_SIZE
    assert log["joined"][0] == left  # the newest first

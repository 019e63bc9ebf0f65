"""*Watch*: re-read the live group every few seconds (read-only) and show what changed.

1. :func:`controls`: the sidebar's *Watch* switch (off by default) and its interval (at least
   :data:`MIN_INTERVAL_S`), drawn under the cluster source once a group is loaded. Loading
   another group switches it off.
2. :func:`live` (a fragment that reruns every :data:`POLL_S` while watching) calls :func:`tick`:

   - a reading still in flight is left alone: a new one starts only when none is (one in
     flight at most, however slow the cluster);
   - a reading started for another source (the user loaded a sample, another group, or
     switched the watch off and on again for another one) is dropped unread;
   - a finished reading that failed becomes the message shown; the last good reading stays
     the source;
   - a finished reading that differs from the source becomes the source (same source family:
     the strategies and what-if edits stay); what changed since the previous reading is kept
     (:func:`assignors.reading_changes`) and the page reruns;
   - with none in flight and the interval passed since the last one started, a new reading
     starts in a worker thread, with the settings the group was loaded with (the password
     from its widget), through the read-only reader (:func:`cluster.snapshot.read_group`).

3. :func:`render_changes`: the change between the two last readings, as badges (epochs, who
   joined or left, who gained or lost which partitions) and as the rebalance animation from
   the previous reading to this one
   (:func:`dashboard.charts.reconciliation_charts.reading_change_animation`).
   :func:`render_streams_changes`: the same badges for a Kafka Streams group, per member
   (stream thread) and kind of task (active, standby, warm-up;
   :func:`assignors.streams_reading_changes`), without an animation.
4. The log of the last :data:`LOG_SIZE` changes of the watched group, newest first: when, who
   joined or left, how many partitions (tasks) moved and which (:func:`render_log`, drawn under
   the badges). A live group's offsets move at every reading, so the badges soon say "nothing
   changed"; the log keeps what did. It starts over with another group.

Invariants: at most one reading per session is in flight; none starts while the switch is off
or while the source is not the watched group; a failed reading never replaces the source.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass

import streamlit as st

from assignors import (
    AssignmentExplorerError,
    ReadingChanges,
    Scenario,
    StreamsReadingChanges,
    StreamsScenario,
    TopicPartition,
    reading_changes,
    streams_reading_changes,
)
from cluster.connection import ConnectionSettings
from cluster.reader import ClusterReader
from cluster.snapshot import read_group
from dashboard.charts import reconciliation_charts
from dashboard.model import sources
from dashboard.model.members_table import compress
from dashboard.model.palette import member_names, short_labels
from dashboard.model.plain import WARNING_ICON, escape_markdown
from dashboard.panels import cluster_source
from dashboard.runtime import background
from dashboard.session import state

WATCH = "watch.on"
INTERVAL = "watch.interval"
#: The intervals offered (seconds); the shortest keeps a describe every few seconds at most.
INTERVALS_S = (5, 10, 15, 30, 60)
MIN_INTERVAL_S = INTERVALS_S[0]
DEFAULT_INTERVAL_S = 10
#: How often the watching fragment looks at its reading (seconds).
POLL_S = 1.0

_JOB = "ae.watch_job"
_FOR = "ae.watch_for"
_LAST = "ae.watch_last"
_CHANGES = "ae.watch_changes"
_LOG = "ae.watch_log"
#: The changes the Watch log keeps (the oldest drop out).
LOG_SIZE = 20

Reading = tuple[Scenario | StreamsScenario, tuple[str, ...]]


@dataclass(frozen=True, slots=True)
class ReadingJob:
    """The one reading in flight: for which source family, started when (monotonic)."""

    family: str
    future: Future[Reading]
    started: float


@dataclass(frozen=True, slots=True)
class LastReading:
    """How the last readings went: when one last started (monotonic), when one last succeeded
    (wall clock), how many succeeded, and the last failure (``None`` after a success)."""

    started: float
    succeeded_at: str
    readings: int
    error: str | None = None


@dataclass(frozen=True, slots=True)
class ChangeShown:
    """What changed between the two last readings of source ``family``."""

    family: str
    changes: ReadingChanges
    before: Scenario
    after: Scenario
    before_at: str
    after_at: str


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One line of the Watch log: a reading at ``at`` that changed members, owners or epochs."""

    family: str
    at: str
    joined: str
    left: str
    moved: int
    what: str


@dataclass(frozen=True, slots=True)
class StreamsChangeShown:
    """What changed between the two last readings of Kafka Streams group source ``family``."""

    family: str
    changes: StreamsReadingChanges
    before: StreamsScenario
    after: StreamsScenario
    before_at: str
    after_at: str


def controls() -> None:
    """Step 1: the switch and the interval (the switch starts off for each loaded group)."""
    loaded = cluster_source.loaded_group()
    if loaded is None:
        return
    if st.session_state.get(_FOR) != loaded.family:
        # A reading in flight stays recorded until it ends (never two at once); its result is
        # for another group and is dropped then.
        for key in (WATCH, _LAST, _CHANGES, _LOG):
            st.session_state.pop(key, None)
        st.session_state[_FOR] = loaded.family
    st.toggle(
        "Watch (re-read the group)",
        key=WATCH,
        help="Re-reads the group every few seconds (only Describe and offset requests: it never"
        " joins or commits) and shows what changed between two readings.",
    )
    st.select_slider(
        "Re-read every (s)",
        INTERVALS_S,
        value=DEFAULT_INTERVAL_S,
        key=INTERVAL,
        help=f"At least {MIN_INTERVAL_S} s; a new reading never starts before the last ended.",
    )


def is_on() -> bool:
    """Whether the switch is on for the group the current source was read from."""
    loaded = cluster_source.loaded_group()
    return bool(
        loaded is not None
        and st.session_state.get(WATCH, False)
        and st.session_state.get(_FOR) == loaded.family
    )


def _read(settings: ConnectionSettings, group_id: str) -> Reading:
    """One reading (runs in a worker thread; touches no session state)."""
    with ClusterReader(settings) as reader:
        return read_group(reader, group_id)


def _same(old: sources.Source, new: sources.Source) -> bool:
    """Whether two readings show the same group (the snapshot's time stamp aside)."""
    if old.streams is not None or new.streams is not None:
        if old.streams is None or new.streams is None:
            return False
        return dataclasses.replace(old.streams, description=None) == dataclasses.replace(
            new.streams, description=None
        )
    return dataclasses.replace(old.scenario, description=None) == dataclasses.replace(
        new.scenario, description=None
    )


def _finish(job: ReadingJob, last: LastReading) -> bool:
    """A finished reading: a failure is remembered, a new state becomes the source. Returns
    whether the source changed."""
    loaded = cluster_source.loaded_group()
    assert loaded is not None
    try:
        scenario, warnings = job.future.result()
    except Exception as error:  # any failure is shown; the page must not crash
        reason = str(error) or type(error).__name__
        st.session_state[_LAST] = dataclasses.replace(
            last, error=f"Could not re-read group {loaded.group_id!r}: {reason}"
        )
        return False
    readings = last.readings + 1
    now = time.strftime("%H:%M:%S")
    st.session_state[_LAST] = LastReading(last.started, now, readings)
    previous = state.source()
    key = f"{loaded.family}@reading-{readings}"
    new = sources.source_for(scenario, warnings, loaded.group_id, loaded.where, key)
    if _same(previous, new):
        return False
    if previous.streams is None and new.streams is None:
        shown: ChangeShown | StreamsChangeShown = ChangeShown(
            loaded.family,
            reading_changes(previous.scenario, new.scenario),
            previous.scenario,
            new.scenario,
            last.succeeded_at,
            now,
        )
        _remember(shown)
    elif previous.streams is not None and new.streams is not None:
        shown = StreamsChangeShown(
            loaded.family,
            streams_reading_changes(previous.streams, new.streams),
            previous.streams,
            new.streams,
            last.succeeded_at,
            now,
        )
        _remember(shown)
    state.set_source(new, keep_edits=True)
    return True


def _remember(shown: ChangeShown | StreamsChangeShown) -> None:
    """Show ``shown`` as the badges and, when members, owners or epochs changed, add it to the
    log (newest first, at most :data:`LOG_SIZE`)."""
    st.session_state[_CHANGES] = shown
    if not shown.changes.any:
        return
    log: tuple[LogEntry, ...] = st.session_state.get(_LOG, ())
    st.session_state[_LOG] = (log_entry(shown), *log)[:LOG_SIZE]


def log_entry(shown: ChangeShown | StreamsChangeShown) -> LogEntry:
    """One change as a line of the log: members by their short names, what moved in words."""
    changes = shown.changes
    if isinstance(shown, ChangeShown):
        labels = {**member_names(shown.before), **member_names(shown.after)}
        assert isinstance(changes, ReadingChanges)
        moved = sum(len(tps) for tps in changes.gained.values())
        what = [f"{labels.get(m, m)} got {_plain(tps)}" for m, tps in changes.gained.items()]
        what += [f"{labels.get(m, m)} gave up {_plain(tps)}" for m, tps in changes.lost.items()]
    else:
        labels = _streams_labels(shown)
        assert isinstance(changes, StreamsReadingChanges)
        moved = sum(len(tasks) for kinds in changes.gained.values() for tasks in kinds.values())
        what = [f"{labels.get(m, m)} got {_tasks_text(k)}" for m, k in changes.gained.items()]
        what += [f"{labels.get(m, m)} gave up {_tasks_text(k)}" for m, k in changes.lost.items()]
    return LogEntry(
        shown.family,
        shown.after_at,
        ", ".join(labels.get(m, m) for m in changes.joined),
        ", ".join(labels.get(m, m) for m in changes.left),
        moved,
        "; ".join(what),
    )


def render_log(*, tasks: bool = False) -> None:
    """Step 4 of the module docstring: the log of the watched group's last changes (nothing
    before the first one)."""
    loaded = cluster_source.loaded_group()
    log: tuple[LogEntry, ...] = st.session_state.get(_LOG, ())
    entries = [e for e in log if loaded is not None and e.family == loaded.family]
    if not entries:
        return
    unit = "tasks" if tasks else "partitions"
    st.caption(
        f"**Watch log:** the last {len(entries)} of at most {LOG_SIZE} changes, newest first"
    )
    rows = [
        {
            "time": e.at,
            "joined": e.joined,
            "left": e.left,
            f"{unit} moved": e.moved,
            "what moved": e.what,
        }
        for e in entries
    ]
    st.dataframe(rows, hide_index=True, width="stretch", key="watch.log")


def tick() -> bool:
    """Step 2 of the module docstring, once. Returns whether the source changed."""
    job: ReadingJob | None = st.session_state.get(_JOB)
    if job is not None:
        if not job.future.done():
            return False  # one reading in flight at most, even for a source no longer shown
        st.session_state.pop(_JOB, None)
    loaded = cluster_source.loaded_group()
    if loaded is None or not is_on():
        return False  # a finished reading for a source no longer watched is dropped
    # The first tick after the switch goes on reads at once (started "long ago").
    last: LastReading = st.session_state.get(_LAST) or LastReading(0.0, "load", 1)
    if job is not None and job.family == loaded.family:
        return _finish(job, last)
    interval = float(st.session_state.get(INTERVAL, DEFAULT_INTERVAL_S))
    if last.started and time.monotonic() - last.started < max(interval, MIN_INTERVAL_S):
        st.session_state[_LAST] = last
        return False
    try:
        settings = cluster_source.settings_for(loaded)
    except AssignmentExplorerError as error:
        st.session_state[_LAST] = dataclasses.replace(
            last, started=time.monotonic(), error=f"Could not re-read group: {error}"
        )
        return False
    started = time.monotonic()
    st.session_state[_LAST] = dataclasses.replace(last, started=started)
    st.session_state[_JOB] = ReadingJob(
        loaded.family, background.submit(_read, settings, loaded.group_id), started
    )
    return False


def status_markdown() -> str:
    """The watch's status line (Markdown; the group id escaped)."""
    loaded = cluster_source.loaded_group()
    last: LastReading | None = st.session_state.get(_LAST)
    interval = st.session_state.get(INTERVAL, DEFAULT_INTERVAL_S)
    group = loaded.group_id if loaded is not None else "?"
    text = f"Watching group **{escape_markdown(group)}**: re-read every {interval} s (read-only)"
    if last is not None:
        text += (
            f"; last good reading at {escape_markdown(str(last.succeeded_at))}"
            f" ({last.readings:,} in all)"
        )
    if st.session_state.get(_JOB) is not None:
        text += "; reading now…"
    return text + "."


@st.fragment(run_every=POLL_S)
def live() -> None:
    """Step 2 between page runs: look at the reading every :data:`POLL_S`; rerun the page when
    the source changed."""
    if tick():
        st.rerun()
    st.caption(status_markdown())
    last: LastReading | None = st.session_state.get(_LAST)
    if last is not None and last.error is not None:
        st.warning(
            f"{escape_markdown(str(last.error))}. Showing the last good reading"
            f" (taken at {escape_markdown(str(last.succeeded_at))}).",
            icon=WARNING_ICON,
        )


def _badges(
    changes: ReadingChanges | StreamsReadingChanges, labels: Mapping[str, str]
) -> list[str]:
    """The badges both kinds of group share: epochs, joins, leaves, new targets."""
    badges = []
    for name, (before, after) in (
        ("group epoch", changes.group_epoch),
        ("target assignment epoch", changes.assignment_epoch),
    ):
        if before != after:
            badges.append(_badge("blue", f"{name} {before} → {after}"))
    badges += [_badge("green", f"{labels.get(m, m)} joined") for m in changes.joined]
    badges += [_badge("gray", f"{labels.get(m, m)} left") for m in changes.left]
    badges += [_badge("orange", f"{labels.get(m, m)} new target") for m in changes.target_changed]
    for member, (before, after) in changes.member_epochs.items():
        badges.append(_badge("violet", f"{labels.get(member, member)} epoch {before} → {after}"))
    return badges


def _partition_badges(changes: ReadingChanges, labels: Mapping[str, str]) -> list[str]:
    badges = _badges(changes, labels)
    for member, tps in changes.lost.items():
        badges.append(_badge("red", f"{labels.get(member, member)} gave up {_plain(tps)}"))
    for member, tps in changes.gained.items():
        badges.append(_badge("green", f"{labels.get(member, member)} got {_plain(tps)}"))
    return badges


def _badge(colour: str, text: str) -> str:
    """A Markdown badge of ``colour`` showing ``text`` as typed (member ids are the cluster's)."""
    return f":{colour}-badge[{escape_markdown(text)}]"


def _plain(partitions: Sequence[TopicPartition]) -> str:
    """``orders 0-3,7`` (no brackets: a badge's text sits in brackets)."""
    return compress(partitions).replace("[", " ").replace("]", "")


def render_changes(
    order: Sequence[str], colours: Mapping[str, str], *, animate: bool = True
) -> None:
    """Step 3 of the module docstring (nothing when the last two readings are not of the
    current source's group; the animation only with ``animate``)."""
    loaded = cluster_source.loaded_group()
    shown = st.session_state.get(_CHANGES)
    if not isinstance(shown, ChangeShown) or loaded is None or shown.family != loaded.family:
        return
    labels = {**member_names(shown.before), **member_names(shown.after)}
    badges_markdown = _partition_badges(shown.changes, labels)
    st.markdown(
        f"**Since the reading at {escape_markdown(str(shown.before_at))}:** "
        + (
            " ".join(badges_markdown)
            if badges_markdown
            else "no member or epoch changed (offsets or lag did)."
        )
    )
    render_log()
    changes = shown.changes
    if animate and (changes.gained or changes.lost or changes.joined or changes.left):
        all_members = list(dict.fromkeys([*order, *shown.changes.left]))
        figure = reconciliation_charts.reading_change_animation(
            shown.before, shown.after, shown.before_at, shown.after_at, all_members, colours
        )
        st.plotly_chart(
            figure,
            width="stretch",
            key="watch.changes",
        )
        st.caption("Press ▶ Play: the tiles that moved between the two readings are outlined.")


#: At most this many tasks named in one badge (the rest counted).
_TASKS_SHOWN = 12


def _tasks_text(by_kind: Mapping[str, Sequence[object]]) -> str:
    """``active 0_1,0_3 · warm-up 0_0`` (no brackets: a badge's text sits in brackets)."""
    parts = []
    for kind, tasks in by_kind.items():
        shown = ",".join(map(str, tasks[:_TASKS_SHOWN]))
        more = f" +{len(tasks) - _TASKS_SHOWN}" if len(tasks) > _TASKS_SHOWN else ""
        parts.append(f"{'warm-up' if kind == 'warmup' else kind} {shown}{more}")
    return " · ".join(parts)


def _streams_labels(shown: StreamsChangeShown) -> dict[str, str]:
    """Short member labels over both readings (as the live Streams table shortens them)."""
    ids = [
        entry.member_id
        for reading in (shown.before, shown.after)
        if reading.reconciliation is not None
        for entry in reading.reconciliation.members
    ]
    return short_labels(list(dict.fromkeys(ids)), 18)


def render_streams_changes() -> None:
    """Step 3 for a Kafka Streams group: badges of what changed between the two last readings
    (nothing when they are not of the current source's group)."""
    loaded = cluster_source.loaded_group()
    shown = st.session_state.get(_CHANGES)
    if not isinstance(shown, StreamsChangeShown) or loaded is None:
        return
    if shown.family != loaded.family:
        return
    labels = _streams_labels(shown)
    badges_markdown = _badges(shown.changes, labels)
    for member, by_kind in shown.changes.lost.items():
        badges_markdown.append(
            _badge("red", f"{labels.get(member, member)} gave up {_tasks_text(by_kind)}")
        )
    for member, by_kind in shown.changes.gained.items():
        badges_markdown.append(
            _badge("green", f"{labels.get(member, member)} got {_tasks_text(by_kind)}")
        )
    st.markdown(
        f"**Since the reading at {escape_markdown(str(shown.before_at))}:** "
        + (
            " ".join(badges_markdown)
            if badges_markdown
            else "no member, task or epoch changed (offsets did)."
        )
    )
    render_log(tasks=True)

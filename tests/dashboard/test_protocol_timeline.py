"""The protocol timeline (issue 37, item 2): one change under eager, cooperative (KIP-429) and
KIP-848 rebalancing, member by member on one time axis.

A worked example first (four members, a fifth joins, the core's timings), then properties over
generated groups (1 to 200 members, ids of 1 to 255 characters in any script), changes (members
join and leave), strategies and timings: each member's intervals cover the time axis without a
gap or an overlap, a member consumes exactly when the core says it reads something (so the time
no member consumes is the core's stop-the-world), eager stops every member that owned
something, cooperative and KIP-848 keep every member that keeps a partition consuming, KIP-848
never waits at a barrier; the figure passes Plotly's validation with its domains in [0, 1],
its legend has one entry per state drawn, and its caption names exactly those.
"""

from __future__ import annotations

import html
import itertools
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from assignors import (
    AddMember,
    AssignmentExplorerError,
    RebalanceSimulation,
    RemoveMember,
    Timings,
    evaluate,
)
from assignors.model import Member, Scenario, Topic
from dashboard.charts import protocol_timeline_chart as chart
from dashboard.model import palette
from dashboard.model import protocol_timeline as timeline
from tests.dashboard.test_chart_properties import checked

STRATEGIES = ["range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "server-range"]
ids = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=255)
SOME = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _runs(
    scenario: Scenario, change: Sequence[AddMember | RemoveMember], strategy: str, timings: Timings
) -> dict[str, RebalanceSimulation]:
    evaluated = evaluate(scenario, change, [strategy], timings=timings).strategy(strategy)
    return dict(evaluated.protocol_runs())


# -- a worked example ----------------------------------------------------------------------------


def _four_and_a_newcomer(timings: Timings) -> tuple[timeline.RunTimeline, ...]:
    members = [f"consumer-{i}" for i in range(4)]
    scenario = Scenario((Topic("orders", 12),), tuple(Member(m, ("orders",)) for m in members))
    runs = _runs(scenario, [AddMember("consumer-new")], "cooperative-sticky", timings)
    return timeline.protocol_timelines(runs, [*members, "consumer-new"])


def _spans(run: timeline.RunTimeline, member: str) -> list[tuple[str, float, float]]:
    return [(i.state, i.start_s, i.end_s) for i in run.of(member)]


def test_eager_stops_everyone_cooperative_and_kip848_only_the_newcomer_waits() -> None:
    """Four members read twelve partitions, a fifth joins; the slowest member takes 2 s to
    rejoin a classic barrier. Eager: every member reads until its heartbeat tells it (3 s),
    revokes (1 s), waits at the barrier for the slowest (2 s): the whole group stops from 3 to
    6 s; the newcomer waits from the start, then warms up (2 s). Cooperative: the old members
    never stop; the newcomer waits through two rounds. KIP-848: the old members never stop; the
    newcomer waits for its next heartbeat, then for the partitions others still hold."""
    timings = Timings(rejoin_delay_s=2.0)
    eager, cooperative, consumer = _four_and_a_newcomer(timings)
    notice = timings.heartbeat_interval_s
    revoked = notice + timings.revoke_s
    synced = revoked + timings.rejoin_delay_s
    warm = synced + timings.warmup_s
    assert eager.protocol == "eager" and eager.stops == ((notice, synced),)
    for member in (f"consumer-{i}" for i in range(4)):
        assert _spans(eager, member) == [
            ("consuming", 0.0, notice),
            ("revoking", notice, revoked),
            ("waiting", revoked, synced),
            ("consuming", synced, eager.end_s),
        ]
        assert {i.state for i in cooperative.of(member)} == {"consuming"}
        assert {i.state for i in consumer.of(member)} == {"consuming"}
    assert _spans(eager, "consumer-new") == [
        ("waiting", 0.0, synced),
        ("warming up", synced, warm),
        ("consuming", warm, eager.end_s),
    ]
    newcomer = [i.state for i in cooperative.of("consumer-new")]
    assert newcomer == ["waiting", "warming up", "consuming"]
    assert cooperative.rounds == 2 and cooperative.stops == ()
    (wait,) = [i for i in consumer.of("consumer-new") if i.state == "waiting"]
    assert not wait.barrier and wait.end_s == notice + timings.revoke_s + notice
    assert wait.why.index("learns its target") < wait.why.index("revokes it")
    assert all(i.barrier for i in eager.intervals if i.state == "waiting")


def test_the_time_axis_turns_to_milliseconds_for_a_short_rebalance() -> None:
    """Timings of tens of milliseconds: the axis, the titles and the caption speak in ms."""
    fast = Timings(heartbeat_interval_s=0.1, revoke_s=0.05, warmup_s=0.02, rejoin_delay_s=0.03)
    runs = _four_and_a_newcomer(fast)
    figure = chart.protocol_timeline_figure(runs)
    assert figure.layout.xaxis.title.text == "time since the change (ms)"
    assert "stop-the-world 80 ms" in figure.layout.annotations[0].text
    assert "change at 0 ms" in chart.timeline_caption(runs)


def test_a_member_id_is_escaped_on_the_axis_and_in_the_hover() -> None:
    """No name a user typed is rendered as markup: ``<b>`` shows as text."""
    scenario = Scenario((Topic("t", 4),), (Member("<b>a</b>", ("t",)), Member("b&c", ("t",))))
    runs = _runs(scenario, [AddMember("<i>new</i>")], "range", Timings())
    figure = chart.protocol_timeline_figure(timeline.protocol_timelines(runs))
    ticks = " ".join(figure.layout.yaxis.ticktext)
    hovers = " ".join(text for trace in figure.data for text in trace.hovertext)
    for name in ("<b>a</b>", "b&c", "<i>new</i>"):
        assert html.escape(name) in hovers
        assert name not in hovers
    assert html.escape("<b>a</b>") in ticks and "<b>a</b>" not in ticks


def test_state_fills_are_far_from_every_member_colour() -> None:
    """A state never looks like a member: each fill (and the pattern ink) is at least the
    palette's least difference away from the first 30 member colours and the task roles'."""
    members = palette.member_colours([str(i) for i in range(30)]).values()
    others = [*members, *palette.ROLE_COLOURS.values()]
    fills = [style.fill for style in chart.STATE_STYLES.values()] + [chart.INK, chart.PATTERN_INK]
    for fill in fills:
        assert min(palette.delta_e(fill, other) for other in others) >= palette.LEAST_DELTA_E
    drawn = {(s.fill, s.pattern, s.outline_only) for s in chart.STATE_STYLES.values()}
    assert len(drawn) == len(chart.STATE_STYLES) == len(timeline.STATES)


# -- properties over generated groups and changes -----------------------------------------------


@st.composite
def changes(
    draw: st.DrawFn,
) -> tuple[Scenario, list[AddMember | RemoveMember], str, Timings]:
    """A group of 1 to 200 members on 1 to 3 topics, members joining and leaving, a strategy
    and timings (each 0 to 10 s, in whole milliseconds)."""
    count = draw(st.integers(1, 200))
    drawn = draw(st.lists(ids, min_size=1, max_size=min(count, 5), unique=True))
    stem = draw(ids)
    members = list(dict.fromkeys([*drawn, *(f"{stem[:240]}-{n}" for n in range(count))]))[:count]
    topics = tuple(
        Topic(f"topic-{t}", draw(st.integers(1, 40))) for t in range(draw(st.integers(1, 3)))
    )
    names = tuple(t.name for t in topics)
    scenario = Scenario(topics, tuple(Member(m, names) for m in members))
    change: list[AddMember | RemoveMember] = []
    leaving = draw(st.lists(st.sampled_from(members), max_size=min(3, count - 1), unique=True))
    change += [RemoveMember(m) for m in leaving]
    joining = draw(st.lists(ids.filter(lambda i: i not in members), max_size=3, unique=True))
    change += [AddMember(m) for m in joining]
    assume(change)
    seconds = st.integers(0, 10_000).map(lambda ms: ms / 1000)  # as the view's inputs give
    timings = Timings(
        heartbeat_interval_s=draw(seconds),
        revoke_s=draw(seconds),
        warmup_s=draw(seconds),
        rejoin_delay_s=draw(seconds),
    )
    return scenario, change, draw(st.sampled_from(STRATEGIES)), timings


def _protocol_runs(
    case: tuple[Scenario, list[AddMember | RemoveMember], str, Timings],
) -> dict[str, RebalanceSimulation]:
    scenario, change, strategy, timings = case
    try:
        return _runs(scenario, change, strategy, timings)
    except AssignmentExplorerError:
        assume(False)
        raise


def _state_at(run: timeline.RunTimeline, member: str, moment: float) -> str:
    return next(i.state for i in run.of(member) if i.start_s <= moment < i.end_s)


def _nobody_consumes_s(run: timeline.RunTimeline) -> float:
    """Seconds of the axis in which no row consumes, from the intervals alone."""
    edges = sorted({0.0, run.end_s, *(i.start_s for i in run.intervals)})
    total = 0.0
    for start, end in itertools.pairwise(edges):
        if not any(_state_at(run, m, (start + end) / 2) == "consuming" for m in run.members):
            total += end - start
    return total


@SOME
@given(case=changes())
def test_each_members_intervals_cover_the_axis_and_consume_as_the_core_says(
    case: tuple[Scenario, list[AddMember | RemoveMember], str, Timings],
) -> None:
    runs = _protocol_runs(case)
    for run, simulation in zip(timeline.protocol_timelines(runs), runs.values(), strict=True):
        assert run.members == tuple(sorted(simulation.target.partitions))
        for member in run.members:
            mine = run.of(member)
            assert mine[0].start_s == 0.0 and mine[-1].end_s == run.end_s
            assert all(a.end_s == b.start_s for a, b in itertools.pairwise(mine))
            assert all(i.length_s > 0 and i.state in timeline.STATES for i in mine)
            for phase in (p for p in simulation.phases if p.end_s > p.start_s):
                reads = bool(phase.consuming.get(member))
                state = _state_at(run, member, phase.start_s + phase.duration_s / 2)
                assert (state == "consuming") == reads, (phase.name, member, state)
        if run.members and any(simulation.previous.partitions.values()):
            stopped = sum(end - start for start, end in run.stops)
            assert stopped == pytest.approx(simulation.group_stop_s, abs=1e-6)
            assert _nobody_consumes_s(run) == pytest.approx(simulation.group_stop_s, abs=1e-6)


@SOME
@given(case=changes())
def test_eager_stops_every_member_that_owned_something_and_the_others_never_stop_a_keeper(
    case: tuple[Scenario, list[AddMember | RemoveMember], str, Timings],
) -> None:
    runs = _protocol_runs(case)
    timings = case[3]
    eager, cooperative, consumer = timeline.protocol_timelines(runs)
    previous = runs["eager"].previous.partitions
    target = runs["eager"].target.partitions
    barrier = next(p for p in runs["eager"].phases if p.name == "revoke and rejoin")
    for member in eager.members:
        if not previous.get(member):
            continue
        if barrier.duration_s > 0:
            state = _state_at(eager, member, barrier.start_s + barrier.duration_s / 2)
            assert state in {"revoking", "waiting", "idle"}
            assert any(i.state == "revoking" for i in eager.of(member)) == (timings.revoke_s > 0)
        if set(previous[member]) & set(target.get(member, ())):
            assert {i.state for i in cooperative.of(member)} == {"consuming"}
            assert {i.state for i in consumer.of(member)} == {"consuming"}
    assert not any(i.barrier for i in consumer.intervals)
    assert all(i.barrier for i in eager.intervals if i.state == "waiting")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=changes(), most=st.none() | st.integers(1, 60))
def test_the_figure_validates_with_one_legend_entry_per_state_and_a_matching_caption(
    case: tuple[Scenario, list[AddMember | RemoveMember], str, Timings], most: int | None
) -> None:
    runs = _protocol_runs(case)
    runs_shown = timeline.protocol_timelines(runs, most=most)
    figure = chart.protocol_timeline_figure(runs_shown)
    checked(figure)
    drawn = [state for state in timeline.STATES if any(state in t.states for t in runs_shown)]
    assert [trace.name for trace in figure.data if trace.showlegend] == drawn
    caption = chart.timeline_caption(runs_shown)
    assert [s for s in timeline.STATES if f"{s} (" in caption.lower()] == drawn
    assert ("dashed frame" in caption) == any(t.stops for t in runs_shown)
    assert len(figure.layout.shapes) == sum(len(t.stops) for t in runs_shown)
    assert len(figure.layout.yaxis.tickvals) <= chart.NAMED_ROWS
    if most is not None:
        assert all(len(t.members) <= most for t in runs_shown)

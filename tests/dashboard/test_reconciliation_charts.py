"""A live group's figures (:mod:`dashboard.charts.reconciliation_charts`) called without Streamlit:
the reconciliation bars on generated groups, and the two-reading animations."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from assignors import (
    Member,
    MemberProgress,
    Scenario,
    Topic,
    TopicPartition,
    parse_scenario,
)
from dashboard.charts import animation_chart, reconciliation_charts
from dashboard.model import palette
from tests.assignors.test_reconciliation import GROUP

TP = TopicPartition
PARTITIONS = [TP("t", number) for number in range(8)]


@st.composite
def progresses(draw: st.DrawFn) -> list[MemberProgress]:
    """1 to 60 members (past :data:`MAX_CHART_MEMBERS` too), each owning a subset of eight
    partitions now and another in its target; the pending parts are the two differences."""
    count = draw(st.integers(min_value=1, max_value=60))
    subsets = st.lists(st.sampled_from(PARTITIONS), unique=True).map(lambda tps: tuple(sorted(tps)))
    members = []
    for index in range(count):
        current, target = draw(subsets), draw(subsets)
        members.append(
            MemberProgress(
                member_id=f"member-{index:02d}",
                member_epoch=5,
                current=current,
                target=target,
                pending_revocation=tuple(tp for tp in current if tp not in target),
                pending_assignment=tuple(tp for tp in target if tp not in current),
                epoch_behind=draw(st.booleans()),
            )
        )
    return members


@given(progresses())
@settings(max_examples=60, deadline=None)
def test_each_bar_adds_up_to_what_the_member_owns_now_and_in_its_target(
    progress: list[MemberProgress],
) -> None:
    figure = reconciliation_charts.reconciliation_figure(progress)
    assert [trace.name for trace in figure.data] == [
        name for name, _, _ in reconciliation_charts.PARTS
    ]
    kept, leaving, arriving = (list(trace.x) for trace in figure.data)
    shown = reconciliation_charts.shown_members(progress)
    assert len(kept) == len(shown) == min(len(progress), reconciliation_charts.MAX_CHART_MEMBERS)
    for member, k, out, into in zip(shown, kept, leaving, arriving, strict=True):
        assert k + out == len(member.current)
        assert k + into == len(member.target)
    assert figure.layout.barmode == "stack" and figure.layout.yaxis.autorange == "reversed"


@given(progresses())
@settings(max_examples=60, deadline=None)
def test_past_the_limit_the_reconciling_members_come_first(progress: list[MemberProgress]) -> None:
    shown = reconciliation_charts.shown_members(progress)
    if len(progress) <= reconciliation_charts.MAX_CHART_MEMBERS:
        assert shown == progress
        return
    flags = [member.reconciling for member in shown]
    assert flags == sorted(flags, reverse=True)  # no settled member before a reconciling one
    assert sum(flags) == min(
        sum(m.reconciling for m in progress), reconciliation_charts.MAX_CHART_MEMBERS
    )


def test_named_phases_key_owners_order_and_colours_by_the_members_names() -> None:
    phases = [animation_chart.Phase("now", {"id-1": [TP("t", 0)], "id-2": []}, "Now.")]
    renamed, order, colours = reconciliation_charts.named_phases(
        phases, ["id-2", "id-1"], {"id-1": "#111111", "id-2": "#222222"}, {"id-1": "app-1"}
    )
    assert renamed == [animation_chart.Phase("now", {"app-1": [TP("t", 0)], "id-2": []}, "Now.")]
    assert order == ["id-2", "app-1"]
    assert colours == {"app-1": "#111111", "id-2": "#222222"}


def test_the_target_animation_moves_the_pending_partition_to_its_target() -> None:
    scenario, _ = parse_scenario(GROUP, path="")
    figure = reconciliation_charts.target_animation(scenario, ["a", "b", "c"], {})
    assert [frame.name for frame in figure.frames] == ["now", "target"]
    # o-2 sits with a now (pending revocation) and with c in the target: columns a, b, c.
    now, target = (
        {tid: x for tid, x in zip(t.ids, t.x, strict=True)}
        for t in (next(d for d in f.data if d.name == "partitions") for f in figure.frames)
    )
    assert round(now["o-2"]) == 0 and round(target["o-2"]) == 2


def test_the_change_between_two_readings_is_a_two_frame_animation_named_by_client_id() -> None:
    def reading(owned: dict[str, list[int]]) -> Scenario:
        return Scenario(
            topics=(Topic("t", 4),),
            members=tuple(
                Member(
                    m, ("t",), owned_partitions=tuple(TP("t", p) for p in ps), client_id=f"c-{m}"
                )
                for m, ps in owned.items()
            ),
        )

    before = reading({"x": [0, 1], "z": [2, 3]})
    after = reading({"x": [0, 1], "y": [2, 3]})  # z left, y took its partitions
    figure = reconciliation_charts.reading_change_animation(
        before, after, "10:00:00", "10:00:10", ["x", "y", "z"], palette.member_colours(["x"])
    )
    assert [frame.name for frame in figure.frames] == ["previous reading", "this reading"]
    assert [frame.layout.title.text for frame in figure.frames] == [
        "Reading at 10:00:00: what each member owned then.",
        "Reading at 10:00:10: what each member owns now.",
    ]
    # Named over both readings: the member that left keeps its client id too.
    ticks = " ".join(figure.layout.xaxis.ticktext)
    assert all(f"c-{member}" in ticks for member in "xyz"), ticks


def test_member_names_are_client_ids_when_distinct_else_short_member_ids() -> None:
    distinct = Scenario(
        topics=(), members=(Member("id-1", (), client_id="a"), Member("id-2", (), client_id="b"))
    )
    assert palette.member_names(distinct) == {"id-1": "a", "id-2": "b"}
    shared = Scenario(
        topics=(), members=(Member("id-1", (), client_id="a"), Member("id-2", (), client_id="a"))
    )
    assert palette.member_names(shared) == palette.short_labels(["id-1", "id-2"], 18)

"""The figure functions as pure functions: data in, a Plotly figure out, no Streamlit."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assignors.model import TopicPartition
from dashboard import charts

TP = TopicPartition


def _tiles(figure: go.Figure, frame: int) -> dict[str, tuple[float, float]]:
    trace = figure.frames[frame].data[0]
    return {tid: (x, y) for tid, x, y in zip(trace.ids, trace.x, trace.y, strict=True)}


BEFORE = {"a": [TP("t", 0), TP("t", 1), TP("t", 2)], "b": [TP("t", 3), TP("t", 4), TP("t", 5)]}
AFTER = {
    "a": [TP("t", 0), TP("t", 1)],
    "b": [TP("t", 3), TP("t", 4)],
    "c": [TP("t", 2), TP("t", 5)],
}


def test_animation_has_one_frame_per_phase_with_play_controls() -> None:
    middle = {"a": [TP("t", 0), TP("t", 1)], "b": [TP("t", 3), TP("t", 4)], "c": []}
    figure = charts.assignment_animation(
        [
            charts.Phase("before", BEFORE),
            charts.Phase("revoke", middle),
            charts.Phase("after", AFTER),
        ],
        order=["a", "b", "c"],
    )
    assert [frame.name for frame in figure.frames] == ["before", "revoke", "after"]
    labels = [button.label for button in figure.layout.updatemenus[0].buttons]
    assert labels == ["▶ Play", "❚❚ Pause"]
    assert [step.label for step in figure.layout.sliders[0].steps] == ["before", "revoke", "after"]
    # Mid-rebalance, revoked partitions sit in the "(unassigned)" column after the members.
    ticks = list(figure.layout.xaxis.ticktext)
    assert ticks == ["a", "b", "c", charts.UNASSIGNED_COLUMN]
    assert _tiles(figure, 1)["t-2"][0] == 3


def test_kept_partitions_keep_their_tile_position_and_moved_ones_are_outlined() -> None:
    figure = charts.assignment_animation(
        [charts.Phase("before", BEFORE), charts.Phase("after", AFTER)], order=["a", "b", "c"]
    )
    before, after = _tiles(figure, 0), _tiles(figure, 1)
    for kept in ("t-0", "t-1", "t-3", "t-4"):
        assert before[kept] == after[kept]
    assert after["t-2"][0] == 2 and after["t-5"][0] == 2
    trace = figure.frames[0].data[0]
    outlined = {
        tid for tid, width in zip(trace.ids, trace.marker.line.width, strict=True) if width > 0
    }
    assert outlined == {"t-2", "t-5"}
    # A tile keeps the colour of the member that owned it first, in every frame.
    colours = charts.member_colours(["a", "b", "c"])
    assert list(figure.frames[1].data[0].marker.color) == [colours["a"]] * 3 + [colours["b"]] * 3


def test_large_assignments_are_aggregated_per_member_and_topic() -> None:
    before = {f"m{i}": [TP("big", p) for p in range(i, 1000, 10)] for i in range(10)}
    after = {**before, "m10": []}
    after["m0"] = before["m0"][:50]
    after["m10"] = before["m0"][50:]
    figure = charts.assignment_animation(
        [charts.Phase("before", before), charts.Phase("after", after)], max_tiles=600
    )
    names = [trace.name for trace in figure.frames[1].data]
    assert names == ["big", "moved here"]
    big, moved = figure.frames[1].data
    columns = list(big.x)
    assert moved.y[columns.index("m10")] == 50
    assert big.y[columns.index("m0")] == 50
    assert sum(big.y) + sum(moved.y) == 1000


@given(
    owners=st.lists(st.integers(min_value=0, max_value=4), min_size=1, max_size=40),
    new_owners=st.lists(st.integers(min_value=0, max_value=4), min_size=40, max_size=40),
)
@settings(max_examples=60, deadline=None)
def test_no_two_tiles_share_a_cell_in_any_frame(owners: list[int], new_owners: list[int]) -> None:
    partitions = [TP("t", p) for p in range(len(owners))]
    before: dict[str, list[TopicPartition]] = {f"m{i}": [] for i in range(5)}
    after: dict[str, list[TopicPartition]] = {f"m{i}": [] for i in range(5)}
    for tp, owner, new_owner in zip(partitions, owners, new_owners, strict=False):
        before[f"m{owner}"].append(tp)
        after[f"m{new_owner}"].append(tp)
    figure = charts.assignment_animation(
        [charts.Phase("before", before), charts.Phase("after", after)]
    )
    for index in range(2):
        cells = list(_tiles(figure, index).values())
        assert len(cells) == len(set(cells)) == len(partitions)


def test_member_colours_are_stable_and_colour_blind_safe_palette() -> None:
    colours = charts.member_colours(["x", "y", "z"])
    assert colours == charts.member_colours(["x", "y", "z"])
    assert len(set(colours.values())) == 3
    assert set(colours.values()) <= set(charts.MEMBER_PALETTE)


def test_lag_chart_has_one_panel_per_column_in_member_colours() -> None:
    colours = {"a": "#111111", "b": "#222222"}
    figure = charts.lag_by_member_figure(
        [("current", {"a": 10.0, "b": 30.0}), ("sticky", {"a": 20.0, "b": 20.0})],
        order=["a", "b"],
        colours=colours,
    )
    assert len(figure.data) == 2
    assert list(figure.data[0].y) == [10.0, 30.0]
    assert list(figure.data[1].marker.color) == ["#111111", "#222222"]
    assert [a.text for a in figure.layout.annotations] == ["current", "sticky"]


@pytest.mark.parametrize(
    ("lags", "ratio", "expected"),
    [
        (
            {"a": 180.0, "b": 100.0},
            1.8,
            "the busiest consumer (a) carries 1.8x the lag of the quietest (b)",
        ),
        ({"a": 5.0, "b": 5.0}, 1.0, "every consumer carries the same lag"),
        ({"a": 0.0, "b": 0.0}, None, "no consumer has any lag"),
        ({"a": 50.0, "b": 0.0}, None, "a carries the most lag (50) while 1 consumer carries none"),
        ({}, None, "no consumer has a partition"),
    ],
)
def test_spread_sentence(lags: dict[str, float], ratio: float | None, expected: str) -> None:
    assert charts.spread_sentence(lags, ratio) == expected


def test_assignment_matrix_counts_partitions_per_member_and_topic() -> None:
    figure = charts.assignment_matrix(
        {"a": [TP("t", 0), TP("u", 0), TP("u", 1)], "b": [TP("t", 1)]}, order=["a", "b"]
    )
    heatmap = figure.data[0]
    assert list(heatmap.x) == ["t", "u"]
    assert [list(row) for row in heatmap.z] == [[1, 2], [1, 0]]


def test_drain_figure_marks_the_pause() -> None:
    figure = charts.drain_projection_figure(
        [("sticky", [0.0, 10.0, 20.0], [100.0, 50.0, 0.0])], pauses=[("sticky pause", 1.0, 4.0)]
    )
    assert list(figure.data[0].y) == [100.0, 50.0, 0.0]
    assert figure.layout.shapes[0].x0 == 1.0 and figure.layout.shapes[0].x1 == 4.0


def test_protocol_timeline_has_one_row_per_protocol() -> None:
    bars = [
        charts.TimelineBar("eager", "revoke", 0.0, 4.0, consuming=False),
        charts.TimelineBar("eager", "assign", 4.0, 6.0, consuming=True),
        charts.TimelineBar("KIP-848", "assign", 0.0, 3.0, consuming=True),
    ]
    figure = charts.protocol_timeline_figure(bars)
    assert {trace.y[0] for trace in figure.data} == {"eager", "KIP-848"}
    assert figure.data[0].base[0] == 0.0 and figure.data[0].x[0] == 4.0
    assert figure.data[0].marker.pattern.shape == "x"


def test_streams_figure_has_a_frame_per_phase_with_warmups() -> None:
    phases = [
        ("before", [charts.ClientTasks("c1", ("0_0", "0_1"), (), ())]),
        (
            "probing 1",
            [
                charts.ClientTasks("c1", ("0_0", "0_1"), (), ()),
                charts.ClientTasks("c2", (), ("0_1",), ("0_1",)),
            ],
        ),
    ]
    figure = charts.streams_tasks_figure(phases)
    assert [frame.name for frame in figure.frames] == ["before", "probing 1"]
    active, standby, warmup = figure.frames[1].data
    assert list(active.y) == [2, 0] and list(standby.y) == [0, 0] and list(warmup.y) == [0, 1]

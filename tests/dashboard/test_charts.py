"""The figure functions as pure functions: data in, a Plotly figure out, no Streamlit."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assignors.model import Member, Scenario, Topic, TopicPartition
from dashboard.charts import animation_chart, assignment_charts, figure_files
from dashboard.model import members_table, palette, summary
from dashboard.panels import results_panel, tables
from dashboard.session import compute
from tests.dashboard import plotly_spec

TP = TopicPartition


def _tile_trace(figure: go.Figure, frame: int) -> go.Scatter:
    return next(t for t in figure.frames[frame].data if t.name == "partitions")


def _by_id(trace: go.Scatter, what: str) -> dict[str, Any]:
    """Point id -> its border colour ("line"), marker size ("size") or customdata."""
    values = {
        "line": lambda: trace.marker.line.color,
        "size": lambda: trace.marker.size,
        "customdata": lambda: trace.customdata,
    }[what]()
    return dict(zip(trace.ids, values, strict=True))


def _tiles(figure: go.Figure, frame: int) -> dict[str, tuple[float, float]]:
    trace = _tile_trace(figure, frame)
    return {tid: (x, y) for tid, x, y in zip(trace.ids, trace.x, trace.y, strict=True)}


BEFORE = {"a": [TP("t", 0), TP("t", 1), TP("t", 2)], "b": [TP("t", 3), TP("t", 4), TP("t", 5)]}
AFTER = {
    "a": [TP("t", 0), TP("t", 1)],
    "b": [TP("t", 3), TP("t", 4)],
    "c": [TP("t", 2), TP("t", 5)],
}


def test_animation_has_one_frame_per_phase_with_captions_and_controls_below() -> None:
    middle = {"a": [TP("t", 0), TP("t", 1)], "b": [TP("t", 3), TP("t", 4)], "c": []}
    figure = animation_chart.assignment_animation(
        [
            animation_chart.Phase("before", BEFORE, "Before: a and b read."),
            animation_chart.Phase("revoke", middle, "revoke: a and b give up t-2 and t-5."),
            animation_chart.Phase("after", AFTER, "After: c reads t-2 and t-5."),
        ],
        order=["a", "b", "c"],
    )
    assert [frame.name for frame in figure.frames] == ["before", "revoke", "after"]
    assert [frame.layout.title.text for frame in figure.frames] == [
        "Before: a and b read.",
        "revoke: a and b give up t-2 and t-5.",
        "After: c reads t-2 and t-5.",
    ]
    labels = [button.label for button in figure.layout.updatemenus[0].buttons]
    assert labels == ["▶ Play", "❚❚ Pause"]
    assert [step.label for step in figure.layout.sliders[0].steps] == ["before", "revoke", "after"]
    # Controls sit under the plot area, member names above it: nothing is drawn over names.
    assert figure.layout.updatemenus[0].y <= 0 and figure.layout.sliders[0].y <= 0
    assert figure.layout.xaxis.side == "top"
    # Mid-rebalance, revoked partitions sit in the "(unassigned)" column after the members.
    ticks = list(figure.layout.xaxis.ticktext)
    assert len(ticks) == 4 and ticks[-1].endswith(animation_chart.UNASSIGNED_COLUMN)
    assert round(_tiles(figure, 1)["t-2"][0]) == 3


def test_moved_tiles_take_the_new_owners_mark_and_leave_a_trail() -> None:
    figure = animation_chart.assignment_animation(
        [animation_chart.Phase("before", BEFORE), animation_chart.Phase("after", AFTER)],
        order=["a", "b", "c"],
    )
    before, after = _tiles(figure, 0), _tiles(figure, 1)
    for kept in ("t-0", "t-1", "t-3", "t-4"):
        assert before[kept] == after[kept]
    assert round(after["t-2"][0]) == 2 and round(after["t-5"][0]) == 2
    colours = palette.member_colours(["a", "b", "c"])
    marks = _by_id(_tile_trace(figure, 1), "line")
    assert marks["t-2"] == marks["t-5"] == colours["c"]
    assert marks["t-0"] == colours["a"]
    first_marks = _by_id(_tile_trace(figure, 0), "line")
    assert first_marks["t-2"] == colours["a"]
    trail = next(t for t in figure.frames[1].data if t.name == "trail")
    assert len([x for x in trail.x if x is not None]) == 4  # two moves, start and end each
    # Tiles are coloured by topic (its own palette), labels readable on them.
    tiles = _tile_trace(figure, 0)
    assert set(tiles.marker.color) == {palette.topic_colours(["t"])["t"]}
    assert tiles.textfont.size >= 11 and tiles.marker.size >= 30


def test_tiles_can_be_coloured_by_lag_with_exact_numbers_in_the_hover() -> None:
    lags = {TP("t", p): lag for p, lag in enumerate([0, 20_000, 40_000, 60_000, 80_000, 123_456])}
    figure = animation_chart.assignment_animation(
        [animation_chart.Phase("before", BEFORE), animation_chart.Phase("after", AFTER)],
        lags=lags,
        colour_by="lag",
    )
    tiles = _tile_trace(figure, 0)
    assert len(set(tiles.marker.color)) == 6
    assert [row[4] for row in tiles.customdata][-1] == "123,456"


def test_large_assignments_are_cells_per_member_and_topic_that_grow_and_shrink() -> None:
    before = {f"m{i}": [TP("big", p) for p in range(i, 1000, 10)] for i in range(10)}
    after = {**before, "m10": []}
    after["m0"] = before["m0"][:50]
    after["m10"] = before["m0"][50:]
    figure = animation_chart.assignment_animation(
        [animation_chart.Phase("before", before), animation_chart.Phase("after", after)],
        max_tiles=600,
    )
    first, last = (_by_id(f.data[0], "customdata") for f in figure.frames)  # held, arrived
    assert first["m0|big"][0] == 100 and last["m0|big"][0] == 50
    assert last["m10|big"][0] == 50 and last["m10|big"][1] == 50
    assert sum(row[0] for row in last.values()) == 1000
    sizes = [_by_id(f.data[0], "size")["m0|big"] for f in figure.frames]
    assert sizes[1] < sizes[0]  # the cell shrinks as half of m0's partitions leave


def test_figures_built_without_checks_pass_plotlys_checks() -> None:
    """The lag chart and the cell animation skip Plotly's per-property checks while they are
    built (:func:`dashboard.charts.figure_build.trusted_figure`, for speed); every property they set
    must still pass them, here: building a checked figure from their JSON raises on any
    unknown property or bad value."""
    members = [f"member-{i:03}" for i in range(60)]
    lag = assignment_charts.lag_by_member_figure(
        [
            ("current", {m: float(i) for i, m in enumerate(members)}),
            ("sticky", {"member-000": 3.0}),
        ],
        order=members,
    )
    before = {f"m{i}": [TP(f"t{i % 3}", p) for p in range(i, 300, 10)] for i in range(10)}
    after = {**before, "m0": [], "m10": before["m0"]}
    cells = animation_chart.assignment_animation(
        [animation_chart.Phase("before", before), animation_chart.Phase("after", after)]
    )
    for figure in (lag, cells):
        checked = go.Figure(figure.to_dict())
        assert len(checked.data) == len(figure.data)
    assert len(cells.frames) == 2
    with pytest.raises(ValueError):
        go.Figure({"data": [{"type": "scatter", "markr": {"size": 3}}]})  # the check is real


def test_member_colours_never_repeat_and_topics_have_their_own() -> None:
    members = [f"member-{i:03}" for i in range(200)]
    colours = palette.member_colours(members)
    assert len(set(colours.values())) == 200
    assert palette.NOBODY_COLOUR not in colours.values()
    topics = palette.topic_colours([f"topic-{i}" for i in range(12)])
    assert len(set(topics.values())) == 12
    assert not set(topics.values()) & set(palette.MEMBER_PALETTE)


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
    figure = animation_chart.assignment_animation(
        [animation_chart.Phase("before", before), animation_chart.Phase("after", after)]
    )
    for index in range(2):
        cells = list(_tiles(figure, index).values())
        assert len(cells) == len(set(cells)) == len(partitions)


def test_member_colours_are_stable_and_from_the_colour_blind_safe_palette() -> None:
    colours = palette.member_colours(["x", "y", "z"])
    assert colours == palette.member_colours(["x", "y", "z"])
    assert len(set(colours.values())) == 3
    assert set(colours.values()) <= set(palette.MEMBER_PALETTE)


def test_lag_chart_sorts_bars_marks_the_fair_share_in_member_colours() -> None:
    colours = {"a": "#111111", "b": "#222222"}
    figure = assignment_charts.lag_by_member_figure(
        [("current", {"a": 10.0, "b": 30.0}), ("sticky", {"a": 20.0, "b": 20.0})],
        order=["a", "b"],
        colours=colours,
    )
    assert len(figure.data) == 2
    assert list(figure.data[0].y) == ["b", "a"] and list(figure.data[0].x) == [30.0, 10.0]
    assert list(figure.data[0].marker.color) == ["#222222", "#111111"]
    assert [shape.x0 for shape in figure.layout.shapes] == [20.0, 20.0]  # fair share
    assert [a.text for a in figure.layout.annotations] == [
        "<b>current</b><br>fair share 20",
        "<b>sticky</b><br>fair share 20",
    ]
    # the hover, unit and all
    assert list(figure.data[0].customdata) == ["b: 30 messages", "a: 10 messages"]


def test_lag_chart_past_forty_members_names_the_ends_and_summarises_the_rest() -> None:
    lag = {f"m{i:03}": float(i * 1_000) for i in range(200)}
    figure = assignment_charts.lag_by_member_figure([("current", lag)])
    names = list(figure.data[0].y)
    assert len(names) == 2 * assignment_charts.NAMED_AT_EACH_END + 1
    assert names[0] == "m199" and names[-1] == "m000"
    assert names[assignment_charts.NAMED_AT_EACH_END] == "… 180 others"
    middle = figure.data[0].x[assignment_charts.NAMED_AT_EACH_END]
    assert middle == sum(range(10, 190)) * 1_000 / 180


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
    assert assignment_charts.spread_sentence(lags, ratio) == expected


def test_assignment_matrix_counts_partitions_per_member_and_topic() -> None:
    figure = assignment_charts.assignment_matrix(
        {"a": [TP("t", 0), TP("u", 0), TP("u", 1)], "b": [TP("t", 1)]}, order=["a", "b"]
    )
    heatmap = figure.data[0]
    assert list(heatmap.x) == ["t", "u"]
    assert [list(row) for row in heatmap.z] == [[1, 2], [1, 0]]
    assert heatmap.zmin == 0  # 12 versus 13 must not span the whole scale


def test_drain_figure_marks_the_pause() -> None:
    figure = assignment_charts.drain_projection_figure(
        [("sticky", [0.0, 10.0, 20.0], [100.0, 50.0, 0.0])], pauses=[("sticky pause", 1.0, 4.0)]
    )
    assert list(figure.data[0].y) == [100.0, 50.0, 0.0]
    assert figure.layout.shapes[0].x0 == 1.0 and figure.layout.shapes[0].x1 == 4.0


def _clearing_at(monkeypatch: pytest.MonkeyPatch, clears: dict[str, float | None]) -> list[Any]:
    """Strategies whose projected backlog clears after ``clears[name]`` seconds (``None``:
    never within the search); the outcomes ``fitted_horizon`` reads only by name."""

    def projection(key: str, name: str, plan: Any, outcome: Any, horizon_s: float) -> Any:
        return SimpleNamespace(group_clears_at_s=clears[name])

    monkeypatch.setattr(compute, "drain_projection", projection)
    return [SimpleNamespace(name=name) for name in clears]


@pytest.mark.parametrize(
    ("clears", "horizon"),
    [
        # The slowest clears at 129 s: a third more is 172 s, up to whole minutes: 3 minutes.
        ({"range": 40.0, "sticky": 129.0}, 180.0),
        ({"range": 150.0}, 240.0),  # 200 s: 4 minutes
        ({"range": 180.0}, 240.0),  # 240 s exactly: no extra minute
        ({"range": 3.0}, 5.0),  # issue 36: a backlog gone in seconds is drawn over seconds
        ({"range": 129.0, "sticky": None}, 3600.0),  # one never clears: an hour
    ],
)
def test_the_drain_horizon_fits_the_backlog(
    monkeypatch: pytest.MonkeyPatch, clears: dict[str, float | None], horizon: float
) -> None:
    """Issue 17: a backlog clearing in 129 s was drawn over an hour, the drop a thin line at
    the left. The horizon ends a third past the slowest clearing, rounded up to a minute (to
    round seconds under one, issue 36)."""
    outcomes = _clearing_at(monkeypatch, clears)
    assert results_panel.fitted_horizon("key", None, outcomes) == horizon  # type: ignore[arg-type]


def test_streams_figure_has_a_frame_per_phase_with_warmups() -> None:
    phases = [
        ("before", [assignment_charts.ClientTasks("c1", ("0_0", "0_1"), (), ())]),
        (
            "probing 1",
            [
                assignment_charts.ClientTasks("c1", ("0_0", "0_1"), (), ()),
                assignment_charts.ClientTasks("c2", (), ("0_1",), ("0_1",)),
            ],
        ),
    ]
    figure = assignment_charts.streams_tasks_figure(phases)
    assert [frame.name for frame in figure.frames] == ["before", "probing 1"]
    active, standby, warmup = figure.frames[1].data
    assert list(active.y) == [2, 0] and list(standby.y) == [0, 0] and list(warmup.y) == [0, 1]


@pytest.mark.parametrize(
    ("costs", "change", "expected"),
    [
        (
            [
                summary.StrategyCost("cooperative-sticky", 1, 2, 0.0, 1.5, 10.0),
                summary.StrategyCost("range", 3, 6, 1.0, 2.0, 10.0),
            ],
            "Adding C2",
            "Adding C2: cooperative-sticky moves 1 partition and pauses 2; range moves 3 "
            "partitions and stops the whole group for 1 s.",
        ),
        (
            [summary.StrategyCost("sticky", 0, 0, 0.0, None, 0.0)],
            "",
            "Reassigning the group as it is: sticky moves nothing. Lag spread: sticky no lag.",
        ),
    ],
)
def test_the_comparison_in_one_sentence(
    costs: list[summary.StrategyCost], change: str, expected: str
) -> None:
    assert summary.comparison_sentence(change, costs) == expected


@pytest.mark.parametrize(
    ("lags", "ratio", "expected"),
    [
        ({"a": 0.0, "b": 0.0}, None, "no lag"),
        ({"a": 500.0, "b": 0.0, "c": 0.0}, None, "one member carries all"),
        ({"a": 500.0, "b": 200.0, "c": 0.0}, None, "some carry none"),
        ({"a": 5.0, "b": 5.0}, 1.0, "even"),
        ({"a": 180.0, "b": 100.0}, 1.8, "1.8x"),
    ],
)
def test_lag_spread_card_in_words(
    lags: dict[str, float], ratio: float | None, expected: str
) -> None:
    assert summary.lag_spread_value(lags, ratio) == expected


def test_change_phrase_names_the_change() -> None:
    assert summary.change_phrase(["add member C2 (like the first member)"]) == "Adding C2"
    assert summary.change_phrase(["remove member C1", "grow t to 4 partitions"]) == (
        "Removing C1 (and 1 more change)"
    )


def test_members_table_lists_each_member_like_kafka_consumer_groups() -> None:
    scenario = Scenario(
        (Topic("orders", 4, lags=(5, 10, 20, 1_000)), Topic("pay", 2)),
        (
            Member(
                "consumer-app-1-aaaaaaaaaaaaaaaaaaaa",
                ("orders", "pay"),
                rack="a",
                client_id="app-1",
                host="/10.0.0.1",
            ),
            Member("consumer-app-2-bbbbbbbbbbbbbbbbbbbb", ("orders", "pay")),
        ),
    )
    assignment = {
        "consumer-app-1-aaaaaaaaaaaaaaaaaaaa": [TP("orders", 0), TP("orders", 1), TP("pay", 1)],
        "consumer-app-2-bbbbbbbbbbbbbbbbbbbb": [TP("orders", 3)],
    }
    table = members_table.members_frame(scenario, assignment)
    assert list(table.columns) == [
        "member",
        "member id",
        "client id",
        "host",
        "rack",
        "partitions",
        "assignment",
        "lag",
    ]
    first, second = table.to_dict("records")
    assert first["client id"] == "app-1" and first["host"] == "/10.0.0.1" and first["rack"] == "a"
    assert first["assignment"] == "orders[0-1] pay[1]" and first["lag"] == "15"
    assert second["lag"] == "1,000" and second["client id"] == "—"
    assert len(first["member"]) <= 18 and first["member"] != second["member"]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("lag_total", "lag total"),
        ("pause_s", "pause (s)"),
        ("group_id", "group"),
        ("peak_worst_lag", "peak worst lag"),
    ],
)
def test_table_headers_read_as_words(name: str, expected: str) -> None:
    assert tables.header(name) == expected


def test_table_columns_are_worded_and_numbers_formatted() -> None:
    """Issue 17: History and Fleet showed ``snake_case`` headers and bare numbers (1234567.891).
    Every column is shown under its words; counts with thousands separators in the viewer's
    locale, fractions with separators and two decimals; the data keep their names."""
    frame = pd.DataFrame({"group_id": ["orders"], "lag_total": [1_234_567], "pause_s": [1234.5678]})
    config = tables.column_config(frame)
    assert {name: column["label"] for name, column in config.items()} == {
        "group_id": "group",
        "lag_total": "lag total",
        "pause_s": "pause (s)",
    }
    assert config["lag_total"]["type_config"]["format"] == "localized"  # 1,234,567 in English
    assert config["pause_s"]["type_config"]["format"] == "%,.2f"  # 1,234.57
    assert "format" not in (config["group_id"].get("type_config") or {})
    assert list(frame.columns) == ["group_id", "lag_total", "pause_s"]


def test_a_markdown_table_shows_every_cell_as_the_text_it_holds() -> None:
    frame = pd.DataFrame(
        [
            {"strategy": "current", "moved": "—", "note": "a|b *c* $5 [x] <y> `z`"},
            {"strategy": "range", "moved": "1,234", "note": "two\nlines"},
        ]
    ).set_index("strategy")
    text = tables.markdown_table(frame)
    assert text.splitlines()[1] == "| :--- | ---: | ---: |"  # names left, numbers right
    assert plotly_spec.markdown_rows(text) == [
        ["strategy", "moved", "note"],
        ["current", "—", "a|b *c* $5 [x] <y> `z`"],
        ["range", "1,234", "two lines"],
    ]


def _group(lags: list[int]) -> Scenario:
    return Scenario(
        topics=(Topic("t", len(lags), lags=tuple(lags)),),
        members=(Member("a", ("t",)), Member("b", ("t",)), Member("c", ("t",))),
    )


def test_the_strategy_animation_of_a_member_subset_drops_the_others_partitions() -> None:
    phases = [animation_chart.Phase("before", BEFORE), animation_chart.Phase("after", AFTER)]
    group = _group([0, 10, 20, 30, 40, 50])
    whole = animation_chart.strategy_animation(
        phases, group, ["a", "b", "c"], whole_group=True, unassigned=[TP("t", 6)]
    )
    assert list(whole.layout.xaxis.ticktext)[-1].endswith(animation_chart.UNASSIGNED_COLUMN)
    assert set(_tiles(whole, 1)) == {f"t-{p}" for p in range(7)}
    subset = animation_chart.strategy_animation(
        phases, group, ["a", "c"], whole_group=False, unassigned=[TP("t", 6)]
    )
    ticks = list(subset.layout.xaxis.ticktext)
    assert not any(tick.endswith(" b") for tick in ticks) and ticks[0].endswith(" a")
    # b's partitions (t-3, t-4) and the target's unassigned one (t-6) are in no frame.
    for frame in (0, 1):
        assert {"t-3", "t-4", "t-6"}.isdisjoint(_tiles(subset, frame))
    assert {"t-0", "t-1", "t-2", "t-5"} == set(_tiles(subset, 1))


@given(st.lists(st.integers(min_value=0, max_value=10**9), min_size=1, max_size=12))
@settings(max_examples=40, deadline=None)
def test_the_strategy_animation_shows_each_partitions_lag_in_its_tile(lags: list[int]) -> None:
    group = _group(lags)
    assert animation_chart.partition_lag_map(group) == {
        TP("t", p): lag for p, lag in enumerate(lags)
    }
    owners = {"a": [TP("t", p) for p in range(len(lags))]}
    figure = animation_chart.strategy_animation(
        [animation_chart.Phase("only", owners)], group, ["a"], whole_group=True, colour_by="lag"
    )
    hover = [row[4] for row in _tile_trace(figure, 0).customdata]
    assert sorted(hover) == sorted(f"{lag:,}" for lag in lags)


def test_a_figure_as_a_file_html_that_opens_offline_and_a_still_without_controls() -> None:
    figure = animation_chart.assignment_animation(
        [animation_chart.Phase("before", BEFORE), animation_chart.Phase("after", AFTER)]
    )
    html = figure_files.standalone_html(figure)
    # Plotly 7 opens the page with "<!doctype html>", Plotly 6 with "<html>".
    page = html.lstrip().lower().removeprefix("<!doctype html>").lstrip()
    assert page.startswith("<html") and "Plotly.newPlot" in html
    assert len(html) > 1_000_000 and "<script src=" not in html  # Plotly inlined, not fetched
    still = figure_files.static_figure(figure)
    assert not still.layout.updatemenus and not still.layout.sliders
    assert len(still.data) == len(figure.data) and still is not figure
    assert figure.layout.updatemenus and figure.layout.sliders

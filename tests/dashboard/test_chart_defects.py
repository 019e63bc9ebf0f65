"""Issue 36, item 4: the chart defects found at 1280 px, each pinned by a test that failed before
its fix (the browser measures the same on the page: tests/browser/test_chart_layout_browser.py).
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sample_data
from assignors import DeployPlan, TopicPartition
from assignors.model import Member, Scenario, Topic
from dashboard.charts import animation_chart, assignment_charts, deploy_charts, figure_files
from dashboard.model import deploy_model, members_table, palette

TP = TopicPartition
ids = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=255)

# -- palette ------------------------------------------------------------------------------------

#: Two colours closer than this (CIEDE2000) read as one on a screen, side by side.
LEAST_DELTA_E = 15.0


def test_delta_e_matches_sharmas_worked_examples() -> None:
    """The CIEDE2000 formula against two pairs of Sharma, Wu and Dalal's test data (Lab in)."""
    assert palette.delta_e_lab((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485)) == pytest.approx(
        2.0425, abs=1e-4
    )
    assert palette.delta_e_lab((50.0, 2.5, 0.0), (73.0, 25.0, -18.0)) == pytest.approx(
        27.1492, abs=1e-4
    )


def test_thirty_members_never_share_a_colour_nor_one_that_reads_alike() -> None:
    colours = list(palette.member_colours([f"member-{i}" for i in range(30)]).values())
    closest = min(palette.delta_e(a, b) for a, b in itertools.combinations(colours, 2))
    assert closest >= LEAST_DELTA_E, closest


def test_no_member_colour_is_a_task_role_colour_in_the_streams_figure() -> None:
    """Streams clients are coloured as members; active, standby and warm-up have their own
    colours, none of them a client's or close to one."""
    clients = [f"client-{i}" for i in range(30)]
    figure = assignment_charts.streams_tasks_figure(
        [("p", [assignment_charts.ClientTasks(c, ("0_0",), ("0_1",), ("0_1",)) for c in clients])]
    )
    roles = [trace.marker.color for trace in figure.data]
    members = palette.member_colours(clients).values()
    assert min(palette.delta_e(r, m) for r in roles for m in members) >= LEAST_DELTA_E
    assert set(roles) == set(palette.ROLE_COLOURS.values())


# -- one way to shorten an id -------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(names=st.lists(ids, min_size=1, max_size=40, unique=True), limit=st.integers(8, 40))
def test_short_labels_keep_ids_apart_and_short(names: list[str], limit: int) -> None:
    labels = palette.short_labels(names, limit)
    assert set(labels) == set(names)
    assert len(set(labels.values())) == len(names)  # distinct ids stay distinct
    for name, label in labels.items():
        # within the limit, or the whole id where cutting would make two alike
        assert len(label) <= limit or label == name
        assert palette.short_label(name, limit) == palette.short_labels([name], limit)[name]


def test_a_live_member_has_one_short_name_in_every_view() -> None:
    """Reported: the members table said ``3-91c99cb…13aa``, the reconciliation table
    ``pod-3``. Both now name a member by :func:`palette.member_names`."""
    members = tuple(
        Member(f"consumer-{i}-91c99cb2-77a0-4c1e-9d1e-0f7e2b6a13aa", ("t",), client_id=f"pod-{i}")
        for i in range(4)
    )
    scenario = Scenario((Topic("t", 4),), members)
    table = members_table.members_frame(scenario, {})
    names = palette.member_names(scenario)
    assert (
        list(table["member"])
        == [names[m.member_id] for m in members]
        == [f"pod-{i}" for i in range(4)]
    )


def test_streams_clients_are_shortened_the_one_way() -> None:
    clients = [f"9a0c1e2f-{i}-4b5c-8d9e-0f1a2b3c4d5e" for i in range(3)]
    figure = assignment_charts.streams_tasks_figure(
        [("p", [assignment_charts.ClientTasks(c, ("0_0",), (), ()) for c in clients])]
    )
    labels = palette.short_labels(clients, 14)
    assert list(figure.layout.xaxis.tickvals) == [labels[c] for c in clients]


# -- lag drain ----------------------------------------------------------------------------------


def _six_pauses() -> tuple[list, list]:
    names = ["range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "server-range"]
    series = [(n, [0.0, 5.0, 10.0], [100.0, 40.0, 0.0]) for n in names]
    pauses = [(f"{n} pause", 0.0, 3.0 if i % 2 else 4.0) for i, n in enumerate(names)]
    return series, pauses


def test_the_pause_labels_of_six_strategies_do_not_sit_on_one_spot() -> None:
    series, pauses = _six_pauses()
    figure = assignment_charts.drain_projection_figure(series, pauses=pauses)
    spots = [
        (a.x, a.y, a.yshift or 0, a.xanchor, a.yanchor)
        for a in figure.layout.annotations
        if "pause" in str(a.text)
    ]
    assert spots and len(spots) == len(set(spots)), spots
    named = " ".join(str(a.text) for a in figure.layout.annotations)
    assert all(name in named for name, _, _ in series)  # every strategy's pause still named


@pytest.mark.parametrize(
    ("clears", "horizon"),
    [([9.0], 15.0), ([3.0], 5.0), ([40.0, 129.0], 180.0), ([150.0], 240.0), ([180.0], 240.0)],
)
def test_the_fitted_horizon_fits_a_backlog_that_clears_in_seconds(
    clears: list[float], horizon: float
) -> None:
    """Reported: a backlog clearing in 9 s was drawn over 60 s. A third past the slowest
    clearing, up to a round number of seconds (whole minutes past one minute)."""
    assert assignment_charts.fitted_horizon_s(clears) == horizon


# -- PNG of the animation -----------------------------------------------------------------------


def test_the_still_of_an_animation_shows_its_after_frame() -> None:
    before = {"a": [TP("t", 0), TP("t", 1)], "b": [TP("t", 2)]}
    after = {"a": [TP("t", 0)], "b": [TP("t", 2)], "c": [TP("t", 1)]}
    animation = animation_chart.assignment_animation(
        [
            animation_chart.Phase("before", before, "Before"),
            animation_chart.Phase("after", after, "After: c takes t-1"),
        ]
    )
    still = figure_files.static_figure(animation)
    last = animation.frames[-1]
    for index, values in zip(last.traces or range(len(last.data)), last.data, strict=True):
        assert list(still.data[index].x) == list(values.x)
        assert list(still.data[index].y) == list(values.y)
    assert still.layout.title.text == "After: c takes t-1"
    assert list(animation.data[1].x) != list(last.data[1].x)  # the frames do differ


# -- Deploy view --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def large_group() -> deploy_model.DeployPicture:
    scenario = sample_data.load_sample("large-group").scenario
    return deploy_model.picture(scenario, scenario.assignor or "range", DeployPlan())


def _tick_px(labels: list[str], angle: float) -> float:
    """How far rotated tick labels reach below their axis (font 12, upper estimate)."""
    import math

    longest = max(len(label) for label in labels) * 7.2
    return longest * abs(math.sin(math.radians(angle))) + 14


def test_deploy_member_labels_are_short_and_clear_the_next_title(
    large_group: deploy_model.DeployPicture,
) -> None:
    figure = deploy_charts.deploy_animation(large_group)
    upper = figure.layout.xaxis
    labels = list(upper.ticktext or upper.tickvals or figure.data[0].x)
    assert max(len(label) for label in labels) <= 18  # not the 33-character member ids
    plot_px = figure.layout.height - figure.layout.margin.t - figure.layout.margin.b
    gap_px = (figure.layout.yaxis.domain[0] - figure.layout.yaxis2.domain[1]) * plot_px
    # the lower panel's title sits ~20 px above its plot: the labels must end above it
    assert gap_px >= _tick_px(labels, upper.tickangle or 0) + 24, gap_px


def test_deploy_controls_sit_below_the_lower_tick_labels(
    large_group: deploy_model.DeployPicture,
) -> None:
    figure = deploy_charts.deploy_animation(large_group)
    lower = figure.layout.xaxis2
    labels = list(lower.ticktext or figure.data[-1].x)
    reach = _tick_px(labels, lower.tickangle or 0)
    assert figure.layout.updatemenus[0].pad.t >= reach
    assert figure.layout.sliders[0].pad.t >= reach
    assert figure.layout.margin.b >= reach + 80  # and the controls fit in the margin


def test_step_numbers_along_the_backlog_are_spaced_apart(
    large_group: deploy_model.DeployPicture,
) -> None:
    figure = deploy_charts.lag_over_time(large_group)
    numbers = [a for a in figure.layout.annotations if str(a.text).isdigit()]
    assert numbers
    end = max(large_group.times_s)
    xs = sorted(float(a.x) for a in numbers)
    # on the narrowest plot (720 px), a step number needs ~24 px of its own
    assert all(
        (b - a) / end * deploy_charts.NARROWEST_PLOT_PX >= 24 for a, b in itertools.pairwise(xs)
    )


def test_deploy_tables_format_every_number_once_the_way_the_cards_do(
    large_group: deploy_model.DeployPicture,
) -> None:
    from assignors import short_count

    tables = deploy_model.alternatives_table(large_group), deploy_model.steps_table(large_group)
    for rows in tables:
        for row in rows:
            for value in row.values():
                assert isinstance(value, str), row  # no raw 209294069 beside "209.3M"
    peak = large_group.alternatives[0]["peak lag"]
    assert tables[0][0]["peak lag"] == short_count(peak)
    assert len(tables[1][0]) <= 9 and len(tables[0][0]) <= 8  # narrow enough to show whole

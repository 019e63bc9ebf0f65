"""Every figure builder in :mod:`dashboard.charts`, over the inputs the dashboard can hand it
(issue 36, item 2): panels from one to every strategy plus the current assignment, members from
one to 2,000, member ids from 1 to 255 characters (any unicode but lone surrogates), every
strategy, Kafka version and rebalance protocol.

Each test builds the figure from generated inputs and checks what a browser would refuse or
draw wrong: the figure passes Plotly's own validation (``go.Figure(figure.to_dict())``: the
builders that skip the checks for speed are checked here) and every axis domain lies within
[0, 1]. Whether text boxes overlap needs a browser: ``tests/browser/test_chart_layout_browser``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
import plotly.graph_objects as go
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assignors import (
    PROTOCOLS,
    AddMember,
    DeployPlan,
    MemberProgress,
    TopicPartition,
    evaluate,
    registry,
)
from assignors.model import Member, Scenario, Topic
from dashboard.charts import (
    aggregate_charts,
    animation_chart,
    assignment_charts,
    deploy_charts,
    figure_files,
    pipeline_charts,
    protocol_timeline_chart,
    reconciliation_charts,
)
from dashboard.model import deploy_model, protocol_timeline

#: Every strategy the explorer compares, and the panels of the lag chart: those plus "current".
STRATEGIES = [name for name in registry.partition_strategies() if name != "share-simple"]


def with_a_line(names: list[str]) -> st.SearchStrategy[tuple[str, str]]:
    """A strategy of ``names`` and a Kafka release line it answers for."""
    return st.sampled_from(names).flatmap(
        lambda name: st.tuples(
            st.just(name), st.sampled_from(registry.get(name).kafka_lines.accepted)
        )
    )


MOST_PANELS = len(registry.partition_strategies()) + 1
MOST_MEMBERS = 2_000
#: A member id as a user, a cluster or a Kubernetes pod may spell it.
ids = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=255)
FAST = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def member_ids(draw: st.DrawFn, most: int = MOST_MEMBERS, least: int = 1) -> list[str]:
    """``least`` to ``most`` distinct ids: a few drawn whole (any length, any script), the rest
    numbered after one drawn stem (a real group's ``consumer-17`` pattern), so 2,000 cost no
    more to draw than ten."""
    count = draw(st.integers(least, most))
    drawn = draw(st.lists(ids, min_size=1, max_size=min(count, 6), unique=True))
    stem = draw(ids)
    numbered = (f"{stem}-{index}" for index in range(count))
    members = list(dict.fromkeys([*drawn, *numbered]))
    return members[:count]


def checked(figure: go.Figure) -> dict[str, Any]:
    """``figure`` through Plotly's validation, its layout (and its frames' layouts) with every
    axis domain within [0, 1]; returns the validated figure as a dict."""
    assert isinstance(figure, go.Figure)
    validated = go.Figure(figure.to_dict()).to_plotly_json()
    layouts = [validated["layout"], *(f.get("layout", {}) for f in validated.get("frames", []))]
    for layout in layouts:
        for name, axis in layout.items():
            if name.startswith(("xaxis", "yaxis")) and "domain" in axis:
                low, high = axis["domain"]
                assert 0.0 <= low < high <= 1.0, (name, axis["domain"])
    return validated


def _partitions(topics: int, per_topic: int) -> list[TopicPartition]:
    return [TopicPartition(f"topic-{t}", p) for t in range(topics) for p in range(per_topic)]


def _spread(members: Sequence[str], partitions: Sequence[TopicPartition], shift: int) -> dict:
    owners: dict[str, list[TopicPartition]] = {m: [] for m in members}
    for index, tp in enumerate(partitions):
        owners[members[(index + shift) % len(members)]].append(tp)
    return owners


# -- assignment_charts --------------------------------------------------------------------------


@FAST
@given(panels=st.integers(1, MOST_PANELS), members=member_ids(), data=st.data())
def test_lag_by_member_figure(panels: int, members: list[str], data: st.DataObject) -> None:
    lags = st.floats(0, 1e12, allow_nan=False)
    first = data.draw(lags)
    columns = [
        (name, {m: first * ((i + n) % 7) for n, m in enumerate(members)})
        for i, name in enumerate(["current", *STRATEGIES][:panels])
    ]
    checked(
        assignment_charts.lag_by_member_figure(
            columns, unit=data.draw(st.sampled_from(["messages", "records"]))
        )
    )


@FAST
@given(members=member_ids(), topics=st.integers(1, 6), per_topic=st.integers(1, 40))
def test_assignment_matrix(members: list[str], topics: int, per_topic: int) -> None:
    owners = _spread(members, _partitions(topics, per_topic), 0)
    checked(assignment_charts.assignment_matrix(owners, order=members))


@FAST
@given(
    chosen=st.lists(st.sampled_from(STRATEGIES), min_size=1, unique=True),
    clears=st.floats(0.5, 7200),
    pause=st.floats(0, 120),
)
def test_drain_projection_figure(chosen: list[str], clears: float, pause: float) -> None:
    times = [clears * step / 20 for step in range(31)]
    series = [(name, times, [max(0.0, 1e6 * (1 - t / clears)) for t in times]) for name in chosen]
    pauses = [
        (f"{name} pause", 0.0, pause * (i + 1) / len(chosen)) for i, name in enumerate(chosen)
    ]
    checked(assignment_charts.drain_projection_figure(series, pauses=pauses))


@FAST
@given(
    protocols=st.lists(st.sampled_from(PROTOCOLS), min_size=1, unique=True),
    picked=with_a_line(STRATEGIES),
    members=member_ids(most=200, least=2),
    most=st.none() | st.integers(1, 60),
)
def test_protocol_timeline_figure(
    protocols: list[str], picked: tuple[str, str], members: list[str], most: int | None
) -> None:
    strategy, version = picked
    scenario = Scenario(
        topics=(Topic("orders", 12),),
        members=tuple(Member(m, ("orders",)) for m in members[1:]),
        kafka_version=version,
    )
    change = [AddMember(members[0])]
    evaluation = evaluate(scenario, change, [strategy], protocols=protocols)  # type: ignore[arg-type]
    runs = evaluation.strategies[0].protocol_runs()
    timelines = protocol_timeline.protocol_timelines(runs, members, most=most)
    checked(protocol_timeline_chart.protocol_timeline_figure(timelines))


@FAST
@given(clients=member_ids(most=200), phases=st.integers(1, 4))
def test_streams_tasks_figure(clients: list[str], phases: int) -> None:
    tasks = [
        (
            f"phase {p}",
            [
                assignment_charts.ClientTasks(
                    c, (f"0_{i}",), (f"1_{i}",) if p % 2 else (), (f"1_{i}",) if p == 2 else ()
                )
                for i, c in enumerate(clients)
            ],
        )
        for p in range(phases)
    ]
    checked(assignment_charts.streams_tasks_figure(tasks))


# -- animation_chart ----------------------------------------------------------------------------


@FAST
@given(
    members=member_ids(),
    topics=st.integers(1, 5),
    per_topic=st.integers(1, 60),
    colour_by=st.sampled_from(["topic", "lag"]),
)
def test_assignment_animation(
    members: list[str], topics: int, per_topic: int, colour_by: str
) -> None:
    partitions = _partitions(topics, per_topic)
    phases = [
        animation_chart.Phase("before", _spread(members, partitions, 0), "before"),
        animation_chart.Phase("revoke", {}, "everything revoked"),
        animation_chart.Phase("after", _spread(members, partitions, 1), "after"),
    ]
    lags = {tp: index * 1000 for index, tp in enumerate(partitions)}
    checked(
        animation_chart.assignment_animation(
            phases,
            partitions=partitions,
            order=members,
            lags=lags,
            colour_by=colour_by,  # type: ignore[arg-type]
        )
    )


@FAST
@given(
    members=member_ids(most=300, least=1),
    strategy=st.sampled_from(STRATEGIES),
    whole=st.booleans(),
    partitions=st.integers(1, 120),
    protocol=st.sampled_from(PROTOCOLS),
)
def test_strategy_animation(
    members: list[str], strategy: str, whole: bool, partitions: int, protocol: str
) -> None:
    scenario = Scenario(
        topics=(Topic("orders", partitions, lags=tuple(range(partitions))),),
        members=tuple(Member(m, ("orders",)) for m in members),
    )
    simulation = evaluate(scenario, [], [strategy], protocols=(protocol,)).strategies[0].simulation
    assert simulation is not None
    phases = [animation_chart.Phase("before", simulation.previous.partitions)]
    phases += [animation_chart.Phase(p.name, p.owned, p.reason) for p in simulation.phases]
    phases.append(animation_chart.Phase("after", simulation.target.partitions))
    shown = members if whole else members[: max(1, len(members) // 2)]
    checked(
        animation_chart.strategy_animation(
            phases, scenario, shown, whole_group=whole, colour_by="lag"
        )
    )


# -- reconciliation_charts ----------------------------------------------------------------------


def _progress(members: Sequence[str], partitions: Sequence[TopicPartition]) -> list[MemberProgress]:
    now, target = _spread(members, partitions, 0), _spread(members, partitions, 1)
    return [
        MemberProgress(
            member_id=m,
            member_epoch=n,
            current=tuple(now[m]),
            target=tuple(target[m]),
            pending_revocation=tuple(sorted(set(now[m]) - set(target[m]))),
            pending_assignment=tuple(sorted(set(target[m]) - set(now[m]))),
            epoch_behind=n % 2 == 0,
        )
        for n, m in enumerate(members)
    ]


@FAST
@given(members=member_ids(), per_topic=st.integers(1, 50))
def test_reconciliation_figure(members: list[str], per_topic: int) -> None:
    checked(
        reconciliation_charts.reconciliation_figure(_progress(members, _partitions(2, per_topic)))
    )


def _live(members: Sequence[str], shift: int, clients: bool) -> Scenario:
    partitions = _partitions(1, 24)
    owners = _spread(members, partitions, shift)
    return Scenario(
        topics=(Topic("topic-0", 24),),
        members=tuple(
            Member(
                m,
                ("topic-0",),
                owned_partitions=tuple(owners[m]),
                client_id=f"pod-{n}" if clients else None,
            )
            for n, m in enumerate(members)
        ),
    )


@FAST
@given(members=member_ids(most=300), clients=st.booleans())
def test_target_animation(members: list[str], clients: bool) -> None:
    scenario = _live(members, 0, clients)
    colours = {m: "#332288" for m in members}
    checked(reconciliation_charts.target_animation(scenario, members, colours))


@FAST
@given(members=member_ids(most=300), clients=st.booleans(), when=ids)
def test_reading_change_animation(members: list[str], clients: bool, when: str) -> None:
    before, after = _live(members, 0, clients), _live(members, 1, clients)
    colours = {m: "#332288" for m in members}
    checked(
        reconciliation_charts.reading_change_animation(before, after, when, when, members, colours)
    )


# -- aggregate_charts ---------------------------------------------------------------------------


@FAST
@given(
    series=st.lists(
        st.tuples(ids, st.lists(st.floats(0, 1e12), min_size=0, max_size=3000)),
        min_size=1,
        max_size=8,
    ),
    title=ids,
)
def test_sorted_values_figure(series: list[tuple[str, list[float]]], title: str) -> None:
    ranked = [(name, sorted(values, reverse=True)) for name, values in series]
    checked(aggregate_charts.sorted_values_figure(ranked, title=title, value_label="lag"))


# -- deploy_charts ------------------------------------------------------------------------------


@st.composite
def deploy_pictures(draw: st.DrawFn) -> deploy_model.DeployPicture:
    """The Deploy view's picture of a generated group: 1 to 60 members (past 40 the columns
    pool members), any strategy and a Kafka version it answers for, a rolling restart, a scale
    step or an upgrade."""
    strategy, version = draw(with_a_line([s for s in STRATEGIES if s != "failover"]))
    members = draw(member_ids(most=60))
    partitions = draw(st.integers(1, 48))
    scenario = Scenario(
        topics=(
            Topic("orders", partitions, lags=tuple(1000 * (p + 1) for p in range(partitions))),
        ),
        members=tuple(Member(m, ("orders",)) for m in members),
        kafka_version=version,
    )
    plan = DeployPlan(
        batch_size=draw(st.integers(1, max(1, len(members)))),
        restart_s=draw(st.floats(0, 300)),
        scale=draw(st.integers(0, 3)),
    )
    return deploy_model.picture(scenario, strategy, plan)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(picture=deploy_pictures())
def test_deploy_animation(picture: deploy_model.DeployPicture) -> None:
    checked(deploy_charts.deploy_animation(picture))


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(picture=deploy_pictures())
def test_lag_over_time(picture: deploy_model.DeployPicture) -> None:
    checked(deploy_charts.lag_over_time(picture))


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(picture=deploy_pictures())
def test_alternatives_figure(picture: deploy_model.DeployPicture) -> None:
    checked(deploy_charts.alternatives_figure(picture))


# -- pipeline_charts ----------------------------------------------------------------------------


def _times(count: int) -> pd.DatetimeIndex:
    return pd.date_range("2024-01-01", periods=count, freq="min", tz="UTC")


@FAST
@given(members=member_ids(most=200), points=st.integers(1, 10), title=ids)
def test_member_lag_figure(members: list[str], points: int, title: str) -> None:
    rows = pd.DataFrame(
        [
            {"time": t, "member_id": m, "lag": n * 10}
            for n, m in enumerate(members)
            for t in _times(points)
        ]
    )
    checked(pipeline_charts.member_lag_figure(rows, title))
    checked(pipeline_charts.member_lag_figure(rows.iloc[0:0], title))


@FAST
@given(groups=st.lists(ids, min_size=1, max_size=10, unique=True), points=st.integers(1, 10))
def test_group_lag_figure(groups: list[str], points: int) -> None:
    rows = pd.DataFrame(
        [
            {"time": t, "group_id": g, "lag_total": 100, "worst_member_lag": 50}
            for g in groups
            for t in _times(points)
        ]
    )
    checked(pipeline_charts.group_lag_figure(rows, groups))


@FAST
@given(
    statuses=st.lists(st.sampled_from(list(pipeline_charts.STATUS_RANK)), min_size=1, max_size=50)
)
def test_verdict_counts_figure(statuses: list[str]) -> None:
    checked(pipeline_charts.verdict_counts_figure(pd.DataFrame({"status": statuses})))


@FAST
@given(
    group=ids, chosen=st.lists(st.sampled_from([*STRATEGIES, "(current)"]), min_size=1, unique=True)
)
def test_replay_worst_figure(group: str, chosen: list[str]) -> None:
    rows = pd.DataFrame(
        [
            {"time": t, "group_id": group, "strategy": s, "worst_member_lag": 10}
            for s in chosen
            for t in _times(5)
        ]
    )
    checked(pipeline_charts.replay_worst_figure(rows, group))


@FAST
@given(groups=st.lists(ids, min_size=1, max_size=200, unique=True))
def test_fleet_scatter_figure(groups: list[str]) -> None:
    rows = pd.DataFrame(
        {
            "group_id": groups,
            "lag_total": [n + 1 for n in range(len(groups))],
            "lag_cv": [0.1 * n for n in range(len(groups))],
            "error": [None] * len(groups),
        }
    )
    checked(pipeline_charts.fleet_scatter_figure(rows))


# -- figure_files -------------------------------------------------------------------------------


@FAST
@given(members=member_ids(most=30), per_topic=st.integers(1, 40))
def test_static_figure(members: list[str], per_topic: int) -> None:
    partitions = _partitions(2, per_topic)
    animation = animation_chart.assignment_animation(
        [
            animation_chart.Phase("before", _spread(members, partitions, 0)),
            animation_chart.Phase("after", _spread(members, partitions, 1)),
        ],
        order=members,
    )
    still = checked(figure_files.static_figure(animation))
    assert not still["layout"].get("updatemenus") and not still["layout"].get("sliders")

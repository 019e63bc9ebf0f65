"""A live KIP-848 group's figures: the reconciliation bars and the two-reading animations.

1. :func:`reconciliation_figure`: per member one horizontal bar split in three, *kept* (owned now
   and in the target), *pending revocation* (owned now, not in the target) and *pending
   assignment* (in the target, not owned yet). Past :data:`MAX_CHART_MEMBERS` members the
   reconciling ones are shown first (:func:`shown_members`).
2. :func:`target_animation`: now -> target as the rebalance animation (two frames).
3. :func:`reading_change_animation`: the previous reading -> this one, as the *Watch* panel draws
   it (two frames).

The animations name the members as the tables do (:func:`dashboard.model.palette.member_names`,
via :func:`named_phases`). Pure: data in, a Plotly figure out, no Streamlit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from assignors import MemberProgress, Scenario, current_partitions, reconciliation_progress
from dashboard.charts import animation_chart
from dashboard.charts.plotly_text import plain
from dashboard.model import palette
from dashboard.model.members_table import compress
from dashboard.model.palette import TOPIC_PALETTE, member_names, short_labels, text_colour

#: The three parts of a member's bar: (name, colour, pattern). Colours from the topics' palette
#: (Paul Tol's "bright": colour-blind safe); the patterns tell them apart without colour too.
PARTS = (
    ("kept", TOPIC_PALETTE[0], ""),
    ("pending revocation", TOPIC_PALETTE[1], "x"),
    ("pending assignment", TOPIC_PALETTE[2], "/"),
)
#: Past this many members the chart shows the reconciling ones first, up to this many.
MAX_CHART_MEMBERS = 40


def shown_members(progress: Sequence[MemberProgress]) -> list[MemberProgress]:
    """The members the chart shows: all, or the reconciling ones first up to the limit."""
    if len(progress) <= MAX_CHART_MEMBERS:
        return list(progress)
    ranked = sorted(progress, key=lambda p: not p.reconciling)
    return ranked[:MAX_CHART_MEMBERS]


def reconciliation_figure(
    progress: Sequence[MemberProgress],
    colours: Mapping[str, str] | None = None,
    names: Mapping[str, str] | None = None,
) -> go.Figure:
    """Per member a horizontal bar: kept, pending revocation, pending assignment (counts; the
    hover lists the partitions). The member's colour marks its label, as everywhere; ``names``
    (member id -> label, :func:`~dashboard.model.palette.member_names`) defaults to short
    member ids."""
    shown = shown_members(progress)
    labels = dict(names) if names is not None else short_labels([p.member_id for p in shown], 18)
    colour_of = dict(colours) if colours else palette.member_colours([p.member_id for p in shown])
    rows = [plain(labels[p.member_id]) for p in shown]
    parts = {
        "kept": [tuple(sorted(set(p.current) & set(p.target))) for p in shown],
        "pending revocation": [p.pending_revocation for p in shown],
        "pending assignment": [p.pending_assignment for p in shown],
    }
    figure = go.Figure()
    for name, colour, pattern in PARTS:
        lists = parts[name]
        figure.add_bar(
            y=rows,
            x=[len(tps) for tps in lists],
            orientation="h",
            name=name,
            marker={
                "color": colour,
                "pattern": {"shape": pattern, "fgcolor": "#FFFFFF", "fillmode": "overlay"},
            },
            text=[str(len(tps)) if tps else "" for tps in lists],
            textposition="inside",
            insidetextanchor="middle",
            textangle=0,
            textfont={"color": text_colour(colour), "size": 14},
            customdata=[plain(compress(tps)) or "none" for tps in lists],
            hovertemplate="%{y}: %{x} " + name + "<br>%{customdata}<extra></extra>",
        )
    figure.update_layout(
        barmode="stack",
        height=max(180, 80 + 46 * len(shown)),
        bargap=0.25,
        uniformtext={"minsize": 13, "mode": "show"},
        margin={"l": 10, "r": 10, "t": 10, "b": 40},
        legend={
            "orientation": "h",
            "y": 1.0,
            "yanchor": "bottom",
            "x": 0.0,
            "traceorder": "normal",
        },
        xaxis={
            "title": {"text": "partitions", "font": {"size": 12}},
            "rangemode": "tozero",
            "tickformat": "d",
        },
        yaxis={
            "autorange": "reversed",
            "tickvals": rows,
            "ticktext": [
                f"<span style='color:{colour_of.get(p.member_id, palette.NOBODY_COLOUR)}'>■</span>"
                f" {plain(labels[p.member_id])}"
                for p in shown
            ],
        },
    )
    return figure


def named_phases(
    phases: Sequence[animation_chart.Phase],
    order: Sequence[str],
    colours: Mapping[str, str],
    names: Mapping[str, str],
) -> tuple[list[animation_chart.Phase], list[str], dict[str, str]]:
    """Phases, member order and colours keyed by the members' names
    (:func:`~dashboard.model.palette.member_names`), so that the animation's columns read as the
    table's rows do."""

    def name(member: str) -> str:
        return names.get(member, member)

    renamed = [
        animation_chart.Phase(p.label, {name(m): tps for m, tps in p.owners.items()}, p.caption)
        for p in phases
    ]
    return renamed, [name(m) for m in order], {name(m): c for m, c in colours.items()}


def target_animation(
    scenario: Scenario, order: Sequence[str], colours: Mapping[str, str]
) -> go.Figure:
    """Now -> target as the rebalance animation: two frames, moved tiles outlined and trailed."""
    progress = reconciliation_progress(scenario)
    phases, names, palette = named_phases(
        [
            animation_chart.Phase(
                "now",
                {p.member_id: p.current for p in progress},
                "Now: what each member owns at this reading.",
            ),
            animation_chart.Phase(
                "target",
                {p.member_id: p.target for p in progress},
                "Target: where the group's assignor wants each one.",
            ),
        ],
        order,
        colours,
        member_names(scenario),
    )
    return animation_chart.assignment_animation(phases, order=names, colours=palette)


def reading_change_animation(
    before: Scenario,
    after: Scenario,
    before_at: str,
    after_at: str,
    order: Sequence[str],
    colours: Mapping[str, str],
) -> go.Figure:
    """The previous reading (``before``, read at ``before_at``) -> this one, as the rebalance
    animation (moved tiles outlined); members named over both readings."""
    phases, names, palette = named_phases(
        [
            animation_chart.Phase(
                "previous reading",
                current_partitions(before),
                f"Reading at {before_at}: what each member owned then.",
            ),
            animation_chart.Phase(
                "this reading",
                current_partitions(after),
                f"Reading at {after_at}: what each member owns now.",
            ),
        ],
        order,
        colours,
        {**member_names(before), **member_names(after)},
    )
    return animation_chart.assignment_animation(phases, order=names, colours=palette)

"""What the Deploy view draws, worked out from the core's answer and small whatever the group.

:func:`picture` asks the core the one question (:func:`assignors.evaluate` with ``deploy=``) and
boils the deploy down to what the figures need (:class:`DeployPicture`):

1. Frames: one per phase of the deploy (frame 0: before it); past :data:`MAX_FRAMES`, the frames
   where each step peaks and ends. Per frame, per member column and topic, the partitions held and
   read, and held but not read (restarting, revoked, warming up); the lag per member column; who
   is restarting; a caption.
2. Member columns: every member when there are at most :data:`MAX_COLUMNS`, else consecutive
   members of the group's order pooled into that many columns (``first…last (n)``), so the
   figures weigh the same for 28 or 100,000 members.
3. The lag over time (the deploy's, and the group's without any deploy on the same grid), the
   steps as spans, the peak, the end, the recovery; the steps table; the ranked alternatives;
   for a plan with a scale step, the step at other sizes and with a strategy change
   (:func:`scale_table`).
4. Tiles: for at most :data:`MAX_TILES` partitions, who holds each partition in each frame (the
   explorer's tile animation draws them).

Invariants: pure (no Streamlit); everything in a picture is plain data that pickles (it is built in
a worker process); sizes are bounded by the constants below, not by the group.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from assignors import (
    DeployFrame,
    DeployOutcome,
    DeployPlan,
    DeployRanking,
    ScaleOption,
    Scenario,
    TopicPartition,
    evaluate,
    short_count,
    short_seconds,
)
from dashboard.model.palette import member_names, short_labels

MAX_FRAMES = 120
MAX_COLUMNS = 40
MAX_TILES = 64
NOBODY = "(nobody)"


@dataclass(frozen=True, slots=True)
class DeployPicture:
    """Everything the Deploy view shows (see the module docstring)."""

    headline: str
    columns: tuple[str, ...]
    column_labels: tuple[str, ...]
    """Each column's short, distinct name (:func:`column_labels`); ``columns`` in the hover."""
    topics: tuple[str, ...]
    frame_labels: tuple[str, ...]
    frame_captions: tuple[str, ...]
    reading: tuple[tuple[tuple[int, ...], ...], ...]
    """frame -> topic -> column -> partitions held and read."""
    not_reading: tuple[tuple[int, ...], ...]
    """frame -> column -> partitions held but not read."""
    lag: tuple[tuple[float, ...], ...]
    """frame -> column (then one for nobody) -> backlog at the frame's end."""
    restarting: tuple[tuple[bool, ...], ...]
    """frame -> column -> someone in it is restarting."""
    times_s: tuple[float, ...]
    group_lag: tuple[float, ...]
    baseline_lag: tuple[float, ...]
    steps: tuple[tuple[int, float, float, str], ...]
    """(number, start, end, short label) per step."""
    step_rows: tuple[dict[str, Any], ...]
    peak_lag: float
    peak_at_s: float
    deploy_s: float
    recovered_at_s: float | None
    added_lag: float
    alternatives: tuple[dict[str, Any], ...]
    verdict: str
    tiles: tuple[tuple[str, Mapping[str, Sequence[TopicPartition]], str], ...] | None
    partitions: tuple[TopicPartition, ...] | None
    notes: tuple[str, ...]
    capacity: str = ""
    """Whether the group keeps up with its producers before the deploy, in one sentence."""
    keeps_up: bool = True
    ranking: DeployRanking | None = None
    """The ranking without its played deploys (:meth:`DeployRanking.light`): what
    :func:`reranked` orders by other weights."""
    scale_rows: tuple[dict[str, str], ...] = ()
    """The scale step at other sizes and with a strategy change (:func:`scale_rows`); empty
    without a scale step."""
    scale_baseline: str = ""
    """The backlog without the deploy at each checkpoint, in one sentence (with scale rows)."""


def _columns(members: Sequence[str]) -> tuple[tuple[str, ...], dict[str, int]]:
    """Step 2: column labels and member -> column."""
    if len(members) <= MAX_COLUMNS:
        return tuple(members), {m: i for i, m in enumerate(members)}
    size = -(-len(members) // MAX_COLUMNS)
    labels, where = [], {}
    for index in range(0, len(members), size):
        chunk = members[index : index + size]
        labels.append(f"{chunk[0]}…{chunk[-1]} ({len(chunk)})")
        where.update(dict.fromkeys(chunk, len(labels) - 1))
    return tuple(labels), where


#: How long a column's label may be on an axis.
LABEL_CHARS = 18


def column_labels(
    members: Sequence[str], columns: Sequence[str], names: Mapping[str, str]
) -> tuple[str, ...]:
    """Step 2's columns as the axis names them: each member by its name (``names``, as the
    tables name it: :func:`~dashboard.model.palette.member_names`), a pool of members as
    ``first…last (n)``; every label shortened the one way (:func:`short_labels`)."""
    named = [names.get(m) or short_labels([m], LABEL_CHARS)[m] for m in members]
    if len(columns) == len(members):
        wanted = named
    else:
        size = -(-len(members) // MAX_COLUMNS)
        wanted = [
            f"{named[i]}…{named[min(i + size, len(named)) - 1]} ({len(named[i : i + size])})"
            for i in range(0, len(named), size)
        ]
    labels = short_labels(wanted, LABEL_CHARS)
    return tuple(labels[label] for label in wanted)


def _chosen_frames(outcome: DeployOutcome) -> list[int]:
    """Step 1: every frame, or where each step peaks and ends."""
    frames = outcome.frames
    if len(frames) <= MAX_FRAMES:
        return list(range(len(frames)))
    chosen = {0}
    by_step: dict[int, list[int]] = {}
    for index, frame in enumerate(frames):
        by_step.setdefault(frame.step, []).append(index)
    for indices in by_step.values():
        chosen.add(max(indices, key=lambda i: frames[i].group_lag))
        chosen.add(indices[-1])
    ordered = sorted(chosen)
    if len(ordered) > MAX_FRAMES:
        stride = len(ordered) / MAX_FRAMES
        ordered = sorted({ordered[int(i * stride)] for i in range(MAX_FRAMES)} | {ordered[-1]})
    return ordered


def _caption(outcome: DeployOutcome, frame: DeployFrame) -> str:
    steps = len(outcome.steps)
    if frame.step == 0:
        return f"Before the deploy: backlog {short_count(frame.group_lag)}"
    who = f" · restarting: {', '.join(frame.restarting[:4])}" if frame.restarting else ""
    if len(frame.restarting) > 4:
        who += f" and {len(frame.restarting) - 4} more"
    return (
        f"Step {frame.step} of {steps} · {frame.phase} · {short_seconds(frame.start_s)}"
        f"–{short_seconds(frame.time_s)}{who} · backlog {short_count(frame.group_lag)}"
    )


def _frame_counts(
    frame: DeployFrame, topics: Sequence[str], where: Mapping[str, int], width: int
) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...], tuple[float, ...], tuple[bool, ...]]:
    topic_index = {t: i for i, t in enumerate(topics)}
    reading = [[0] * width for _ in topics]
    idle = [0] * width
    lag = [0.0] * (width + 1)
    for member, held in frame.owned.items():
        column = where.get(member)
        if column is None:
            continue
        read = set(frame.consuming.get(member, ()))
        for tp in held:
            if tp in read:
                reading[topic_index[tp.topic]][column] += 1
            else:
                idle[column] += 1
    for member, value in frame.lag_by_member.items():
        column = where.get(member)
        lag[width if column is None else column] += value
    down = [False] * width
    for member in frame.restarting:
        if member in where:
            down[where[member]] = True
    return tuple(tuple(row) for row in reading), tuple(idle), tuple(lag), tuple(down)


def _alternatives(ranking: DeployRanking) -> tuple[dict[str, Any], ...]:
    """The ranking's rows, from each plan's costs (a :meth:`DeployRanking.light` ranking will
    do: no played deploy is needed)."""
    rows = []
    parts = ranking.cost_parts()
    for rank, (alternative, reason) in enumerate(
        zip(ranking.alternatives, ranking.reasons, strict=True), 1
    ):
        costs = alternative.costs
        rows.append(
            {
                "rank": rank,
                "cost parts": parts[rank - 1],
                "plan": alternative.label + (" (asked)" if alternative.asked else ""),
                "why": reason,
                "on the front": alternative.label in ranking.front,
                "lag added": None if costs is None else round(costs["added_lag"]),
                "peak lag": None if costs is None else round(costs["peak_lag"]),
                "rebalances": None if costs is None else int(costs["rebalances"]),
                "moves": None if costs is None else int(costs["moved"]),
                "deploy takes": None if costs is None else short_seconds(costs["deploy_s"]),
                "back to the start after": "-"
                if costs is None
                else short_seconds(
                    costs["recover_s"] if math.isfinite(costs["recover_s"]) else None
                ),
                "error": alternative.error or "",
            }
        )
    return tuple(rows)


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def reranked(picture: DeployPicture, weights: Mapping[str, float] | None) -> DeployPicture:
    """``picture`` with its alternatives ordered by ``weights`` (costs not named weigh 1; see
    :meth:`assignors.DeployRanking.reordered`); the same picture when it has no ranking.
    Raises :class:`~assignors.AssignmentExplorerError` for weights that cannot order."""
    if picture.ranking is None:
        return picture
    ranking = picture.ranking.reordered(weights)
    return replace(
        picture, ranking=ranking, alternatives=_alternatives(ranking), verdict=ranking.verdict
    )


def _step_rows(outcome: DeployOutcome, names: Mapping[str, str]) -> tuple[dict[str, Any], ...]:
    return tuple(
        {
            "step": s.number,
            "action": s.action,
            "members": ", ".join(names.get(m, m) for m in s.members[:4])
            + (" …" if len(s.members) > 4 else ""),
            "what happens": s.description,
            "start (s)": round(s.start_s, 1),
            "end (s)": round(s.end_s, 1),
            "rebalances": s.rebalances,
            "protocol": s.protocol or "-",
            "assignor": s.strategy,
            "moved": s.moved,
            "paused": s.paused,
            "members stopped": len(s.stopped_members),
            "lag at end": round(s.lag_at_end),
        }
        for s in outcome.steps
    )


def picture(
    scenario: Scenario, strategy: str, plan: DeployPlan, *, alternatives: bool = True
) -> DeployPicture:
    """The deploy of ``plan`` on ``scenario`` running ``strategy``, drawn small (runs in a worker).

    Raises the core's errors (a plan that does not fit, a strategy that cannot run).
    """
    evaluation = evaluate(scenario, [], [strategy], deploy=plan)
    asked = evaluation.strategies[0]
    outcome = asked.deploy
    ranking = asked.deploy_ranking if alternatives else None
    times = outcome.drain.times_s
    step = times[1] - times[0] if len(times) > 1 else 1.0
    baseline = evaluation.current_drain(times[-1], step).group_lag
    everyone = [*outcome.after.partitions, *outcome.before.partitions]
    members = list(dict.fromkeys(m.member_id for m in scenario.members))
    members += [m for m in dict.fromkeys(everyone) if m not in members]
    columns, where = _columns(members)
    names = member_names(scenario)
    topics = tuple(sorted({tp.topic for tp in outcome.partitions}))
    chosen = [outcome.frames[i] for i in _chosen_frames(outcome)]
    counts = [_frame_counts(f, topics, where, len(columns)) for f in chosen]
    small = len(outcome.partitions) <= MAX_TILES
    return DeployPicture(
        headline=f"{outcome.strategy}: {plan.describe()}",
        columns=columns,
        column_labels=column_labels(members, columns, names),
        topics=topics,
        frame_labels=tuple(f"{i}" for i in range(len(chosen))),
        frame_captions=tuple(_caption(outcome, f) for f in chosen),
        reading=tuple(c[0] for c in counts),
        not_reading=tuple(c[1] for c in counts),
        lag=tuple(c[2] for c in counts),
        restarting=tuple(c[3] for c in counts),
        times_s=times,
        group_lag=outcome.drain.group_lag,
        baseline_lag=tuple(baseline[: len(times)]),
        steps=tuple((s.number, s.start_s, s.end_s, f"{s.number}") for s in outcome.steps),
        step_rows=_step_rows(outcome, names),
        peak_lag=outcome.peak_lag,
        peak_at_s=outcome.peak_at_s,
        deploy_s=outcome.deploy_s,
        recovered_at_s=outcome.recovered_at_s,
        added_lag=outcome.added_lag,
        alternatives=() if ranking is None else _alternatives(ranking),
        verdict="" if ranking is None else ranking.verdict,
        tiles=tuple((f"{i}", dict(f.owned), _caption(outcome, f)) for i, f in enumerate(chosen))
        if small
        else None,
        partitions=outcome.partitions if small else None,
        notes=outcome.notes,
        capacity=evaluation.current_capacity.sentence(),
        keeps_up=evaluation.current_capacity.keeps_up,
        ranking=None if ranking is None else ranking.light(),
        scale_rows=scale_rows(asked.deploy_scale_options) if alternatives else (),
        scale_baseline=_baseline_sentence(outcome) if plan.scale and alternatives else "",
    )


def scale_rows(options: Sequence[ScaleOption]) -> tuple[dict[str, str], ...]:
    """One row per scale option, numbers formatted as the cards format them: the step, the
    backlog with it at each checkpoint, when the backlog is gone, whether the group keeps up."""
    rows = []
    for option in options:
        outcome = option.outcome
        row = {"scale step": option.label + (" (asked)" if option.asked else "")}
        if outcome is None:
            row["backlog"] = (
                f"not played: {option.skipped}" if option.skipped else f"cannot run: {option.error}"
            )
            rows.append(row)
            continue
        for at, with_, _ in outcome.checkpoints:
            row[f"backlog at {short_seconds(at)}"] = short_count(with_)
        row["backlog gone after"] = (
            "never" if outcome.drained_at_s is None else short_seconds(outcome.drained_at_s)
        )
        row["keeps up after"] = "yes" if option.keeps_up else "no"
        rows.append(row)
    return tuple(rows)


def _baseline_sentence(outcome: DeployOutcome) -> str:
    """``Without the deploy the backlog is 202.6M at 15.0 min, 435.6M at 60.0 min; never
    gone.``"""
    marks = ", ".join(
        f"{short_count(w)} at {short_seconds(at)}" for at, _, w in outcome.checkpoints
    )
    gone = (
        "never gone"
        if outcome.drained_without_s is None
        else f"gone after {short_seconds(outcome.drained_without_s)}"
    )
    return f"Without the deploy the backlog is {marks}; {gone}."


def _count(value: Any) -> str:
    """A number as every deploy table and card shows it (``209.3M``); ``—`` for none."""
    return "—" if value is None else short_count(value)


def alternatives_table(picture: DeployPicture) -> list[dict[str, str]]:
    """The ranked alternatives as the table shows them: every number formatted once, as the
    cards format it (:func:`assignors.short_count`), an error in the plan's cell; few enough
    columns to show whole at 1280 px."""
    return [
        {
            "rank": str(row["rank"]),
            "plan": row["plan"] + (f" (cannot run: {row['error']})" if row["error"] else ""),
            "lag added": _count(row["lag added"]),
            "peak lag": _count(row["peak lag"]),
            "rebalances": _count(row["rebalances"]),
            "moves": _count(row["moves"]),
            "deploy takes": row["deploy takes"] or "—",
            "back to the start after": row["back to the start after"],
        }
        for row in picture.alternatives
    ]


def reasons(picture: DeployPicture) -> list[str]:
    """Why each plan ranks where it does, in rank order: ``"1. batches of 3, static
    membership (on the Pareto front): above ..."`` (plan labels are the planner's words, never
    user text)."""
    return [
        f"{row['rank']}. {row['plan']}"
        + (" (on the Pareto front)" if row["on the front"] else "")
        + f": {row['why']}"
        for row in picture.alternatives
    ]


def _action(row: Mapping[str, Any]) -> str:
    """``bounce 1 (eager, range)``: the action, the protocol of its last rebalance (when it has
    one) and the assignor the group selects at its end."""
    how = [row["protocol"]] if row["protocol"] != "-" else []
    return f"{row['action']} ({', '.join([*how, row['assignor']])})"


def steps_table(picture: DeployPicture) -> list[dict[str, str]]:
    """The steps as the table shows them (numbers as in :func:`alternatives_table`; the start
    and end as one time span, the protocol and assignor with the action)."""
    return [
        {
            "step": str(row["step"]),
            "action": _action(row),
            "members": row["members"],
            "what happens": row["what happens"],
            "time": f"{short_seconds(row['start (s)'])}–{short_seconds(row['end (s)'])}",
            "rebalances": _count(row["rebalances"]),
            "moved": _count(row["moved"]),
            "paused": _count(row["paused"]),
            "lag at end": _count(row["lag at end"]),
        }
        for row in picture.step_rows
    ]

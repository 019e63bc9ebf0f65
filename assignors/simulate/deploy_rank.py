"""Cheaper ways to run the same deploy: alternatives ranked on every cost, and why.

:func:`rank_deploys` plays the plan asked for and its neighbours (static membership on and off;
batches of 1, of the plan's size and of 3) with :func:`assignors.simulate.deploy.plan_deploy` and
ranks them on every cost of :mod:`assignors.simulate.deploy_costs` (lag added, peak lag,
rebalances, partitions moved, partition-pauses, pause time, deploy duration, time to recover):

1. the Pareto front: the plans no other beats on every cost;
2. an order by weights the caller sets (default 1 each): a plan another beats on every cost never
   ranks above it;
3. one sentence per plan naming the costs that decide its place (against the plan ranked just
   below the first, or just above any other);
4. *which settings made the difference*: each setting in which the first plan differs from the
   plan asked for, changed alone on the plan asked for, and how much lag that change alone adds
   or saves.

:meth:`DeployRanking.reordered` orders the same plans by other weights without playing them again.

Invariants: the plan asked for is always among the alternatives (``asked`` true); each distinct
plan is played once; an alternative that cannot run carries its message in ``error`` and ranks
last; every single-setting neighbour of the plan asked for that step 4 may need is played.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from assignors.errors import AssignmentExplorerError
from assignors.model import Assignment, Scenario
from assignors.simulate import deploy_costs as costs_mod
from assignors.simulate.deploy import DeployOutcome, plan_deploy
from assignors.simulate.deploy_plan import DeployPlan
from assignors.simulate.drain import DEFAULT_CONSUME_RATE
from assignors.strategy import PartitionStrategy

#: Batch sizes tried besides the plan's own.
TRIED_BATCHES = (1, 3)


def short_count(value: float) -> str:
    """``1234567`` -> ``"1.2M"``; ``950`` -> ``"950"`` (records, for sentences)."""
    size = abs(value)
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if size >= limit:
            return f"{value / limit:.1f}{suffix}"
    return f"{value:.0f}"


def short_seconds(value: float | None) -> str:
    """``272.0`` -> ``"4.5 min"``, ``12`` -> ``"12 s"``; None -> ``"never"``."""
    if value is None:
        return "never"
    if value >= 5400:
        return f"{value / 3600:.1f} h"
    if value >= 120:
        return f"{value / 60:.1f} min"
    return f"{value:.1f} s"


@dataclass(frozen=True, slots=True)
class DeployAlternative:
    """One way to run the deploy and what it costs.

    ``costs`` (every cost of :data:`assignors.simulate.deploy_costs.COSTS`) is None exactly when
    the plan cannot run; ``outcome`` is the deploy played, None when it cannot run or in a
    :meth:`DeployRanking.light` ranking, which keeps the costs only."""

    label: str
    plan: DeployPlan
    asked: bool
    """True for the plan asked for."""
    outcome: DeployOutcome | None
    error: str | None = None
    costs: Mapping[str, float] | None = None

    def sentence(self) -> str:
        """``batches of 1, static: adds 1.2M lag, back 4.0 min after the deploy``."""
        if self.costs is None:
            return f"{self.label}: cannot run ({self.error})"
        costs = self.costs
        back = costs["recover_s"]
        when = (
            "never back to where it started"
            if not math.isfinite(back)
            else (f"back to where it started {short_seconds(back)} after the deploy")
        )
        return (
            f"{self.label}: adds {short_count(costs['added_lag'])} lag (peak"
            f" {short_count(costs['peak_lag'])}), {costs['rebalances']:.0f} rebalance(s), {when}"
        )

    def to_json(self) -> dict[str, Any]:
        """Plain JSON: the label, the plan, the figures and costs (or the error); a time to
        recover of "never" is ``null``."""
        costs = self.costs
        return {
            "label": self.label,
            "asked": self.asked,
            "error": self.error,
            "outcome": None if self.outcome is None else self.outcome.summary_json(),
            "costs": None
            if costs is None
            else {k: (v if math.isfinite(v) else None) for k, v in costs.items()},
        }


def costs_of(outcome: DeployOutcome) -> dict[str, float]:
    """The costs of a played deploy (``recover_s`` ``inf`` when it never recovers)."""
    back = outcome.recovered_after_s
    pause_s = sum(frame.paused * (frame.time_s - frame.start_s) for frame in outcome.frames)
    return {
        "added_lag": outcome.added_lag,
        "peak_lag": outcome.peak_lag,
        "rebalances": float(outcome.rebalances),
        "moved": float(outcome.moved),
        "partition_pauses": float(outcome.partition_pauses),
        "pause_s": pause_s,
        "deploy_s": outcome.deploy_s,
        "recover_s": math.inf if back is None else back,
    }


@dataclass(frozen=True, slots=True)
class DeployRanking:
    """The alternatives, best first by ``weights``, and why each ranks where it does."""

    alternatives: tuple[DeployAlternative, ...]
    effects: tuple[tuple[str, float], ...]
    """(setting changed alone on the plan asked for, lag added by that change; < 0 saves)."""
    verdict: str
    weights: Mapping[str, float] = field(default_factory=lambda: dict(costs_mod.DEFAULT_WEIGHTS))
    """The weight of each cost the order used."""
    reasons: tuple[str, ...] = ()
    """Aligned with :attr:`alternatives`: why each ranks where it does."""
    front: tuple[str, ...] = ()
    """Labels of the plans on the Pareto front (none beaten on every cost), in rank order."""

    @property
    def asked(self) -> DeployAlternative:
        """The plan asked for."""
        return next(a for a in self.alternatives if a.asked)

    def cost_parts(self) -> tuple[dict[str, float] | None, ...]:
        """Aligned with :attr:`alternatives`: each plan's score in parts, cost label -> weight
        times the scaled cost (their sum orders the plans; None for a plan that cannot run)."""
        running = [a.costs for a in self.alternatives if a.costs is not None]
        levels = iter(costs_mod.scaled(running))
        labels = {cost.key: cost.label for cost in costs_mod.COSTS}
        parts: list[dict[str, float] | None] = []
        for alternative in self.alternatives:
            if alternative.costs is None:
                parts.append(None)
                continue
            level = next(levels)
            parts.append({labels[k]: self.weights[k] * level[k] for k in costs_mod.COST_KEYS})
        return tuple(parts)

    def light(self) -> DeployRanking:
        """The same ranking without the played deploys (their frames and timelines): the
        costs, reasons and verdict stay, and :meth:`reordered` works on it."""
        return replace(
            self, alternatives=tuple(replace(a, outcome=None) for a in self.alternatives)
        )

    def reordered(self, weights: Mapping[str, float] | None) -> DeployRanking:
        """The same plans ordered by ``weights`` (costs not named keep weight 1); raises
        :class:`~assignors.simulate.deploy_costs.WeightsError` for weights that cannot order."""
        return _ranking(list(self.alternatives), costs_mod.check_weights(weights))

    def to_json(self) -> dict[str, Any]:
        """Plain JSON object."""
        return {
            "alternatives": [
                {**a.to_json(), "rank": rank, "reason": reason, "on_front": a.label in self.front}
                for rank, (a, reason) in enumerate(
                    zip(self.alternatives, self.reasons, strict=True), 1
                )
            ],
            "weights": dict(self.weights),
            "front": list(self.front),
            "effects": [{"setting": s, "added_lag_change": v} for s, v in self.effects],
            "verdict": self.verdict,
        }


def _static_of(plan: DeployPlan, scenario: Scenario) -> bool | None:
    """Whether every member is static (True), none (False), or some are (None)."""
    static = plan.settings.static_membership
    if static is None:
        kinds = {m.group_instance_id is not None for m in scenario.members}
        return kinds.pop() if len(kinds) == 1 else None
    return static


def _label(plan: DeployPlan, scenario: Scenario) -> str:
    static = plan.settings.static_membership
    membership = (
        "membership as configured"
        if static is None
        else ("static membership" if static else "dynamic membership")
    )
    if plan.members == () and plan.upgrade is None:  # a scale step alone: nobody restarts
        return f"scale {plan.scale:+d}, {membership}"
    return f"batches of {plan.batch_size}, {membership}"


def _variants(plan: DeployPlan, scenario: Scenario) -> list[DeployPlan]:
    """The plan and its neighbours; a plan that restarts nobody (a scale step alone) has no
    batches to vary, only membership."""
    size = len(scenario.members) + max(plan.scale, 0)
    restarts_nobody = plan.members == () and plan.upgrade is None
    tried = () if restarts_nobody else TRIED_BATCHES
    batches = sorted({b for b in (*tried, plan.batch_size) if b <= max(size, 1)})
    plans = [plan]
    kinds = (True, False) if plan.settings.static_membership is not None else (True, False, None)
    for batch in batches:
        for static in kinds:
            settings = replace(plan.settings, static_membership=static)
            candidate = replace(plan, batch_size=batch, settings=settings)
            if candidate not in plans:
                plans.append(candidate)
    return plans


def played(
    scenario: Scenario,
    strategy: str | PartitionStrategy,
    plan: DeployPlan,
    previous: Assignment | None,
    default_consume_rate: float,
) -> DeployOutcome | str:
    """``plan`` played (:func:`assignors.simulate.deploy.plan_deploy`), or why it cannot run."""
    try:
        return plan_deploy(
            scenario, strategy, plan, previous=previous, default_consume_rate=default_consume_rate
        )
    except AssignmentExplorerError as error:
        return str(error)


def checkpoints_text(outcome: DeployOutcome) -> str:
    """``at 15.0 min 12.0M (18.1M without the deploy); at 60.0 min ...``: the backlog at each
    checkpoint with the deploy and without it."""
    return "; ".join(
        f"at {short_seconds(at)} {short_count(with_)} ({short_count(without)} without the deploy)"
        for at, with_, without in outcome.checkpoints
    )


def _play(
    scenario: Scenario,
    strategy: str | PartitionStrategy,
    plan: DeployPlan,
    asked: bool,
    previous: Assignment | None,
    default_consume_rate: float,
) -> DeployAlternative:
    label = _label(plan, scenario)
    outcome = played(scenario, strategy, plan, previous, default_consume_rate)
    if isinstance(outcome, str):
        return DeployAlternative(label, plan, asked, None, outcome)
    return DeployAlternative(label, plan, asked, outcome, None, costs_of(outcome))


def _single_changes(best: DeployPlan, asked: DeployPlan) -> list[DeployPlan]:
    """The plan asked for with one of the best plan's settings at a time."""
    changed = []
    if best.batch_size != asked.batch_size:
        changed.append(replace(asked, batch_size=best.batch_size))
    if best.settings.static_membership != asked.settings.static_membership:
        static = best.settings.static_membership
        changed.append(replace(asked, settings=replace(asked.settings, static_membership=static)))
    return changed


def _setting(plan: DeployPlan, asked: DeployPlan) -> str:
    if plan.batch_size != asked.batch_size:
        return f"batches of {plan.batch_size}"
    static = plan.settings.static_membership
    if static is None:
        return "membership as configured"
    return "static membership" if static else "dynamic membership"


def _effects(ranked: Sequence[DeployAlternative]) -> tuple[tuple[str, float], ...]:
    """Step 4, from the plans played (each single change is among them)."""
    best, asked = ranked[0], next(a for a in ranked if a.asked)
    if best is asked or best.costs is None or asked.costs is None:
        return ()
    by_plan = {a.plan: a for a in ranked}
    effects = []
    for single in _single_changes(best.plan, asked.plan):
        alone = by_plan.get(single)
        if alone is not None and alone.costs is not None:
            delta = alone.costs["added_lag"] - asked.costs["added_lag"]
            effects.append((_setting(single, asked.plan), delta))
    return tuple(effects)


def _reason(
    ranked: Sequence[DeployAlternative],
    costs: Sequence[Mapping[str, float]],
    weights: Mapping[str, float],
    place: int,
) -> str:
    """Why ``ranked[place]`` ranks where it does (``costs`` aligned with the plans that run)."""
    me = ranked[place]
    if me.costs is None:
        return f"cannot run: {me.error}"
    if len(costs) == 1:
        return "the only plan that runs"
    other = 1 if place == 0 else place - 1
    beaten_by = [
        ranked[i].label for i in range(len(costs)) if costs_mod.dominates(costs[i], costs[place])
    ]
    lower, higher = costs_mod.deciding(costs, weights, place, other)
    head = costs_mod.reason(ranked[other].label, place == 0, lower, higher)
    if beaten_by:
        head += f" (beaten on every cost by {beaten_by[0]})"
    return head


def _verdict(
    ranked: Sequence[DeployAlternative],
    reasons: Sequence[str],
    front: Sequence[str],
    effects: Sequence[tuple[str, float]],
) -> str:
    best = ranked[0]
    if best.costs is None:
        return "no alternative can run on this group"
    place = next(i for i, a in enumerate(ranked) if a.asked)
    on_front = (
        f"{len(front)} of {len(ranked)} plans are on the Pareto front (no other plan beats them"
        f" on every cost): {', '.join(front)}"
    )
    if place == 0:
        return f"the plan asked for ranks first: {reasons[0]}. {on_front}"
    parts = [
        f"first: {best.label}, {reasons[0]}; the plan asked for ranks {place + 1} of"
        f" {len(ranked)}, {reasons[place]}",
        on_front,
    ]
    if effects:
        changes = "; ".join(
            f"{setting} alone {'saves' if delta < 0 else 'adds'} {short_count(abs(delta))} lag"
            for setting, delta in effects
        )
        parts.append(f"what made the difference: {changes}")
    return ". ".join(parts)


def _ranking(played: Sequence[DeployAlternative], weights: Mapping[str, float]) -> DeployRanking:
    """Order the played plans by ``weights`` (those that cannot run last, in the order played)
    and say why (steps 1-4)."""
    running = [a for a in played if a.costs is not None]
    costs = [a.costs or {} for a in running]
    ranked = [running[i] for i in costs_mod.order(costs, weights)]
    ranked_costs = [a.costs or {} for a in ranked]
    on_front = set(costs_mod.front(ranked_costs))
    ranked += [a for a in played if a.costs is None]
    reasons = tuple(_reason(ranked, ranked_costs, weights, i) for i in range(len(ranked)))
    front = tuple(ranked[i].label for i in sorted(on_front))
    effects = _effects(ranked)
    return DeployRanking(
        tuple(ranked),
        effects,
        _verdict(ranked, reasons, front, effects),
        dict(weights),
        reasons,
        front,
    )


def rank_deploys(
    scenario: Scenario,
    strategy: str | PartitionStrategy,
    plan: DeployPlan,
    *,
    previous: Assignment | None = None,
    default_consume_rate: float = DEFAULT_CONSUME_RATE,
    weights: Mapping[str, float] | None = None,
    known: DeployOutcome | None = None,
) -> DeployRanking:
    """The plan and its neighbours, ranked by ``weights`` (see the module docstring; costs not
    named weigh 1). ``known``: ``plan`` already played with the same inputs (it is not played
    again; the answer is the same, the planner being pure).

    A plan that keeps membership as configured, on a group whose members are all static (or all
    dynamic), is that plan with static membership on (off).
    """
    chosen = costs_mod.check_weights(weights)
    given = plan
    if plan.settings.static_membership is None:
        kinds = {m.group_instance_id is not None for m in scenario.members}
        if len(kinds) == 1:
            settings = replace(plan.settings, static_membership=kinds.pop())
            plan = replace(plan, settings=settings)
    played = [
        _known(scenario, candidate, candidate == plan, known)
        if known is not None and candidate == given
        else _play(scenario, strategy, candidate, candidate == plan, previous, default_consume_rate)
        for candidate in _variants(plan, scenario)
    ]
    return _ranking(played, chosen)


def _known(
    scenario: Scenario, plan: DeployPlan, asked: bool, outcome: DeployOutcome
) -> DeployAlternative:
    """``plan`` as an alternative from its outcome, played before."""
    return DeployAlternative(_label(plan, scenario), plan, asked, outcome, None, costs_of(outcome))

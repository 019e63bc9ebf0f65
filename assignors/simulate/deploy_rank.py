"""Cheaper ways to run the same deploy: alternatives ranked, and which settings made the difference.

:func:`rank_deploys` plays the plan asked for and its neighbours (static membership on and off;
batches of 1, of the plan's size and of 3) with :func:`assignors.simulate.deploy.plan_deploy`,
ranks them and says what made the difference.

Ranking key, smallest first: the lag the deploy adds over not deploying at all
(``DeployOutcome.added_lag``), then when the backlog is back to where it started (never: last),
then how long the deploy takes, then how many rebalances it runs.

*Which settings made the difference*: each setting in which the best alternative differs from the
plan asked for, changed alone on the plan, and how much lag that change alone adds or saves.

Invariants: the plan asked for is always among the alternatives (``asked`` true); each distinct
plan is played once; an alternative that cannot run carries its message in ``error`` and ranks
last.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from assignors.errors import AssignmentExplorerError
from assignors.model import Assignment, Scenario
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
    """One way to run the deploy and what it costs."""

    label: str
    plan: DeployPlan
    asked: bool
    """True for the plan asked for."""
    outcome: DeployOutcome | None
    error: str | None = None

    def sentence(self) -> str:
        """``batches of 1, static: adds 1.2M lag, back 4.0 min after the deploy``."""
        if self.outcome is None:
            return f"{self.label}: cannot run ({self.error})"
        outcome = self.outcome
        back = outcome.recovered_after_s
        when = (
            "never back to where it started"
            if back is None
            else (f"back to where it started {short_seconds(back)} after the deploy")
        )
        return (
            f"{self.label}: adds {short_count(outcome.added_lag)} lag (peak"
            f" {short_count(outcome.peak_lag)}), {outcome.rebalances} rebalance(s), {when}"
        )

    def to_json(self) -> dict[str, Any]:
        """Plain JSON: the label, the plan, the figures (or the error)."""
        return {
            "label": self.label,
            "asked": self.asked,
            "error": self.error,
            "outcome": None if self.outcome is None else self.outcome.summary_json(),
        }


@dataclass(frozen=True, slots=True)
class DeployRanking:
    """The alternatives, best first, and what made the difference."""

    alternatives: tuple[DeployAlternative, ...]
    effects: tuple[tuple[str, float], ...]
    """(setting changed alone on the plan asked for, lag added by that change; < 0 saves)."""
    verdict: str

    @property
    def asked(self) -> DeployAlternative:
        """The plan asked for."""
        return next(a for a in self.alternatives if a.asked)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON object."""
        return {
            "alternatives": [a.to_json() for a in self.alternatives],
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
    return f"batches of {plan.batch_size}, {membership}"


def _variants(plan: DeployPlan, scenario: Scenario) -> list[DeployPlan]:
    size = len(scenario.members) + max(plan.scale, 0)
    batches = sorted({b for b in (*TRIED_BATCHES, plan.batch_size) if b <= max(size, 1)})
    plans = [plan]
    for batch in batches:
        for static in (True, False):
            settings = replace(plan.settings, static_membership=static)
            candidate = replace(plan, batch_size=batch, settings=settings)
            if candidate not in plans:
                plans.append(candidate)
    return plans


def _key(alternative: DeployAlternative) -> tuple[float, ...]:
    outcome = alternative.outcome
    if outcome is None:
        return (math.inf,) * 4
    back = outcome.recovered_at_s
    return (
        outcome.added_lag,
        math.inf if back is None else back,
        outcome.deploy_s,
        float(outcome.rebalances),
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
    try:
        outcome = plan_deploy(
            scenario, strategy, plan, previous=previous, default_consume_rate=default_consume_rate
        )
    except AssignmentExplorerError as error:
        return DeployAlternative(label, plan, asked, None, str(error))
    return DeployAlternative(label, plan, asked, outcome)


def _differences(best: DeployPlan, asked: DeployPlan, scenario: Scenario) -> list[DeployPlan]:
    """The plan asked for with one of the best plan's settings at a time."""
    changed = []
    if best.batch_size != asked.batch_size:
        changed.append(replace(asked, batch_size=best.batch_size))
    if _static_of(best, scenario) != _static_of(asked, scenario):
        static = best.settings.static_membership
        changed.append(replace(asked, settings=replace(asked.settings, static_membership=static)))
    return changed


def _setting(plan: DeployPlan, asked: DeployPlan) -> str:
    if plan.batch_size != asked.batch_size:
        return f"batches of {plan.batch_size}"
    return "static membership" if plan.settings.static_membership else "dynamic membership"


def _verdict(ranked: Sequence[DeployAlternative], effects: Sequence[tuple[str, float]]) -> str:
    best = ranked[0]
    asked = next(a for a in ranked if a.asked)
    if best.outcome is None:
        return "no alternative can run on this group"
    if best is asked or _key(best) == _key(asked):
        return f"the plan asked for is the cheapest of these: {asked.sentence()}"
    parts = [f"cheapest: {best.sentence()}; asked for: {asked.sentence()}"]
    if effects:
        changes = "; ".join(
            f"{setting} alone {'saves' if delta < 0 else 'adds'} {short_count(abs(delta))}"
            for setting, delta in effects
        )
        parts.append(f"what made the difference: {changes}")
    return ". ".join(parts)


def rank_deploys(
    scenario: Scenario,
    strategy: str | PartitionStrategy,
    plan: DeployPlan,
    *,
    previous: Assignment | None = None,
    default_consume_rate: float = DEFAULT_CONSUME_RATE,
) -> DeployRanking:
    """The plan and its neighbours, ranked (see the module docstring).

    A plan that keeps membership as configured, on a group whose members are all static (or all
    dynamic), is that plan with static membership on (off).
    """
    if plan.settings.static_membership is None:
        kinds = {m.group_instance_id is not None for m in scenario.members}
        if len(kinds) == 1:
            settings = replace(plan.settings, static_membership=kinds.pop())
            plan = replace(plan, settings=settings)
    played = [
        _play(scenario, strategy, candidate, candidate == plan, previous, default_consume_rate)
        for candidate in _variants(plan, scenario)
    ]
    ranked = sorted(played, key=_key)
    asked = played[0]
    effects: list[tuple[str, float]] = []
    if asked.outcome is not None and ranked[0].outcome is not None and ranked[0] is not asked:
        by_plan = {a.plan: a for a in played}
        for single in _differences(ranked[0].plan, plan, scenario):
            alone = by_plan.get(single) or _play(
                scenario, strategy, single, False, previous, default_consume_rate
            )
            if alone.outcome is not None:
                effects.append(
                    (_setting(single, plan), alone.outcome.added_lag - asked.outcome.added_lag)
                )
    return DeployRanking(tuple(ranked), tuple(effects), _verdict(ranked, effects))

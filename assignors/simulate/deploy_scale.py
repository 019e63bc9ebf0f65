"""What a scale step buys: the same step at other sizes, each with the backlog it leaves.

:func:`scale_options` plays the scale step asked for (only the scale: nobody restarts) and the
same step at other sizes with :func:`assignors.simulate.deploy.plan_deploy`:

1. Sizes tried: the one asked for; for a scale-out, also 1, 2, 4, 8, ... members up to the
   members the group needs to keep up (:func:`assignors.simulate.capacity.capacity`), at least
   twice the size asked for, never past one member per partition, at most :data:`MAX_OPTIONS`
   sizes in all; for a scale-in, also 1 member less and 1 more.
2. Scale plus a strategy change: the size asked for with each upgrade path of
   :data:`assignors.simulate.deploy_plan.UPGRADES` that applies to the group's strategy
   (:func:`assignors.simulate.deploy_upgrade.resolve` accepts it). An upgrade restarts every
   member, so these options cost restarts the plain scale step does not.
3. Each option reports the backlog at each checkpoint (:data:`assignors.simulate.deploy.
   CHECKPOINTS_S`) with and without the step, when the backlog is gone for good (None: never),
   and whether the group keeps up afterwards.

An upgrade option larger than :data:`MAX_UPGRADE_WORK` is listed with ``skipped`` saying why,
not played: a page that plays the plan answers in seconds whatever size is asked.

Invariants: the size asked for (with no upgrade) is always among the options (``asked`` true);
the options without an upgrade come first, their sizes distinct and sorted, then the upgrades at
the size asked for; an option that cannot run carries its message in ``error``. ``known``: the
scale step asked for, already played with the same inputs, is not played again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from assignors.errors import AssignmentExplorerError
from assignors.model import Assignment, Scenario
from assignors.simulate.capacity import Capacity, capacity
from assignors.simulate.changes import current_assignment
from assignors.simulate.deploy import DeployOutcome
from assignors.simulate.deploy_plan import UPGRADES, DeployPlan
from assignors.simulate.deploy_rank import checkpoints_text, played, short_seconds
from assignors.simulate.deploy_upgrade import resolve
from assignors.simulate.drain import DEFAULT_CONSUME_RATE
from assignors.simulate.rebalance import partition_strategy
from assignors.strategy import PartitionStrategy

#: Scale sizes compared at most.
MAX_OPTIONS = 6
#: The most work a scale-plus-upgrade option may take to be played beside the plan, counted as
#: rebalances x (members + partitions) (about 2 s of CPU); a bigger one is listed, not played
#: (``skipped`` says why), since an upgrade restarts every member in the plan's batches.
MAX_UPGRADE_WORK = 250_000


@dataclass(frozen=True, slots=True)
class ScaleOption:
    """One scale size and what it leaves."""

    scale: int
    asked: bool
    outcome: DeployOutcome | None
    keeps_up: bool | None
    """Whether the group keeps up once the step is over (None: cannot run)."""
    error: str | None = None
    upgrade: str | None = None
    """The upgrade path played with the step (None: the scale step alone, nobody restarts)."""
    skipped: str | None = None
    """Why the option was not played (too large to play beside the plan), else None."""

    @property
    def label(self) -> str:
        """``+4 member(s)``, or ``+4 member(s) and eager-to-cooperative`` with an upgrade."""
        size = f"{self.scale:+d} member(s)"
        return size if self.upgrade is None else f"{size} and {self.upgrade}"

    def sentence(self) -> str:
        """``+4 member(s): backlog at 15.0 min 12.0M (18.1M without the deploy); ...; the
        backlog is gone after 40.0 min; the group keeps up``."""
        label = self.label
        outcome = self.outcome
        if self.skipped is not None:
            return f"{label}: not played ({self.skipped})"
        if outcome is None:
            return f"{label}: cannot run ({self.error})"
        marks = f"backlog {checkpoints_text(outcome)}"
        gone = (
            "the backlog never clears"
            if outcome.drained_at_s is None
            else f"the backlog is gone after {short_seconds(outcome.drained_at_s)}"
        )
        keeps = "keeps up" if self.keeps_up else "still cannot keep up"
        return f"{label}: {marks}; {gone}; the group {keeps}"

    def to_json(self) -> dict[str, Any]:
        """Plain JSON object."""
        return {
            "scale": self.scale,
            "upgrade": self.upgrade,
            "asked": self.asked,
            "keeps_up": self.keeps_up,
            "error": self.error,
            "skipped": self.skipped,
            "outcome": None if self.outcome is None else self.outcome.summary_json(),
            "sentence": self.sentence(),
        }


def _sizes(plan: DeployPlan, found: Capacity) -> list[int]:
    """Step 1."""
    asked = plan.scale
    if asked < 0:
        return sorted({s for s in (asked - 1, asked, asked + 1) if s < 0} | {asked})
    room = max(found.partitions - found.members, 1)
    needed = (found.members_needed or found.members) - found.members
    top = min(max(needed, 2 * asked), room)
    sizes = {asked}
    size = 1
    while size <= top and len(sizes) < MAX_OPTIONS:
        sizes.add(size)
        size *= 2
    if needed > 0 and needed <= room and len(sizes) < MAX_OPTIONS:
        sizes.add(needed)
    return sorted(sizes)


def _option(
    scenario: Scenario,
    strategy: str | PartitionStrategy,
    plan: DeployPlan,
    asked: bool,
    previous: Assignment | None,
    default_consume_rate: float,
    known: DeployOutcome | None = None,
) -> ScaleOption:
    outcome = known or played(scenario, strategy, plan, previous, default_consume_rate)
    if isinstance(outcome, str):
        return ScaleOption(plan.scale, asked, None, None, outcome, plan.upgrade)
    grown = _grown(scenario, outcome)
    keeps = capacity(grown, outcome.after, default_consume_rate).keeps_up
    return ScaleOption(plan.scale, asked, outcome, keeps, upgrade=plan.upgrade)


def _upgrades(strategy: str | PartitionStrategy) -> list[tuple[str, int]]:
    """Step 2: the upgrade paths that apply to ``strategy``, each with its bounces."""
    try:
        old = partition_strategy(strategy) if isinstance(strategy, str) else strategy
    except AssignmentExplorerError:
        return []  # a strategy that cannot run: the plain options say why
    paths = []
    for path in UPGRADES:
        try:
            paths.append((path, resolve(path, old).bounces))
        except AssignmentExplorerError:
            continue
    return paths


def _too_large(scenario: Scenario, plan: DeployPlan, bounces: int) -> str | None:
    """Why ``plan`` (an upgrade with a scale step) is not played beside the plan asked for
    (:data:`MAX_UPGRADE_WORK`), else None."""
    members = max(len(scenario.members) + plan.scale, 1)
    partitions = sum(topic.partitions for topic in scenario.topics)
    restarts = bounces * -(-members // plan.batch_size)
    if restarts * (members + partitions) <= MAX_UPGRADE_WORK:
        return None
    return (
        f"{restarts:,} restarts of {members:,} members, too many to play beside the plan;"
        " ask for it as the plan itself"
    )


def _grown(scenario: Scenario, outcome: DeployOutcome) -> Scenario:
    """The scenario with the members the step leaves (those holding in its final assignment,
    new ones subscribing like the first member)."""
    present = {m.member_id: m for m in scenario.members}
    first = scenario.members[0]
    members = tuple(
        present.get(member_id) or replace(first, member_id=member_id, owned_partitions=())
        for member_id in outcome.after.partitions
    )
    return replace(scenario, members=members)


def scale_options(
    scenario: Scenario,
    strategy: str | PartitionStrategy,
    plan: DeployPlan,
    *,
    previous: Assignment | None = None,
    default_consume_rate: float = DEFAULT_CONSUME_RATE,
    known: DeployOutcome | None = None,
) -> tuple[ScaleOption, ...]:
    """The scale step of ``plan`` at each size of step 1, smallest first, then at the size
    asked for with each upgrade of step 2 (empty when ``plan`` has no scale step). ``known``:
    ``plan``'s outcome when ``plan`` is the scale step alone (nobody restarts, no upgrade)."""
    if plan.scale == 0:
        return ()
    current = previous if previous is not None else current_assignment(scenario)
    found = capacity(scenario, current, default_consume_rate)
    only_scale = replace(plan, members=(), upgrade=None)
    reuse = known if plan == only_scale else None
    options: Sequence[ScaleOption] = [
        _option(
            scenario,
            strategy,
            replace(only_scale, scale=size),
            size == plan.scale,
            previous,
            default_consume_rate,
            reuse if size == plan.scale else None,
        )
        for size in _sizes(plan, found)
    ]
    upgraded = []
    for path, bounces in _upgrades(strategy):
        with_upgrade = replace(only_scale, members=None, upgrade=path)
        skipped = _too_large(scenario, with_upgrade, bounces)
        upgraded.append(
            ScaleOption(plan.scale, False, None, None, upgrade=path, skipped=skipped)
            if skipped
            else _option(scenario, strategy, with_upgrade, False, previous, default_consume_rate)
        )
    return (*options, *upgraded)

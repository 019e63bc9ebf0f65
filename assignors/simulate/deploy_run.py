"""The deploy played step by step (steps 2-3 of :mod:`assignors.simulate.deploy`): a mutable
accumulator of phases, like :class:`assignors.simulate.rebalance._Timeline`, and one function per
kind of step. Only :func:`assignors.simulate.deploy.plan_deploy` uses it.

Invariants: the phases are back to back (each starts where the one before ended); a member is
in ``Run.group`` exactly while the coordinator counts it in the group; ``Run.holding`` is what the
members present own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from assignors.model import Assignment, Member, Scenario, TopicPartition
from assignors.simulate import changes as change_ops
from assignors.simulate import metrics as metric_ops
from assignors.simulate import rebalance
from assignors.simulate.deploy_plan import DeployError, DeployPlan
from assignors.simulate.deploy_upgrade import Upgrade, stages_of
from assignors.strategy import PartitionStrategy, RebalanceProtocol


@dataclass
class Tally:
    """What one step did so far."""

    rebalances: int = 0
    rounds: int = 0
    moved: int = 0
    protocol: RebalanceProtocol | None = None
    notes: list[str] = field(default_factory=list)


class Run:
    """The group as the deploy goes: who is present and owns what, the clock, the phases."""

    def __init__(
        self, group: Scenario, holding: Assignment, upgrade: Upgrade, plan: DeployPlan
    ) -> None:
        self.group = group
        self.holding = holding
        self.upgrade = upgrade
        self.plan = plan
        self.timings = plan.settings.timings(plan.restart_s)
        self.in_play = frozenset(subscribed(group)) | frozenset(holding.owner_of())
        self.clock = 0.0
        self.phases: list[rebalance.Phase] = []
        self.restarting_in: list[tuple[str, ...]] = []
        self.restarting: tuple[str, ...] = ()
        self.down_until: dict[str, float] = {}
        self.stage: dict[str, int] = {}
        self.converted = False
        self.tally = Tally()

    def present(self) -> list[str]:
        """Member ids in the group now, in join order."""
        return [m.member_id for m in self.group.members]

    def choice(self, members: Iterable[str]) -> tuple[PartitionStrategy, RebalanceProtocol]:
        """The assignor selected and the protocol run with ``members`` present."""
        stages = stages_of(self.stage, list(members))
        return self.upgrade.selected(stages, self.converted), self.upgrade.protocol(stages)

    def add(self, phase: rebalance.Phase) -> None:
        """Append ``phase``; members down (:attr:`down_until`) as it starts read nothing in it."""
        down = [m for m, until in self.down_until.items() if phase.start_s < until]
        if down and any(phase.consuming.get(m) for m in down):
            stopped = frozenset(tp for m in down for tp in phase.consuming.get(m, ()))
            consuming = {m: () if m in down else tps for m, tps in phase.consuming.items()}
            paused = metric_ops.sorted_partitions(stopped.union(phase.paused))
            phase = replace(phase, consuming=MappingProxyType(consuming), paused=tuple(paused))
        self.phases.append(phase)
        self.restarting_in.append(self.restarting)

    def rebalance_to(self, after: Scenario) -> None:
        """One rebalance from the group now to ``after`` (its members), shifted to the clock."""
        strategy, protocol = self.choice(m.member_id for m in after.members)
        played = self.upgrade.with_protocol(strategy, protocol)
        settlement = rebalance.settle(self.group, after, played, previous=self.holding)
        simulation = rebalance.play(settlement, timings=self.timings)
        for phase in simulation.phases:
            self.add(replace(phase, start_s=phase.start_s + self.clock))
        self.clock += simulation.duration_s
        self.tally.rebalances += 1
        self.tally.rounds += simulation.rounds
        self.tally.moved += metric_ops.movement(self.holding, simulation.target).moved_count
        self.tally.protocol = protocol
        self.tally.notes.extend(simulation.notes)
        self.group = change_ops.with_current_ownership(after, simulation.target)
        self.holding = simulation.target
        if self.upgrade.path == "classic-to-consumer" and strategy is self.upgrade.new:
            self.converted = True

    def membership_to(self, after: Scenario) -> None:
        """The group from its members now to ``after``'s: one rebalance (a classic join barrier
        takes every member that leaves or joins together), or under the consumer protocol one
        per member that leaves, then one per member that joins, in order: KIP-848 has no
        barrier, so each leave or join bumps the group epoch and the broker computes a target
        for it."""
        if self.choice(m.member_id for m in after.members)[1] != "consumer":
            self.rebalance_to(after)
            return
        wanted = {m.member_id for m in after.members}
        present = set(self.present())
        leaving = [m for m in self.present() if m not in wanted]
        joining = [m for m in after.members if m.member_id not in present]
        for member_id in leaving:
            self.rebalance_to(self.without([member_id]))
        for member in joining:
            self.rebalance_to(replace(self.group, members=(*self.group.members, member)))
        if not leaving and not joining:
            self.rebalance_to(after)

    def steady(self, name: str, reason: str, duration_s: float, down: Sequence[str] = ()) -> None:
        """A phase in which nothing changes hands; ``down`` members read nothing."""
        if duration_s <= 0:
            return
        present = self.present()
        owned = {m: tuple(self.holding.partitions.get(m, ())) for m in present}
        consuming = {m: () if m in down else owned[m] for m in present}
        read = frozenset(tp for tps in consuming.values() for tp in tps)
        self.add(
            rebalance.Phase(
                name=name,
                reason=reason,
                start_s=self.clock,
                duration_s=duration_s,
                owned=MappingProxyType(owned),
                consuming=MappingProxyType(consuming),
                paused=tuple(metric_ops.sorted_partitions(self.in_play - read)),
                revoked=(),
                assigned=(),
                waiting=(),
            )
        )
        self.clock += duration_s

    def without(self, leaving: Sequence[str]) -> Scenario:
        """The group without ``leaving``."""
        gone = set(leaving)
        return replace(
            self.group, members=tuple(m for m in self.group.members if m.member_id not in gone)
        )


def subscribed(scenario: Scenario) -> list[TopicPartition]:
    """Every partition of a topic some member subscribes to."""
    topics = set(scenario.subscribed_existing_topics())
    return [tp for t in scenario.topics if t.name in topics for tp in t.topic_partitions()]


def fresh(member: Member) -> Member:
    """``member`` coming back from a restart: it owns nothing and states no generation."""
    return replace(member, owned_partitions=(), generation=None)


# --- the steps ----------------------------------------------------------------------------------


def scale(run: Run, count: int, static: bool | None) -> tuple[str, tuple[str, ...], str]:
    """Step 2 of :mod:`assignors.simulate.deploy`: ``count`` members join (> 0) or the last
    ``-count`` leave; one rebalance (one per member under the consumer protocol:
    :meth:`Run.membership_to`). Returns (action, members, description)."""
    members = run.group.members
    if count > 0:
        first = members[0]
        grown = change_ops.apply_one(run.group, change_ops.AddMembers(count, first.consume_rate))
        joined = grown.members[len(members) :]
        if static:
            joined = tuple(replace(m, group_instance_id=m.member_id) for m in joined)
        run.membership_to(replace(grown, members=(*members, *joined)))
        names = tuple(m.member_id for m in joined)
        return "scale out", names, f"{count} member(s) join: {', '.join(names)}"
    if -count >= len(members):
        raise DeployError(
            f"scale -{-count}: the group has {len(members)} member(s); at least one must stay"
        )
    leaving = tuple(m.member_id for m in members[len(members) + count :])
    silent = [m for m in leaving if _static(run, m)]
    run.membership_to(run.without(leaving))
    how = " (static: noticed after the session timeout)" if silent else ""
    return "scale in", leaving, f"{-count} member(s) leave: {', '.join(leaving)}{how}"


def _static(run: Run, member_id: str) -> bool:
    return any(m.member_id == member_id and m.group_instance_id for m in run.group.members)


def restart(run: Run, batch: Sequence[Member], next_stage: int) -> str:
    """Step 3 of :mod:`assignors.simulate.deploy` for one batch; returns its description."""
    ids = tuple(m.member_id for m in batch)
    settings, restart_s = run.plan.settings, run.plan.restart_s
    present = run.present()
    within = restart_s < settings.session_timeout_s
    before = run.choice(present)[0]
    staged = {**run.stage, **dict.fromkeys(ids, next_stage)}
    after_choice = run.upgrade.selected(stages_of(staged, present), run.converted)
    selection_changes = after_choice is not before
    all_static = all(m.group_instance_id for m in batch)
    run.restarting = ids
    if all_static and within:
        run.steady(
            "static restart",
            f"static member(s) {', '.join(ids)} restart within the session timeout: the"
            " coordinator keeps their partitions and nobody else notices",
            restart_s,
            down=ids,
        )
        run.restarting = ()
        run.stage = staged
        if selection_changes:
            run.rebalance_to(run.group)
            return f"static restart of {', '.join(ids)}; the group then selects {after_choice.name}"
        return f"static restart of {', '.join(ids)}: no rebalance"
    delay = settings.scheduled_rebalance_max_delay_s
    leave_protocol = run.choice(m for m in present if m not in ids)[1]
    if (
        not all_static
        and delay is not None
        and leave_protocol == "cooperative"
        and restart_s <= delay
        and not selection_changes
    ):
        run.steady(
            "held for returning member",
            f"scheduled.rebalance.max.delay.ms: the partitions of {', '.join(ids)} are held for"
            " them while they restart (a rebalance that moves nothing when they leave and when"
            " they come back)",
            restart_s,
            down=ids,
        )
        run.tally.rebalances += 2
        run.tally.protocol = "cooperative"
        run.restarting = ()
        run.stage = staged
        return f"restart of {', '.join(ids)} within the scheduled rebalance delay: nothing moves"
    staying = [m for m in batch if m.group_instance_id and within]
    if staying:  # a mixed batch: its static members stay in the group, down for restart_s
        for member in staying:
            run.down_until[member.member_id] = run.clock + restart_s
        leaving = [m for m in batch if m not in staying]
        text = _leave_and_rejoin(run, leaving, staged, all_static=False)
        run.down_until.clear()
        kept = ", ".join(m.member_id for m in staying)
        return f"{text}; static {kept} restart(s) meanwhile, keeping their partitions"
    return _leave_and_rejoin(run, batch, staged, all_static)


def _leave_and_rejoin(
    run: Run, batch: Sequence[Member], staged: dict[str, int], all_static: bool
) -> str:
    """Step 3c: the batch leaves (a rebalance), comes back, rejoins (another)."""
    ids = tuple(m.member_id for m in batch)
    settings, restart_s = run.plan.settings, run.plan.restart_s
    went_down = run.clock
    remaining = run.without(ids)
    if remaining.members:
        run.membership_to(remaining)
    else:
        if all_static:
            run.steady(
                "detect departure",
                "every member is down without a LeaveGroup: the coordinator notices when the"
                " session times out",
                settings.session_timeout_s,
                down=ids,
            )
        run.group = remaining
        run.holding = Assignment.of([], {})
    run.steady(
        "restarting",
        f"{', '.join(ids)} restart(s); the others read what the rebalance gave them",
        went_down + restart_s - run.clock,
        down=list(run.down_until),
    )
    run.restarting = ()
    run.stage = staged
    rejoined = replace(run.group, members=(*run.group.members, *(fresh(m) for m in batch)))
    if not run.group.members and run.choice(ids)[1] != "consumer":
        run.steady(
            "initial rebalance delay",
            "the group was empty: the coordinator waits group.initial.rebalance.delay.ms for"
            " more members before the first rebalance",
            settings.group_initial_rebalance_delay_s,
        )
    run.membership_to(rejoined)
    kind = "static, down past the session timeout" if all_static else "dynamic"
    return f"{', '.join(ids)} leave ({kind}), and rejoin after {restart_s:g} s"

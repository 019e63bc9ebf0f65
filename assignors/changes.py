"""Changes to a consumer group, as pure functions ``Scenario -> Scenario``.

The CLI's ``compare``, the dashboard and the pipeline apply the same changes through this one
module: a member joins, leaves (or, being static, restarts), changes its subscription, or a topic
gains partitions. Every function returns a new scenario and never mutates its input.

How a list of changes is applied (:func:`apply_changes`):

1. The *current assignment* (:func:`current_assignment`) is what the group consumes now: the
   members' ``owned_partitions`` (overlapping claims resolved as in
   :func:`assignors.metrics.owned_assignment`: highest generation, then smallest member id). A
   scenario in which nobody owns anything has not rebalanced yet; its current assignment is what
   the strategy named by the scenario's ``assignor`` field computes, or ``range`` (Kafka's
   default) when it names none.
2. Every member then owns exactly its part of the current assignment, in generation
   (highest generation so far, or 0) + 1, which is how the next rebalance looks to the assignor
   (the same convention as walkthrough steps in :mod:`assignors.scenario_io`).
3. The changes apply in order, each checked against the scenario left by the ones before it.
   All of them together are one change to the group: one rebalance follows.

Invariants: member ids stay unique; added members own nothing; removed members' partitions are
owned by nobody; a topic only grows (Kafka cannot shrink one); a change that makes no sense
(unknown member or topic, adding a member twice or one removed by the same change, a no-op)
raises :class:`ChangeError` naming it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from assignors import registry
from assignors.errors import AssignmentExplorerError, StrategyNotApplicableError
from assignors.metrics import owned_assignment
from assignors.model import Assignment, Member, Scenario
from assignors.scenario_io import ScenarioChange
from assignors.scenario_io import apply_change as _grow_topics
from assignors.strategy import PartitionStrategy

#: The strategy that computes the current assignment of a scenario that names none (Kafka's
#: default ``partition.assignment.strategy`` starts with the RangeAssignor).
DEFAULT_ASSIGNOR = "range"


class ChangeError(AssignmentExplorerError, ValueError):
    """A change that cannot apply to this scenario; the message says which and why."""


@dataclass(frozen=True, slots=True)
class AddMember:
    """A new member joins. ``topics`` ``None``: it subscribes like the first member."""

    member_id: str
    topics: tuple[str, ...] | None = None
    rack: str | None = None
    group_instance_id: str | None = None
    consume_rate: float | None = None


@dataclass(frozen=True, slots=True)
class RemoveMember:
    """A member leaves the group.

    With ``static_restart`` the member is static (has a ``group_instance_id``) and comes back
    within ``session.timeout.ms``: the coordinator keeps its assignment and no rebalance happens;
    the scenario stays as it is and only the member's own partitions pause while it restarts (see
    :func:`assignors.rebalance.simulate`'s ``restarted``).
    """

    member_id: str
    static_restart: bool = False


@dataclass(frozen=True, slots=True)
class Subscribe:
    """A member replaces its subscription with ``topics``."""

    member_id: str
    topics: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SetPartitions:
    """A topic grows to ``partitions`` partitions."""

    topic: str
    partitions: int


Change = AddMember | RemoveMember | Subscribe | SetPartitions


def current_assignment(scenario: Scenario) -> Assignment:
    """What the group consumes now (step 1 of the module docstring); lists every member.

    Raises :class:`~assignors.errors.UnknownStrategyError` when the scenario's ``assignor`` is not
    a registered strategy and :class:`~assignors.errors.StrategyNotApplicableError` when it is a
    Kafka Streams task strategy.
    """
    owned = owned_assignment(scenario)
    if any(owned.partitions.values()):
        return owned
    strategy = registry.get(scenario.assignor or DEFAULT_ASSIGNOR)
    if not isinstance(strategy, PartitionStrategy):
        raise StrategyNotApplicableError(
            f"scenario assignor {strategy.name!r} assigns Kafka Streams tasks, not partitions"
        )
    return strategy.assign(scenario)


def with_current_ownership(scenario: Scenario, current: Assignment | None = None) -> Scenario:
    """``scenario`` with every member owning its part of ``current`` (default: step 1), step 2."""
    if current is None:
        current = current_assignment(scenario)
    generation = max((m.generation or 0 for m in scenario.members), default=0) + 1
    members = tuple(
        replace(
            member,
            owned_partitions=tuple(current.partitions.get(member.member_id, ())),
            generation=generation,
        )
        for member in scenario.members
    )
    return replace(scenario, members=members)


def _member_ids(scenario: Scenario) -> list[str]:
    return [member.member_id for member in scenario.members]


def _check_member(scenario: Scenario, member_id: str) -> Member:
    for member in scenario.members:
        if member.member_id == member_id:
            return member
    known = ", ".join(_member_ids(scenario)) or "none"
    raise ChangeError(f"no member {member_id!r} in the group (members: {known})")


def _check_topics(scenario: Scenario, topics: Sequence[str], what: str) -> tuple[str, ...]:
    if not topics:
        raise ChangeError(f"{what}: give at least one topic")
    counts = scenario.partition_counts()
    unknown = [topic for topic in topics if topic not in counts]
    if unknown:
        raise ChangeError(
            f"{what}: no topic {unknown[0]!r} in the scenario (topics: {', '.join(counts)})"
        )
    if len(set(topics)) != len(topics):
        raise ChangeError(f"{what}: a topic is listed twice")
    return tuple(topics)


def add_member(
    scenario: Scenario,
    member_id: str,
    topics: Sequence[str] | None = None,
    *,
    rack: str | None = None,
    group_instance_id: str | None = None,
    consume_rate: float | None = None,
) -> Scenario:
    """``scenario`` with a new member that owns nothing; ``topics`` ``None``: like the first."""
    if not member_id:
        raise ChangeError("add member: the member id is empty")
    if member_id in _member_ids(scenario):
        raise ChangeError(f"add member: {member_id!r} is already in the group")
    if topics is None:
        if not scenario.members:
            raise ChangeError(
                f"add member {member_id!r}: the group has no member to copy the subscription"
                " from; give the topics as ID:topic,topic"
            )
        topics = scenario.members[0].topics
    else:
        topics = _check_topics(scenario, topics, f"add member {member_id!r}")
    member = Member(
        member_id=member_id,
        topics=tuple(topics),
        rack=rack,
        group_instance_id=group_instance_id,
        consume_rate=consume_rate,
    )
    return replace(scenario, members=(*scenario.members, member))


def remove_member(scenario: Scenario, member_id: str, *, static_restart: bool = False) -> Scenario:
    """``scenario`` without ``member_id``; with ``static_restart`` unchanged (see RemoveMember)."""
    member = _check_member(scenario, member_id)
    if static_restart:
        if member.group_instance_id is None:
            raise ChangeError(
                f"restart member {member_id!r}: it has no group_instance_id, so it is dynamic and"
                " a restart is a leave plus a join; remove it and add it instead"
            )
        return scenario
    return replace(scenario, members=tuple(m for m in scenario.members if m is not member))


def subscribe(scenario: Scenario, member_id: str, topics: Sequence[str]) -> Scenario:
    """``scenario`` with ``member_id`` subscribed to exactly ``topics`` (keeps what it owns)."""
    member = _check_member(scenario, member_id)
    checked = _check_topics(scenario, topics, f"subscribe {member_id!r}")
    if sorted(checked) == sorted(member.topics):
        raise ChangeError(f"subscribe {member_id!r}: it already subscribes to exactly these topics")
    members = tuple(replace(m, topics=checked) if m is member else m for m in scenario.members)
    return replace(scenario, members=members)


def set_partitions(scenario: Scenario, topic: str, partitions: int) -> Scenario:
    """``scenario`` with ``topic`` grown to ``partitions`` (new partitions: no lag, no rate)."""
    counts = scenario.partition_counts()
    if topic not in counts:
        raise ChangeError(
            f"partitions: no topic {topic!r} in the scenario (topics: {', '.join(counts)})"
        )
    if partitions < counts[topic]:
        raise ChangeError(
            f"partitions: topic {topic!r} has {counts[topic]} partitions and Kafka cannot shrink"
            f" a topic to {partitions}"
        )
    if partitions == counts[topic]:
        raise ChangeError(f"partitions: topic {topic!r} already has {partitions} partitions")
    return _grow_topics(scenario, ScenarioChange(partitions={topic: partitions}))


def _apply_one(scenario: Scenario, change: Change) -> Scenario:
    if isinstance(change, AddMember):
        return add_member(
            scenario,
            change.member_id,
            change.topics,
            rack=change.rack,
            group_instance_id=change.group_instance_id,
            consume_rate=change.consume_rate,
        )
    if isinstance(change, RemoveMember):
        return remove_member(scenario, change.member_id, static_restart=change.static_restart)
    if isinstance(change, Subscribe):
        return subscribe(scenario, change.member_id, change.topics)
    return set_partitions(scenario, change.topic, change.partitions)


def apply_changes(
    scenario: Scenario, changes: Iterable[Change], current: Assignment | None = None
) -> Scenario:
    """The scenario after all ``changes`` (steps 1-3 of the module docstring).

    ``current`` overrides the current assignment of step 1 (default :func:`current_assignment`).
    """
    result = with_current_ownership(scenario, current)
    removed: set[str] = set()
    for change in changes:
        if isinstance(change, AddMember) and change.member_id in removed:
            raise ChangeError(
                f"add member: {change.member_id!r} is removed by this same change; a consumer that"
                " leaves and joins again gets a new member id (a static member that comes back"
                " within the session timeout is a restart)"
            )
        result = _apply_one(result, change)
        if isinstance(change, RemoveMember) and not change.static_restart:
            removed.add(change.member_id)
    return result


def apply_change(scenario: Scenario, change: Change, current: Assignment | None = None) -> Scenario:
    """The scenario after one change (:func:`apply_changes` with one item)."""
    return apply_changes(scenario, [change], current)


def restarted_members(changes: Iterable[Change]) -> tuple[str, ...]:
    """Members that restart as static members (no rebalance), in the order given."""
    return tuple(
        change.member_id
        for change in changes
        if isinstance(change, RemoveMember) and change.static_restart
    )


def describe(change: Change) -> str:
    """One line saying what the change does, for tables and logs."""
    if isinstance(change, AddMember):
        topics = "like the first member" if change.topics is None else ",".join(change.topics)
        return f"add member {change.member_id} ({topics})"
    if isinstance(change, RemoveMember):
        if change.static_restart:
            return f"restart static member {change.member_id}"
        return f"remove member {change.member_id}"
    if isinstance(change, Subscribe):
        return f"subscribe {change.member_id} to {','.join(change.topics)}"
    return f"grow {change.topic} to {change.partitions} partitions"

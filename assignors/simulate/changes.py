"""Changes to a consumer group, as pure functions ``Scenario -> Scenario``.

The CLI's ``compare``, the dashboard, the pipeline and the samples' walkthroughs
(:mod:`assignors.io.walkthrough`) change a scenario through this one module: a member joins, leaves
(or, being static, restarts), changes its subscription, or a topic gains partitions. Every
function returns a new scenario and never mutates its input.

How a list of changes is applied (:func:`apply_changes`):

1. The *current assignment* (:func:`current_assignment`) is what the group consumes now: the
   members' ``owned_partitions`` (overlapping claims resolved as in
   :func:`assignors.simulate.metrics.owned_assignment`: highest generation, then smallest member
   id). A scenario in which nobody owns anything has not rebalanced yet; its current assignment is
   what the strategy named by the scenario's ``assignor`` field computes, or ``range`` (Kafka's
   default) when it names none.
2. Every member then owns exactly its part of the current assignment, in generation
   (highest generation so far, or 0) + 1, which is how the next rebalance looks to the assignor.
3. The changes apply in order (:func:`apply_in_order`), each checked against the scenario left
   by the ones before it. All of them together are one change to the group: one rebalance
   follows.

A topic grows (:class:`SetPartitions`) with its per-partition arrays padded for the new
partitions: offsets 0, no commit, lag 0, produce rate 0, no replica racks.

Besides membership and partition counts, three changes edit facts about partitions (what-if
inputs rather than group events): :class:`SetLags` and :class:`SetProduceRates` set the lag or
produce rate of some partitions of a topic, and :class:`SkewLag` makes some partitions of every
topic hot, Zipf-like (seeded, spread over the topic; the hottest ``factor`` times its lag, at
least ``floor``), to see which strategy spreads the lag.
:func:`apply_one` applies any single change on its own (no ownership step), e.g. to shape the
scenario a comparison starts from.

Every change is checked against the size limits of :mod:`assignors.limits` before it applies
(members in the group, member id length, partitions per topic and in all), so that no change
can exhaust memory.

Invariants: member ids stay unique; added members own nothing unless the change says they do
(``AddMember.owned_partitions``); removed members' partitions are owned by nobody; a topic only
grows (Kafka cannot shrink one); lags stay integers >= 0 and produce rates finite numbers >= 0;
a change that makes no sense (unknown member or topic or partition, adding a member twice or one
removed by the same change, a no-op, a negative value) raises :class:`ChangeError` naming it.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields, replace
from typing import TypeVar

from assignors import registry
from assignors.errors import AssignmentExplorerError, StrategyNotApplicableError
from assignors.limits import (
    MAX_MEMBERS,
    MAX_NAME_LENGTH,
    MAX_PARTITIONS_PER_TOPIC,
    MAX_TOTAL_PARTITIONS,
)
from assignors.model import Assignment, Member, Scenario, Topic, TopicPartition
from assignors.simulate.lag import partition_lags
from assignors.simulate.metrics import owned_assignment
from assignors.strategy import PartitionStrategy

T = TypeVar("T")

#: The strategy that computes the current assignment of a scenario that names none (Kafka's
#: default ``partition.assignment.strategy`` starts with the RangeAssignor).
DEFAULT_ASSIGNOR = "range"


class ChangeError(AssignmentExplorerError, ValueError):
    """A change that cannot apply to this scenario; the message says which and why.

    ``index`` is the failing change's position in the list given to :func:`apply_in_order` /
    :func:`apply_changes` (``None`` when raised for a change on its own).
    """

    def __init__(self, message: str, index: int | None = None) -> None:
        super().__init__(message)
        self.index = index


@dataclass(frozen=True, slots=True)
class AddMember:
    """A new member joins. ``topics`` ``None``: it subscribes like the first member.

    The other fields are the :class:`~assignors.model.Member` fields of the same name (a
    walkthrough's ``add_members`` entry may state any of them); by default the member owns
    nothing and states no generation.
    """

    member_id: str
    topics: tuple[str, ...] | None = None
    rack: str | None = None
    group_instance_id: str | None = None
    consume_rate: float | None = None
    priority: int | None = None
    """The member's failover priority (``Member.priority``; ``None``: it states none)."""
    client_id: str | None = None
    host: str | None = None
    owned_partitions: tuple[TopicPartition, ...] = ()
    generation: int | None = None


@dataclass(frozen=True, slots=True)
class AddMembers:
    """``count`` new members join, named ``new-1``, ``new-2``, ... (skipping ids already taken),
    each subscribed like the first member and reading ``consume_rate`` records/s (``None``: the
    scenario states none)."""

    count: int
    consume_rate: float | None = None


@dataclass(frozen=True, slots=True)
class RemoveMember:
    """A member leaves the group.

    With ``static_restart`` the member is static (has a ``group_instance_id``) and comes back
    within ``session.timeout.ms``: the coordinator keeps its assignment and no rebalance happens;
    the scenario stays as it is and only the member's own partitions pause while it restarts (see
    :func:`assignors.simulate.rebalance.simulate`'s ``restarted``).
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


@dataclass(frozen=True, slots=True)
class SetLags:
    """Partitions of ``topic`` get a new lag: ``lags`` holds ``(partition, lag)`` pairs.

    The topic's other partitions keep the lag :mod:`assignors.simulate.lag` gives them; afterwards
    the topic states its lags explicitly (``Topic.lags``).
    """

    topic: str
    lags: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class SetProduceRates:
    """Partitions of ``topic`` get a new produce rate (records/s): ``(partition, rate)`` pairs.

    The topic's other partitions keep their rate (0 when the topic states none).
    """

    topic: str
    rates: tuple[tuple[int, float], ...]


#: "Skew the lag": the hot share of each topic's partitions gets this many times its lag...
SKEW_FACTOR = 10
#: ...and at least this lag, so that a skew shows even where there was none.
SKEW_FLOOR = 10_000
#: The share of each topic's partitions (at least one) made hot.
SKEW_SHARE = 0.25


@dataclass(frozen=True, slots=True)
class SkewLag:
    """Hot partitions, Zipf-like: in every topic, ``share`` of the partitions (at least one),
    picked by a seeded shuffle of the topic's partitions (:func:`skew_ranks`), get ranks
    1, 2, 3, ...; the partition of rank ``r`` gets ``max(lag, lag * factor // r, floor // r)``.

    The hottest gets ``factor`` times its lag and at least ``floor``, the next half that, and so
    on. Spread over the topic rather than on its first partitions (which every strategy gives to
    the same member), the hot spots land on different members under different strategies.
    Same scenario and seed, same answer."""

    factor: int = SKEW_FACTOR
    floor: int = SKEW_FLOOR
    share: float = SKEW_SHARE
    seed: int = 0


Change = (
    AddMember
    | AddMembers
    | RemoveMember
    | Subscribe
    | SetPartitions
    | SetLags
    | SetProduceRates
    | SkewLag
)


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
    priority: int | None = None,
) -> Scenario:
    """``scenario`` with a new member that owns nothing; ``topics`` ``None``: like the first.

    The member's other fields: :class:`AddMember` with :func:`apply_one`.
    """
    change = AddMember(
        member_id,
        None if topics is None else tuple(topics),
        rack=rack,
        group_instance_id=group_instance_id,
        consume_rate=consume_rate,
        priority=priority,
    )
    return _join(scenario, change)


def joining_member(change: AddMember, topics: Sequence[str]) -> Member:
    """The member ``change`` adds, subscribed to ``topics`` (AddMember's fields are Member's)."""
    values = {field.name: getattr(change, field.name) for field in fields(AddMember)}
    return Member(**{**values, "topics": tuple(topics)})


def _check_room(scenario: Scenario, joining: int) -> None:
    """The group stays within :data:`~assignors.limits.MAX_MEMBERS` members."""
    if len(scenario.members) + joining > MAX_MEMBERS:
        raise ChangeError(
            f"add member: the group would have {len(scenario.members) + joining:,} members;"
            f" at most {MAX_MEMBERS:,}"
        )


def _join(scenario: Scenario, change: AddMember) -> Scenario:
    member_id = change.member_id
    if not member_id:
        raise ChangeError("add member: the member id is empty")
    if len(member_id) > MAX_NAME_LENGTH:
        raise ChangeError(
            f"add member: the member id is {len(member_id):,} characters long;"
            f" at most {MAX_NAME_LENGTH:,}"
        )
    _check_room(scenario, 1)
    if member_id in _member_ids(scenario):
        raise ChangeError(f"add member: {member_id!r} is already in the group")
    if change.topics is None:
        if not scenario.members:
            raise ChangeError(
                f"add member {member_id!r}: the group has no member to copy the subscription"
                " from; give the topics as ID:topic,topic"
            )
        topics = scenario.members[0].topics
    else:
        topics = _check_topics(scenario, change.topics, f"add member {member_id!r}")
    return replace(scenario, members=(*scenario.members, joining_member(change, topics)))


def _join_many(scenario: Scenario, change: AddMembers) -> Scenario:
    """``change.count`` fresh members (see :class:`AddMembers`)."""
    count = change.count
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ChangeError(f"add members: the count must be a whole number >= 1, got {count!r}")
    _check_room(scenario, count)
    taken = set(_member_ids(scenario))
    names = (f"new-{i}" for i in itertools.count(1))
    fresh = list(itertools.islice((n for n in names if n not in taken), count))
    if not scenario.members:
        return _join(scenario, AddMember(fresh[0], consume_rate=change.consume_rate))  # says why
    # One new tuple for all of them: joining one at a time copied the members each time
    # (20,000 members took ~4 s, 100,000 about a minute and a half).
    topics = scenario.members[0].topics
    joining = (
        joining_member(AddMember(name, consume_rate=change.consume_rate), topics) for name in fresh
    )
    return replace(scenario, members=(*scenario.members, *joining))


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
    if partitions > MAX_PARTITIONS_PER_TOPIC:
        raise ChangeError(
            f"partitions: topic {topic!r} cannot grow to {partitions:,} partitions; at most"
            f" {MAX_PARTITIONS_PER_TOPIC:,} per topic"
        )
    total = sum(counts.values()) - counts[topic] + partitions
    if total > MAX_TOTAL_PARTITIONS:
        raise ChangeError(
            f"partitions: growing {topic!r} to {partitions:,} makes {total:,} partitions in all;"
            f" at most {MAX_TOTAL_PARTITIONS:,}"
        )
    grown = _grow_topic(scenario.topic_by_name()[topic], partitions)
    return _with_topic(scenario, grown)


def _grow_topic(topic: Topic, count: int) -> Topic:
    """``topic`` with ``count`` partitions, its per-partition arrays padded for the new ones."""
    extra = count - topic.partitions

    def pad(values: tuple[T, ...] | None, filler: T) -> tuple[T, ...] | None:
        return None if values is None else (*values, *([filler] * extra))

    return replace(
        topic,
        partitions=count,
        replica_racks=pad(topic.replica_racks, ()),
        lags=pad(topic.lags, 0),
        log_start_offsets=pad(topic.log_start_offsets, 0),
        log_end_offsets=pad(topic.log_end_offsets, 0),
        committed_offsets=pad(topic.committed_offsets, None),
        produce_rates=pad(topic.produce_rates, 0.0),
    )


def _topic(scenario: Scenario, name: str, what: str) -> Topic:
    topic = scenario.topic_by_name().get(name)
    if topic is None:
        known = ", ".join(scenario.partition_counts()) or "none"
        raise ChangeError(f"{what}: no topic {name!r} in the scenario (topics: {known})")
    return topic


def _with_topic(scenario: Scenario, topic: Topic) -> Scenario:
    return replace(
        scenario, topics=tuple(topic if t.name == topic.name else t for t in scenario.topics)
    )


def _per_partition(
    topic: Topic, values: Iterable[tuple[int, float]], what: str
) -> dict[int, float]:
    """``values`` as partition -> value, checked: existing partitions, finite numbers >= 0."""
    checked: dict[int, float] = {}
    for partition, value in values:
        if isinstance(partition, bool) or not isinstance(partition, int):
            raise ChangeError(f"{what} of {topic.name}: partition {partition!r} is not a number")
        if not 0 <= partition < topic.partitions:
            raise ChangeError(
                f"{what} of {topic.name}-{partition}: no such partition ({topic.name} has"
                f" {topic.partitions})"
            )
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or value < 0
        ):
            raise ChangeError(
                f"{what} of {topic.name}-{partition} must be a number >= 0, got {value!r}"
            )
        checked[partition] = value
    if not checked:
        raise ChangeError(f"{what} of {topic.name}: give at least one partition")
    return checked


def set_lags(scenario: Scenario, topic: str, lags: Iterable[tuple[int, int]]) -> Scenario:
    """``scenario`` where the given partitions of ``topic`` have the given lag (see SetLags)."""
    chosen = _topic(scenario, topic, "lag")
    new = _per_partition(chosen, lags, "lag")
    if any(value != int(value) for value in new.values()):
        raise ChangeError(f"lag of {topic}: a lag is a whole number of records")
    values = partition_lags(chosen, scenario.auto_offset_reset)
    for partition, value in new.items():
        values[partition] = int(value)
    return _with_topic(scenario, replace(chosen, lags=tuple(values)))


def set_produce_rates(
    scenario: Scenario, topic: str, rates: Iterable[tuple[int, float]]
) -> Scenario:
    """``scenario`` where the given partitions of ``topic`` get these produce rates."""
    chosen = _topic(scenario, topic, "produce rate")
    new = _per_partition(chosen, rates, "produce rate")
    values = list(chosen.produce_rates or (0.0,) * chosen.partitions)
    for partition, value in new.items():
        values[partition] = float(value)
    return _with_topic(scenario, replace(chosen, produce_rates=tuple(values)))


def skew_ranks(topic: str, partitions: int, share: float, seed: int = 0) -> list[int]:
    """The hot partitions of ``topic`` for :class:`SkewLag`, hottest first: ``share`` of its
    ``partitions`` (at least one), in the order a shuffle seeded by ``seed`` and the topic's
    name puts them (the same on every platform and Python version)."""
    hot = min(max(1, int(partitions * share)), partitions)
    return random.Random(f"skew-lag:{seed}:{topic}").sample(range(partitions), hot)


def skew_lag(
    scenario: Scenario,
    factor: int = SKEW_FACTOR,
    floor: int = SKEW_FLOOR,
    share: float = SKEW_SHARE,
    seed: int = 0,
) -> Scenario:
    """``scenario`` with hot partitions in every topic (see :class:`SkewLag`)."""
    if isinstance(factor, bool) or not isinstance(factor, int) or factor < 1:
        raise ChangeError(f"skew the lag: the factor must be a whole number >= 1, got {factor!r}")
    if isinstance(floor, bool) or not isinstance(floor, int) or floor < 0:
        raise ChangeError(f"skew the lag: the floor must be a whole number >= 0, got {floor!r}")
    if not (isinstance(share, int | float) and 0 < share <= 1):
        raise ChangeError(f"skew the lag: the share must be in (0, 1], got {share!r}")
    if not scenario.topics:
        raise ChangeError("skew the lag: the scenario has no topic")
    topics = []
    for topic in scenario.topics:
        values = partition_lags(topic, scenario.auto_offset_reset)
        if topic.partitions:
            ranked = skew_ranks(topic.name, topic.partitions, share, seed)
            for rank, partition in enumerate(ranked, start=1):
                old = values[partition]
                values[partition] = max(old, old * factor // rank, floor // rank)
        topics.append(replace(topic, lags=tuple(values)))
    return replace(scenario, topics=tuple(topics))


def apply_one(scenario: Scenario, change: Change) -> Scenario:
    """``scenario`` after ``change`` alone: no ownership step (steps 1-2), only step 3."""
    if isinstance(change, AddMember):
        return _join(scenario, change)
    if isinstance(change, AddMembers):
        return _join_many(scenario, change)
    if isinstance(change, RemoveMember):
        return remove_member(scenario, change.member_id, static_restart=change.static_restart)
    if isinstance(change, Subscribe):
        return subscribe(scenario, change.member_id, change.topics)
    if isinstance(change, SetPartitions):
        return set_partitions(scenario, change.topic, change.partitions)
    if isinstance(change, SetLags):
        return set_lags(scenario, change.topic, change.lags)
    if isinstance(change, SetProduceRates):
        return set_produce_rates(scenario, change.topic, change.rates)
    return skew_lag(scenario, change.factor, change.floor, change.share, change.seed)


def apply_changes(
    scenario: Scenario, changes: Iterable[Change], current: Assignment | None = None
) -> Scenario:
    """The scenario after all ``changes`` (steps 1-3 of the module docstring).

    ``current`` overrides the current assignment of step 1 (default :func:`current_assignment`).
    """
    return apply_in_order(with_current_ownership(scenario, current), changes)


def apply_in_order(scenario: Scenario, changes: Iterable[Change]) -> Scenario:
    """Step 3 alone: ``changes`` one after the other as one change to the group, owners as they
    are (no ownership step). A :class:`ChangeError` carries the failing change's ``index``."""
    result = scenario
    removed: set[str] = set()
    for index, change in enumerate(changes):
        if isinstance(change, AddMember) and change.member_id in removed:
            raise ChangeError(
                f"add member: {change.member_id!r} is removed by this same change; a consumer that"
                " leaves and joins again gets a new member id (a static member that comes back"
                " within the session timeout is a restart)",
                index,
            )
        try:
            result = apply_one(result, change)
        except ChangeError as error:
            raise ChangeError(str(error), index) from None
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
    if isinstance(change, AddMembers):
        return f"add {change.count} member(s) like the first member"
    if isinstance(change, RemoveMember):
        if change.static_restart:
            return f"restart static member {change.member_id}"
        return f"remove member {change.member_id}"
    if isinstance(change, Subscribe):
        return f"subscribe {change.member_id} to {','.join(change.topics)}"
    if isinstance(change, SetPartitions):
        return f"grow {change.topic} to {change.partitions} partitions"
    if isinstance(change, SetLags):
        return f"set the lag of {len(change.lags)} partition(s) of {change.topic}"
    if isinstance(change, SetProduceRates):
        return f"set the produce rate of {len(change.rates)} partition(s) of {change.topic}"
    return (
        f"skew the lag: {change.share:.0%} of each topic's partitions hot, Zipf-like (the"
        f" hottest {change.factor}x, at least {change.floor:,}; seed {change.seed})"
    )

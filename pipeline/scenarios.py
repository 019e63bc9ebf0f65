"""One group's snapshot rows -> :class:`~assignors.model.Scenario` -> result rows (no Spark).

These functions run inside the Spark executors (``applyInPandas``) and in the single-process
pandas baseline alike, so both give the same numbers. They translate rows into the core's
types through the one loader (:func:`assignors.parse_scenario`) and ask the core's one question,
:func:`assignors.evaluate`; no assignment logic lives here.

Rebuilding a group at one time ``t`` (:func:`scenario_from_frames`):

1. Topics: every topic in the group's offsets rows at ``t``, with ``max(partition) + 1``
   partitions; every partition in between must have a row, else :class:`GroupDataError`.
   ``log_start_offsets``, ``log_end_offsets``, ``committed_offsets`` come from the rows; with a
   ``produce_rate`` column (records/s, from the previous sample) they become ``produce_rates``.
2. Members: the members rows at ``t`` (subscription, rack, static id, client id, host), each
   owning the partitions whose ``member_id`` names it. A partition owned by a member absent from
   the members table is a :class:`GroupDataError` (the two tables disagree).
3. Consume rates (what a member *can* read): a member whose partitions had lag at ``t`` reads
   as fast as it can, so its committed-offset growth per second is its capacity; a caught-up
   member gets the larger of what it read and the median capacity of the busy members (with no
   busy member: the default consume rate); members without any rate get none (the drain's
   default rate applies).
4. The loader checks everything (negative offsets are errors, a commit beyond the log end a
   warning); its warnings travel with the scenario.

Row contracts: :data:`WHATIF_COLUMNS` and :data:`REPLAY_COLUMNS` (name -> Spark SQL type).
A group that cannot be rebuilt yields exactly one row with ``error`` set and null metrics.
"""

from __future__ import annotations

import collections
import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import pandas as pd

from assignors import (
    DEFAULT_ASSIGNOR,
    DEFAULT_CONSUME_RATE,
    MAX_PARTITIONS_PER_TOPIC,
    MAX_TOTAL_PARTITIONS,
    AddMembers,
    Assignment,
    AssignmentExplorerError,
    Change,
    ChangeError,
    PartitionStrategy,
    RemoveMember,
    Scenario,
    StrategyEvaluation,
    TopicPartition,
    change_from_text,
    evaluate,
    exact_sum,
    parse_change,
    parse_change_text,
    parse_scenario,
    produce_rate_by_partition,
    registry,
)

_JAVA_LONG_MAX = 2**63 - 1
#: Most extra members :func:`extra_members_to_drain` tries before giving up.
MAX_EXTRA_TRIALS = 12

WHATIF_COLUMNS: dict[str, str] = {
    "cluster": "string",
    "group_id": "string",
    "t": "bigint",
    "strategy": "string",
    "change": "string",
    "current_assignor": "string",
    "members": "int",
    "partitions": "int",
    "lag_total": "bigint",
    "worst_member": "string",
    "worst_member_lag": "bigint",
    "lag_max_min_ratio": "double",
    "lag_cv": "double",
    "partitions_spread": "int",
    "idle_members": "int",
    "unassigned": "int",
    "moved": "int",
    "kept": "int",
    "revoked": "int",
    "rounds": "int",
    "pause_s": "double",
    "group_stop_s": "double",
    "rebalance_s": "double",
    "drain_s": "double",
    "drain_deficit": "double",
    "members_using_default_rate": "int",
    "extra_members_to_drain": "int",
    "extra_members_note": "string",
    "warnings": "string",
    "error": "string",
}

REPLAY_COLUMNS: dict[str, str] = {
    "cluster": "string",
    "group_id": "string",
    "strategy": "string",
    "t": "bigint",
    "member_id": "string",
    "lag": "bigint",
    "partitions": "int",
    "error": "string",
}

#: Name of the replay's baseline: the assignment the group actually had.
OBSERVED = "(observed)"


class GroupDataError(AssignmentExplorerError, ValueError):
    """One group's rows cannot form a scenario; the message says which rows and why."""


@dataclass(frozen=True, slots=True)
class ChangeSpec:
    """A what-if change as the command line names it: ``none``, ``remove`` (the group's first
    member by id), or any change in the core's one text form (:data:`assignors.TEXT_FORMS`:
    ``add:N``, ``remove:ID``, ``restart:ID``, ``partitions:topic=N``, ``skew``, ...).

    ``kind`` is ``none``, ``add`` (``count`` fresh members reading the group's median capacity),
    ``remove`` (``member_id``, or the first member) or ``change`` (``text``, any other text form).
    """

    kind: str
    count: int = 0
    member_id: str | None = None
    text: str | None = None

    @property
    def label(self) -> str:
        if self.kind == "add":
            return f"add:{self.count}"
        if self.kind == "remove":
            return "remove" if self.member_id is None else f"remove:{self.member_id}"
        if self.kind == "change" and self.text is not None:
            return self.text
        return "none"

    @classmethod
    def parse(cls, text: str) -> ChangeSpec:
        """``none`` | ``remove`` | a text-form change (``add:N`` with N >= 1, ``remove:ID``, ...).

        Raises ``ValueError`` (the core's :class:`assignors.ChangeFormatError`) saying what is
        wrong; the whole change is checked here, before any group is read.
        """
        stripped = text.strip()
        kind, _, value = stripped.partition(":")
        if stripped in ("none", "remove"):
            return cls(stripped)
        if kind == "add" and ":" not in value and (not value.isdigit() or int(value) < 1):
            raise ValueError(f"change {text!r}: add needs a count >= 1, e.g. add:2")
        raw = parse_change_text(stripped)
        change = parse_change(raw, f"change {text!r}")
        if isinstance(change, AddMembers):
            return cls("add", count=change.count)
        if isinstance(change, RemoveMember) and not change.static_restart:
            return cls("remove", member_id=change.member_id)
        return cls("change", text=stripped)

    def to_changes(self, scenario: Scenario, capacity: float | None) -> list[Change]:
        """The core's change objects for ``scenario``."""
        if self.kind == "add":
            return [AddMembers(self.count, consume_rate=capacity)]
        if self.kind == "remove":
            ids = sorted(m.member_id for m in scenario.members)
            if not ids:
                raise ChangeError("remove: the group has no members")
            return [RemoveMember(self.member_id or ids[0])]
        if self.kind == "change" and self.text is not None:
            return [change_from_text(self.text)]
        return []


def _value(raw: Any) -> Any:
    """A pandas cell as plain Python (NaN/NaT/None -> None, numpy scalars -> Python)."""
    if raw is None:
        return None
    if isinstance(raw, float) and math.isnan(raw):
        return None
    if hasattr(raw, "item") and not isinstance(raw, (list, tuple)):
        value = raw.item()
        if isinstance(value, float) and math.isnan(value):
            return None
        return value
    return raw


def _whole(raw: Any, what: str) -> int | None:
    """A cell that holds a whole number (pandas turns an integer column with nulls into floats),
    or ``None`` for a null; :class:`GroupDataError` for anything else (text, 1.5, infinity, or a
    number of more digits than any offset has)."""
    value = _value(raw)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise GroupDataError(f"{what}: expected a whole number, got {str(value)[:40]!r}")
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        raise GroupDataError(f"{what}: expected a whole number, got {value!r}")
    if abs(value) > _JAVA_LONG_MAX:
        raise GroupDataError(f"{what}: {value:.3g} is beyond any offset (a Java long)")
    return int(value)


def _real(value: Any, what: str) -> float | None:
    """A rate or lag cell (plain Python, see :func:`_column`) as a float, or ``None`` for a
    null; :class:`GroupDataError` for anything that is not a number (text, a boolean)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise GroupDataError(f"{what}: expected a number, got {str(value)[:40]!r}")
    return float(value)


def _offset(raw: Any) -> int | None:
    """An offsets cell as an int (see :func:`_whole`)."""
    return _whole(raw, "an offset")


def _partition_numbers(topic: object, cells: Any) -> list[int]:
    """A topic's partition cells as numbers 0 .. MAX_PARTITIONS_PER_TOPIC - 1 (else an error
    naming the topic): a huge number must not make the rebuild allocate that many partitions."""
    numbers: list[int] = []
    for cell in cells:
        number = _whole(cell, f"topic {str(topic)[:60]!r}: a partition number")
        if number is None or not 0 <= number < MAX_PARTITIONS_PER_TOPIC:
            raise GroupDataError(
                f"topic {str(topic)[:60]!r}: partition {number} is not a partition number"
                f" (0 to {MAX_PARTITIONS_PER_TOPIC - 1:,})"
            )
        numbers.append(number)
    return numbers


def _topics_list(raw: Any) -> list[str]:
    if raw is None:
        return []
    return [str(topic) for topic in list(raw)]


@dataclass(frozen=True, slots=True)
class GroupRows:
    """One group's rows as plain Python columns (name -> values, nulls as None), e.g. a slice
    of an Arrow batch's ``to_pydict()``: what the per-group functions read without pandas."""

    columns: dict[str, list[Any]]
    length: int


#: One group's rows: a pandas frame or plain columns.
Rows: TypeAlias = "pd.DataFrame | GroupRows"


def _length(rows: Rows) -> int:
    return rows.length if isinstance(rows, GroupRows) else len(rows)


def _column(rows: Rows, name: str) -> list[Any]:
    """A column as plain Python values (None for a missing column or a null cell)."""
    if isinstance(rows, GroupRows):
        return rows.columns.get(name) or [None] * rows.length
    if name not in rows.columns:
        return [None] * len(rows)
    return [_value(raw) for raw in rows[name].tolist()]


def member_capacities(offsets: Rows) -> tuple[dict[str, float], dict[str, float]]:
    """Step 3: (capacity of each backlogged member, observed reads/s of every member).

    Rates are summed exactly (:func:`assignors.simulate.drain.exact_sum`): the same capacity
    whatever order the rows arrive in (the drain compares it with the produce rate the core sums).
    """
    if not _length(offsets):
        return {}, {}
    lag_of: dict[str, float] = {}
    rates_of: dict[str, list[float]] = {}
    rows = zip(
        _column(offsets, "member_id"),
        _column(offsets, "lag"),
        _column(offsets, "consume_rate"),
        strict=True,
    )
    for owner, lag, rate in rows:
        if owner is None:
            continue
        member_id = str(owner)
        lag_of[member_id] = lag_of.get(member_id, 0.0) + (_real(lag, "a lag") or 0.0)
        consumed = _real(rate, "a consume rate")
        if consumed is not None:
            rates_of.setdefault(member_id, []).append(max(consumed, 0.0))
    observed = {m: exact_sum(rates) for m, rates in sorted(rates_of.items())}
    capacities = {m: rate for m, rate in observed.items() if lag_of[m] > 0}
    return capacities, observed


def _has(rows: Rows, name: str) -> bool:
    return name in rows.columns


def _topic_entries(offsets: Rows) -> tuple[list[dict[str, Any]], dict[str, list[list[Any]]]]:
    """Step 1: the scenario's topics (sorted by name) and each owner's ``[topic, partition]``."""
    has_rates = _has(offsets, "produce_rate")
    by_topic: dict[str, list[tuple[int, Any, Any, Any, Any, Any]]] = {}
    columns = zip(
        _column(offsets, "topic"),
        _column(offsets, "partition"),
        _column(offsets, "log_start"),
        _column(offsets, "log_end"),
        _column(offsets, "committed"),
        _column(offsets, "produce_rate"),
        _column(offsets, "member_id"),
        strict=True,
    )
    for row_count, (topic, partition, start, end, committed, rate, owner) in enumerate(columns):
        if row_count >= MAX_TOTAL_PARTITIONS:
            raise GroupDataError(
                f"more than {MAX_TOTAL_PARTITIONS:,} offsets rows at one time; a group has at"
                f" most {MAX_TOTAL_PARTITIONS:,} partitions"
            )
        if _value(topic) is None:
            raise GroupDataError("an offsets row has no topic")
        (number,) = _partition_numbers(topic, [partition])
        by_topic.setdefault(str(topic), []).append((number, start, end, committed, rate, owner))
    topics: list[dict[str, Any]] = []
    owners: dict[str, list[list[Any]]] = {}
    for topic, rows in sorted(by_topic.items()):
        rows.sort(key=lambda row: row[0])
        numbers = [row[0] for row in rows]
        count = numbers[-1] + 1
        if len(set(numbers)) != len(numbers):
            raise GroupDataError(f"topic {topic!r}: a partition appears twice at one time")
        if len(numbers) != count:
            gaps = sorted(set(range(count)) - set(numbers))[:5]
            raise GroupDataError(f"topic {topic!r}: partitions {gaps} have no offsets row")
        entry: dict[str, Any] = {"name": topic, "partitions": count}
        starts = [_offset(row[1]) for row in rows]
        if all(v is not None for v in starts):
            entry["log_start_offsets"] = starts
        entry["log_end_offsets"] = [_offset(row[2]) for row in rows]
        entry["committed_offsets"] = [_offset(row[3]) for row in rows]
        if has_rates:
            rates = (_real(row[4], f"topic {topic[:60]!r}: a produce rate") for row in rows)
            entry["produce_rates"] = [max(rate or 0.0, 0.0) for rate in rates]
        topics.append(entry)
        for partition, *_, owner in rows:
            if owner is not None:
                owners.setdefault(str(owner), []).append([topic, partition])
    return topics, owners


def _group_assignor(members: Rows) -> str | None:
    """The assignor most members name (ties: the first by name); None when none does."""
    named = [str(a) for a in _column(members, "assignor") if a]
    if not named:
        return None
    counts = collections.Counter(named)
    return min(counts, key=lambda name: (-counts[name], name))


def scenario_from_frames(
    offsets: Rows,
    members: Rows,
    *,
    cluster: str,
    group_id: str,
    label: str = "",
    default_consume_rate: float = DEFAULT_CONSUME_RATE,
) -> tuple[Scenario, tuple[str, ...], float | None]:
    """Steps 1-4: the group's scenario, the loader's warnings and the median member capacity.

    Plain Python over each column's values (no pandas operation per group): the same result
    whatever order the rows arrive in.
    """
    topics, owners = _topic_entries(offsets)
    capacities, observed = member_capacities(offsets)
    median = statistics.median(capacities.values()) if capacities else None
    member_items: list[dict[str, Any]] = []
    known: set[str] = set()
    optional = ("client_id", "host", "rack", "group_instance_id")
    subscriptions = (
        members["topics"].tolist() if isinstance(members, pd.DataFrame) else None
    ) or _column(members, "topics")
    rows = zip(
        _column(members, "member_id"),
        subscriptions,
        *(_column(members, name) for name in optional),
        strict=True,
    )
    for member_id_raw, subscription, *extras in sorted(rows, key=lambda row: str(row[0])):
        member_id = str(member_id_raw)
        known.add(member_id)
        item: dict[str, Any] = {"member_id": member_id, "topics": _topics_list(subscription)}
        for name, value in zip(optional, extras, strict=True):
            if value is not None:
                item[name] = str(value)
        if member_id in owners:
            item["owned_partitions"] = owners[member_id]
        rate = capacities.get(member_id, median)
        if member_id not in capacities and member_id in observed:
            # Caught up: it reads at least what it read; at most what a busy member reads.
            fallback = default_consume_rate if rate is None else rate
            rate = max(observed[member_id], fallback)
        if rate is not None:
            item["consume_rate"] = rate
        member_items.append(item)
    strangers = sorted(set(owners) - known)
    if strangers:
        raise GroupDataError(
            f"partitions are owned by {strangers[:3]} who are not in the members table at this time"
        )
    raw: dict[str, Any] = {
        "name": f"{group_id} ({cluster}){label}",
        "description": f"Consumer group {group_id} on {cluster}, rebuilt from offset snapshots.",
        "group_id": group_id,
        "topics": topics,
        "members": member_items,
    }
    assignor = _group_assignor(members)
    if assignor is not None:
        raw["assignor"] = assignor
    scenario, warnings = parse_scenario(raw, path="")
    return scenario, tuple(warnings), median


def _partition_strategy(name: str) -> PartitionStrategy:
    strategy = registry.get(name)
    if not isinstance(strategy, PartitionStrategy):
        raise GroupDataError(f"strategy {name!r} assigns Kafka Streams tasks, not partitions")
    return strategy


def extra_members_to_drain(
    scenario: Scenario,
    *,
    capacity: float | None,
    horizon_s: float = 3600.0,
    step_s: float = 60.0,
    default_consume_rate: float = DEFAULT_CONSUME_RATE,
) -> tuple[int | None, str]:
    """How many members to add (group's own strategy) so the backlog clears within ``horizon_s``.

    Returns ``(count, note)``. 0 when the current assignment already clears in time. Trials
    start at the capacity lower bound ``ceil((R + L / horizon - C) / c)`` (``R`` produce rate,
    ``L`` backlog, ``C`` the members' capacity, ``c`` a new member's), gallop upwards (+1, +2,
    +4, ...) to a count that clears, then bisect back to the smallest count that clears (at most
    :data:`MAX_EXTRA_TRIALS` trials, never more members than partitions; the answer assumes more
    members never drain slower). Each trial is :func:`assignors.evaluate`'s drain projection
    after the rebalance. ``None`` with the reason
    when no count works, e.g. a partition produced faster than one member reads.
    """
    as_it_is = evaluate(
        scenario,
        [],
        [],
        horizon_s=horizon_s,
        step_s=step_s,
        default_consume_rate=default_consume_rate,
    )
    base = as_it_is.current_drain()
    if base.group_clears_at_s is not None and base.group_clears_at_s <= horizon_s:
        return 0, "clears in time as it is"
    per_member = capacity if capacity is not None else default_consume_rate
    start = _fewest_that_could_drain(
        scenario, as_it_is.lags, per_member, horizon_s, default_consume_rate
    )
    if isinstance(start, str):
        return None, start
    partitions = sum(t.partitions for t in scenario.topics)
    strategy = _partition_strategy(scenario.assignor or DEFAULT_ASSIGNOR)
    most = partitions - len(scenario.members)  # more members than partitions sit idle
    if start > most:
        return None, f"needs more members than the {partitions} partitions"

    def clears(extra: int) -> bool:
        spec = ChangeSpec("add", count=extra)
        trial = evaluate(
            scenario,
            spec.to_changes(scenario, per_member),
            [strategy],
            previous=as_it_is.current,
            horizon_s=horizon_s,
            step_s=step_s,
            default_consume_rate=default_consume_rate,
        )
        projection = trial.strategy(strategy.name).drain()
        cleared = projection.group_clears_at_s
        return cleared is not None and cleared <= horizon_s

    return _smallest_that_clears(clears, start, most)


def _fewest_that_could_drain(
    scenario: Scenario,
    lags: Mapping[TopicPartition, int],
    per_member: float,
    horizon_s: float,
    default_consume_rate: float,
) -> int | str:
    """Step 1 of :func:`extra_members_to_drain`'s search: the capacity lower bound
    ``ceil((R + L / horizon - C) / c)`` (at least 1), or why no count can work: new members
    that read nothing, or a partition that alone needs more than one member reads."""
    if per_member <= 0:
        return "members read nothing (stalled): adding members cannot help"
    rates = produce_rate_by_partition(scenario)
    hot = [tp for tp, rate in rates.items() if rate + lags.get(tp, 0) / horizon_s > per_member]
    if hot:
        return f"partition {hot[0]} alone needs more than one member can read"
    have = sum(
        member.consume_rate if member.consume_rate is not None else default_consume_rate
        for member in scenario.members
    )
    need = sum(rates.values()) + sum(lags.values()) / horizon_s
    return max(1, math.ceil((need - have) / per_member))


def _smallest_that_clears(
    clears: Callable[[int], bool], start: int, most: int
) -> tuple[int | None, str]:
    """Step 2 of :func:`extra_members_to_drain`'s search: gallop (start, start+1, start+3,
    ...; never past ``most``) to a count that clears, then halve the gap back to the smallest
    that does, in at most :data:`MAX_EXTRA_TRIALS` trials. Assumes more members never drain
    slower (then the answer is the smallest count that clears)."""
    trials, failed, gap, extra = 0, start - 1, 1, start
    while True:
        trials += 1
        if clears(extra):
            break
        failed = extra
        if extra == most or trials >= MAX_EXTRA_TRIALS:
            return None, f"{extra} extra members are not enough (tried {trials} counts)"
        extra, gap = min(most, extra + gap), gap * 2
    works = extra
    while works - failed > 1 and trials < MAX_EXTRA_TRIALS:
        middle = (works + failed) // 2
        trials += 1
        if clears(middle):
            works = middle
        else:
            failed = middle
    return works, f"{trials} trial(s) from {start}"


def _empty_row(cluster: str, group_id: str, t: int | None) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(WHATIF_COLUMNS)
    row.update(cluster=cluster, group_id=group_id, t=t)
    return row


def _metric_row(
    base: dict[str, Any], entry: StrategyEvaluation, scenario: Scenario
) -> dict[str, Any]:
    simulation, measured, projection = entry.simulation, entry.metrics, entry.drain()
    by_member = measured.lag_by_member
    worst = max(sorted(by_member), key=lambda m: by_member[m], default=None)
    row = dict(base)
    row.update(
        strategy=entry.name,
        members=len(by_member),
        partitions=sum(t.partitions for t in scenario.topics),
        lag_total=measured.lag_total,
        worst_member=worst,
        worst_member_lag=None if worst is None else by_member[worst],
        lag_max_min_ratio=measured.lag_max_min_ratio,
        lag_cv=measured.lag_cv,
        partitions_spread=measured.partitions_spread,
        idle_members=len(measured.idle_members),
        unassigned=len(measured.unassigned_partitions),
        moved=measured.movement.moved_count,
        kept=measured.movement.kept_count,
        revoked=measured.movement.revoked_count,
        rounds=simulation.rounds,
        pause_s=simulation.pause_s,
        group_stop_s=simulation.group_stop_s,
        rebalance_s=simulation.duration_s,
        drain_s=projection.group_clears_at_s,
        drain_deficit=projection.group_deficit,
        members_using_default_rate=sum(1 for m in projection.members if m.rate_is_default),
    )
    return row


def current_row(
    base: dict[str, Any],
    scenario: Scenario,
    *,
    horizon_s: float,
    step_s: float,
    default_consume_rate: float,
) -> dict[str, Any]:
    """The group as it is: current assignment, no rebalance, drain from now."""
    as_it_is = evaluate(
        scenario,
        [],
        [],
        horizon_s=horizon_s,
        step_s=step_s,
        default_consume_rate=default_consume_rate,
    )
    measured = as_it_is.current_metrics
    projection = as_it_is.current_drain()
    by_member = measured.lag_by_member
    worst = max(sorted(by_member), key=lambda m: by_member[m], default=None)
    row = dict(base)
    row.update(
        strategy=scenario.assignor or DEFAULT_ASSIGNOR,
        change="current",
        members=len(scenario.members),
        partitions=sum(t.partitions for t in scenario.topics),
        lag_total=measured.lag_total,
        worst_member=worst,
        worst_member_lag=None if worst is None else by_member[worst],
        lag_max_min_ratio=measured.lag_max_min_ratio,
        lag_cv=measured.lag_cv,
        partitions_spread=measured.partitions_spread,
        idle_members=len(measured.idle_members),
        unassigned=len(measured.unassigned_partitions),
        moved=0,
        kept=measured.movement.kept_count,
        revoked=0,
        rounds=0,
        pause_s=0.0,
        group_stop_s=0.0,
        rebalance_s=0.0,
        drain_s=projection.group_clears_at_s,
        drain_deficit=projection.group_deficit,
        members_using_default_rate=len(projection.members_using_default_rate),
    )
    return row


def whatif_rows(
    offsets: Rows,
    members: Rows,
    *,
    strategies: Sequence[str],
    change_specs: Sequence[ChangeSpec],
    horizon_s: float = 3600.0,
    step_s: float = 10.0,
    default_consume_rate: float = DEFAULT_CONSUME_RATE,
    drain_target_s: float | None = 3600.0,
) -> list[dict[str, Any]]:
    """Every (strategy, change) row for one group at one time (plus its ``current`` row).

    ``offsets`` and ``members`` hold one group's rows at one time (``t`` in epoch seconds);
    ``offsets`` may carry ``lag``, ``produce_rate`` and ``consume_rate`` (see
    :mod:`pipeline.whatif`). ``drain_target_s``: also compute :func:`extra_members_to_drain`
    (None: skip). Never raises for bad group data: it returns one row with ``error``.
    """
    frame = offsets if _length(offsets) else members
    cluster = str(_column(frame, "cluster")[0])
    group_id = str(_column(frame, "group_id")[0])
    t = int(max(_column(frame, "t")))
    base = _empty_row(cluster, group_id, t)
    try:
        problems = [p for p in _column(offsets, "problem") if p is not None]
        fatal = [p for p in problems if not str(p).startswith("committed beyond")]
        if fatal:
            raise GroupDataError(f"{len(fatal)} offsets row(s) flagged: {fatal[0]}")
        scenario, warnings, capacity = scenario_from_frames(
            offsets,
            members,
            cluster=cluster,
            group_id=group_id,
            default_consume_rate=default_consume_rate,
        )
        base["current_assignor"] = scenario.assignor
        base["warnings"] = "; ".join(warnings) or None
        if drain_target_s is not None:
            extra, note = extra_members_to_drain(
                scenario,
                capacity=capacity,
                horizon_s=drain_target_s,
                default_consume_rate=default_consume_rate,
            )
            base["extra_members_to_drain"] = extra
            base["extra_members_note"] = note
        rows = [
            current_row(
                base,
                scenario,
                horizon_s=horizon_s,
                step_s=step_s,
                default_consume_rate=default_consume_rate,
            )
        ]
        for spec in change_specs:
            try:
                evaluation = evaluate(
                    scenario,
                    spec.to_changes(scenario, capacity),
                    [_partition_strategy(name) for name in strategies],
                    horizon_s=horizon_s,
                    step_s=step_s,
                    default_consume_rate=default_consume_rate,
                )
            except ChangeError as error:
                for name in strategies:
                    row = dict(base, strategy=name, change=spec.label, error=str(error))
                    rows.append(row)
                continue
            for entry in evaluation.strategies:
                row = _metric_row(base, entry, scenario)
                row["change"] = spec.label
                rows.append(row)
        return rows
    except (AssignmentExplorerError, ValueError, KeyError, TypeError) as error:
        base["error"] = f"{type(error).__name__}: {error}"
        return [base]


def _membership_key(members: pd.DataFrame) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return tuple(
        sorted(
            (str(row.member_id), tuple(sorted(_topics_list(row.topics))))
            for row in members.itertuples(index=False)
        )
    )


def _target(scenario: Scenario, strategy: PartitionStrategy, previous: Assignment) -> Assignment:
    """What ``strategy`` settles on when the group rebalances with ``previous`` owned."""
    return evaluate(scenario, [], [strategy], previous=previous).strategy(strategy.name).target


def replay_rows(
    offsets: pd.DataFrame, members: pd.DataFrame, *, strategies: Sequence[str]
) -> pd.DataFrame:
    """Per strategy, time and member: the lag the member would have carried.

    ``offsets``/``members``: one group's rows over the window (``t`` epoch seconds; ``offsets``
    with ``lag``). Membership epochs start wherever the set of (member, subscription) changes;
    at each epoch every strategy re-assigns with the members keeping what that strategy gave
    them before (the first epoch starts from the observed ownership), through
    :func:`assignors.evaluate`. Each partition carries its *observed* lag: the
    replay redistributes the backlog that was there; it does not model how a different owner would
    have read it. The ``(observed)`` strategy is the ownership recorded in the snapshots.
    """
    frame = offsets if not offsets.empty else members
    cluster = str(frame["cluster"].iloc[0])
    group_id = str(frame["group_id"].iloc[0])
    columns = list(REPLAY_COLUMNS)
    try:
        names = [_partition_strategy(name).name for name in strategies]
        if offsets.empty:
            raise GroupDataError("no offsets rows in the window")
        lags = offsets[["t", "topic", "partition", "lag", "member_id"]].copy()
        lags["lag"] = pd.to_numeric(lags["lag"], errors="coerce").fillna(0).astype("int64")
        out: list[pd.DataFrame] = []
        observed = lags.assign(owner=lags["member_id"].fillna("(unowned)"))
        out.append(_carried(observed, members, OBSERVED))
        times = sorted(set(int(t) for t in offsets["t"]))
        by_time_members = {int(t): rows for t, rows in members.groupby("t")}
        by_time_offsets = {int(t): rows for t, rows in offsets.groupby("t")}
        epochs: list[tuple[int, pd.DataFrame]] = []
        last_key: object = None
        for t in times:
            present = by_time_members.get(t, members.iloc[0:0])
            key = _membership_key(present)
            if key != last_key:
                epochs.append((t, present))
                last_key = key
        owners_by_strategy: dict[str, list[tuple[int, dict[tuple[str, int], str]]]] = {}
        for name in names:
            strategy = _partition_strategy(name)
            previous: Assignment | None = None
            timeline: list[tuple[int, dict[tuple[str, int], str]]] = []
            for start, present in epochs:
                scenario, _, _ = scenario_from_frames(
                    by_time_offsets[start], present, cluster=cluster, group_id=group_id
                )
                ids = [m.member_id for m in scenario.members]
                if previous is None:
                    previous = evaluate(scenario, [], []).current
                kept = {m: previous.partitions.get(m, ()) for m in ids}
                target = _target(scenario, strategy, Assignment.of(ids, kept))
                previous = target
                owner_of = {(tp.topic, tp.partition): m for tp, m in target.owner_of().items()}
                timeline.append((start, owner_of))
            owners_by_strategy[name] = timeline
        for name, timeline in owners_by_strategy.items():
            starts = [start for start, _ in timeline]
            epoch_index = pd.Series(range(len(starts)), index=starts)
            index = epoch_index.reindex(sorted(set(lags["t"])), method="ffill")
            assigned = lags.copy()
            positions = index.reindex(assigned["t"]).to_numpy()
            assigned["owner"] = [
                timeline[int(pos)][1].get((topic, int(partition)), "(unowned)")
                for pos, topic, partition in zip(
                    positions, assigned["topic"], assigned["partition"], strict=True
                )
            ]
            out.append(_carried(assigned, members, name))
        result = pd.concat(out, ignore_index=True)
        result.insert(0, "group_id", group_id)
        result.insert(0, "cluster", cluster)
        result["error"] = None
        return result[columns]
    except (AssignmentExplorerError, ValueError, KeyError, TypeError) as error:
        row = dict.fromkeys(columns)
        row.update(cluster=cluster, group_id=group_id, error=f"{type(error).__name__}: {error}")
        return pd.DataFrame([row], columns=columns)


def _carried(assigned: pd.DataFrame, members: pd.DataFrame, strategy: str) -> pd.DataFrame:
    """Sum of lag and count of partitions per (t, owner); present members with none get 0."""
    sums = (
        assigned.groupby(["t", "owner"], sort=True)
        .agg(lag=("lag", "sum"), partitions=("partition", "size"))
        .reset_index()
        .rename(columns={"owner": "member_id"})
    )
    present = members[["t", "member_id"]].drop_duplicates()
    present = present[present["t"].isin(set(assigned["t"]))]
    merged = present.merge(sums, on=["t", "member_id"], how="outer")
    merged["lag"] = merged["lag"].fillna(0).astype("int64")
    merged["partitions"] = merged["partitions"].fillna(0).astype("int64")
    merged["strategy"] = strategy
    return merged

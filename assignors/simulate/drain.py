"""Lag-drain projection: how each member's backlog grows and clears after a change.

:func:`project_drain` takes a scenario (per-partition lag from :mod:`assignors.simulate.lag`,
produce rates, members' consume rates) and a
:class:`~assignors.simulate.rebalance.RebalanceSimulation` (who reads what in each phase, then the
target for good) and projects lag over time on a fixed grid.

Model:

1. Each partition ``p`` starts at its lag ``L_p`` and receives ``r_p`` records/s
   (``Topic.produce_rates``; a topic without rates produces 0, ``DEFAULT_PRODUCE_RATE``).
2. A member reads at most ``c`` records/s (``Member.consume_rate``; where absent
   ``default_consume_rate``, by default :data:`DEFAULT_CONSUME_RATE`; the projection lists the
   members that use it). Over an interval ``d`` it reads ``min(c * d, L + R * d)`` where ``L`` and
   ``R`` are the backlog and produce rate of the partitions it reads in that phase; the records it
   reads are shared among those partitions in proportion to each one's backlog plus what arrives
   in the interval, so a partition never goes below zero and none starves.
3. A partition nobody reads in a phase (paused, warming up, waiting, or assigned to nobody) only
   grows: ``L_p + r_p * d``.
4. The phases of the simulation come first, then the target holds until the horizon.
5. A member's line is the backlog of the partitions the *target* gives it (what it inherits);
   partitions the target gives nobody make ``unowned_lag``; the group line is the sum of all.
6. Once the target holds, a member's backlog ``L`` changes at ``R - c`` records/s until it is 0,
   so it clears at ``t_target + L / (c - R)`` (which may lie past the horizon), or never when
   ``R >= c`` with a backlog left (``deficit = R - c`` records/s, ``>= 0``).

Exactness: member and group totals are exact at every grid point (the update in step 2 is exact
for totals); how a member's reads split between its partitions follows the proportional rule
per interval, so per-partition figures depend on the grid only through that rule.

Cost: per grid step O(members + cells) where a cell is a (reader, target owner) pair, plus
O(partitions) per phase; per-partition state is never touched inside the steady state.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from assignors.errors import AssignmentExplorerError
from assignors.model import Assignment, Scenario, TopicPartition
from assignors.simulate.metrics import lag_by_partition, sorted_partitions
from assignors.simulate.rebalance import RebalanceSimulation

#: Records per second a member reads when the scenario gives it no ``consume_rate``.
DEFAULT_CONSUME_RATE = 1000.0
#: Records per second produced to a partition of a topic without ``produce_rates``.
DEFAULT_PRODUCE_RATE = 0.0
#: Relative slack when comparing rates and backlogs (see :func:`settled_outcome`): a member that
#: consumes what it is produced keeps up even when its rates were summed elsewhere in another
#: order (float sums then differ in the last bits, about 1e-16 relative).
RATE_TOLERANCE = 1e-9


#: The most grid steps a projection computes (horizon / step).
MAX_GRID_STEPS = 1_000_000


class DrainError(AssignmentExplorerError, ValueError):
    """The projection cannot run as asked (bad horizon, step or rate)."""


@dataclass(frozen=True, slots=True)
class MemberDrain:
    """One member's backlog over time (the partitions the target gives it)."""

    member_id: str
    consume_rate: float
    """Records/s it can read."""
    rate_is_default: bool
    """True when the scenario gave no ``consume_rate`` and the default was used."""
    produce_rate: float
    """Records/s produced to its target partitions."""
    lag: tuple[float, ...]
    """Backlog at each time of ``DrainProjection.times_s``."""
    initial_lag: float
    """Backlog at the change."""
    peak_lag: float
    """Largest backlog on the grid (the pause makes it grow before it drains)."""
    clears_at_s: float | None
    """Seconds after the change when its backlog is zero for good; None: never."""
    deficit: float
    """Records/s produced beyond what it can read once settled (0 when it keeps up)."""

    @property
    def clears(self) -> bool:
        """True when the backlog clears at some time (perhaps after the horizon)."""
        return self.clears_at_s is not None

    def to_json(self) -> dict[str, Any]:
        """Plain JSON object."""
        return {
            "member_id": self.member_id,
            "consume_rate": self.consume_rate,
            "rate_is_default": self.rate_is_default,
            "produce_rate": self.produce_rate,
            "initial_lag": self.initial_lag,
            "peak_lag": self.peak_lag,
            "clears_at_s": self.clears_at_s,
            "deficit": self.deficit,
            "lag": list(self.lag),
        }


@dataclass(frozen=True, slots=True)
class DrainProjection:
    """Backlog per member and for the group on a time grid after a change."""

    times_s: tuple[float, ...]
    """Grid times in seconds after the change (0, step, 2 step, ..., horizon)."""
    members: tuple[MemberDrain, ...]
    """Per member of the target, sorted by member id."""
    unowned_lag: tuple[float, ...]
    """Backlog of partitions the target gives nobody (grows forever if produced to)."""
    group_lag: tuple[float, ...]
    """Whole group's backlog at each grid time."""
    group_clears_at_s: float | None
    """When every member's backlog is zero for good and nothing is left unowned; None: never."""
    group_deficit: float
    """Records/s the group falls behind for good (members' deficits plus unowned production)."""
    settled_at_s: float
    """When the target holds (end of the rebalance)."""
    default_consume_rate: float
    """Records/s assumed for members without ``consume_rate``."""
    members_using_default_rate: tuple[str, ...]
    """Members whose rate is the default (say so next to any figure shown)."""

    def to_json(self) -> dict[str, Any]:
        """Plain JSON object."""
        return {
            "times_s": list(self.times_s),
            "members": [member.to_json() for member in self.members],
            "unowned_lag": list(self.unowned_lag),
            "group_lag": list(self.group_lag),
            "group_clears_at_s": self.group_clears_at_s,
            "group_deficit": self.group_deficit,
            "settled_at_s": self.settled_at_s,
            "default_consume_rate": self.default_consume_rate,
            "members_using_default_rate": list(self.members_using_default_rate),
        }


def produce_rate_by_partition(scenario: Scenario) -> dict[TopicPartition, float]:
    """Records/s produced to every partition (``DEFAULT_PRODUCE_RATE`` where none is given)."""
    rates: dict[TopicPartition, float] = {}
    for topic in scenario.topics:
        given = topic.produce_rates
        for p in range(topic.partitions):
            rates[TopicPartition(topic.name, p)] = (
                DEFAULT_PRODUCE_RATE if given is None else float(given[p])
            )
    return rates


def _grid(horizon_s: float, step_s: float) -> list[float]:
    if not (math.isfinite(step_s) and step_s > 0):
        raise DrainError(f"the step must be a positive number of seconds, got {step_s}")
    if not (math.isfinite(horizon_s) and horizon_s >= 0):
        raise DrainError(f"the horizon must be zero or more seconds, got {horizon_s}")
    steps = horizon_s / step_s  # a float: may be inf (1e308 / 1e-300), never an OverflowError
    if steps > MAX_GRID_STEPS:
        raise DrainError(
            f"{steps:,.0f} grid steps is too many (at most {MAX_GRID_STEPS:,});"
            f" use a larger step than {step_s:g} s or a shorter horizon"
        )
    count = int(horizon_s // step_s)
    times = [i * step_s for i in range(count + 1)]
    if times[-1] < horizon_s:
        times.append(horizon_s)
    return times


def exact_sum(values: Iterable[float]) -> float:
    """The correctly rounded sum of ``values`` (:func:`math.fsum`).

    Invariant: the same float whatever the order of ``values``, so a rate summed here and the
    same rates summed by a caller (or on another executor) in another order are equal.
    """
    return math.fsum(values)


def records_read(can_read: float, available: float) -> float:
    """Records a member reads in an interval: ``min(can_read, available)``, where reading all but
    :data:`RATE_TOLERANCE` (relative) of ``available`` counts as reading it all.

    A member that reads exactly what is produced reads it all whatever order its rates were
    summed in: no residue of 1e-12 records grows into a backlog that "clears" later.
    """
    if can_read >= available * (1.0 - RATE_TOLERANCE):
        return available
    return can_read


def settled_outcome(
    backlog: float, produced: float, consume: float, settled_s: float, peak: float
) -> tuple[float | None, float]:
    """``(clears_at_s, deficit)`` of one member once the target holds (model step 6).

    ``backlog``: records left when the target starts holding at ``settled_s``; ``produced`` and
    ``consume``: records/s produced to its partitions and read at most; ``peak``: its largest
    backlog on the grid. Rates within :data:`RATE_TOLERANCE` (relative) of each other are equal
    and a backlog within ``RATE_TOLERANCE * max(peak, 1)`` of zero is zero, so that rates summed
    in another order never turn "keeps up" into "never" or into ``backlog / 1e-13`` seconds.

    Invariants: ``deficit >= 0``; ``clears_at_s`` is None (never), 0.0 (never had a backlog),
    ``settled_s`` (empty when the target holds), or ``settled_s + backlog / (consume -
    produced)`` with ``consume - produced`` above the tolerance (a finite, meaningful time).
    """
    gap = consume - produced
    if abs(gap) <= RATE_TOLERANCE * max(abs(produced), abs(consume), 1.0):
        gap = 0.0
    deficit = max(-gap, 0.0)
    if backlog <= RATE_TOLERANCE * max(peak, 1.0):
        if deficit > 0:
            return None, deficit
        return (settled_s if peak > RATE_TOLERANCE else 0.0), 0.0
    if gap > 0:
        return settled_s + backlog / gap, 0.0
    return None, deficit


_Cell = tuple[str | None, str | None]  # (reader in this segment, owner in the target)
_Segment = tuple[float, float, Mapping[str, Iterable[TopicPartition]]]
_Key = TypeVar("_Key")


def _sum_by(keys: Iterable[_Key], values: Iterable[float]) -> dict[_Key, float]:
    """``values`` added up per key, in order (the backlog totals)."""
    totals: dict[_Key, float] = {}
    for key, value in zip(keys, values, strict=True):
        totals[key] = totals.get(key, 0.0) + value
    return totals


def _exact_sum_by(keys: Iterable[_Key], values: Iterable[float]) -> dict[_Key, float]:
    """``values`` added up exactly per key (:func:`exact_sum`: the rates)."""
    grouped: dict[_Key, list[float]] = {}
    for key, value in zip(keys, values, strict=True):
        grouped.setdefault(key, []).append(value)
    return {key: exact_sum(items) for key, items in grouped.items()}


class _Projection:
    """The per-partition state of one projection and the samples taken so far.

    Per-partition state is lists aligned with ``universe`` (the hot loops index, not hash);
    ``samples`` holds, per target owner (``None``: nobody), its backlog at each grid time so far.
    """

    def __init__(
        self,
        times: list[float],
        universe: list[TopicPartition],
        lag_of: Mapping[TopicPartition, int],
        rate_of: Mapping[TopicPartition, float],
        owner: Mapping[TopicPartition, str],
        consume: dict[str, float],
    ) -> None:
        self.times = times
        self.consume = consume
        self.lag = [float(lag_of.get(tp, 0)) for tp in universe]
        self.rate = [rate_of.get(tp, DEFAULT_PRODUCE_RATE) for tp in universe]
        self.owners = [owner.get(tp) for tp in universe]
        self.universe = universe
        self.samples: dict[str | None, list[float]] = {m: [] for m in [*consume, None]}
        self.sample_index = 0

    def record(self, totals: Mapping[str | None, float]) -> None:
        """One grid point: every target owner's backlog (0 where ``totals`` has none)."""
        for key, series in self.samples.items():
            series.append(totals.get(key, 0.0))
        self.sample_index += 1

    def run_segment(
        self, start: float, end: float, consuming: Mapping[str, Iterable[TopicPartition]]
    ) -> None:
        """Model steps 2-3 from ``start`` to ``end`` with ``consuming`` reading, sampling the
        grid points in between, then the per-partition state at ``end``.

        Who reads decides how the backlog drains; who owns in the target decides whose line a
        partition counts in: cells are (reader, target owner) pairs. A reader's backlog at time
        ``t`` is ``scale * lag at start + inflow * rate`` (exact for its total).
        """
        reader_of = {tp: m for m, tps in consuming.items() for tp in tps}
        readers = [reader_of.get(tp) for tp in self.universe]
        cells = list(zip(readers, self.owners, strict=True))
        cell_lag = _sum_by(cells, self.lag)
        cell_rate = _exact_sum_by(cells, self.rate)
        reading = [(who, i) for i, who in enumerate(readers) if who is not None]
        group_lag = _sum_by((who for who, _ in reading), (self.lag[i] for _, i in reading))
        group_rate = _exact_sum_by((who for who, _ in reading), (self.rate[i] for _, i in reading))
        drain = _ReaderDrain(self.consume, group_lag, group_rate, start)
        while self.sample_index < len(self.times) and self.times[self.sample_index] <= end:
            drain.advance(self.times[self.sample_index])
            self.record(drain.totals(cell_lag, cell_rate, start))
        drain.advance(end)
        elapsed = end - start
        for index, who in enumerate(readers):
            if who is None:
                self.lag[index] += self.rate[index] * elapsed
            else:
                self.lag[index] = (
                    drain.scale[who] * self.lag[index] + drain.inflow[who] * (self.rate[index])
                )


class _ReaderDrain:
    """Each reader's backlog over one segment: ``group_lag`` drains at its consume rate.

    ``scale`` multiplies the lag at the segment's start and ``inflow`` the produce rate, per
    reader, so that any partition's backlog is known without touching it at every step.
    """

    def __init__(
        self,
        consume: Mapping[str, float],
        group_lag: dict[str, float],
        group_rate: dict[str, float],
        start: float,
    ) -> None:
        self.consume = consume
        self.group_lag = group_lag
        self.group_rate = group_rate
        self.scale = dict.fromkeys(group_lag, 1.0)
        self.inflow = dict.fromkeys(group_lag, 0.0)
        self.clock = start

    def advance(self, to: float) -> None:
        d = to - self.clock
        if d <= 0:
            return
        for who, backlog in self.group_lag.items():
            total = backlog + self.group_rate[who] * d
            if total <= 0:
                continue
            read = records_read(self.consume[who] * d, total)
            keep = 1.0 - read / total
            self.group_lag[who] = total * keep
            self.scale[who] *= keep
            self.inflow[who] = keep * (self.inflow[who] + d)
        self.clock = to

    def totals(
        self, cell_lag: Mapping[_Cell, float], cell_rate: Mapping[_Cell, float], start: float
    ) -> dict[str | None, float]:
        """Backlog per target owner now (a sample)."""
        totals: dict[str | None, float] = {}
        for key, backlog in cell_lag.items():
            who, target_owner = key
            if who is None:
                value = backlog + cell_rate[key] * (self.clock - start)
            else:
                value = self.scale[who] * backlog + self.inflow[who] * cell_rate[key]
            totals[target_owner] = totals.get(target_owner, 0.0) + value
        return totals


def _what_holds(
    simulation: RebalanceSimulation | None, assignment: Assignment | None
) -> tuple[Assignment, list[_Segment], float]:
    """Model step 4: the target, the phases that come first (with time in them), and when the
    target starts holding."""
    if simulation is not None:
        segments: list[_Segment] = [
            (phase.start_s, phase.end_s, phase.consuming)
            for phase in simulation.phases
            if phase.duration_s > 0
        ]
        return simulation.target, segments, simulation.duration_s
    if assignment is not None:
        return assignment, [], 0.0
    raise DrainError("give a rebalance simulation or an assignment to project")


def _universe(
    scenario: Scenario, target: Assignment, simulation: RebalanceSimulation | None
) -> list[TopicPartition]:
    """Every partition that matters: subscribed, owned in the target or owned before."""
    subscribed_topics = set(scenario.subscribed_existing_topics())
    subscribed = {
        TopicPartition(t.name, p)
        for t in scenario.topics
        if t.name in subscribed_topics
        for p in range(t.partitions)
    }
    before = simulation.previous.owner_of() if simulation else ()
    return sorted_partitions(subscribed | set(target.owner_of()) | set(before))


def _member_drain(
    member_id: str,
    projection: _Projection,
    at_settle: Mapping[str | None, float],
    settled_rate: Mapping[str | None, float],
    settled: float,
    using_default: tuple[str, ...],
) -> MemberDrain:
    """Model steps 5-6 for one member of the target."""
    consume = projection.consume[member_id]
    produced = settled_rate.get(member_id, 0.0)
    series = tuple(projection.samples[member_id])
    clears_at, deficit = settled_outcome(
        at_settle.get(member_id, 0.0), produced, consume, settled, max(series, default=0.0)
    )
    return MemberDrain(
        member_id=member_id,
        consume_rate=consume,
        rate_is_default=member_id in using_default,
        produce_rate=produced,
        lag=series,
        initial_lag=series[0],
        peak_lag=max(series),
        clears_at_s=clears_at,
        deficit=deficit,
    )


def project_drain(
    scenario: Scenario,
    simulation: RebalanceSimulation | None = None,
    *,
    assignment: Assignment | None = None,
    horizon_s: float = 3600.0,
    step_s: float = 10.0,
    default_consume_rate: float = DEFAULT_CONSUME_RATE,
    lags: Mapping[TopicPartition, int] | None = None,
) -> DrainProjection:
    """Project every member's backlog after the change (see the module docstring).

    ``scenario`` is the group after the change (its lags, rates and members). With
    ``simulation`` its phases come first and its target holds afterwards; without one,
    ``assignment`` (required then) holds from ``t = 0``. ``lags`` overrides the per-partition
    lag (default: :func:`assignors.simulate.metrics.lag_by_partition`).

    Steps: 1. the grid; 2. what holds when (:func:`_what_holds`); 3. every member's consume
    rate; 4. the per-partition state over the partitions that matter (:func:`_universe`);
    5. the phases, then the target until the horizon (:meth:`_Projection.run_segment`);
    6. each member's outcome (:func:`_member_drain`) and the group's.
    """
    if not (math.isfinite(default_consume_rate) and default_consume_rate >= 0):
        raise DrainError(f"the default consume rate must be >= 0, got {default_consume_rate}")
    times = _grid(horizon_s, step_s)
    target, segments, settled = _what_holds(simulation, assignment)
    members = sorted(target.partitions)
    given_rates = {m.member_id: m.consume_rate for m in scenario.members}
    consume = {
        m: default_consume_rate if given_rates.get(m) is None else float(given_rates[m] or 0.0)
        for m in members
    }
    using_default = tuple(m for m in members if given_rates.get(m) is None)
    projection = _Projection(
        times,
        _universe(scenario, target, simulation),
        lag_by_partition(scenario) if lags is None else lags,
        produce_rate_by_partition(scenario),
        target.owner_of(),
        consume,
    )
    projection.record(_sum_by(projection.owners, projection.lag))
    for start, end, consuming in segments:
        projection.run_segment(start, end, consuming)
    at_settle = _sum_by(projection.owners, projection.lag)
    settled_rate = _exact_sum_by(projection.owners, projection.rate)
    projection.run_segment(settled, max(settled, times[-1]), target.partitions)
    results = [
        _member_drain(m, projection, at_settle, settled_rate, settled, using_default)
        for m in members
    ]
    return _group_projection(
        projection, results, at_settle, settled_rate, settled, using_default, default_consume_rate
    )


def _group_projection(
    projection: _Projection,
    results: list[MemberDrain],
    at_settle: Mapping[str | None, float],
    settled_rate: Mapping[str | None, float],
    settled: float,
    using_default: tuple[str, ...],
    default_consume_rate: float,
) -> DrainProjection:
    """Model step 5's group line and the group's outcome."""
    times = projection.times
    unowned = tuple(projection.samples[None])
    unowned_rate = settled_rate.get(None, 0.0)
    never = any(not r.clears for r in results) or (at_settle.get(None, 0.0) > 0 or unowned_rate > 0)
    # Column sums over the members, added in member order (as a per-time sum would).
    by_time = zip(*(r.lag for r in results), strict=True) if results else None
    group = tuple(
        unowned[i] + (sum(next(by_time)) if by_time is not None else 0) for i in range(len(times))
    )
    return DrainProjection(
        times_s=tuple(times),
        members=tuple(results),
        unowned_lag=unowned,
        group_lag=group,
        group_clears_at_s=None
        if never
        else max((r.clears_at_s or 0.0 for r in results), default=0.0),
        group_deficit=exact_sum([*(r.deficit for r in results), unowned_rate]),
        settled_at_s=settled,
        default_consume_rate=default_consume_rate,
        members_using_default_rate=using_default,
    )


def backlog_through(
    scenario: Scenario,
    simulation: RebalanceSimulation,
    *,
    default_consume_rate: float = DEFAULT_CONSUME_RATE,
    lags: Mapping[TopicPartition, int] | None = None,
) -> Iterator[tuple[float, tuple[TopicPartition, ...], tuple[float, ...]]]:
    """Every partition's backlog at ``t = 0`` and at the end of each phase of ``simulation``
    with time in it, as ``(time_s, partitions, backlogs)`` (partitions sorted, the same tuple
    each time; backlogs aligned with them).

    The same model as :func:`project_drain` (steps 1-4) without the grid: the figures at each
    phase end are what :meth:`_Projection.run_segment` leaves, so their totals per reader are
    exact. Lazy: one phase is worked out per item asked for (O(partitions) each).
    """
    if not (math.isfinite(default_consume_rate) and default_consume_rate >= 0):
        raise DrainError(f"the default consume rate must be >= 0, got {default_consume_rate}")
    target, segments, _ = _what_holds(simulation, None)
    given_rates = {m.member_id: m.consume_rate for m in scenario.members}
    readers = {m for phase in simulation.phases for m in phase.consuming} | set(target.partitions)
    consume = {
        m: default_consume_rate if given_rates.get(m) is None else float(given_rates[m] or 0.0)
        for m in sorted(readers)
    }
    universe = _universe(scenario, target, simulation)
    projection = _Projection(
        [],
        universe,
        lag_by_partition(scenario) if lags is None else lags,
        produce_rate_by_partition(scenario),
        target.owner_of(),
        consume,
    )
    partitions = tuple(universe)
    yield 0.0, partitions, tuple(projection.lag)
    for start, end, consuming in segments:
        projection.run_segment(start, end, consuming)
        yield end, partitions, tuple(projection.lag)

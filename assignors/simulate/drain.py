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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from assignors.errors import AssignmentExplorerError
from assignors.model import Assignment, Scenario, TopicPartition
from assignors.simulate.metrics import lag_by_partition, sorted_partitions
from assignors.simulate.rebalance import RebalanceSimulation

#: Records per second a member reads when the scenario gives it no ``consume_rate``.
DEFAULT_CONSUME_RATE = 1000.0
#: Records per second produced to a partition of a topic without ``produce_rates``.
DEFAULT_PRODUCE_RATE = 0.0
#: Relative slack when comparing summed rates: a member that consumes what it is produced keeps
#: up even when float sums in different orders differ in the last bits (about 1e-16 relative).
_RATE_TOLERANCE = 1e-9


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


_Cell = tuple[str | None, str | None]  # (reader in this segment, owner in the target)


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
    """
    if not (math.isfinite(default_consume_rate) and default_consume_rate >= 0):
        raise DrainError(f"the default consume rate must be >= 0, got {default_consume_rate}")
    times = _grid(horizon_s, step_s)
    if simulation is not None:
        target = simulation.target
        segments = [
            (phase.start_s, phase.end_s, phase.consuming)
            for phase in simulation.phases
            if phase.duration_s > 0
        ]
        settled = simulation.duration_s
    elif assignment is not None:
        target = assignment
        segments = []
        settled = 0.0
    else:
        raise DrainError("give a rebalance simulation or an assignment to project")

    lag_of = lag_by_partition(scenario) if lags is None else lags
    rate_of = produce_rate_by_partition(scenario)
    members = sorted(target.partitions)
    given_rates = {m.member_id: m.consume_rate for m in scenario.members}
    consume = {
        m: default_consume_rate if given_rates.get(m) is None else float(given_rates[m] or 0.0)
        for m in members
    }
    using_default = tuple(m for m in members if given_rates.get(m) is None)
    owner = target.owner_of()
    subscribed = {
        TopicPartition(t.name, p)
        for t in scenario.topics
        if t.name in set(scenario.subscribed_existing_topics())
        for p in range(t.partitions)
    }
    universe = sorted_partitions(
        subscribed | set(owner) | set(simulation.previous.owner_of() if simulation else ())
    )
    # Per-partition state as lists aligned with ``universe`` (the hot loops index, not hash).
    lag = [float(lag_of.get(tp, 0)) for tp in universe]
    rate = [rate_of.get(tp, DEFAULT_PRODUCE_RATE) for tp in universe]
    owners = [owner.get(tp) for tp in universe]

    samples: dict[str | None, list[float]] = {m: [] for m in [*members, None]}
    sample_index = 0

    def record(cell_totals: Mapping[str | None, float]) -> None:
        for key, series in samples.items():
            series.append(cell_totals.get(key, 0.0))

    initial: dict[str | None, float] = {}
    for target_owner, backlog in zip(owners, lag, strict=True):
        initial[target_owner] = initial.get(target_owner, 0.0) + backlog
    record(initial)
    sample_index = 1

    def run_segment(
        start: float, end: float, consuming: Mapping[str, Iterable[TopicPartition]]
    ) -> None:
        nonlocal sample_index
        reader_of: dict[TopicPartition, str] = {}
        for member_id, tps in consuming.items():
            for tp in tps:
                reader_of[tp] = member_id
        readers = [reader_of.get(tp) for tp in universe]
        cell_lag: dict[_Cell, float] = {}
        cell_rate: dict[_Cell, float] = {}
        group_lag: dict[str, float] = {}
        group_rate: dict[str, float] = {}
        for key, backlog, produced in zip(
            zip(readers, owners, strict=True), lag, rate, strict=True
        ):
            cell_lag[key] = cell_lag.get(key, 0.0) + backlog
            cell_rate[key] = cell_rate.get(key, 0.0) + produced
            who = key[0]
            if who is not None:
                group_lag[who] = group_lag.get(who, 0.0) + backlog
                group_rate[who] = group_rate.get(who, 0.0) + produced
        scale = dict.fromkeys(group_lag, 1.0)  # A: multiplies the lag at the segment start
        inflow = dict.fromkeys(group_lag, 0.0)  # B: multiplies the produce rate
        cells = list(cell_lag)
        clock = start

        def advance(to: float) -> None:
            nonlocal clock
            d = to - clock
            if d <= 0:
                return
            for who, backlog in group_lag.items():
                total = backlog + group_rate[who] * d
                if total <= 0:
                    continue
                read = min(consume[who] * d, total)
                keep = 1.0 - read / total
                group_lag[who] = total * keep
                scale[who] *= keep
                inflow[who] = keep * (inflow[who] + d)
            clock = to

        while sample_index < len(times) and times[sample_index] <= end:
            advance(times[sample_index])
            totals: dict[str | None, float] = {}
            for key in cells:
                who, target_owner = key
                if who is None:
                    value = cell_lag[key] + cell_rate[key] * (clock - start)
                else:
                    value = scale[who] * cell_lag[key] + inflow[who] * cell_rate[key]
                totals[target_owner] = totals.get(target_owner, 0.0) + value
            record(totals)
            sample_index += 1
        advance(end)
        elapsed = end - start
        for index, who in enumerate(readers):
            if who is None:
                lag[index] += rate[index] * elapsed
            else:
                lag[index] = scale[who] * lag[index] + inflow[who] * rate[index]

    for start, end, consuming in segments:
        run_segment(start, end, consuming)
    at_settle: dict[str | None, float] = {}
    settled_rate: dict[str | None, float] = {}
    for target_owner, backlog, produced in zip(owners, lag, rate, strict=True):
        at_settle[target_owner] = at_settle.get(target_owner, 0.0) + backlog
        settled_rate[target_owner] = settled_rate.get(target_owner, 0.0) + produced
    run_segment(settled, max(settled, times[-1]), target.partitions)

    member_results: list[MemberDrain] = []
    for m in members:
        backlog = at_settle.get(m, 0.0)
        produced = settled_rate.get(m, 0.0)
        series = tuple(samples[m])
        if backlog <= 0:
            clears_at: float | None = settled if max(series, default=0.0) > 0 else 0.0
            deficit = produced - consume[m]
            if deficit > _RATE_TOLERANCE * max(produced, consume[m], 1.0):
                clears_at = None
            else:  # keeping up exactly, up to the rounding of rates summed in another order
                deficit = 0.0
        elif consume[m] > produced:
            clears_at = settled + backlog / (consume[m] - produced)
            deficit = 0.0
        else:
            clears_at = None
            deficit = produced - consume[m]
        member_results.append(
            MemberDrain(
                member_id=m,
                consume_rate=consume[m],
                rate_is_default=m in using_default,
                produce_rate=produced,
                lag=series,
                initial_lag=series[0],
                peak_lag=max(series),
                clears_at_s=clears_at,
                deficit=deficit,
            )
        )
    unowned = tuple(samples[None])
    unowned_rate = settled_rate.get(None, 0.0)
    never = any(not r.clears for r in member_results) or (
        at_settle.get(None, 0.0) > 0 or unowned_rate > 0
    )
    # Column sums over the members, added in member order (as a per-time sum would).
    by_time = zip(*(r.lag for r in member_results), strict=True) if member_results else None
    group = tuple(
        unowned[i] + (sum(next(by_time)) if by_time is not None else 0) for i in range(len(times))
    )
    return DrainProjection(
        times_s=tuple(times),
        members=tuple(member_results),
        unowned_lag=unowned,
        group_lag=group,
        group_clears_at_s=None
        if never
        else max((r.clears_at_s or 0.0 for r in member_results), default=0.0),
        group_deficit=sum(r.deficit for r in member_results) + unowned_rate,
        settled_at_s=settled,
        default_consume_rate=default_consume_rate,
        members_using_default_rate=using_default,
    )

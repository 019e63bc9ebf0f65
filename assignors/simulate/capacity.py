"""Can the group keep up? Its read capacity against what is produced, once an assignment holds.

:func:`capacity` answers for one assignment (the model of :mod:`assignors.simulate.drain`: a
member reads up to its ``consume_rate``, else the default rate, from the partitions it owns; a
partition nobody owns is not read):

1. ``produce_rate``: records/s produced to every partition of the scenario;
2. ``read_rate``: records/s the group reads once every backlog is gone: per member, the lesser
   of its rate and what its partitions produce;
3. ``deficit`` = ``produce_rate - read_rate``: how fast the backlog grows for good (0 when the
   group keeps up); ``doubles_in_s``: how long the backlog takes to double at that pace (None
   when it keeps up or has no backlog);
4. ``members_needed``: the fewest members that could keep up, each reading ``member_rate`` (the
   members' mean rate): ``ceil(produce_rate / member_rate)``, a lower bound (it assumes the
   partitions split evenly by produce rate); ``capped_by_partitions`` when that is more than
   the partitions (one consumer per partition: members beyond them idle), and
   ``hot_partitions``, those producing more than one member reads, which no number of members
   can keep up with.

Invariants: ``0 <= read_rate <= produce_rate``; ``deficit == 0`` exactly when every member reads
at least what its partitions produce and every partition with a produce rate above 0 is owned;
pure and deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from assignors.model import Assignment, Scenario, TopicPartition
from assignors.simulate.drain import DEFAULT_CONSUME_RATE, exact_sum, produce_rate_by_partition
from assignors.simulate.lag import partition_lags

#: Relative slack below which a deficit counts as keeping up (float sums).
SLACK = 1e-9


@dataclass(frozen=True, slots=True)
class Capacity:
    """Whether a group keeps up with its producers (see the module docstring)."""

    produce_rate: float
    read_rate: float
    deficit: float
    backlog: float
    doubles_in_s: float | None
    member_rate: float
    members: int
    members_needed: int | None
    """None when no member reads anything (every rate 0, or too small to count)."""
    partitions: int
    capped_by_partitions: bool
    hot_partitions: tuple[tuple[TopicPartition, float], ...]

    @property
    def keeps_up(self) -> bool:
        """True when the backlog does not grow for good."""
        return self.deficit <= SLACK * max(self.produce_rate, 1.0)

    def sentence(self) -> str:
        """One line a team reads first: that the group keeps up, or by how much it does not."""
        if self.keeps_up:
            spare = self.members * self.member_rate - self.produce_rate
            return (
                f"The group keeps up: it reads {self.read_rate:,.0f} records/s of the "
                f"{self.produce_rate:,.0f} produced (about {max(spare, 0):,.0f} records/s to "
                "spare)."
            )
        parts = [
            f"The group cannot keep up: {self.produce_rate:,.0f} records/s are produced and it "
            f"reads {self.read_rate:,.0f}, so the backlog grows by {self.deficit:,.0f} records/s"
            + (
                f" and doubles every {_duration(self.doubles_in_s)}"
                if self.doubles_in_s is not None
                else ""
            )
            + "."
        ]
        parts.append(self._members_line())
        if self.hot_partitions:
            worst, rate = self.hot_partitions[0]
            parts.append(
                f"{len(self.hot_partitions):,} partition(s) produce more than one member reads "
                f"({worst.topic}-{worst.partition}: {rate:,.0f} records/s against "
                f"{self.member_rate:,.0f}): no number of members keeps up with those."
            )
        return " ".join(parts)

    def _members_line(self) -> str:
        if self.members_needed is None:
            return "No member reads anything: give the members a consume rate above 0."
        if self.capped_by_partitions:
            return (
                f"It would need at least {self.members_needed:,} members at "
                f"{self.member_rate:,.0f} records/s each, but only {self.partitions:,} "
                "partitions can be read at once: add partitions or make each member faster."
            )
        return (
            f"It needs at least {self.members_needed:,} members at {self.member_rate:,.0f} "
            f"records/s each (it has {self.members:,})."
        )

    def to_json(self) -> dict[str, Any]:
        """Plain JSON object."""
        return {
            "keeps_up": self.keeps_up,
            "produce_rate": self.produce_rate,
            "read_rate": self.read_rate,
            "deficit": self.deficit,
            "backlog": self.backlog,
            "doubles_in_s": self.doubles_in_s,
            "member_rate": self.member_rate,
            "members": self.members,
            "members_needed": self.members_needed,
            "partitions": self.partitions,
            "capped_by_partitions": self.capped_by_partitions,
            "hot_partitions": [[tp.topic, tp.partition, r] for tp, r in self.hot_partitions],
            "sentence": self.sentence(),
        }


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "never"
    if seconds >= 2 * 86400:
        return f"{seconds / 86400:.1f} days"
    if seconds >= 5400:
        return f"{seconds / 3600:.1f} h"
    if seconds >= 120:
        return f"{seconds / 60:.0f} min"
    return f"{seconds:.0f} s"


def _rates(scenario: Scenario, default_consume_rate: float) -> Mapping[str, float]:
    return {
        m.member_id: default_consume_rate if m.consume_rate is None else float(m.consume_rate)
        for m in scenario.members
    }


def _backlog(scenario: Scenario) -> float:
    return exact_sum(
        float(lag)
        for topic in scenario.topics
        for lag in partition_lags(topic, scenario.auto_offset_reset)
    )


def capacity(
    scenario: Scenario,
    assignment: Assignment,
    default_consume_rate: float = DEFAULT_CONSUME_RATE,
) -> Capacity:
    """Steps 1-4 of the module docstring for ``assignment`` over ``scenario``."""
    produced = produce_rate_by_partition(scenario)
    rates = _rates(scenario, default_consume_rate)
    read = [
        min(rate, exact_sum(produced.get(tp, 0.0) for tp in assignment.partitions.get(member, ())))
        for member, rate in rates.items()
    ]
    produce_rate = exact_sum(produced.values())
    read_rate = min(exact_sum(read), produce_rate)
    deficit = max(produce_rate - read_rate, 0.0)
    backlog = _backlog(scenario)
    member_rate = exact_sum(rates.values()) / len(rates) if rates else default_consume_rate
    ratio = produce_rate / member_rate if member_rate > 0 else math.inf
    needed = math.ceil(ratio - SLACK) if math.isfinite(ratio) else None
    hot = sorted(
        ((tp, r) for tp, r in produced.items() if r > member_rate),
        key=lambda item: (-item[1], item[0].topic, item[0].partition),
    )
    growing = deficit > SLACK * max(produce_rate, 1.0)
    return Capacity(
        produce_rate=produce_rate,
        read_rate=read_rate,
        deficit=deficit if growing else 0.0,
        backlog=backlog,
        doubles_in_s=backlog / deficit if growing and backlog > 0 else None,
        member_rate=member_rate,
        members=len(rates),
        members_needed=None if needed is None else max(needed, 1),
        partitions=len(produced),
        capped_by_partitions=needed is not None and needed > len(produced),
        hot_partitions=tuple(hot),
    )

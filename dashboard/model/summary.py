"""The comparison in words: the one sentence at the top of the page, and the lag-spread card.

Pure functions, no Streamlit: the results panel hands in what the core computed (each
strategy's moves, pauses and stop-the-world time, lag per member) and shows the text.

Invariants: numbers are the core's, formatted for reading (thousands separators, seconds with
at most one decimal); a strategy that moves nothing says so; strategies appear in the order
given (the order the user picked them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class StrategyCost:
    """What one strategy's rebalance costs: moves, partition pauses, whole-group stop."""

    name: str
    moved: int
    partition_pauses: int
    group_stop_s: float
    lag_ratio: float | None
    """Busiest member's lag over the quietest's (``None``: a member with partitions has none)."""
    lag_total: float


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def _seconds(value: float) -> str:
    return f"{value:,.0f} s" if value >= 10 or value == int(value) else f"{value:,.1f} s"


def _clause(cost: StrategyCost) -> str:
    if cost.moved == 0 and cost.partition_pauses == 0:
        return f"{cost.name} moves nothing"
    text = f"{cost.name} moves {_count(cost.moved, 'partition')}"
    joint = " and"
    if cost.moved == 0:
        text, joint = f"{cost.name} moves nothing", " but"
    if cost.group_stop_s > 0:
        return text + f"{joint} stops the whole group for {_seconds(cost.group_stop_s)}"
    if cost.partition_pauses:
        return text + f"{joint} pauses {cost.partition_pauses:,}"
    return text


def comparison_sentence(change: str, costs: Sequence[StrategyCost]) -> str:
    """E.g. "Adding C2: cooperative-sticky moves 1 partition and pauses 2; range moves 3 and
    stops the whole group for 1 s".

    ``change`` names the what-if ("Adding C2"), or is empty when nothing changes: then the
    sentence compares the strategies' answers with the current assignment.
    """
    if not costs:
        return "Pick a strategy in the sidebar to compare it with the current assignment."
    clauses = "; ".join(_clause(cost) for cost in costs)
    if change:
        return f"{change}: {clauses}."
    spreads = [f"{cost.name} {lag_spread_words(cost.lag_ratio, cost.lag_total)}" for cost in costs]
    return f"Reassigning the group as it is: {clauses}. Lag spread: {'; '.join(spreads)}."


def lag_spread_words(ratio: float | None, lag_total: float) -> str:
    """The lag-spread card's value: "no lag", "one member carries all", "even" or "1.8x"."""
    if lag_total <= 0:
        return "no lag"
    if ratio is None:
        return "some carry none"
    if ratio <= 1.0:
        return "even"
    return f"{ratio:,.1f}x"


def lag_spread_value(lag_by_member: Mapping[str, float], ratio: float | None) -> str:
    """The card's words for members with partitions: "one member carries all" when exactly one
    member has lag and others have none; otherwise :func:`lag_spread_words`."""
    total = sum(lag_by_member.values())
    carrying = sum(1 for value in lag_by_member.values() if value > 0)
    if total > 0 and carrying == 1 and len(lag_by_member) > 1:
        return "one member carries all"
    return lag_spread_words(ratio, total)


def change_phrase(descriptions: Sequence[str]) -> str:
    """What-if change descriptions (the core's ``describe``) as the sentence's subject."""
    if not descriptions:
        return ""
    first = descriptions[0]
    words = {
        "add member ": "Adding ",
        "remove member ": "Removing ",
        "restart static member ": "Restarting ",
        "grow ": "Growing ",
        "subscribe ": "Subscribing ",
    }
    for prefix, verb in words.items():
        if first.startswith(prefix):
            first = verb + first[len(prefix) :]
            break
    first = first.split(" (", 1)[0] if first.startswith("Adding ") else first
    more = len(descriptions) - 1
    return first + (f" (and {_count(more, 'more change')})" if more else "")

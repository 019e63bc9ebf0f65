"""What a deploy costs, on every count, and how plans compare: the Pareto front, an order by
weights the user sets, and one sentence per plan naming the costs that decide its place.

The costs of a played deploy (:func:`costs_of`, all "smaller is better"), in :data:`COSTS` order:

1. ``added_lag``: the most the deploy's backlog exceeds the backlog without it (records);
2. ``peak_lag``: the group's largest backlog during the deploy (records);
3. ``rebalances``: rebalances the deploy runs;
4. ``moved``: partitions that change owner (a partition moved away and back counts twice);
5. ``partition_pauses``: over the deploy's phases, the partitions paused in each, summed;
6. ``pause_s``: partition-seconds of pauses (each phase's paused partitions times its length);
7. ``deploy_s``: how long the deploy takes (seconds);
8. ``recover_s``: seconds from the deploy's end until the backlog is back where it started
   (``inf``: never, the group falls behind for good).

How plans are ordered (:func:`order`):

1. Each cost is scaled by the largest finite value among the plans compared (0 when that is 0),
   so every scaled cost is in [0, 1]; ``inf`` scales to :data:`NEVER_SCALED` (worse than any
   finite value).
2. A plan's score is the weighted sum of its scaled costs (weights >= 0, not all 0; default: 1
   each, :data:`DEFAULT_WEIGHTS`).
3. Plans are ordered by score, then by how many plans beat them on every cost (fewer first),
   then by the order given.

Invariants: a plan that another beats on every cost (no cost higher, one lower: *dominates*)
never ranks above it; the Pareto front is exactly the plans no other dominates; the order
depends only on the costs and the weights (pure, deterministic).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from assignors.errors import AssignmentExplorerError

#: A scaled cost for "never" (time to recover when the backlog never comes back).
NEVER_SCALED = 2.0
#: How many costs a reason names at most.
REASON_COSTS = 3


@dataclass(frozen=True, slots=True)
class Cost:
    """One count a deploy is judged on: its key, its name in sentences and its kind."""

    key: str
    label: str
    kind: str
    """``records`` (a backlog), ``count``, ``seconds`` or ``partition-seconds``."""


COSTS = (
    Cost("added_lag", "lag added", "records"),
    Cost("peak_lag", "peak lag", "records"),
    Cost("rebalances", "rebalances", "count"),
    Cost("moved", "partitions moved", "count"),
    Cost("partition_pauses", "partition-pauses", "count"),
    Cost("pause_s", "pause time", "partition-seconds"),
    Cost("deploy_s", "deploy duration", "seconds"),
    Cost("recover_s", "time to recover", "seconds"),
)
COST_KEYS = tuple(cost.key for cost in COSTS)
DEFAULT_WEIGHTS: Mapping[str, float] = dict.fromkeys(COST_KEYS, 1.0)


class WeightsError(AssignmentExplorerError, ValueError):
    """Weights that cannot order plans (an unknown cost, a negative or non-finite weight, or
    every weight 0)."""


def check_weights(weights: Mapping[str, float] | None) -> dict[str, float]:
    """Every cost's weight: ``weights`` over :data:`DEFAULT_WEIGHTS` (a cost not named keeps
    its default). Raises :class:`WeightsError` naming what to change."""
    chosen = dict(DEFAULT_WEIGHTS)
    for key, value in (weights or {}).items():
        if key not in chosen:
            raise WeightsError(f"unknown cost {key!r} in the weights; the costs: {COST_KEYS}")
        if not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
            raise WeightsError(f"the weight of {key} must be a number >= 0, not {value!r}")
        chosen[key] = float(value)
    if not any(chosen.values()):
        raise WeightsError("at least one cost needs a weight above 0")
    return chosen


def dominates(a: Mapping[str, float], b: Mapping[str, float]) -> bool:
    """Whether costs ``a`` beat ``b``: no cost higher and at least one lower."""
    return all(a[k] <= b[k] for k in COST_KEYS) and any(a[k] < b[k] for k in COST_KEYS)


def front(costs: Sequence[Mapping[str, float]]) -> list[int]:
    """Indexes of the plans no other plan dominates (the Pareto front), in the order given."""
    return [i for i, c in enumerate(costs) if not any(dominates(o, c) for o in costs)]


def scaled(costs: Sequence[Mapping[str, float]]) -> list[dict[str, float]]:
    """Each plan's costs scaled to [0, 1] by the largest finite value (step 1)."""
    largest = {k: max((c[k] for c in costs if math.isfinite(c[k])), default=0.0) for k in COST_KEYS}

    def one(value: float, top: float) -> float:
        if not math.isfinite(value):
            return NEVER_SCALED
        return value / top if top > 0 else 0.0

    return [{k: one(c[k], largest[k]) for k in COST_KEYS} for c in costs]


def scores(costs: Sequence[Mapping[str, float]], weights: Mapping[str, float]) -> list[float]:
    """Each plan's weighted sum of scaled costs (step 2); ``weights`` as :func:`check_weights`
    returns them."""
    return [sum(weights[k] * s[k] for k in COST_KEYS) for s in scaled(costs)]


def order(costs: Sequence[Mapping[str, float]], weights: Mapping[str, float]) -> list[int]:
    """Indexes of the plans, best first (step 3)."""
    score = scores(costs, weights)
    beaten = [sum(dominates(o, c) for o in costs) for c in costs]
    return sorted(range(len(costs)), key=lambda i: (score[i], beaten[i], i))


def _relative(value: float, other: float) -> str:
    """``"12 % lower"``: how ``value`` compares with ``other`` (both finite, other > 0)."""
    change = (value - other) / other * 100
    size = f"{abs(change):.1f}" if abs(change) < 10 else f"{abs(change):.0f}"
    return f"{size} % {'lower' if change < 0 else 'higher'}"


def _records(value: float) -> str:
    size = abs(value)
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if size >= limit:
            return f"{value / limit:.1f}{suffix}"
    return f"{value:.0f}"


def _seconds(value: float) -> str:
    if value >= 5400:
        return f"{value / 3600:.1f} h"
    if value >= 120:
        return f"{value / 60:.1f} min"
    return f"{value:.0f} s"


def compare(cost: Cost, value: float, other: float) -> str:
    """One cost of a plan against another's, in words: ``"0 rebalances against 56"``,
    ``"peak lag 12 % lower"``, ``"20 s slower"``, ``"recovers where the other never does"``."""
    if cost.key == "recover_s":
        if not math.isfinite(value):
            return "never recovers where the other does"
        if not math.isfinite(other):
            return "recovers where the other never does"
        gap = value - other
        return f"recovers {_seconds(abs(gap))} {'sooner' if gap < 0 else 'later'}"
    if cost.kind == "seconds":
        gap = value - other
        return f"{_seconds(abs(gap))} {'faster' if gap < 0 else 'slower'}"
    if cost.kind == "records":
        if other > 0:
            return f"{cost.label} {_relative(value, other)}"
        return f"{cost.label} {_records(value)} against 0"
    if cost.kind == "partition-seconds":
        return f"{_seconds(value)} of partition pauses against {_seconds(other)}"
    return f"{value:,.0f} {cost.label} against {other:,.0f}"


def deciding(
    costs: Sequence[Mapping[str, float]], weights: Mapping[str, float], mine: int, theirs: int
) -> tuple[list[str], list[str]]:
    """The costs that decide between plans ``mine`` and ``theirs``, in words (see
    :func:`compare`): those where ``mine`` is lower, then those where it is higher, each largest
    weighted scaled difference first; costs of weight 0 and equal costs left out."""
    level = scaled(costs)
    gaps = [
        (weights[c.key] * abs(level[mine][c.key] - level[theirs][c.key]), index, c)
        for index, c in enumerate(COSTS)
        if costs[mine][c.key] != costs[theirs][c.key] and weights[c.key] > 0
    ]
    gaps.sort(key=lambda gap: (-gap[0], gap[1]))
    words = [(c, compare(c, costs[mine][c.key], costs[theirs][c.key])) for _, _, c in gaps]
    lower = [text for c, text in words if costs[mine][c.key] < costs[theirs][c.key]]
    higher = [text for c, text in words if costs[mine][c.key] > costs[theirs][c.key]]
    return lower, higher


def reason(label: str, above: bool, lower: Sequence[str], higher: Sequence[str]) -> str:
    """One sentence on a plan's place against the plan ``label`` next to it: ranked ``above``
    it, the costs where it is lower lead (then one where it is higher, after "but"); ranked
    below, the other way round. At most :data:`REASON_COSTS` costs are named."""
    lead, other = (lower, higher) if above else (higher, lower)
    named = list(lead[: REASON_COSTS - 1 if other else REASON_COSTS])
    text = "; ".join(named) if named else "the same on every cost that weighs"
    if other:
        text += f"; but {other[0]}"
    return f"{'above' if above else 'below'} {label}: {text}"

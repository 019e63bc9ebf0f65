"""What-if edits: small JSON objects the user piles up, turned into the core's changes.

An edit is ``{"op": ..., ...}``. Two kinds, applied in this order:

1. *Shaping* edits describe the world the group lives in, so they apply to the "before" and the
   "after" alike: ``include_topics``, ``include_members`` (a filter on the source), and the
   facts about partitions ``set_lags``, ``skew_lag`` and ``set_produce_rates``, which become
   the core's :class:`~assignors.simulate.changes.SetLags`,
   :class:`~assignors.simulate.changes.SkewLag` and
   :class:`~assignors.simulate.changes.SetProduceRates` applied with
   :func:`assignors.simulate.changes.apply_one`.
2. *Membership* edits are the change whose cost the user wants to see; they become
   :mod:`assignors.simulate.changes` change objects and apply to the "after" only: ``add_member``
   (with its rack, consume rate and failover priority), ``remove_member`` (optionally a static
   member's restart), ``subscribe``, ``set_partitions``.

:func:`plan` returns the shaped "before" scenario, its current assignment, the "after" and the
change objects, as the core's :func:`assignors.evaluate` answers them. The dashboard changes no
scenario itself and never decides an assignment here: the changes, strategies, the rebalance
simulation and the metrics all come from ``assignors``.

Invariants: edits are plain JSON (so they travel in a shared link); applying the same edits to
the same source gives the same scenarios; an edit that no longer fits (a member already gone, a
topic filtered out) raises :class:`EditError` (or the core's ``ChangeError``) naming it, and
the dashboard shows it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assignors import Assignment, AssignmentExplorerError, Evaluation, Scenario, evaluate, registry
from assignors.simulate import changes

Edit = Mapping[str, Any]

SHAPING_OPS = ("include_topics", "include_members", "set_lags", "skew_lag", "set_produce_rates")
CHANGE_OPS = ("add_member", "remove_member", "subscribe", "set_partitions")
#: "Skew the lag" (:class:`assignors.simulate.changes.SkewLag`): the hot partitions' factor and
#: floor.
SKEW_FACTOR = changes.SKEW_FACTOR
SKEW_FLOOR = changes.SKEW_FLOOR


class EditError(AssignmentExplorerError, ValueError):
    """An edit cannot be applied to the current source; the message names the edit."""


@dataclass(frozen=True, slots=True)
class WhatIf:
    """The shaped "before", the "after", and the core's evaluation of the change.

    ``evaluation`` is :func:`assignors.evaluate` of the shaped "before" and the membership
    changes under every registered consumer-group strategy; each answer in it is computed only
    when a view asks for it.
    """

    evaluation: Evaluation

    @property
    def before(self) -> Scenario:
        return self.evaluation.before

    @property
    def after(self) -> Scenario:
        return self.evaluation.after

    @property
    def changes(self) -> tuple[changes.Change, ...]:
        return self.evaluation.changes

    @property
    def restarted(self) -> tuple[str, ...]:
        return self.evaluation.restarted

    @property
    def current(self) -> Assignment:
        """What the shaped "before" consumes now
        (:func:`assignors.simulate.changes.current_assignment`)."""
        return self.evaluation.current

    @property
    def changed(self) -> bool:
        """Whether the membership or the topics change at all."""
        return bool(self.changes)


def is_shaping(edit: Edit) -> bool:
    """Whether ``edit`` shapes the "before" (rather than being part of the change)."""
    return edit.get("op") in SHAPING_OPS


def describe(edit: Edit) -> str:
    """One line saying what an edit does, for the list of edits and the undo button."""
    op = edit.get("op")
    if op == "include_topics":
        return f"only topics {', '.join(edit['topics'])}"
    if op == "include_members":
        return f"only members {', '.join(edit['members'])}"
    if op == "set_lags":
        return f"lag edited on {len(edit['lags'])} partition(s) of {edit['topic']}"
    if op == "set_produce_rates":
        return f"produce rate edited on {len(edit['rates'])} partition(s) of {edit['topic']}"
    if op == "skew_lag":
        return f"lag skewed ({SKEW_FACTOR}x on the first quarter of each topic's partitions)"
    if op == "add_member":
        extras = [
            f"{key} {edit[key]}" for key in ("rack", "priority", "consume_rate") if key in edit
        ]
        return f"add member {edit['member_id']}" + (f" ({', '.join(extras)})" if extras else "")
    if op == "remove_member":
        if edit.get("static_restart"):
            return f"restart static member {edit['member_id']}"
        return f"remove member {edit['member_id']}"
    if op == "subscribe":
        return f"{edit['member_id']} subscribes to {', '.join(edit['topics']) or 'nothing'}"
    if op == "set_partitions":
        return f"{edit['topic']} grows to {edit['partitions']} partitions"
    return f"unknown edit {op!r}"


def _partition_pairs(raw: Mapping[str, Any]) -> tuple[tuple[int, Any], ...]:
    """``{"3": 100}`` (JSON keys are strings) -> ``((3, 100),)``."""
    return tuple((int(key), value) for key, value in raw.items())


def _shape(scenario: Scenario, edit: Edit) -> Scenario:
    op = edit["op"]
    if op == "include_topics":
        keep = set(edit["topics"])
        return dataclasses.replace(
            scenario, topics=tuple(topic for topic in scenario.topics if topic.name in keep)
        )
    if op == "include_members":
        keep = set(edit["members"])
        return dataclasses.replace(
            scenario,
            members=tuple(member for member in scenario.members if member.member_id in keep),
        )
    # Facts about partitions are the core's change types, applied to the "before".
    change: changes.Change
    if op == "set_lags":
        change = changes.SetLags(edit["topic"], _partition_pairs(edit["lags"]))
    elif op == "set_produce_rates":
        change = changes.SetProduceRates(edit["topic"], _partition_pairs(edit["rates"]))
    elif op == "skew_lag":
        change = changes.SkewLag()
    else:
        raise EditError(f"unknown edit {op!r}")
    return changes.apply_one(scenario, change)


def _change(edit: Edit) -> changes.Change:
    op = edit["op"]
    if op == "add_member":
        topics = edit.get("topics")
        rate = edit.get("consume_rate")
        return changes.AddMember(
            edit["member_id"],
            None if topics is None else tuple(topics),
            rack=edit.get("rack"),
            group_instance_id=edit.get("group_instance_id"),
            consume_rate=None if rate is None else float(rate),
            priority=None if edit.get("priority") is None else int(edit["priority"]),
        )
    if op == "remove_member":
        return changes.RemoveMember(
            edit["member_id"], static_restart=bool(edit.get("static_restart"))
        )
    if op == "subscribe":
        return changes.Subscribe(edit["member_id"], tuple(edit["topics"]))
    if op == "set_partitions":
        return changes.SetPartitions(edit["topic"], int(edit["partitions"]))
    raise EditError(f"unknown edit {op!r}")


def plan(source: Scenario, edits: Sequence[Edit]) -> WhatIf:
    """Apply ``edits`` to ``source``: the shaped before, the after and the change objects.

    Raises :class:`EditError` (or the core's ``ChangeError``) when an edit does not fit.
    """
    before = source
    change_edits: list[Edit] = []
    for index, edit in enumerate(edits):
        op = edit.get("op")
        if op in SHAPING_OPS:
            try:
                before = _shape(before, edit)
            except (KeyError, TypeError, ValueError) as error:
                if isinstance(error, AssignmentExplorerError):
                    raise
                raise EditError(f"edit {index + 1} ({op}) is malformed: {error}") from None
        elif op in CHANGE_OPS:
            change_edits.append(edit)
        else:
            raise EditError(f"edit {index + 1}: unknown operation {op!r}")
    try:
        change_list = tuple(_change(edit) for edit in change_edits)
    except (KeyError, TypeError, ValueError) as error:
        if isinstance(error, AssignmentExplorerError):
            raise
        raise EditError(f"a membership edit is malformed: {error}") from None
    strategies = [strategy.name for strategy in registry.partition_strategies().values()]
    return WhatIf(evaluate(before, change_list, strategies))

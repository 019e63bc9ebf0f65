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

Every edit but the two filters is a change in the core's one JSON form
(:mod:`assignors.io.changes`, read with :func:`assignors.parse_change`): the same ops, fields,
limits and messages as the CLI, the pipeline and the walkthrough files.

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

from assignors import SKEW_FACTOR as _SKEW_FACTOR
from assignors import SKEW_FLOOR as _SKEW_FLOOR
from assignors import (
    Assignment,
    AssignmentExplorerError,
    Change,
    Evaluation,
    Scenario,
    apply_in_order,
    apply_one,
    evaluate,
    parse_change,
    registry,
)

Edit = Mapping[str, Any]

#: Filters on the source: the dashboard's own edits (not changes to a group).
FILTER_OPS = ("include_topics", "include_members")
SHAPING_OPS = (*FILTER_OPS, "set_lags", "skew_lag", "set_produce_rates")
CHANGE_OPS = (
    "add_member",
    "add_members",
    "remove_member",
    "restart_member",
    "subscribe",
    "set_partitions",
)
#: "Skew the lag" (:class:`assignors.SkewLag`): the hot partitions' factor and floor.
SKEW_FACTOR: int = _SKEW_FACTOR
SKEW_FLOOR: int = _SKEW_FLOOR


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
    def changes(self) -> tuple[Change, ...]:
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


def next_member_id(scenario: Scenario) -> str:
    """The id *Add member* gives a member when none is typed: ``consumer-N``, N the first number
    from the member count plus one whose id is free. The form shows it as its placeholder, so
    the placeholder is what an empty field adds."""
    taken = {member.member_id for member in scenario.members}
    number = len(taken) + 1
    while f"consumer-{number}" in taken:
        number += 1
    return f"consumer-{number}"


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
        return f"lag skewed (a quarter of each topic's partitions hot, the hottest {SKEW_FACTOR}x)"
    if op == "add_member":
        extras = [
            f"{key} {edit[key]}" for key in ("rack", "priority", "consume_rate") if key in edit
        ]
        return f"add member {edit['member_id']}" + (f" ({', '.join(extras)})" if extras else "")
    if op == "add_members":
        return f"add {edit['count']} member(s)"
    if op == "restart_member":
        return f"restart static member {edit['member_id']}"
    if op == "remove_member":
        if edit.get("static_restart"):
            return f"restart static member {edit['member_id']}"
        return f"remove member {edit['member_id']}"
    if op == "subscribe":
        return f"{edit['member_id']} subscribes to {', '.join(edit['topics']) or 'nothing'}"
    if op == "set_partitions":
        return f"{edit['topic']} grows to {edit['partitions']} partitions"
    return f"unknown edit {op!r}"


def _filter(scenario: Scenario, edit: Edit, where: str) -> Scenario:
    """An ``include_topics`` / ``include_members`` edit: keep only the named ones."""
    key = "topics" if edit["op"] == "include_topics" else "members"
    names = edit.get(key)
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise EditError(f"{where}.{key}: expected a list of names")
    keep = set(names)
    if key == "topics":
        topics = tuple(topic for topic in scenario.topics if topic.name in keep)
        return dataclasses.replace(scenario, topics=topics)
    members = tuple(member for member in scenario.members if member.member_id in keep)
    return dataclasses.replace(scenario, members=members)


#: The most members a list of edits may add in all: an edit shows how a group takes a few more
#: members; a bigger group is a scenario of its own (upload it). One link that added 20,000
#: members to a 6-partition sample kept a core busy for minutes.
MAX_ADDED_MEMBERS = 20_000


def members_added(edit: Edit) -> int:
    """How many members ``edit`` (a checked edit) adds: 1, its count, or 0."""
    if edit.get("op") == "add_member":
        return 1
    if edit.get("op") == "add_members":
        return int(edit.get("count", 0))
    return 0


def too_many_added(added: int, where: str) -> str:
    """The message for edits that add more than :data:`MAX_ADDED_MEMBERS` members."""
    return (
        f"{where}: the edits add {added:,} members; at most {MAX_ADDED_MEMBERS:,}"
        " (for a bigger group, upload its scenario)"
    )


def check_edit(edit: object, index: int) -> Edit:
    """``edit`` if it is a well-formed edit: a filter, or a change in the core's one JSON form
    (:func:`assignors.parse_change`, whose messages it raises); else :class:`EditError`."""
    where = f"edit {index + 1}"
    if not isinstance(edit, Mapping):
        raise EditError(f"{where}: expected an edit object")
    op = edit.get("op")
    if op in FILTER_OPS:
        _filter(Scenario((), ()), edit, where)
    elif op in SHAPING_OPS or op in CHANGE_OPS:
        parse_change(edit, where)
    else:
        raise EditError(f"{where}: unknown operation {op!r}")
    return edit


def plan(source: Scenario, edits: Sequence[Edit]) -> WhatIf:
    """Apply ``edits`` to ``source``: the shaped before, the after and the change objects.

    Raises :class:`EditError` (or the core's ``ChangeError``) when an edit does not fit.
    """
    before, change_list = _shape(source, edits)
    strategies = [strategy.name for strategy in registry.partition_strategies().values()]
    return WhatIf(evaluate(before, change_list, strategies))


def outline(source: Scenario, edits: Sequence[Edit]) -> tuple[Scenario, Scenario]:
    """The shaped before and the after's membership and topics, without the current assignment.

    The same scenarios as :func:`plan`'s ``before`` and ``after`` except that no member of the
    after owns anything new (no strategy runs): what the shaping controls list, at the cost of
    the edits alone. Raises as :func:`plan` does for an edit that does not fit its membership
    or topics.
    """
    before, change_list = _shape(source, edits)
    return before, apply_in_order(before, change_list)


def _shape(source: Scenario, edits: Sequence[Edit]) -> tuple[Scenario, tuple[Change, ...]]:
    """The "before" with the shaping edits applied, and the membership edits as changes."""
    before = source
    change_list: list[Change] = []
    added = 0
    for index, edit in enumerate(edits):
        check_edit(edit, index)
        where = f"edit {index + 1}"
        added += members_added(edit)
        if added > MAX_ADDED_MEMBERS:
            raise EditError(too_many_added(added, where))
        if edit["op"] in FILTER_OPS:
            before = _filter(before, edit, where)
        elif edit["op"] in SHAPING_OPS:  # facts about partitions: the "before" itself changes
            before = apply_one(before, parse_change(edit, where))
        else:
            change_list.append(parse_change(edit, where))
    return before, tuple(change_list)

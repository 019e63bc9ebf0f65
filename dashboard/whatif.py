"""What-if edits: small JSON objects the user piles up, turned into the core's changes.

An edit is ``{"op": ..., ...}``. Two kinds, applied in this order:

1. *Shaping* edits describe the world the group lives in, so they apply to the "before" and the
   "after" alike: ``include_topics``, ``include_members`` (a filter on the source),
   ``set_lags``, ``skew_lag`` and ``set_produce_rates`` (facts about the partitions).
2. *Membership* edits are the change whose cost the user wants to see; they become
   :mod:`assignors.changes` change objects and apply to the "after" only: ``add_member``,
   ``remove_member`` (optionally a static member's restart), ``subscribe``, ``set_partitions``.

:func:`plan` returns the shaped "before" scenario, the change objects and any extra member
fields (the failover priority of an added member) that the change types do not carry.
The dashboard never decides an assignment here: strategies, the rebalance simulation and the
metrics all come from ``assignors``.

Invariants: edits are plain JSON (so they travel in a shared link); applying the same edits to
the same source gives the same scenarios; an edit that no longer fits (a member already gone, a
topic filtered out) raises :class:`EditError` naming the edit, and the dashboard shows it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assignors import changes
from assignors.errors import AssignmentExplorerError
from assignors.lag import partition_lags
from assignors.model import Member, Scenario, Topic

Edit = Mapping[str, Any]

SHAPING_OPS = ("include_topics", "include_members", "set_lags", "skew_lag", "set_produce_rates")
CHANGE_OPS = ("add_member", "remove_member", "subscribe", "set_partitions")
#: "Skew the lag": the first quarter of each topic's partitions get this many times their lag.
SKEW_FACTOR = 10
#: The lag a hot partition gets when it had none, so a skew always shows.
SKEW_FLOOR = 10_000


class EditError(AssignmentExplorerError, ValueError):
    """An edit cannot be applied to the current source; the message names the edit."""


@dataclass(frozen=True, slots=True)
class WhatIf:
    """The shaped "before", the "after", and what to tell the rebalance simulation."""

    before: Scenario
    after: Scenario
    changes: tuple[changes.Change, ...]
    restarted: tuple[str, ...]

    @property
    def changed(self) -> bool:
        """Whether the membership or the topics change at all."""
        return bool(self.changes)


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


def _replace_topic(scenario: Scenario, name: str, **fields: Any) -> Scenario:
    if name not in scenario.topic_by_name():
        raise EditError(f'topic "{name}" is not in the scenario (filtered out or never there)')
    topics = tuple(
        dataclasses.replace(topic, **fields) if topic.name == name else topic
        for topic in scenario.topics
    )
    return dataclasses.replace(scenario, topics=topics)


def _lags_of(topic: Topic, scenario: Scenario) -> list[int]:
    return partition_lags(topic, scenario.auto_offset_reset)


def _partition_values(
    raw: Mapping[str, Any], count: int, name: str, what: str
) -> Iterable[tuple[int, float]]:
    for key, value in raw.items():
        partition = int(key)
        if not 0 <= partition < count:
            raise EditError(f"{name}-{partition} does not exist ({name} has {count} partitions)")
        if not isinstance(value, int | float) or value < 0:
            raise EditError(f"{what} of {name}-{partition} must be a number >= 0, got {value!r}")
        yield partition, value


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
    if op == "set_lags":
        topic = scenario.topic_by_name().get(edit["topic"])
        if topic is None:
            raise EditError(f'cannot edit lag: topic "{edit["topic"]}" is not in the scenario')
        lags = _lags_of(topic, scenario)
        for partition, value in _partition_values(
            edit["lags"], topic.partitions, topic.name, "lag"
        ):
            lags[partition] = int(value)
        return _replace_topic(scenario, topic.name, lags=tuple(lags))
    if op == "set_produce_rates":
        topic = scenario.topic_by_name().get(edit["topic"])
        if topic is None:
            raise EditError(f'cannot edit rates: topic "{edit["topic"]}" is not in the scenario')
        rates = list(topic.produce_rates or (0.0,) * topic.partitions)
        for partition, value in _partition_values(
            edit["rates"], topic.partitions, topic.name, "produce rate"
        ):
            rates[partition] = float(value)
        return _replace_topic(scenario, topic.name, produce_rates=tuple(rates))
    if op == "skew_lag":
        topics = []
        for topic in scenario.topics:
            lags = _lags_of(topic, scenario)
            hot = max(1, topic.partitions // 4)
            for partition in range(min(hot, topic.partitions)):
                lags[partition] = max(lags[partition] * SKEW_FACTOR, SKEW_FLOOR)
            topics.append(dataclasses.replace(topic, lags=tuple(lags)))
        return dataclasses.replace(scenario, topics=tuple(topics))
    raise EditError(f"unknown edit {op!r}")


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


def _with_member_fields(scenario: Scenario, edits: Sequence[Edit]) -> Scenario:
    """Give added members the priority the user typed (``AddMember`` does not carry one)."""
    priorities = {
        edit["member_id"]: int(edit["priority"])
        for edit in edits
        if edit["op"] == "add_member" and edit.get("priority") is not None
    }
    if not priorities:
        return scenario
    members: list[Member] = [
        dataclasses.replace(member, priority=priorities[member.member_id])
        if member.member_id in priorities
        else member
        for member in scenario.members
    ]
    return dataclasses.replace(scenario, members=tuple(members))


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
                if isinstance(error, EditError):
                    raise
                raise EditError(f"edit {index + 1} ({op}) is malformed: {error}") from None
        elif op in CHANGE_OPS:
            change_edits.append(edit)
        else:
            raise EditError(f"edit {index + 1}: unknown operation {op!r}")
    try:
        change_list = tuple(_change(edit) for edit in change_edits)
    except (KeyError, TypeError, ValueError) as error:
        if isinstance(error, EditError):
            raise
        raise EditError(f"a membership edit is malformed: {error}") from None
    after = changes.apply_changes(before, change_list)
    after = _with_member_fields(after, change_edits)
    return WhatIf(
        before=before,
        after=after,
        changes=change_list,
        restarted=tuple(changes.restarted_members(change_list)),
    )


def remove_edits_for(edits: Sequence[Edit], member_id: str) -> list[Edit]:
    """The edits without those that only concern ``member_id`` (used when it is removed again)."""
    return [edit for edit in edits if edit.get("member_id") != member_id]

"""Walkthroughs: teaching steps stored beside a scenario, as the core's changes.

A scenario object may carry a ``walkthrough`` (format: ``docs/scenario-format.md``), a list of
steps that tell a story: a title, a paragraph, and optionally a ``change``. The loader
(:mod:`assignors.io.scenario`) leaves it alone; this module reads it, writes it back and applies
a step. A step's change is expressed with :mod:`assignors.simulate.changes` types, so a walkthrough
changes a scenario exactly as the CLI, the dashboard and the pipeline do.

How a walkthrough is read (:func:`parse_walkthrough`), reporting every problem with its JSON
path, like the loader:

1. ``walkthrough`` is a list of at most :data:`MAX_WALKTHROUGH_STEPS` step objects, each with a
   non-empty ``title`` and ``text`` and optionally a ``view`` (the view that shows the step) and
   a ``question`` (one to ask the reader or a class); unknown fields are warnings. The text is
   kept as written: its ``{name}`` placeholders are filled by :mod:`assignors.io.narration`.
2. A step's ``change`` object becomes a tuple of changes in this order: ``remove_members`` ->
   :class:`~assignors.simulate.changes.RemoveMember`, ``partitions`` (topic -> new count) ->
   :class:`~assignors.simulate.changes.SetPartitions`, ``add_members`` (member objects, read like
   the scenario's ``members``) -> :class:`~assignors.simulate.changes.AddMember`, then
   ``changes``: a list in the one JSON change form every tool shares
   (:mod:`assignors.io.changes`, e.g. ``{"op": "remove_member", "member_id": "C1",
   "static_restart": true}``); plus the two step-level options ``assignor`` (the strategy shown
   from this step on) and ``carry_assignment``. Files written before ``changes`` existed read
   as they always did.
3. The group as the step would leave it stays within the scenario format's size limits
   (partitions in all, members), checked before anything is applied.
4. Each step's changes are applied to the group as the steps before it left it
   (:func:`assignors.simulate.changes.apply_in_order`); a change that cannot apply (a member removed
   who is not there, a topic that would shrink, a member added twice) is an error at its path.

How a step applies (:func:`apply_step`), given the assignment shown before it:

1. With ``carry_assignment`` (the default), every member first owns, in generation (highest so
   far, or 0) + 1, what the previous step assigned it
   (:func:`assignors.simulate.changes.apply_changes` with that assignment as ``current``), which is
   how a rebalance looks to the assignor; without it the members keep what they own, to compare
   strategies on one moment.
2. The changes apply in order, as one change to the group; then ``assignor`` switches the
   strategy shown.

Invariants: a step that neither changes the group nor switches the strategy (no ``change``, or
one with nothing in it) leaves the scenario as it is (:attr:`WalkthroughStep.rebalances` is
false); :func:`walkthrough_to_json` followed by :func:`parse_walkthrough` gives back equal steps.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from assignors.errors import ScenarioError
from assignors.io.changes import MAX_CHANGES, ChangeFormatError, change_to_json, parse_change
from assignors.io.json_checks import Problems, type_name
from assignors.io.json_safe import check_json_value
from assignors.io.scenario import (
    member_to_json,
    parse_members,
    parse_optional_string,
    parse_scenario,
    parse_string,
)
from assignors.limits import MAX_MEMBERS, MAX_PARTITIONS_PER_TOPIC, MAX_TOTAL_PARTITIONS
from assignors.model import Assignment, Member, Scenario
from assignors.simulate import changes
from assignors.simulate.changes import AddMember, Change, RemoveMember, SetPartitions

MAX_WALKTHROUGH_STEPS = 200
STEP_FIELDS = ("title", "text", "change", "view", "question")
CHANGE_FIELDS = (
    "changes",
    "add_members",
    "remove_members",
    "partitions",
    "assignor",
    "carry_assignment",
)


@dataclass(frozen=True, slots=True)
class WalkthroughStep:
    """One teaching step: a title, a paragraph, and what it changes.

    ``changes`` apply in order as one rebalance (only
    :class:`~assignors.simulate.changes.RemoveMember` without restart,
    :class:`~assignors.simulate.changes.SetPartitions` and
    :class:`~assignors.simulate.changes.AddMember` with its topics have a JSON form). ``assignor``
    switches the strategy shown from this step on; ``carry_assignment`` says whether the members own
    what the previous step assigned them before the changes apply.
    """

    title: str
    text: str
    changes: tuple[Change, ...] = ()
    assignor: str | None = None
    carry_assignment: bool = True
    view: str | None = None
    """The view that shows what this step is about (a name the shell knows, e.g. ``Protocols``)."""
    question: str | None = None
    """A question to ask at this step; the answer is in ``view``."""

    @property
    def rebalances(self) -> bool:
        """Whether showing this step rebalances: it changes the group or the strategy."""
        return bool(self.changes) or self.assignor is not None


def apply_step(scenario: Scenario, step: WalkthroughStep, previous: Assignment | None) -> Scenario:
    """The scenario after ``step``; ``previous`` is the assignment shown before it.

    Steps 1-2 of the module docstring. ``previous`` ``None`` means the current assignment of
    :func:`assignors.simulate.changes.current_assignment`. Raises
    :class:`~assignors.simulate.changes.ChangeError` when a change does not fit the scenario.
    """
    if not step.rebalances:
        return scenario
    if step.carry_assignment:
        after = changes.apply_changes(scenario, step.changes, previous)
    else:
        after = changes.apply_in_order(scenario, step.changes)
    return after if step.assignor is None else replace(after, assignor=step.assignor)


def _add_member(member: Member) -> AddMember:
    """The change that adds ``member`` as parsed (AddMember's fields are Member fields)."""
    return AddMember(**{field.name: getattr(member, field.name) for field in fields(AddMember)})


def _parse_remove(raw: object, path: str, problems: Problems) -> list[tuple[str, RemoveMember]]:
    if not isinstance(raw, list):
        problems.error(path, f"expected a list of member ids, got {type_name(raw)}")
        return []
    located = []
    for index, item in enumerate(raw):
        member_id = parse_string(item, f"{path}[{index}]", problems)
        if member_id is not None:
            located.append((f"{path}[{index}]", RemoveMember(member_id)))
    return located


def _parse_partitions(
    raw: object, path: str, problems: Problems
) -> list[tuple[str, SetPartitions]]:
    if not isinstance(raw, dict):
        problems.error(
            path, f"expected an object topic -> new partition count, got {type_name(raw)}"
        )
        return []
    located = []
    for topic, count in raw.items():
        here = f"{path}.{topic:.60}"
        name = parse_string(topic, here, problems)
        parsed = problems.integer(count, here, minimum=0, maximum=MAX_PARTITIONS_PER_TOPIC)
        if parsed is not None and name is not None:
            located.append((here, SetPartitions(name, parsed)))
    return located


def _check_sizes(
    scenario: Scenario, located: list[tuple[str, Change]], path: str, problems: Problems
) -> None:
    """The scenario format's size limits, for the group as this step would leave it."""
    counts = scenario.partition_counts()
    members = len(scenario.members)
    for _, change in located:
        if isinstance(change, SetPartitions) and change.topic in counts:
            counts[change.topic] = change.partitions
        members += isinstance(change, AddMember) - isinstance(change, RemoveMember)
    total = sum(counts.values())
    if total > MAX_TOTAL_PARTITIONS:
        problems.error(
            path, f"{total:,} partitions in all after this step; at most {MAX_TOTAL_PARTITIONS:,}"
        )
    if members > MAX_MEMBERS:
        problems.error(path, f"{members:,} members after this step; at most {MAX_MEMBERS:,}")


def _parse_add(
    raw: object, path: str, counts: Mapping[str, int], problems: Problems
) -> list[tuple[str, AddMember]]:
    members = parse_members(raw, path, counts, problems)
    items = raw if isinstance(raw, list) else []
    located = []
    for member in members:
        # parse_members drops members that fail and duplicates; find each one's own index.
        index = next(
            i
            for i, item in enumerate(items)
            if isinstance(item, dict) and item.get("member_id") == member.member_id
        )
        located.append((f"{path}[{index}]", _add_member(member)))
    return located


def _parse_listed(raw: object, path: str, problems: Problems) -> list[tuple[str, Change]]:
    """A ``changes`` list in the one JSON change form (:mod:`assignors.io.changes`)."""
    if not isinstance(raw, list):
        problems.error(path, f"expected a list of change objects, got {type_name(raw)}")
        return []
    if len(raw) > MAX_CHANGES:
        problems.error(path, f"{len(raw):,} changes; at most {MAX_CHANGES:,}")
        return []
    located: list[tuple[str, Change]] = []
    for index, item in enumerate(raw):
        here = f"{path}[{index}]"
        try:
            located.append((here, parse_change(item, here)))
        except ChangeFormatError as error:
            problems.errors.append(str(error))
    return located


def _parse_step(
    raw: object, scenario: Scenario, path: str, problems: Problems
) -> tuple[WalkthroughStep | None, Scenario]:
    """One step (steps 2-3 of the module docstring) and the scenario it leaves."""
    if not isinstance(raw, dict):
        problems.error(path, f"expected a step object with title and text, got {type_name(raw)}")
        return None, scenario
    problems.unknown_fields(raw, STEP_FIELDS, path)
    title = parse_string(raw.get("title"), f"{path}.title", problems)
    text = parse_string(raw.get("text"), f"{path}.text", problems)
    view = parse_optional_string(raw, "view", path, problems)
    question = parse_optional_string(raw, "question", path, problems)
    change = raw.get("change")
    if change is None:
        if title is None or text is None:
            return None, scenario
        return WalkthroughStep(title, text, view=view, question=question), scenario
    here = f"{path}.change"
    if not isinstance(change, dict):
        problems.error(here, f"expected a change object, got {type_name(change)}")
        return None, scenario
    errors_before = len(problems.errors)
    problems.unknown_fields(change, CHANGE_FIELDS, here)
    located: list[tuple[str, Change]] = []
    if change.get("remove_members") is not None:
        located += _parse_remove(change["remove_members"], f"{here}.remove_members", problems)
    if change.get("partitions") is not None:
        located += _parse_partitions(change["partitions"], f"{here}.partitions", problems)
    if change.get("add_members") is not None:
        counts = scenario.partition_counts()
        counts.update((c.topic, c.partitions) for _, c in located if isinstance(c, SetPartitions))
        located += _parse_add(change["add_members"], f"{here}.add_members", counts, problems)
    if change.get("changes") is not None:
        located += _parse_listed(change["changes"], f"{here}.changes", problems)
    assignor = parse_optional_string(change, "assignor", here, problems)
    carry = change.get("carry_assignment", True)
    if not isinstance(carry, bool):
        problems.error(
            f"{here}.carry_assignment", f"expected true or false, got {type_name(carry)}"
        )
        carry = True
    _check_sizes(scenario, located, here, problems)
    if len(problems.errors) > errors_before:
        return None, scenario
    try:
        # Checking needs only membership and counts: who owns what does not matter here.
        after = changes.apply_in_order(scenario, [c for _, c in located])
    except changes.ChangeError as error:
        problems.error(here if error.index is None else located[error.index][0], str(error))
        return None, scenario
    if title is None or text is None:
        return None, after
    step = WalkthroughStep(
        title, text, tuple(c for _, c in located), assignor, carry, view, question
    )
    return step, after


def parse_walkthrough(
    raw: object, scenario: Scenario | None = None
) -> tuple[tuple[WalkthroughStep, ...], tuple[str, ...]]:
    """The ``walkthrough`` steps of a JSON scenario object, and warnings (``()`` when none).

    ``scenario`` is the parsed ``raw`` (parsed here with
    :func:`~assignors.io.scenario.parse_scenario` when not given). Raises
    :class:`~assignors.errors.ScenarioError` with every problem, each with its JSON path,
    including a change that cannot apply at its step.
    """
    if scenario is None:
        scenario, _ = parse_scenario(raw, path="")
    if not isinstance(raw, dict) or raw.get("walkthrough") is None:
        return (), ()
    steps_raw = raw["walkthrough"]
    check_json_value(steps_raw, "walkthrough")
    if not isinstance(steps_raw, list):
        raise ScenarioError([f"walkthrough: expected a list of steps, got {type_name(steps_raw)}"])
    if len(steps_raw) > MAX_WALKTHROUGH_STEPS:
        raise ScenarioError(
            [f"walkthrough: {len(steps_raw):,} steps; at most {MAX_WALKTHROUGH_STEPS}"]
        )
    problems = Problems()
    steps: list[WalkthroughStep] = []
    current = scenario
    for index, step_raw in enumerate(steps_raw):
        step, current = _parse_step(step_raw, current, f"walkthrough[{index}]", problems)
        if step is not None:
            steps.append(step)
    if problems.errors:
        raise ScenarioError(problems.errors)
    return tuple(steps), tuple(problems.warnings)


def _has_grouped_form(change: Change) -> bool:
    """Whether ``change`` fits the grouped fields (removals, growth, joins that name topics)."""
    if isinstance(change, RemoveMember):
        return not change.static_restart
    if isinstance(change, AddMember):
        return change.topics is not None
    return isinstance(change, SetPartitions)


def _change_to_json(step: WalkthroughStep, where: str) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    if not all(_has_grouped_form(change) for change in step.changes):
        try:
            entry["changes"] = [change_to_json(change) for change in step.changes]
        except ChangeFormatError as error:
            raise ScenarioError([f"{where}: {error}"]) from None
    for change in () if "changes" in entry else step.changes:
        if isinstance(change, RemoveMember):
            entry.setdefault("remove_members", []).append(change.member_id)
        elif isinstance(change, SetPartitions):
            entry.setdefault("partitions", {})[change.topic] = change.partitions
        elif isinstance(change, AddMember) and change.topics is not None:
            entry.setdefault("add_members", []).append(
                member_to_json(changes.joining_member(change, change.topics))
            )
    if step.assignor is not None:
        entry["assignor"] = step.assignor
    if not step.carry_assignment:
        entry["carry_assignment"] = False
    return entry


def walkthrough_to_json(steps: Iterable[WalkthroughStep]) -> list[dict[str, Any]]:
    """The JSON form of walkthrough steps; :func:`parse_walkthrough` reads it back.

    A step's changes are written grouped as the format holds them (removals, growth, joins) when
    each fits a group; otherwise all of them, in order, as a ``changes`` list in the one JSON
    change form. Raises :class:`~assignors.errors.ScenarioError` for a change neither can hold.
    """
    result: list[dict[str, Any]] = []
    for index, step in enumerate(steps):
        item: dict[str, Any] = {"title": step.title, "text": step.text}
        entry = _change_to_json(step, f"walkthrough[{index}].change")
        if entry:
            item["change"] = entry
        for name in ("view", "question"):
            if getattr(step, name) is not None:
                item[name] = getattr(step, name)
        result.append(item)
    return result

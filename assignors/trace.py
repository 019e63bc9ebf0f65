"""Why this partition? The optional record of the decisions a strategy took.

A strategy's compute function takes ``trace: DecisionTrace | None = None``. With ``None`` (the
default, and what :meth:`~assignors.strategy.PartitionStrategy.assign` passes) it records
nothing and runs exactly as before: every recording statement sits behind
``if trace is not None``. With a :class:`DecisionTrace` it records, as it goes:

* notes: facts that decide many partitions at once (the sorted member order, the arithmetic of
  a split, a quota), for the whole group (``topic`` ``None``) or for one topic;
* decisions: one per step that gives a partition to a member, takes it away, or both (a move),
  with the reason in words and the figures (loads, quotas, lags) read at that moment.

Invariant (tested on every conformance case): replaying the decisions in order, adding
``member`` and removing ``released_by``, gives for every partition exactly the members the
strategy's answer gives it to. Nothing here imports outside the standard library.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from assignors.model import Assignment, TopicPartition


@dataclass(frozen=True, slots=True)
class Note:
    """A fact that decides many partitions at once; ``topic`` ``None``: the whole group."""

    topic: str | None
    text: str


@dataclass(frozen=True, slots=True)
class Decision:
    """One step for one partition: it goes to ``member`` and/or leaves ``released_by``.

    ``step`` names the algorithm's step (as its module docstring numbers or names it);
    ``reason`` says why, with the figures the algorithm read at that moment.
    """

    partition: TopicPartition
    member: str | None
    released_by: str | None
    step: str
    reason: str

    def __str__(self) -> str:
        if self.member is not None and self.released_by is not None:
            action = f"{self.released_by} -> {self.member}"
        elif self.member is not None:
            action = f"-> {self.member}"
        else:
            action = f"not {self.released_by}"
        return f"[{self.step}] {action}: {self.reason}"


class DecisionTrace:
    """The recorder a strategy writes to while it runs (mutable, one per run)."""

    __slots__ = ("decisions", "notes")

    def __init__(self) -> None:
        self.notes: list[Note] = []
        self.decisions: list[Decision] = []

    def note(self, text: str, topic: str | None = None) -> None:
        """A fact that decides many partitions (``topic`` ``None``: the whole group)."""
        self.notes.append(Note(topic, text))

    def place(self, partition: TopicPartition, member: str, step: str, reason: str) -> None:
        """``partition`` goes to ``member``."""
        self.decisions.append(Decision(partition, member, None, step, reason))

    def place_all(
        self, partitions: Iterable[TopicPartition], member: str, step: str, reason: str
    ) -> None:
        """Every one of ``partitions`` goes to ``member`` for the same reason."""
        self.decisions.extend(Decision(tp, member, None, step, reason) for tp in partitions)

    def move(
        self, partition: TopicPartition, old_owner: str, new_owner: str, step: str, reason: str
    ) -> None:
        """``partition`` leaves ``old_owner`` for ``new_owner``."""
        self.decisions.append(Decision(partition, new_owner, old_owner, step, reason))

    def release(self, partition: TopicPartition, member: str, step: str, reason: str) -> None:
        """``member`` no longer gets ``partition`` (it may go to another member later)."""
        self.decisions.append(Decision(partition, None, member, step, reason))


@dataclass(frozen=True, slots=True)
class PartitionTrace:
    """What decided one partition: the notes that apply to it and its decisions, in order."""

    partition: TopicPartition
    holders: tuple[str, ...]
    notes: tuple[str, ...]
    decisions: tuple[Decision, ...]

    def lines(self) -> list[str]:
        """The trace as text, one line per note or decision, then the outcome."""
        out = [f"Why {self.partition} is where it is:"]
        out.extend(f"  {text}" for text in self.notes)
        out.extend(f"  {decision}" for decision in self.decisions)
        out.append(f"  => {self.outcome()}")
        return out

    def outcome(self) -> str:
        """Where the partition ends, in words."""
        if self.holders:
            return f"{self.partition} goes to {', '.join(self.holders)}"
        if self.decisions:
            return f"{self.partition} is not handed out in this assignment"
        return f"no step touched {self.partition}: it stays unassigned"


@dataclass(frozen=True, slots=True)
class Explanation:
    """A strategy's answer with the record of how it got there (see the module docstring)."""

    strategy: str
    assignment: Assignment
    notes: tuple[Note, ...]
    decisions: tuple[Decision, ...]

    def final_placement(self) -> dict[TopicPartition, frozenset[str]]:
        """Partition -> its members after replaying every decision (empty: unassigned)."""
        holders: dict[TopicPartition, set[str]] = {}
        for decision in self.decisions:
            members = holders.setdefault(decision.partition, set())
            if decision.released_by is not None:
                members.discard(decision.released_by)
            if decision.member is not None:
                members.add(decision.member)
        return {tp: frozenset(members) for tp, members in holders.items()}

    def partition(self, partition: TopicPartition) -> PartitionTrace:
        """The trace of one partition (its topic's and the group's notes, its decisions)."""
        notes = tuple(n.text for n in self.notes if n.topic in (None, partition.topic))
        decisions = tuple(d for d in self.decisions if d.partition == partition)
        holders = tuple(
            member for member, tps in self.assignment.partitions.items() if partition in tps
        )
        return PartitionTrace(partition, holders, notes, decisions)

    def partitions(self) -> list[TopicPartition]:
        """Every partition some decision touched, sorted."""
        return sorted({d.partition for d in self.decisions})

"""Every task strategy on one Streams scenario, side by side, per client.

:func:`compare_task_strategies` runs each given :class:`~assignors.strategy.TaskStrategy` on the
same :class:`~assignors.streams.model.StreamsScenario` and brings the answers to one shape: per
client (process id) its active, standby and warm-up tasks (:func:`tasks_per_client`; the
broker-side assignor of Streams groups answers per member, one per stream thread, and its
members are summed into their process), plus what moved against what the clients held before.

Invariants: one :class:`TaskComparison` per strategy, in the order given; every client of the
scenario appears in each answer (with nothing when a strategy gave it nothing); a strategy that
refuses the scenario carries its message in ``error`` and empty figures, the others still run;
``moved_active`` counts the tasks whose active owner is another client than before (a task
nobody ran before is not a move). Pure and deterministic.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from assignors.errors import AssignmentExplorerError
from assignors.kafka_versions import parse_kafka_version
from assignors.strategy import TaskStrategy
from assignors.streams.group_sticky import StreamsGroupAssignment
from assignors.streams.model import ClientAssignment, StreamsAssignment, StreamsScenario, TaskId


@dataclass(frozen=True, slots=True)
class TaskComparison:
    """One strategy's answer per client, and how much it moves."""

    strategy: str
    clients: Mapping[str, ClientAssignment]
    moved_active: int
    probing_rebalance_needed: bool
    error: str | None = None

    @property
    def warmups(self) -> int:
        return sum(len(held.warmup) for held in self.clients.values())


def tasks_per_client(
    scenario: StreamsScenario, answer: StreamsAssignment | StreamsGroupAssignment
) -> dict[str, ClientAssignment]:
    """The answer per process id, in the scenario's client order (members summed per process)."""
    if isinstance(answer, StreamsAssignment):
        held = dict(answer.clients)
    else:
        active: dict[str, set[TaskId]] = {}
        standby: dict[str, set[TaskId]] = {}
        for member in answer.members.values():
            active.setdefault(member.process_id, set()).update(member.active)
            standby.setdefault(member.process_id, set()).update(member.standby)
        held = {p: ClientAssignment.of(active[p], standby[p]) for p in active}
    return {c.process_id: held.get(c.process_id, ClientAssignment()) for c in scenario.clients}


def moved_active(scenario: StreamsScenario, clients: Mapping[str, ClientAssignment]) -> int:
    """Tasks whose active owner differs from the client that ran them before."""
    before = {task: c.process_id for c in scenario.clients for task in c.prev_active}
    return sum(
        1
        for process, held in clients.items()
        for task in held.active
        if before.get(task, process) != process
    )


def compare_task_strategies(
    scenario: StreamsScenario,
    strategies: Mapping[str, TaskStrategy],
    *,
    kafka_version: str | None = None,
) -> tuple[TaskComparison, ...]:
    """Each strategy of ``strategies`` on ``scenario`` (see the module's invariants).

    ``kafka_version``, when given, replaces the scenario's own: the Kafka release the
    version-dependent strategies (``streams-sticky``) reproduce.
    """
    if kafka_version is not None:
        scenario = replace(scenario, kafka_version=parse_kafka_version(kafka_version))
    results = []
    for name, strategy in strategies.items():
        try:
            answer: Any = strategy.answer(scenario)
        except AssignmentExplorerError as error:
            results.append(TaskComparison(name, {}, 0, False, str(error)))
            continue
        clients = tasks_per_client(scenario, answer)
        probing = bool(getattr(answer, "probing_rebalance_needed", False))
        results.append(TaskComparison(name, clients, moved_active(scenario, clients), probing))
    return tuple(results)

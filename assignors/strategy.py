"""What a strategy is: a named pure function plus the words a person needs to choose it.

Partition strategies map a :class:`~assignors.model.Scenario` to an
:class:`~assignors.model.Assignment`; task strategies (Kafka Streams) have their own input and
answer types, declared by the module that implements them. Both kinds carry the same
descriptive fields so that the CLI and the dashboard can list every registered strategy.

``older_kafka`` lists, for a strategy that reproduces a Kafka assignor whose answers changed
between the releases of :data:`assignors.kafka_versions.KAFKA_VERSIONS`, each older release line
with what that release does differently (the strategy reads the scenario's ``kafka_version``);
empty for every other strategy. ``kafka_lines`` says which release lines the strategy answers
for at all (:class:`assignors.kafka_versions.KafkaLines`: from the first line that has its
assignor, minus the lines not reproduced); asked for another line, :meth:`PartitionStrategy.assign`
and :meth:`TaskStrategy.answer` raise :class:`~assignors.errors.ScenarioError` naming the first
line that has it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from assignors.gc_pause import paused_gc
from assignors.kafka_versions import EVERY_LINE, NEWEST_KAFKA_VERSION, KafkaLines
from assignors.model import Assignment, Scenario, TopicPartition
from assignors.trace import DecisionTrace, Explanation

#: How a group moves from one assignment to the next under this strategy.
#: ``eager``: classic protocol, everyone revokes everything; ``cooperative``: classic protocol,
#: incremental (two rounds); ``consumer``: KIP-848, the broker computes the target.
RebalanceProtocol = Literal["eager", "cooperative", "consumer"]


class PartitionCompute(Protocol):
    """A partition strategy's function: member id -> partitions, optionally traced.

    With ``trace`` ``None`` it records nothing; with a recorder it records its decisions
    (:mod:`assignors.trace`) and returns the same answer.
    """

    def __call__(
        self, scenario: Scenario, trace: DecisionTrace | None = None
    ) -> Mapping[str, Iterable[TopicPartition]]: ...


@dataclass(frozen=True, slots=True)
class PartitionStrategy:
    """A consumer-group partition strategy.

    ``compute`` returns member id -> partitions (members it omits get nothing);
    :meth:`assign` turns that into a complete, sorted :class:`Assignment`.
    """

    name: str
    summary: str
    when_to_use: str
    consumer_config: str
    protocol: RebalanceProtocol
    compute: PartitionCompute

    kind: Literal["partitions"] = "partitions"
    older_kafka: tuple[tuple[str, str], ...] = ()
    kafka_lines: KafkaLines = EVERY_LINE

    @property
    def kafka_versions(self) -> tuple[str, ...]:
        """The release lines this strategy answers differently for (empty: it does not)."""
        return kafka_versions(self.older_kafka)

    def assign(self, scenario: Scenario, warnings: Iterable[str] = ()) -> Assignment:
        """Run the strategy; the answer lists every member of ``scenario``.

        The cyclic collector is paused meanwhile (:func:`assignors.gc_pause.paused_gc`): a
        strategy builds up to millions of tuples and no reference cycles.
        """
        self.kafka_lines.check(self.name, scenario.kafka_version)
        with paused_gc():
            return Assignment.of(
                (member.member_id for member in scenario.members), self.compute(scenario), warnings
            )

    def explain(self, scenario: Scenario, warnings: Iterable[str] = ()) -> Explanation:
        """Run the strategy with a recorder: the same answer as :meth:`assign`, with its trace."""
        self.kafka_lines.check(self.name, scenario.kafka_version)
        trace = DecisionTrace()
        assignment = Assignment.of(
            (member.member_id for member in scenario.members),
            self.compute(scenario, trace),
            warnings,
        )
        return Explanation(self.name, assignment, tuple(trace.notes), tuple(trace.decisions))


@dataclass(frozen=True, slots=True)
class TaskStrategy:
    """A Kafka Streams task strategy with its own scenario and answer types.

    ``parse`` validates a JSON scenario object (raising ``ScenarioError``), ``compute`` runs the
    strategy on the parsed scenario, ``to_json`` renders the answer in the wire shape.
    """

    name: str
    summary: str
    when_to_use: str
    consumer_config: str
    protocol: RebalanceProtocol
    parse: Callable[[object], Any]
    compute: Callable[[Any], Any]
    to_json: Callable[[Any], dict[str, Any]]

    kind: Literal["tasks"] = "tasks"
    older_kafka: tuple[tuple[str, str], ...] = ()
    kafka_lines: KafkaLines = EVERY_LINE

    def answer(self, parsed: Any) -> Any:
        """``compute(parsed)`` once the parsed scenario's ``kafka_version`` (if any) is one this
        strategy answers for; :class:`~assignors.errors.ScenarioError` otherwise."""
        self.kafka_lines.check(self.name, getattr(parsed, "kafka_version", None))
        return self.compute(parsed)

    @property
    def kafka_versions(self) -> tuple[str, ...]:
        """The release lines this strategy answers differently for (empty: it does not)."""
        return kafka_versions(self.older_kafka)


def kafka_versions(older_kafka: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    """The older release lines of ``older_kafka`` and the newest; empty when there are none."""
    if not older_kafka:
        return ()
    return (*(version for version, _ in older_kafka), NEWEST_KAFKA_VERSION)


Strategy = PartitionStrategy | TaskStrategy

"""Kafka's partition assignment strategies (and Kafka Streams' task assignment) as pure Python.

Standard library only. Entry points: :func:`assignors.registry.get` for a strategy by name,
:func:`assignors.scenario_io.parse_scenario` to load a scenario, and ``python -m assignors``
for the command line.
"""

from assignors.model import Assignment, Member, Scenario, Topic, TopicPartition

__all__ = ["Assignment", "Member", "Scenario", "Topic", "TopicPartition"]

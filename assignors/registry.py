"""The one registry: strategy name -> implementation and description.

Adding a strategy is one new module in the sub-package it belongs to (``client/``, ``broker/``,
``streams/``, ``seeds/``) that defines ``STRATEGY`` (a
:class:`~assignors.strategy.PartitionStrategy` or :class:`~assignors.strategy.TaskStrategy`)
and one line in ``_MODULES``. The order of ``_MODULES`` is the order the CLI and the dashboard
list strategies in.
"""

from __future__ import annotations

import importlib

from assignors.errors import UnknownStrategyError
from assignors.strategy import PartitionStrategy, Strategy, TaskStrategy

_MODULES: tuple[str, ...] = (
    "client.range",
    "client.roundrobin",
    "client.sticky",
    "client.cooperative_sticky",
    "broker.uniform",
    "broker.range",
    "broker.share_simple",
    "seeds.lag_aware",
    "seeds.failover",
    "seeds.stream_join_sticky",
    "streams.high_availability",
    "streams.client_sticky",
    "streams.group_sticky",
)

_REGISTRY: dict[str, Strategy] = {}


def strategies() -> dict[str, Strategy]:
    """Every registered strategy, by name, in registration order."""
    if not _REGISTRY:
        for module_name in _MODULES:
            strategy: Strategy = importlib.import_module(f"assignors.{module_name}").STRATEGY
            if strategy.name in _REGISTRY:
                raise RuntimeError(f"strategy {strategy.name!r} registered twice")
            _REGISTRY[strategy.name] = strategy
    return dict(_REGISTRY)


def get(name: object) -> Strategy:
    """The strategy called ``name``; :class:`UnknownStrategyError` names the known ones."""
    registry = strategies()
    if not isinstance(name, str) or name not in registry:
        raise UnknownStrategyError(name, list(registry))
    return registry[name]


def partition_strategies() -> dict[str, PartitionStrategy]:
    """The strategies that assign partitions to consumer-group members."""
    return {n: s for n, s in strategies().items() if isinstance(s, PartitionStrategy)}


def task_strategies() -> dict[str, TaskStrategy]:
    """The strategies that assign Kafka Streams tasks to instances."""
    return {n: s for n, s in strategies().items() if isinstance(s, TaskStrategy)}

"""The one registry: strategy name -> implementation and description.

Adding a strategy is one new module in the sub-package it belongs to (``client/``, ``broker/``,
``streams/``, ``seeds/``) that defines ``STRATEGY`` (a
:class:`~assignors.strategy.PartitionStrategy` or :class:`~assignors.strategy.TaskStrategy`)
and one line in ``_MODULES`` (its name -> its module). The order of ``_MODULES`` is the order the
CLI and the dashboard list strategies in.

Invariants: a strategy's module is imported the first time that strategy is asked for
(:func:`get` imports one module, so ``python -m assignors assign --strategy range`` never loads
Kafka Streams); :func:`strategies` imports them all. Each module's ``STRATEGY.name`` is the name
it is registered under (checked on import: a mismatch raises ``RuntimeError``).
"""

from __future__ import annotations

import importlib

from assignors.errors import UnknownStrategyError
from assignors.strategy import PartitionStrategy, Strategy, TaskStrategy

#: Strategy name -> its module under ``assignors``, in listing order.
_MODULES: dict[str, str] = {
    "range": "client.range",
    "roundrobin": "client.roundrobin",
    "sticky": "client.sticky",
    "cooperative-sticky": "client.cooperative_sticky",
    "uniform": "broker.uniform",
    "server-range": "broker.range",
    "share-simple": "broker.share_simple",
    "lag-aware": "seeds.lag_aware",
    "failover": "seeds.failover",
    "stream-join-sticky": "seeds.stream_join_sticky",
    "streams-ha": "streams.high_availability",
    "streams-sticky": "streams.client_sticky",
    "streams-group-sticky": "streams.group_sticky",
}

_REGISTRY: dict[str, Strategy] = {}


def _load(name: str) -> Strategy:
    """The strategy registered as ``name`` (a key of ``_MODULES``), its module imported once."""
    strategy = _REGISTRY.get(name)
    if strategy is None:
        strategy = importlib.import_module(f"assignors.{_MODULES[name]}").STRATEGY
        if strategy.name != name:
            raise RuntimeError(
                f"assignors.{_MODULES[name]} defines {strategy.name!r}, registered as {name!r}"
            )
        _REGISTRY[name] = strategy
    return strategy


def strategies() -> dict[str, Strategy]:
    """Every registered strategy, by name, in registration order (imports every module)."""
    return {name: _load(name) for name in _MODULES}


def get(name: object) -> Strategy:
    """The strategy called ``name`` (only its module is imported);
    :class:`UnknownStrategyError` names the known ones."""
    if not isinstance(name, str) or name not in _MODULES:
        raise UnknownStrategyError(name, list(_MODULES))
    return _load(name)


def partition_strategies() -> dict[str, PartitionStrategy]:
    """The strategies that assign partitions to consumer-group members."""
    return {n: s for n, s in strategies().items() if isinstance(s, PartitionStrategy)}


def task_strategies() -> dict[str, TaskStrategy]:
    """The strategies that assign Kafka Streams tasks to instances."""
    return {n: s for n, s in strategies().items() if isinstance(s, TaskStrategy)}

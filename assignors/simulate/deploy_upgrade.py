"""Which assignor a group selects and which rebalance protocol it runs, member by member, while
a deploy changes its configuration (the upgrade paths of :mod:`assignors.simulate.deploy_plan`).

Each member has a *configuration stage*: 0 before the deploy touched it, 1 after its first
restart, 2 after its second (``eager-to-cooperative`` only). From the stages of the members present
at a rebalance:

* no upgrade: the scenario's strategy, under its own protocol;
* ``eager-to-cooperative``: the group selects ``cooperative-sticky`` once every member present lists
  it (stage >= 1), else the old strategy; the protocol is eager while any member present still
  lists an eager-only assignor (stage < 2), then cooperative;
* ``classic-to-consumer``: the group is a consumer group (the broker's ``uniform`` assignor) once
  any member speaks the consumer protocol (stage 1; conversion is one way); classic members still
  present rebalance under the old strategy's protocol, and once none is left the protocol is
  the consumer protocol (KIP-848);
* ``assignor:NAME``: the group selects NAME once every member present lists it; the protocol is
  eager while any member present lists an eager-only assignor.

A group where some members are eager and others cooperative is played as eager (the eager
members revoke everything; an upper bound on what pauses).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace

from assignors.simulate.deploy_plan import (
    CONSUMER_PROTOCOL_ASSIGNOR,
    COOPERATIVE_ASSIGNOR,
    DeployError,
)
from assignors.simulate.rebalance import partition_strategy
from assignors.strategy import PartitionStrategy, RebalanceProtocol


@dataclass(frozen=True, slots=True)
class Upgrade:
    """An upgrade path resolved against the group's strategy (``old``)."""

    path: str | None
    old: PartitionStrategy
    new: PartitionStrategy
    bounces: int

    def selected(self, stages: Collection[int], converted: bool = False) -> PartitionStrategy:
        """The assignor the group selects with members at ``stages`` present."""
        if self.path is None or not stages:
            return self.old
        if self.path == "classic-to-consumer":
            return self.new if converted or any(stages) else self.old
        return self.new if min(stages) >= 1 else self.old

    def protocol(self, stages: Collection[int]) -> RebalanceProtocol:
        """The rebalance protocol a rebalance with members at ``stages`` present runs."""
        if self.path is None:
            return self.old.protocol
        if self.path == "eager-to-cooperative":
            return "eager" if any(stage < 2 for stage in stages) else "cooperative"
        if self.path == "classic-to-consumer":
            return self.old.protocol if any(stage == 0 for stage in stages) else "consumer"
        eager = any(
            self.old.protocol == "eager" or (stage >= 1 and self.new.protocol == "eager")
            for stage in stages
        )
        return "eager" if eager else "cooperative"

    def with_protocol(
        self, strategy: PartitionStrategy, protocol: RebalanceProtocol
    ) -> PartitionStrategy:
        """``strategy`` played under ``protocol`` (the same assignment, another protocol)."""
        return strategy if strategy.protocol == protocol else replace(strategy, protocol=protocol)


def resolve(path: str | None, old: PartitionStrategy) -> Upgrade:
    """The upgrade ``path`` from strategy ``old``; :class:`DeployError` when it does not apply."""
    if path is None:
        return Upgrade(None, old, old, 0)
    if path == "eager-to-cooperative":
        if old.protocol != "eager":
            raise DeployError(
                f"eager-to-cooperative: {old.name!r} already rebalances with the {old.protocol}"
                " protocol"
            )
        return Upgrade(path, old, partition_strategy(COOPERATIVE_ASSIGNOR), 2)
    if path == "classic-to-consumer":
        if old.protocol == "consumer":
            raise DeployError(
                f"classic-to-consumer: {old.name!r} already runs on the consumer protocol"
            )
        return Upgrade(path, old, partition_strategy(CONSUMER_PROTOCOL_ASSIGNOR), 1)
    name = path.removeprefix("assignor:")
    new = partition_strategy(name)
    if new.name == old.name:
        raise DeployError(f"assignor:{name}: the group already uses {name!r}")
    if new.protocol == "consumer":
        raise DeployError(
            f"assignor:{name}: {name!r} is a broker-side assignor of the consumer protocol;"
            " use --upgrade classic-to-consumer"
        )
    return Upgrade(path, old, new, 1)


def stages_of(stage: Mapping[str, int], members: Collection[str]) -> list[int]:
    """The stages of ``members`` (0 for a member not yet touched)."""
    return [stage.get(member, 0) for member in members]

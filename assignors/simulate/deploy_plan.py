"""What a deploy does to a group, as data: the plan and the settings that decide its cost.

A :class:`DeployPlan` says which members restart (all, or some, in batches of ``batch_size``),
how long each is down (``restart_s``), whether the group first grows or shrinks (``scale``), and
whether the deploy changes the assignor or the rebalance protocol on the way (``upgrade``):

* ``eager-to-cooperative``: Kafka's two rolling bounces. Bounce 1: every member restarts with
  ``partition.assignment.strategy=[cooperative-sticky, OLD]`` (still the eager protocol, since
  OLD supports only eager); once the last member is back the group selects
  ``cooperative-sticky``. Bounce 2: every member restarts with ``[cooperative-sticky]`` alone; once
  no eager member is left, rebalances are cooperative.
* ``classic-to-consumer``: KIP-848's online migration. Members move to ``group.protocol=consumer``
  batch by batch (one at a time by default); the first consumer-protocol member converts the group
  and the broker's assignor (``uniform``) computes targets from then on.
* ``assignor:NAME``: one rolling bounce with ``[NAME, OLD]``; the group selects ``NAME`` once the
  last member is back.

:class:`DeploySettings` holds the group's settings, Kafka's defaults where Kafka has one:
``group.instance.id`` (static membership: ``static_membership`` ``None`` keeps each member as the
scenario states it, ``True`` makes every member static, ``False`` none), ``session.timeout.ms``
(45 s), ``max.poll.interval.ms`` (300 s: how long a classic join barrier waits), ``heartbeat.
interval.ms`` (3 s), the broker's ``group.initial.rebalance.delay.ms`` (3 s: a classic group that
became empty waits this long before its first rebalance) and
``scheduled.rebalance.max.delay.ms`` (``None``: off; Kafka Connect's incremental cooperative
protocol, and the issue's Streams case: a member that leaves has its partitions held for it up to
this long, so a restart within it moves nothing).

Invariants: every field is checked when the object is built (a :class:`DeployError` names the
field and the allowed values); plans and settings are frozen and hashable.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from assignors.errors import AssignmentExplorerError
from assignors.limits import MAX_MEMBERS
from assignors.simulate.rebalance import Timings

#: The upgrade paths (``assignor:NAME`` besides these two).
UPGRADES = ("eager-to-cooperative", "classic-to-consumer")
#: The assignor the broker uses for the consumer protocol by default (``group.consumer.assignors``).
CONSUMER_PROTOCOL_ASSIGNOR = "uniform"
#: The assignor bounce 1 of ``eager-to-cooperative`` adds.
COOPERATIVE_ASSIGNOR = "cooperative-sticky"
#: Seconds: the longest restart, timeout or delay a plan accepts (a day).
MAX_SECONDS = 86_400.0


class DeployError(AssignmentExplorerError, ValueError):
    """A deploy plan that cannot be simulated as given; the message says what to change."""


def _seconds(name: str, value: float, *, positive: bool = False) -> None:
    ok = (
        not isinstance(value, bool)
        and isinstance(value, int | float)
        and math.isfinite(value)
        and (value > 0 if positive else value >= 0)
        and value <= MAX_SECONDS
    )
    if not ok:
        bound = "> 0" if positive else ">= 0"
        raise DeployError(
            f"{name} must be a number of seconds {bound} and at most {MAX_SECONDS:,.0f},"
            f" got {value!r}"
        )


@dataclass(frozen=True, slots=True)
class DeploySettings:
    """The group's settings that decide what a deploy costs (see the module docstring)."""

    static_membership: bool | None = None
    session_timeout_s: float = 45.0
    max_poll_interval_s: float = 300.0
    heartbeat_interval_s: float = 3.0
    group_initial_rebalance_delay_s: float = 3.0
    scheduled_rebalance_max_delay_s: float | None = None
    revoke_s: float = 1.0
    warmup_s: float = 2.0
    rejoin_delay_s: float = 0.0

    def __post_init__(self) -> None:
        if self.static_membership not in (None, True, False):
            raise DeployError("static_membership must be true, false or null")
        for name in (
            "session_timeout_s",
            "max_poll_interval_s",
            "heartbeat_interval_s",
            "group_initial_rebalance_delay_s",
            "revoke_s",
            "warmup_s",
            "rejoin_delay_s",
        ):
            _seconds(name, getattr(self, name))
        if self.scheduled_rebalance_max_delay_s is not None:
            _seconds("scheduled_rebalance_max_delay_s", self.scheduled_rebalance_max_delay_s)

    def timings(self, restart_s: float) -> Timings:
        """The rebalance simulation's durations for these settings."""
        return Timings(
            session_timeout_s=self.session_timeout_s,
            rebalance_timeout_s=self.max_poll_interval_s,
            heartbeat_interval_s=self.heartbeat_interval_s,
            revoke_s=self.revoke_s,
            warmup_s=self.warmup_s,
            rejoin_delay_s=self.rejoin_delay_s,
            restart_s=restart_s,
        )

    def to_json(self) -> dict[str, float | bool | None]:
        """Field name -> value."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@dataclass(frozen=True, slots=True)
class DeployPlan:
    """A deploy: restarts in batches, an optional scale step first, an optional upgrade.

    ``members`` ``None`` restarts every member (in the scenario's order), ``()`` none; an upgrade
    restarts every member whatever ``members`` says (each must pick up the new configuration), so
    it must be ``None``. ``scale`` ``+K`` adds K members (``new-1``, ...; subscribed and reading
    like the first member), ``-K`` removes the last K members; it happens before the restarts.
    ``recovery_horizon_s`` bounds the drawn lag after the deploy when the backlog never returns.
    """

    members: tuple[str, ...] | None = None
    batch_size: int = 1
    restart_s: float = 30.0
    scale: int = 0
    upgrade: str | None = None
    settings: DeploySettings = field(default_factory=DeploySettings)
    recovery_horizon_s: float = 3600.0

    def __post_init__(self) -> None:
        size = self.batch_size
        if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= MAX_MEMBERS:
            raise DeployError(f"the batch size must be a whole number from 1 to {MAX_MEMBERS:,}")
        _seconds("restart_s", self.restart_s)
        _seconds("recovery_horizon_s", self.recovery_horizon_s, positive=True)
        scale = self.scale
        if isinstance(scale, bool) or not isinstance(scale, int) or abs(scale) > MAX_MEMBERS:
            raise DeployError(
                f"scale must be a whole number from -{MAX_MEMBERS:,} to +{MAX_MEMBERS:,}"
            )
        if self.upgrade is not None:
            if self.upgrade not in UPGRADES and not (
                self.upgrade.startswith("assignor:") and len(self.upgrade) > len("assignor:")
            ):
                raise DeployError(
                    f"unknown upgrade {self.upgrade!r}: use {' or '.join(UPGRADES)} or"
                    " assignor:NAME"
                )
            if self.members is not None:
                raise DeployError(
                    "an upgrade restarts every member (each must pick up the new configuration);"
                    " do not name the members to restart"
                )
        if self.members is not None and len(set(self.members)) != len(self.members):
            raise DeployError("a member to restart is named twice")

    def describe(self) -> str:
        """One line: what the plan does and with which settings."""
        parts = []
        if self.scale:
            parts.append(f"scale {'out' if self.scale > 0 else 'in'} by {abs(self.scale)}")
        if self.upgrade is not None:
            parts.append(f"upgrade {self.upgrade}")
        if self.members is None or self.members:
            who = "all members" if self.members is None else ", ".join(self.members)
            parts.append(
                f"restart {who} in batches of {self.batch_size}, {self.restart_s:g} s each"
            )
        static = self.settings.static_membership
        parts.append(
            "static membership as the scenario says"
            if static is None
            else ("static membership" if static else "dynamic membership")
        )
        return "; ".join(parts)

    def to_json(self) -> dict[str, object]:
        """Plain JSON object."""
        return {
            "members": None if self.members is None else list(self.members),
            "batch_size": self.batch_size,
            "restart_s": self.restart_s,
            "scale": self.scale,
            "upgrade": self.upgrade,
            "settings": self.settings.to_json(),
            "recovery_horizon_s": self.recovery_horizon_s,
        }

"""The Deploy page's plan in the page's link: the plan on screen as query parameters, and back.

A link names the plan with short parameters, each only when it differs from the form's default
(so a link of the default plan carries none):

* ``assignor``: the group's assignor now (default: the scenario's own);
* ``batch`` (members per batch), ``restart`` (seconds a member is down), ``scale`` (±members);
* ``membership``: ``static`` or ``dynamic`` (default: as the scenario says);
* ``upgrade``: an upgrade path (:data:`assignors.UPGRADES` or ``assignor:NAME``);
* ``restart_only``: the members to restart, as a JSON list (ids may hold any character);
* ``timeouts``: ``session:45,poll:300,heartbeat:3,initial:3,delay:300`` (``delay``: the
  scheduled rebalance delay, present only when it is on).

:func:`plan_fields` writes them from a plan; :func:`form_values` reads them back as the values
the form's widgets take. Invariants: pure (no Streamlit); for every plan the form can make,
``form_values(plan_fields(...))`` gives the widget values that make the same plan again (the
tests check the round trip on generated plans); a malformed or unknown value is never raised:
it is left out, with one sentence per problem saying what was not read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from assignors import UPGRADES, DeployPlan, DeploySettings

NO_UPGRADE = "none"
MEMBERSHIP = ("as the scenario says", "static (group.instance.id)", "dynamic")
_MEMBERSHIP_WORDS = {MEMBERSHIP[1]: "static", MEMBERSHIP[2]: "dynamic"}
#: The link parameters this module owns (a page drops them when it shows no deploy).
PARAMS = ("assignor", "batch", "restart", "scale", "membership", "upgrade", "restart_only",
          "timeouts")  # fmt: skip
#: Timeout names in ``timeouts`` -> the form field each fills.
_TIMEOUTS = {
    "session": "session_timeout_s",
    "poll": "max_poll_interval_s",
    "heartbeat": "heartbeat_interval_s",
    "initial": "group_initial_rebalance_delay_s",
    "delay": "scheduled_rebalance_max_delay_s",
}
_DEFAULTS = DeploySettings()


@dataclass(frozen=True, slots=True)
class FormValues:
    """What a link gives the form's widgets (a field absent: the widget keeps its default)."""

    values: dict[str, Any] = field(default_factory=dict)
    """Widget name (``strategy``, ``batch``, ``restart``, ``membership``, ``upgrade``,
    ``scale``, ``members``, ``session``, ``poll``, ``heartbeat``, ``initial``, ``held``,
    ``delay``) -> its value."""
    problems: tuple[str, ...] = ()


def _number(value: float) -> str:
    """``30``, ``2.5``, ``10000.75``: short, and read back as the same float."""
    short = f"{value:g}"
    return short if float(short) == value else repr(value)


def _timeouts(settings: DeploySettings) -> str:
    parts = [
        f"{name}:{_number(getattr(settings, attribute))}"
        for name, attribute in _TIMEOUTS.items()
        if getattr(settings, attribute) is not None
        and getattr(settings, attribute) != getattr(_DEFAULTS, attribute)
    ]
    return ",".join(parts)


def plan_fields(strategy: str, plan: DeployPlan, default_strategy: str) -> dict[str, str]:
    """The link parameters of ``plan`` run by ``strategy`` (only those off their default)."""
    fields: dict[str, str] = {}
    if strategy != default_strategy:
        fields["assignor"] = strategy
    if plan.batch_size != 1:
        fields["batch"] = str(plan.batch_size)
    if plan.restart_s != 30.0:
        fields["restart"] = _number(plan.restart_s)
    if plan.scale:
        fields["scale"] = f"{plan.scale:+d}"
    static = plan.settings.static_membership
    if static is not None:
        fields["membership"] = "static" if static else "dynamic"
    if plan.upgrade is not None:
        fields["upgrade"] = plan.upgrade
    if plan.members:  # () with a scale step, None: everyone (the form's default either way)
        fields["restart_only"] = json.dumps(list(plan.members), ensure_ascii=False)
    timeouts = _timeouts(plan.settings)
    if timeouts:
        fields["timeouts"] = timeouts
    return fields


def form_values(
    params: Mapping[str, str], strategies: Sequence[str], members: Sequence[str]
) -> FormValues:
    """The widget values the link's parameters name, for a form offering ``strategies`` and a
    group of ``members``; what cannot be read is left out and said in ``problems``."""
    values: dict[str, Any] = {}
    problems: list[str] = []
    for name, reader in _READERS.items():
        text = params.get(name)
        if text is None:
            continue
        try:
            values.update(reader(text, strategies, members))
        except (ValueError, TypeError) as error:
            problems.append(f"{name}: {error}")
    return FormValues(values, tuple(problems))


def _assignor(text: str, strategies: Sequence[str], _: Sequence[str]) -> dict[str, Any]:
    if text not in strategies:
        raise ValueError(f"{text!r:.60} is not a strategy the Deploy page plays")
    return {"strategy": text}


def _whole(text: str, low: int, high: int) -> int:
    number = int(text)
    if not low <= number <= high:
        raise ValueError(f"{number} is not between {low} and {high}")
    return number


def _batch(text: str, _: Sequence[str], members: Sequence[str]) -> dict[str, Any]:
    return {"batch": _whole(text, 1, max(1, len(members)))}


def _seconds(text: str, low: float = 0.0, high: float = 86_400.0) -> float:
    number = float(text)
    if not low <= number <= high:  # also refuses nan
        raise ValueError(f"{text!r:.30} is not between {low:g} and {high:g} seconds")
    return number


def _restart(text: str, _: Sequence[str], __: Sequence[str]) -> dict[str, Any]:
    return {"restart": _seconds(text)}


def _scale(text: str, _: Sequence[str], members: Sequence[str]) -> dict[str, Any]:
    return {"scale": _whole(text, -max(0, len(members) - 1), 1_000)}


def _membership(text: str, _: Sequence[str], __: Sequence[str]) -> dict[str, Any]:
    words = {word: label for label, word in _MEMBERSHIP_WORDS.items()}
    if text not in words:
        raise ValueError(f"{text!r:.30} is neither static nor dynamic")
    return {"membership": words[text]}


def _upgrade(text: str, strategies: Sequence[str], _: Sequence[str]) -> dict[str, Any]:
    if text not in UPGRADES and text.removeprefix("assignor:") not in strategies:
        raise ValueError(f"{text!r:.60} is not an upgrade the Deploy page offers")
    return {"upgrade": text}


def _restart_only(text: str, _: Sequence[str], members: Sequence[str]) -> dict[str, Any]:
    named = json.loads(text)
    if not isinstance(named, list) or not all(isinstance(m, str) for m in named):
        raise ValueError("expected a JSON list of member ids")
    present = set(members)
    missing = [m for m in named if m not in present]
    if missing:
        raise ValueError(f"{len(missing)} member(s) named are not in the group")
    return {"members": list(dict.fromkeys(named))}


def _timeouts_of(text: str, _: Sequence[str], __: Sequence[str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    widgets = {"session": "session", "poll": "poll", "heartbeat": "heartbeat",
               "initial": "initial", "delay": "delay"}  # fmt: skip
    for pair in filter(None, text.split(",")):
        name, _, number = pair.partition(":")
        if name not in widgets:
            raise ValueError(f"unknown timeout {name!r:.30} (use {', '.join(widgets)})")
        low = 1.0 if name in ("session", "poll") else 0.1 if name == "heartbeat" else 0.0
        high = 3_600.0 if name in ("heartbeat", "initial") else 86_400.0
        values[widgets[name]] = _seconds(number, low, high)
    if "delay" in values:
        values["held"] = True
    return values


_READERS = {
    "assignor": _assignor,
    "batch": _batch,
    "restart": _restart,
    "scale": _scale,
    "membership": _membership,
    "upgrade": _upgrade,
    "restart_only": _restart_only,
    "timeouts": _timeouts_of,
}

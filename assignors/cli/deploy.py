"""``python -m assignors deploy``: what a rolling restart, a scale step or an upgrade costs.

Usage::

    python -m assignors deploy SCENARIO.json --strategy NAME [--batch N] [--restart-s S]
        [--static | --dynamic] [--members ID,ID] [--scale +K|-K]
        [--upgrade eager-to-cooperative|classic-to-consumer|assignor:NAME]
        [--session-timeout S] [--max-poll-interval S] [--heartbeat-interval S]
        [--initial-rebalance-delay S] [--scheduled-rebalance-max-delay S]
        [--default-consume-rate R] [--kafka-version 3.9] [--weights COST=W,...]
        [--no-alternatives] [--json]

Steps:

1. Load the scenario (its current assignment: the members' owned partitions, else what its
   ``assignor``, or ``range``, computes); ``--strategy`` is the assignor the group runs now.
2. Build the :class:`~assignors.simulate.deploy_plan.DeployPlan`: every member restarts (only
   ``--members`` if given; none when only ``--scale`` is given), ``--batch`` at a time, each down
   ``--restart-s`` seconds; ``--static`` / ``--dynamic`` give every member a
   ``group.instance.id`` or none (default: as the scenario says); the timeouts default to Kafka's.
   ``--kafka-version`` is the Kafka release the version-dependent strategies reproduce in every
   rebalance of the deploy (default: the scenario's ``kafka_version``, else the newest).
3. Ask :func:`assignors.simulate.evaluate.evaluate` with ``deploy=`` for the deploy and, unless
   ``--no-alternatives``, its alternatives ranked on every cost
   (:mod:`assignors.simulate.deploy_costs`), ordered by ``--weights`` (``COST=W`` pairs, e.g.
   ``rebalances=3,deploy_s=0``; a cost not named weighs 1).
4. Print a table of the steps, the totals and the ranking (each plan with the sentence that
   says why it ranks there, and the Pareto front), or JSON with ``--json``.

JSON (``--json``), one object::

    {"scenario": name or null, "strategy", "warnings": [...],
     "capacity": Capacity.to_json() (does the group keep up before the deploy),
     "deploy": DeployOutcome.to_json() (figures, "steps", "lag_over_time", "after"),
     "alternatives": DeployRanking.to_json() or null,
     "scale_options": [ScaleOption.to_json(), ...] (a scale step at other sizes; [] without)}

Exit codes: 0 done; 2 bad input (unknown file, member or strategy, a plan that does not fit the
group, a value out of range), reported as one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from assignors.cli.formatting import one_line
from assignors.cli.options import add_kafka_version_argument
from assignors.errors import AssignmentExplorerError
from assignors.io.scenario import load_scenario_file
from assignors.limits import MAX_MEMBERS
from assignors.simulate.deploy import DeployOutcome
from assignors.simulate.deploy_costs import COST_KEYS, check_weights
from assignors.simulate.deploy_plan import MAX_SECONDS, UPGRADES, DeployPlan, DeploySettings
from assignors.simulate.deploy_rank import (
    DeployRanking,
    checkpoints_text,
    short_count,
    short_seconds,
)
from assignors.simulate.drain import DEFAULT_CONSUME_RATE
from assignors.simulate.evaluate import evaluate


class _UsageError(Exception):
    """A command-line problem, reported as one line and exit code 2."""


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(message)


#: Option -> (DeploySettings field, help).
_SECONDS = {
    "--session-timeout": ("session_timeout_s", "session.timeout.ms in seconds (45)"),
    "--max-poll-interval": ("max_poll_interval_s", "max.poll.interval.ms in seconds (300)"),
    "--heartbeat-interval": ("heartbeat_interval_s", "heartbeat.interval.ms in seconds (3)"),
    "--initial-rebalance-delay": (
        "group_initial_rebalance_delay_s",
        "group.initial.rebalance.delay.ms in seconds (3)",
    ),
    "--scheduled-rebalance-max-delay": (
        "scheduled_rebalance_max_delay_s",
        "scheduled.rebalance.max.delay.ms in seconds (off)",
    ),
}


def _parser() -> argparse.ArgumentParser:
    parser = _ArgumentParser(
        prog="python -m assignors deploy",
        description="What a rolling restart, a scale step or an upgrade costs, step by step.",
    )
    parser.add_argument("file", help="scenario JSON file")
    parser.add_argument("--strategy", required=True, help="the assignor the group runs now")
    parser.add_argument("--batch", default="1", help="members restarted at a time (1)")
    parser.add_argument("--restart-s", default="30", help="seconds a member is down (30)")
    membership = parser.add_mutually_exclusive_group()
    membership.add_argument("--static", action="store_true", help="every member is static")
    membership.add_argument("--dynamic", action="store_true", help="no member is static")
    parser.add_argument("--members", help="restart only these members (ID,ID)")
    parser.add_argument("--scale", help="+K members join or -K leave, before the restarts")
    parser.add_argument(
        "--upgrade", help=" | ".join([*UPGRADES, "assignor:NAME"]) + ": change on the way"
    )
    for option, (_, text) in _SECONDS.items():
        parser.add_argument(option, help=text)
    parser.add_argument(
        "--default-consume-rate",
        default=str(DEFAULT_CONSUME_RATE),
        help="records/s for members without consume_rate",
    )
    add_kafka_version_argument(parser)
    parser.add_argument(
        "--weights",
        help=f"COST=W,...: how much each cost counts in the ranking (1 each); costs: "
        f"{', '.join(COST_KEYS)}",
    )
    parser.add_argument("--no-alternatives", action="store_true", help="skip the ranking")
    parser.add_argument("--json", action="store_true", help="print JSON (keys in deploy.py)")
    return parser


def _seconds(option: str, text: str, most: float = MAX_SECONDS, unit: str = "seconds") -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 <= value <= most):
        raise _UsageError(f"{option}: expected {unit} from 0 to {most:,.0f}, got {text[:40]!r}")
    return value


def _whole(option: str, text: str, signed: bool = False) -> int:
    digits = text[1:] if signed and text[:1] in "+-" else text
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 7:
        raise _UsageError(f"{option}: expected a whole number, got {text[:40]!r}")
    value = int(digits) * (-1 if text.startswith("-") else 1)
    if abs(value) > MAX_MEMBERS:
        raise _UsageError(f"{option}: at most {MAX_MEMBERS:,}, got {value:,}")
    return value


def _plan(options: argparse.Namespace) -> DeployPlan:
    """Step 2: the plan from the options."""
    values: dict[str, Any] = {}
    for option, (name, _) in _SECONDS.items():
        given = getattr(options, name_of(option))
        if given is not None:
            values[name] = _seconds(option, given)
    static = True if options.static else (False if options.dynamic else None)
    settings = DeploySettings(static_membership=static, **values)
    scale = 0 if options.scale is None else _whole("--scale", options.scale, signed=True)
    members: tuple[str, ...] | None = None
    if options.members is not None:
        members = tuple(m.strip() for m in options.members.split(","))
        if not all(members):
            raise _UsageError(f"--members: expected ID,ID, got {options.members[:80]!r}")
    elif scale and options.upgrade is None:
        members = ()
    return DeployPlan(
        members=members,
        batch_size=_whole("--batch", options.batch),
        restart_s=_seconds("--restart-s", options.restart_s),
        scale=scale,
        upgrade=options.upgrade,
        settings=settings,
    )


def weights_of(text: str | None) -> dict[str, float]:
    """``--weights rebalances=3,deploy_s=0`` -> every cost's weight (checked)."""
    given: dict[str, float] = {}
    for pair in (text or "").split(","):
        if not pair.strip():
            continue
        key, equals, number = pair.partition("=")
        try:
            given[key.strip()] = float(number)
        except ValueError:
            raise _UsageError(
                f"--weights: expected COST=NUMBER pairs, got {pair.strip()[:40]!r}"
            ) from None
        if not equals:
            raise _UsageError(f"--weights: expected COST=NUMBER pairs, got {pair.strip()[:40]!r}")
    return check_weights(given)


def name_of(option: str) -> str:
    """``--session-timeout`` -> ``session_timeout`` (argparse's attribute name)."""
    return option.removeprefix("--").replace("-", "_")


def report(
    file: str,
    strategy: str,
    plan: DeployPlan,
    default_consume_rate: float,
    alternatives: bool,
    kafka_version: str | None = None,
    weights: dict[str, float] | None = None,
) -> tuple[dict[str, Any], DeployOutcome, DeployRanking | None, list[str]]:
    """Steps 1 and 3: the JSON report, the outcome, the ranking (or None) and the warnings.

    ``kafka_version``: the Kafka release the version-dependent strategies reproduce (default:
    the scenario's, else the newest).
    """
    scenario, warnings = load_scenario_file(file)
    evaluation = evaluate(
        scenario,
        [],
        [strategy],
        deploy=plan,
        default_consume_rate=default_consume_rate,
        kafka_version=kafka_version,
    )
    asked = evaluation.strategies[0]
    outcome = asked.deploy
    capacity = evaluation.current_capacity
    ranking = asked.deploy_ranking.reordered(weights) if alternatives else None
    scales = asked.deploy_scale_options if alternatives else ()
    return (
        {
            "scenario": scenario.name,
            "strategy": asked.name,
            "capacity": capacity.to_json(),
            "deploy": outcome.to_json(),
            "alternatives": None if ranking is None else ranking.to_json(),
            "scale_options": [option.to_json() for option in scales],
        },
        outcome,
        ranking,
        list(warnings),
    )


def render_table(title: str | None, outcome: DeployOutcome, ranking: DeployRanking | None) -> str:
    """The deploy as plain text: the steps, the totals, the ranked alternatives."""
    header = (
        "step",
        "action",
        "members",
        "start",
        "end",
        "rebal.",
        "moved",
        "paused",
        "lag at end",
    )
    rows = [
        (
            str(s.number),
            s.action,
            ",".join(s.members) if len(s.members) <= 4 else f"{len(s.members)} members",
            f"{s.start_s:,.0f} s",
            f"{s.end_s:,.0f} s",
            str(s.rebalances),
            str(s.moved),
            str(s.paused),
            short_count(s.lag_at_end),
        )
        for s in outcome.steps
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = [f"{title or 'scenario'} ({outcome.strategy}): {outcome.plan.describe()}"]
    for row in [header, *rows]:
        lines.append(
            "  ".join(
                c.ljust(w) if i in (1, 2) else c.rjust(w)
                for i, (c, w) in enumerate(zip(row, widths, strict=True))
            )
        )
    back = outcome.recovered_after_s
    lines += [
        f"deploy takes {short_seconds(outcome.deploy_s)}; {outcome.rebalances} rebalance(s),"
        f" {outcome.moved} partition move(s), {outcome.partition_pauses} partition-pauses,"
        f" {len(outcome.stopped_members)} member(s) stopped; assignor at the end:"
        f" {outcome.final_strategy}",
        f"lag: {short_count(outcome.initial_lag)} at the start, peak"
        f" {short_count(outcome.peak_lag)} at {short_seconds(outcome.peak_at_s)}, up to"
        f" {short_count(outcome.added_lag)} more than without the deploy; "
        + (
            "never back to where it started (the group falls behind for good)"
            if back is None
            else f"back to where it started {short_seconds(back)} after the deploy"
        ),
    ]
    lines.append(_checkpoints_line(outcome))
    if ranking is not None:
        lines.append(_weights_line(ranking))
        for rank, (alternative, reason) in enumerate(
            zip(ranking.alternatives, ranking.reasons, strict=True), 1
        ):
            mark = " (asked)" if alternative.asked else ""
            front = " [front]" if alternative.label in ranking.front else ""
            lines.append(f"  {rank}. {alternative.sentence()}{mark}{front}")
            lines.append(f"     {reason}")
        lines.append(ranking.verdict)
    lines.extend(f"note: {note}" for note in outcome.notes)
    return "\n".join(lines)


def _checkpoints_line(outcome: DeployOutcome) -> str:
    marks = checkpoints_text(outcome)
    gone = (
        "never gone"
        if outcome.drained_at_s is None
        else f"gone after {short_seconds(outcome.drained_at_s)}"
    )
    without = (
        "never"
        if outcome.drained_without_s is None
        else f"after {short_seconds(outcome.drained_without_s)}"
    )
    return f"backlog {marks}; {gone} (without the deploy: {without})"


def _weights_line(ranking: DeployRanking) -> str:
    weights = ", ".join(f"{k} {w:g}" for k, w in ranking.weights.items())
    return (
        f"alternatives, ranked on every cost (weights: {weights}; [front]: no other plan beats it"
        " on every cost):"
    )


def main(argv: list[str]) -> int:
    """Run ``deploy`` with ``argv`` (the arguments after ``deploy``); returns the exit code."""
    try:
        options = _parser().parse_args(argv)
        plan = _plan(options)
        rate = _seconds("--default-consume-rate", options.default_consume_rate, 1e12, "records/s")
        weights = weights_of(options.weights)
        answer, outcome, ranking, warnings = report(
            options.file,
            options.strategy,
            plan,
            rate,
            not options.no_alternatives,
            options.kafka_version,
            weights,
        )
    except _UsageError as error:
        print(f"deploy: {one_line(error)}", file=sys.stderr)
        return 2
    except AssignmentExplorerError as error:
        print(f"error: {one_line(error)}", file=sys.stderr)
        return 2
    except SystemExit as exit_:  # --help
        return int(exit_.code or 0)
    if options.json:
        answer["warnings"] = warnings
        print(json.dumps(answer))
    else:
        capacity_line = answer["capacity"]["sentence"]
        print(capacity_line if answer["capacity"]["keeps_up"] else f"WARNING: {capacity_line}")
        print(render_table(answer["scenario"], outcome, ranking))
        if answer["scale_options"]:
            print("the scale step at other sizes, and with a strategy change:")
            for option in answer["scale_options"]:
                mark = " (asked)" if option["asked"] else ""
                print(f"  {option['sentence']}{mark}")
        for warning in warnings:
            print(f"warning: {warning}", file=sys.stderr)
    return 0

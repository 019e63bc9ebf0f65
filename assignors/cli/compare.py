"""``python -m assignors compare``: what one change to a group costs under each strategy.

Usage::

    python -m assignors compare SCENARIO.json --strategy range --strategy cooperative-sticky \\
        [--change add:2 | add:ID[:topic,topic] | remove:ID | restart:ID | ...] \\
        [--add-member ID[:topic,topic]] [--remove-member ID] [--restart-member ID] \\
        [--subscribe ID:topic,topic] [--partitions topic:N] [--json] \\
        [--horizon S] [--step S] [--default-consume-rate R] [--kafka-version 3.9] [timing options]

Steps:

1. Load the scenario; its current assignment is
   :func:`assignors.simulate.changes.current_assignment` (the members' owned partitions; with no
   ownership yet, what the scenario's ``assignor`` field strategy, or ``range``, computes).
2. ``--change`` takes a change in the one text form of :mod:`assignors.io.changes`; the older
   flags (``--add-member`` ...) are kept as aliases and become the same JSON change objects, so
   every change is checked by one parser. Apply the changes in the order given
   (:func:`assignors.simulate.changes.apply_changes`); together they are one change followed by
   one rebalance. ``--add-member`` without topics subscribes like
   the first member; ``--restart-member`` restarts a static member within the session timeout (no
   rebalance if nothing else changes).
3. Per strategy, through :func:`assignors.simulate.evaluate.evaluate`: the rebalance played
   under the strategy's protocol, the target measured against the current assignment, and the
   backlog projected.
4. Print a table with one column per strategy, or JSON with ``--json``.

JSON (``--json``), one object::

    {"scenario": name or null, "changes": [one line per change], "warnings": [...],
     "timings": {Timings fields}, "horizon_s", "step_s", "default_consume_rate",
     "current": {member: [[topic, partition], ...]}  (--form compact: runs, as in the
                                                     scenario format's compact form),
     "strategies": [{
        "strategy", "protocol",
        "moved", "kept", "newly_assigned", "revoked", "dropped"   (partition counts),
        "lag": {"total", "by_member", "max_min_ratio", "stddev", "cv"},
        "partitions": {"min", "max", "spread"}, "idle_members", "unassigned",
        "cross_rack", "cross_rack_share", "split_partitions",
        "rounds", "pause_s", "partition_pauses", "stopped_members", "group_stop_s",
        "rebalance_s",
        "drain_s"            (seconds until the group's backlog is zero for good; null: never),
        "drain_deficit"      (records/s the group falls behind for good),
        "assignment"         (the target, member -> partitions),
        "metrics"            (AssignmentMetrics.to_json()),
        "notes"              ([one line each]),
        "phases"             ([{"name", "reason", "start_s", "duration_s", "paused", "revoked",
                                "assigned", "waiting"}], counts of partitions),
        "drain"              ({"times_s", "group_lag", "members": [{"member_id",
                                "consume_rate", "rate_is_default", "initial_lag", "peak_lag",
                                "clears_at_s", "deficit"}]})}]}

Exit codes: 0 done; 2 bad input (unknown file, member, topic or strategy, a change that makes no
sense), reported as one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from typing import Any

from assignors import registry
from assignors.cli.formatting import answer_json, one_line
from assignors.cli.options import add_form_argument, add_kafka_version_argument
from assignors.errors import AssignmentExplorerError, StrategyNotApplicableError
from assignors.io.changes import MAX_COUNT_DIGITS, TEXT_FORMS, change_from_text, parse_change
from assignors.io.compact import use_compact
from assignors.io.scenario import load_scenario_file
from assignors.model import Scenario
from assignors.simulate.changes import (
    Change,
    ChangeError,
    describe,
)
from assignors.simulate.drain import DEFAULT_CONSUME_RATE
from assignors.simulate.evaluate import StrategyEvaluation, evaluate
from assignors.simulate.rebalance import Timings
from assignors.strategy import PartitionStrategy


class _UsageError(Exception):
    """A command-line problem, reported as one line and exit code 2."""


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(message)


def _split_topics(text: str, option: str) -> tuple[str, ...]:
    topics = tuple(topic.strip() for topic in text.split(","))
    if not text or any(not topic for topic in topics):
        raise _UsageError(f"{option}: expected topic,topic after the colon, got {text!r}")
    return topics


def _flag_json(option: str, value: str) -> dict[str, Any]:
    """The one JSON change form (:mod:`assignors.io.changes`) of an old-style change flag."""
    if option == "--add-member":
        member_id, colon, topics = value.partition(":")
        if not member_id:
            raise _UsageError("--add-member: expected ID or ID:topic,topic")
        entry: dict[str, Any] = {"op": "add_member", "member_id": member_id}
        return {**entry, "topics": list(_split_topics(topics, option))} if colon else entry
    if option in ("--remove-member", "--restart-member"):
        if not value:
            raise _UsageError(f"{option}: expected a member id")
        entry = {"op": "remove_member", "member_id": value}
        return {**entry, "static_restart": True} if option == "--restart-member" else entry
    if option == "--subscribe":
        member_id, colon, topics = value.partition(":")
        if not member_id or not colon:
            raise _UsageError(f"--subscribe: expected ID:topic,topic, got {value!r}")
        return {
            "op": "subscribe",
            "member_id": member_id,
            "topics": list(_split_topics(topics, option)),
        }
    topic, colon, count = value.rpartition(":")
    if not topic or not colon or not (count.isascii() and count.isdigit()):
        raise _UsageError(
            f"--partitions: expected topic:N with N a whole number, got {value[:80]!r}"
        )
    if len(count) > MAX_COUNT_DIGITS:
        raise _UsageError(f"--partitions: a count of {len(count):,} digits is too big")
    return {"op": "set_partitions", "topic": topic, "partitions": int(count)}


def _parse_change(option: str, value: str) -> Change:
    """``--change TEXT`` in the text form; the older flags are aliases of its JSON form."""
    if option == "--change":
        return change_from_text(value)
    return parse_change(_flag_json(option, value), f"{option} {value}")


class _ChangeAction(argparse.Action):
    """Collects every change option into one list, in command-line order."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        changes: list[Change] = list(getattr(namespace, "changes", None) or [])
        changes.append(_parse_change(option_string or "", str(values)))
        namespace.changes = changes


def _parser() -> argparse.ArgumentParser:
    parser = _ArgumentParser(
        prog="python -m assignors compare",
        description="What a change to a consumer group costs under one or more strategies.",
    )
    parser.add_argument("file", help="scenario JSON file")
    parser.add_argument(
        "--strategy", action="append", required=True, help="strategy name (repeatable)"
    )
    parser.add_argument(
        "--change",
        metavar="CHANGE",
        action=_ChangeAction,
        dest="changes",
        help="a change in the text form: " + " | ".join(TEXT_FORMS) + " (repeatable)",
    )
    for option, meta, text in (
        ("--add-member", "ID[:T,T]", "a member joins (without topics: like the first member)"),
        ("--remove-member", "ID", "a member leaves"),
        ("--restart-member", "ID", "a static member restarts within the session timeout"),
        ("--subscribe", "ID:T,T", "a member's new subscription"),
        ("--partitions", "TOPIC:N", "a topic grows to N partitions"),
    ):
        parser.add_argument(option, metavar=meta, action=_ChangeAction, dest="changes", help=text)
    parser.add_argument("--json", action="store_true", help="print JSON (keys in compare.py)")
    parser.add_argument("--horizon", type=float, default=3600.0, help="projection seconds")
    parser.add_argument("--step", type=float, default=10.0, help="projection step seconds")
    parser.add_argument(
        "--default-consume-rate",
        type=float,
        default=DEFAULT_CONSUME_RATE,
        help="records/s for members without consume_rate",
    )
    defaults = Timings()
    for name, text in (
        ("session_timeout_s", "session.timeout.ms in seconds"),
        ("rebalance_timeout_s", "max.poll.interval.ms in seconds"),
        ("heartbeat_interval_s", "heartbeat interval in seconds"),
        ("revoke_s", "seconds to commit and revoke"),
        ("warmup_s", "seconds before a new owner reads a partition"),
        ("rejoin_delay_s", "extra seconds the slowest member takes to rejoin"),
        ("restart_s", "seconds a restarting static member is down"),
    ):
        option = "--" + name.removesuffix("_s").replace("_", "-")
        parser.add_argument(
            option, dest=name, type=float, default=getattr(defaults, name), help=text
        )
    add_kafka_version_argument(parser)
    add_form_argument(parser)
    parser.set_defaults(changes=[])
    return parser


def _strategy(name: str) -> PartitionStrategy:
    strategy = registry.get(name)
    if not isinstance(strategy, PartitionStrategy):
        raise StrategyNotApplicableError(
            f"strategy {name!r} assigns Kafka Streams tasks; compare works on consumer groups"
        )
    return strategy


def _entry(item: StrategyEvaluation, every_topic: Sequence[str] | None) -> dict[str, Any]:
    simulation, metrics, drain = item.simulation, item.metrics, item.drain()
    movement = metrics.movement
    return {
        "strategy": item.name,
        "protocol": simulation.protocol,
        "moved": movement.moved_count,
        "kept": movement.kept_count,
        "newly_assigned": movement.newly_assigned_count,
        "revoked": movement.revoked_count,
        "dropped": movement.dropped_count,
        "lag": {
            "total": metrics.lag_total,
            "by_member": metrics.lag_by_member,
            "max_min_ratio": metrics.lag_max_min_ratio,
            "stddev": metrics.lag_stddev,
            "cv": metrics.lag_cv,
        },
        "partitions": {
            "min": metrics.partitions_min,
            "max": metrics.partitions_max,
            "spread": metrics.partitions_spread,
        },
        "idle_members": list(metrics.idle_members),
        "unassigned": len(metrics.unassigned_partitions),
        "cross_rack": metrics.cross_rack_assignments,
        "cross_rack_share": metrics.cross_rack_share,
        "split_partitions": metrics.split_partition_count,
        "rounds": simulation.rounds,
        "pause_s": simulation.pause_s,
        "partition_pauses": simulation.partition_pauses,
        "stopped_members": list(simulation.stopped_members),
        "group_stop_s": simulation.group_stop_s,
        "rebalance_s": simulation.duration_s,
        "drain_s": drain.group_clears_at_s,
        "drain_deficit": drain.group_deficit,
        "assignment": answer_json(simulation.target, every_topic),
        "metrics": metrics.to_json(),
        "phases": [
            {
                "name": phase.name,
                "reason": phase.reason,
                "start_s": phase.start_s,
                "duration_s": phase.duration_s,
                "paused": len(phase.paused),
                "revoked": len(phase.revoked),
                "assigned": len(phase.assigned),
                "waiting": len(phase.waiting),
            }
            for phase in simulation.phases
        ],
        "notes": list(simulation.notes),
        "drain": {
            "times_s": list(drain.times_s),
            "group_lag": list(drain.group_lag),
            "members": [
                {
                    "member_id": member.member_id,
                    "consume_rate": member.consume_rate,
                    "rate_is_default": member.rate_is_default,
                    "initial_lag": member.initial_lag,
                    "peak_lag": member.peak_lag,
                    "clears_at_s": member.clears_at_s,
                    "deficit": member.deficit,
                }
                for member in drain.members
            ],
        },
    }


def compare(
    scenario: Scenario,
    strategies: Sequence[str],
    changes: Sequence[Change],
    *,
    timings: Timings | None = None,
    horizon_s: float = 3600.0,
    step_s: float = 10.0,
    default_consume_rate: float = DEFAULT_CONSUME_RATE,
    kafka_version: str | None = None,
    form: str = "auto",
) -> dict[str, Any]:
    """The comparison as the JSON object documented in the module docstring (no warnings key).

    ``kafka_version``: the Kafka release the version-dependent strategies reproduce (default:
    the scenario's, else the newest). ``form``: how ``current`` and each ``assignment`` list
    partitions (:data:`assignors.io.compact.FORMS`; ``auto``: runs for a large group).
    """
    repeated = sorted({name for name in strategies if list(strategies).count(name) > 1})
    if repeated:
        raise ChangeError(f"strategy {repeated[0]!r} is given twice")
    chosen = [_strategy(name) for name in strategies]
    timings = Timings() if timings is None else timings
    evaluation = evaluate(
        scenario,
        changes,
        chosen,
        timings=timings,
        horizon_s=horizon_s,
        step_s=step_s,
        default_consume_rate=default_consume_rate,
        kafka_version=kafka_version,
    )
    current = evaluation.current
    partition_count = sum(topic.partitions for topic in scenario.topics)
    every_topic = (
        tuple(topic.name for topic in scenario.topics)
        if use_compact(form, partition_count)
        else None
    )
    entries = [_entry(item, every_topic) for item in evaluation.strategies]
    return {
        "scenario": scenario.name,
        "changes": [describe(change) for change in changes],
        "timings": timings.to_json(),
        "horizon_s": horizon_s,
        "step_s": step_s,
        "default_consume_rate": default_consume_rate,
        "current": answer_json(current, every_topic),
        "strategies": entries,
    }


def _seconds(value: float | None, deficit: float = 0.0) -> str:
    if value is None:
        return f"never (-{deficit:g} rec/s)" if deficit > 0 else "never"
    return f"{value:,.1f} s"


def _number(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def render_table(report: dict[str, Any]) -> str:
    """The comparison as a plain-text table, one column per strategy."""
    entries: list[dict[str, Any]] = report["strategies"]
    rows: list[tuple[str, list[str]]] = [
        ("protocol", [e["protocol"] for e in entries]),
        ("partitions kept", [str(e["kept"]) for e in entries]),
        ("partitions moved", [str(e["moved"]) for e in entries]),
        ("newly assigned", [str(e["newly_assigned"]) for e in entries]),
        ("revoked", [str(e["revoked"]) for e in entries]),
        ("partitions/member min-max", [
            f"{e['partitions']['min']}-{e['partitions']['max']}" for e in entries
        ]),
        ("idle members", [str(len(e["idle_members"])) for e in entries]),
        ("unassigned partitions", [str(e["unassigned"]) for e in entries]),
        ("lag total", [f"{e['lag']['total']:,}" for e in entries]),
        ("lag max/min", [_number(e["lag"]["max_min_ratio"]) for e in entries]),
        ("lag coeff. of variation", [_number(e["lag"]["cv"]) for e in entries]),
        ("cross-rack share", [_number(e["cross_rack_share"]) for e in entries]),
        ("co-partitions split", [str(e["split_partitions"]) for e in entries]),
        ("rebalance rounds", [str(e["rounds"]) for e in entries]),
        ("partition-pauses", [str(e["partition_pauses"]) for e in entries]),
        ("members stopped", [str(len(e["stopped_members"])) for e in entries]),
        ("longest pause", [_seconds(e["pause_s"]) for e in entries]),
        ("whole group stopped", [_seconds(e["group_stop_s"]) for e in entries]),
        ("backlog cleared after", [_seconds(e["drain_s"], e["drain_deficit"]) for e in entries]),
    ]  # fmt: skip
    header = ["", *(e["strategy"] for e in entries)]
    label_width = max(len(label) for label, _ in rows)
    widths = [
        max(len(header[i + 1]), *(len(values[i]) for _, values in rows))
        for i in range(len(entries))
    ]
    lines = []
    title = report["scenario"] or "scenario"
    changes = "; ".join(report["changes"]) or "no change (a rebalance as the strategy runs it)"
    lines.append(f"{title}: {changes}")
    lines.append(
        "  ".join(
            [" " * label_width, *(h.rjust(w) for h, w in zip(header[1:], widths, strict=True))]
        )
    )
    for label, values in rows:
        cells = (v.rjust(w) for v, w in zip(values, widths, strict=True))
        lines.append("  ".join([label.ljust(label_width), *cells]))
    defaulted = {
        m["member_id"] for e in entries for m in e["drain"]["members"] if m["rate_is_default"]
    }
    if defaulted:
        lines.append(
            f"consume rate {report['default_consume_rate']:g} records/s assumed for"
            f" {len(defaulted)} member(s) without consume_rate"
        )
    for e in entries:
        for note in e["notes"]:
            lines.append(f"{e['strategy']}: {note}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """Run ``compare`` with ``argv`` (the arguments after ``compare``); returns the exit code."""
    try:
        options = _parser().parse_args(argv)
        seconds = {name: getattr(options, name) for name in Timings.__dataclass_fields__}
        bad = [n for n, v in seconds.items() if not (math.isfinite(v) and v >= 0)]
        if bad:
            option = bad[0].removesuffix("_s").replace("_", "-")
            raise _UsageError(f"--{option} must be a number of seconds >= 0")
        timings = Timings(**seconds)
        scenario, warnings = load_scenario_file(options.file)
        report = compare(
            scenario,
            options.strategy,
            options.changes,
            timings=timings,
            horizon_s=options.horizon,
            step_s=options.step,
            default_consume_rate=options.default_consume_rate,
            kafka_version=options.kafka_version,
            form=options.form,
        )
    except _UsageError as error:
        print(f"compare: {one_line(error)}", file=sys.stderr)
        return 2
    except (AssignmentExplorerError, ChangeError) as error:
        print(f"error: {one_line(error)}", file=sys.stderr)
        return 2
    except SystemExit as exit_:  # --help
        return int(exit_.code or 0)
    if options.json:
        report["warnings"] = list(warnings)
        print(json.dumps(report))
    else:
        print(render_table(report))
        for warning in warnings:
            print(f"warning: {warning}", file=sys.stderr)
    return 0

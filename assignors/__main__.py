"""``python -m assignors``: the command line.

* ``batch``: JSON lines in, JSON lines out (see :mod:`assignors.cli.batch`).
* ``assign FILE --strategy NAME``: one assignment of a scenario file, as a table (``--json``),
  saying which round of the strategy's rebalance protocol it is (``--round N|final``: another
  round; see :mod:`assignors.cli.rounds`);
  ``--explain TOPIC:PARTITION`` (repeatable) prints why that partition went where it did (see
  :mod:`assignors.cli.explain`); ``--kafka-version 3.9`` reproduces that Kafka release (for the
  strategies whose answers changed between releases; default the scenario's, else the newest).
* ``list``: the registered strategies with what they do.
* ``from-describe FILE``: ``kafka-consumer-groups.sh --describe`` output -> a scenario (see
  :mod:`assignors.cli.from_describe`).
* ``compare``: a change's cost under one or more strategies (see :mod:`assignors.cli.compare`).
* ``deploy``: a rolling restart, scale step or upgrade, step by step, with cheaper alternatives
  (see :mod:`assignors.cli.deploy`).

Exit codes: 0 when the command ran, 2 for bad input (one line on stderr, never a traceback).
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Iterable
from dataclasses import replace

from assignors import registry
from assignors.cli.batch import run_batch
from assignors.cli.explain import ExplainRequestError, requested_partitions, trace_json, trace_text
from assignors.cli.formatting import answer_json, assignment_lines, one_line
from assignors.cli.from_describe import add_arguments as add_from_describe_arguments
from assignors.cli.from_describe import run as run_from_describe
from assignors.cli.options import add_form_argument, add_kafka_version_argument
from assignors.cli.rounds import (
    RoundRequestError,
    add_round_argument,
    pick_round,
    round_fields,
    round_line,
)
from assignors.errors import AssignmentExplorerError
from assignors.io.compact import use_compact
from assignors.io.scenario import load_scenario_file
from assignors.kafka_versions import parse_kafka_version
from assignors.model import Scenario
from assignors.strategy import PartitionStrategy


class _ArgumentParser(argparse.ArgumentParser):
    """argparse that reports usage errors as one line and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: {message}\n")
        raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    parser = _ArgumentParser(
        prog="python -m assignors",
        description="Kafka partition assignment strategies: run, compare and explain them.",
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_ArgumentParser)
    commands.add_parser("batch", help="answer JSON lines on stdin (see assignors/cli/batch.py)")
    assign = commands.add_parser("assign", help="assign one scenario file and print a table")
    assign.add_argument("file", help="scenario JSON file")
    assign.add_argument("--strategy", required=True, help="strategy name (see `list`)")
    assign.add_argument("--json", action="store_true", help="print the batch answer shape")
    assign.add_argument(
        "--explain",
        action="append",
        default=[],
        metavar="TOPIC:PARTITION",
        help="print the decisions that placed this partition (repeatable)",
    )
    add_kafka_version_argument(assign)
    add_round_argument(assign)
    add_form_argument(assign)
    commands.add_parser("list", help="list the registered strategies")
    commands.add_parser("compare", help="compare strategies for a change", add_help=False)
    commands.add_parser("deploy", help="what a rolling deploy costs, step by step", add_help=False)
    add_from_describe_arguments(
        commands.add_parser(
            "from-describe", help="kafka-consumer-groups.sh --describe output -> a scenario"
        )
    )
    return parser


def _assign(options: argparse.Namespace) -> int:
    file, as_json, explain, version = (
        options.file,
        options.json,
        options.explain,
        options.kafka_version,
    )
    strategy = registry.get(options.strategy)
    if isinstance(strategy, PartitionStrategy):
        scenario, warnings = load_scenario_file(file)
        if version is not None:
            scenario = replace(scenario, kafka_version=parse_kafka_version(version))
        if explain:
            if options.round not in (None, "1"):
                raise RoundRequestError(
                    f"--explain traces round 1 (the assignor's own answer); leave out"
                    f" --round {options.round}"
                )
            return _explain(strategy, scenario, warnings, options)
        first = strategy.assign(scenario, warnings)
        shown = pick_round(strategy, scenario, first, options.round)
        every_topic = _every_topic(scenario, options.form)
        if as_json:
            assignment = answer_json(shown.assignment, every_topic)
            answer = {"assignment": assignment, "warnings": warnings}
            print(json.dumps({**answer, **round_fields(shown)}))
        else:
            _write_lines([round_line(shown), *assignment_lines(shown.assignment, every_topic)])
        for warning in first.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        return 0
    if explain:
        raise ExplainRequestError(
            f"--explain traces partition strategies; {strategy.name!r} assigns Kafka Streams tasks"
        )
    if options.round is not None:
        raise RoundRequestError(
            f"--round picks a round of a partition strategy's rebalance; {strategy.name!r}"
            " assigns Kafka Streams tasks"
        )
    from assignors.io.scenario import read_json_file

    parsed = strategy.parse(read_json_file(file))
    if version is not None:
        parsed = replace(parsed, kafka_version=parse_kafka_version(version))
    answer = strategy.to_json(strategy.answer(parsed))
    print(json.dumps(answer, indent=None if as_json else 2))
    return 0


def _every_topic(scenario: Scenario, form: str) -> tuple[str, ...] | None:
    """The scenario's topic names when ``form`` means the compact form for it, else ``None``."""
    if use_compact(form, sum(topic.partitions for topic in scenario.topics)):
        return tuple(topic.name for topic in scenario.topics)
    return None


def _write_lines(lines: Iterable[str]) -> None:
    """Each line to stdout as it is made (a table of a million partitions is never one
    string)."""
    write = sys.stdout.write
    for line in lines:
        write(line)
        write("\n")


def _explain(
    strategy: PartitionStrategy,
    scenario: Scenario,
    warnings: tuple[str, ...],
    options: argparse.Namespace,
) -> int:
    as_json, explain = options.json, options.explain
    partitions = requested_partitions(explain, scenario)
    explanation = strategy.explain(scenario, warnings)
    if as_json:
        every_topic = _every_topic(scenario, options.form)
        answer = {
            "assignment": answer_json(explanation.assignment, every_topic),
            "warnings": warnings,
            "explain": [trace_json(explanation.partition(tp)) for tp in partitions],
        }
        print(json.dumps(answer))
    else:
        print(trace_text(explanation, partitions))
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return 0


def _list() -> int:
    for name, strategy in registry.strategies().items():
        print(f"{name}  ({strategy.kind}, {strategy.protocol} rebalancing)")
        print(textwrap.indent(textwrap.fill(strategy.summary, 96), "    "))
        print(f"    select it with: {strategy.consumer_config}")
        lines = strategy.kafka_lines.accepted
        print(f"    Kafka lines answered: {', '.join(lines)}")
        for version, change in strategy.older_kafka:
            line = f"--kafka-version {version}: {change}"
            print(textwrap.indent(textwrap.fill(line, 96), "    "))
        print()
    return 0


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    if arguments[:1] == ["compare"]:
        from assignors.cli.compare import main as compare_main

        return compare_main(arguments[1:])
    if arguments[:1] == ["deploy"]:
        from assignors.cli.deploy import main as deploy_main

        return deploy_main(arguments[1:])
    options = _parser().parse_args(arguments)
    try:
        if options.command == "batch":
            run_batch(sys.stdin.buffer, sys.stdout)
            return 0
        if options.command == "from-describe":
            return run_from_describe(options)
        if options.command == "assign":
            return _assign(options)
        return _list()
    except AssignmentExplorerError as error:
        print(f"error: {one_line(error)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())

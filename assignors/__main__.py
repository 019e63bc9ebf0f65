"""``python -m assignors``: the command line.

* ``batch``: JSON lines in, JSON lines out (see :mod:`assignors.cli.batch`).
* ``assign FILE --strategy NAME``: one assignment of a scenario file, as a table (``--json``).
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

from assignors import registry
from assignors.cli.batch import run_batch
from assignors.cli.formatting import assignment_table, one_line
from assignors.cli.from_describe import add_arguments as add_from_describe_arguments
from assignors.cli.from_describe import run as run_from_describe
from assignors.errors import AssignmentExplorerError
from assignors.io.scenario import load_scenario_file
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
    commands.add_parser("list", help="list the registered strategies")
    commands.add_parser("compare", help="compare strategies for a change", add_help=False)
    commands.add_parser("deploy", help="what a rolling deploy costs, step by step", add_help=False)
    add_from_describe_arguments(
        commands.add_parser(
            "from-describe", help="kafka-consumer-groups.sh --describe output -> a scenario"
        )
    )
    return parser


def _assign(file: str, strategy_name: str, as_json: bool) -> int:
    strategy = registry.get(strategy_name)
    if isinstance(strategy, PartitionStrategy):
        scenario, warnings = load_scenario_file(file)
        assignment = strategy.assign(scenario, warnings)
        if as_json:
            print(json.dumps({"assignment": assignment.to_json(), "warnings": warnings}))
        else:
            print(assignment_table(assignment))
        for warning in assignment.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        return 0
    from assignors.io.scenario import read_json_file

    answer = strategy.to_json(strategy.compute(strategy.parse(read_json_file(file))))
    print(json.dumps(answer, indent=None if as_json else 2))
    return 0


def _list() -> int:
    for name, strategy in registry.strategies().items():
        print(f"{name}  ({strategy.kind}, {strategy.protocol} rebalancing)")
        print(textwrap.indent(textwrap.fill(strategy.summary, 96), "    "))
        print(f"    select it with: {strategy.consumer_config}\n")
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
            return _assign(options.file, options.strategy, options.json)
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

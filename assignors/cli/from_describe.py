"""``python -m assignors from-describe``: ``kafka-consumer-groups.sh`` output -> a scenario file.

    python -m assignors from-describe describe.txt [members.txt ...] [--group G]
        [--partitions topic:N ...] [--kcat metadata.json] [--broker-rack ID:RACK ...]

Every file is read as one listing (``-`` is standard input); several listings of the same group
(``--describe`` and ``--describe --members --verbose``) are read together. The scenario goes to
standard output, each assumption made to standard error as ``warning: ...``; a line that cannot be
read is an error naming its file and line (exit code 2, nothing printed on standard output).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from assignors.errors import ScenarioError
from assignors.io.scenario import MAX_FILE_BYTES, dumps_scenario, parse_scenario, read_json_file


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``from-describe`` (the module docstring shows them in use)."""
    parser.add_argument("files", nargs="+", help="kafka-consumer-groups.sh output ('-': stdin)")
    parser.add_argument("--group", help="the group to read when the listing holds several")
    parser.add_argument(
        "--partitions", action="append", default=[], metavar="TOPIC:N", help="a topic's count"
    )
    parser.add_argument("--kcat", metavar="FILE", help="kcat -L -J metadata (counts, replicas)")
    parser.add_argument(
        "--broker-rack", action="append", default=[], metavar="ID:RACK", help="a broker's rack"
    )


def _read_text(name: str) -> str:
    if name == "-":
        data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
    else:
        path = Path(name)
        if not path.is_file():
            raise ScenarioError([f"{name}: no such file"])
        if path.stat().st_size > MAX_FILE_BYTES:
            raise ScenarioError([f"{name}: larger than {MAX_FILE_BYTES // 2**20} MiB"])
        data = path.read_bytes()
    if len(data) > MAX_FILE_BYTES:
        raise ScenarioError([f"{name}: larger than {MAX_FILE_BYTES // 2**20} MiB"])
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ScenarioError([f"{name}: not UTF-8 text (byte {error.start})"]) from None


def _pairs(values: list[str], option: str, *, int_key: bool = False) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for value in values:
        key, sep, rest = value.rpartition(":") if not int_key else value.partition(":")
        if not sep or not key or not rest:
            raise ScenarioError([f"{option}: expected KEY:VALUE, got {value!r}"])
        pairs[key] = rest
    return pairs


def _counts(values: list[str]) -> dict[str, int]:
    from assignors.io.from_describe import parse_partition_counts

    _pairs(values, "--partitions")  # the same KEY:VALUE message as the other options
    return parse_partition_counts(values)


def _racks(values: list[str]) -> dict[int, str]:
    racks: dict[int, str] = {}
    for broker, rack in _pairs(values, "--broker-rack", int_key=True).items():
        if not (broker.isascii() and broker.isdigit()) or len(broker) > 10:
            raise ScenarioError([f"--broker-rack: broker id must be a number, got {broker!r}"])
        racks[int(broker)] = rack
    return racks


def run(options: argparse.Namespace) -> int:
    """Print the scenario; raises :class:`ScenarioError` for anything unreadable."""
    # Imported here: every command builds this command's options, only this one reads listings.
    from assignors.io.describe import merge_listings, parse_describe
    from assignors.io.from_describe import scenario_from_listing
    from assignors.io.kcat import parse_kcat_metadata

    listing = merge_listings([parse_describe(_read_text(name), name) for name in options.files])
    metadata = None
    if options.kcat:
        metadata = parse_kcat_metadata(read_json_file(options.kcat), _racks(options.broker_rack))
    scenario, warnings = scenario_from_listing(
        listing, group=options.group, partitions=_counts(options.partitions), metadata=metadata
    )
    _, load_warnings = parse_scenario(scenario)
    for warning in (*warnings, *load_warnings):
        print(f"warning: {warning}", file=sys.stderr)
    print(dumps_scenario(scenario))
    return 0

"""``python -m cluster``: list groups, or snapshot one as a scenario file.

Every group kind is listed with its type (``classic``, ``consumer``, ``streams``, ``share``);
``snapshot`` writes a consumer-group scenario for classic, KIP-848 and share groups, and a Kafka
Streams scenario (tasks per instance, the ``streams-ha`` shape) for a Streams group.

    python -m cluster groups   --bootstrap-servers host:9092 [--json]
    python -m cluster snapshot --bootstrap-servers host:9092 --group orders > scenario.json

Passwords are never taken on the command line (other users can read it in the process list):
the SASL password comes from the environment variable named by ``--sasl-password-env``
(default ``AE_SASL_PASSWORD``) or, on a terminal, from a prompt; likewise the TLS key password.
Every failure prints ``error: <what to do>`` on stderr and exits with status 2, never a
traceback; warnings go to stderr, the scenario to stdout (or ``--output``).
"""

from __future__ import annotations

import argparse
import getpass
import json
import logging
import os
import sys
from typing import cast

from assignors import AssignmentExplorerError, Scenario
from cluster.connection import (
    DEFAULT_TIMEOUT_S,
    SASL_MECHANISMS,
    SECURITY_PROTOCOLS,
    ConnectionSettings,
    SaslMechanism,
    Secret,
    SecurityProtocol,
    redact,
)
from cluster.errors import ConnectionSettingsError, StreamsGroupError
from cluster.reader import ClusterReader
from cluster.snapshot import MAX_SAMPLE_SECONDS, snapshot_group
from cluster.streams_snapshot import snapshot_streams_group

EXIT_FAILURE = 2


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    connection = common.add_argument_group("connection")
    connection.add_argument("--bootstrap-servers", required=True, help="host:port[,host:port]")
    connection.add_argument("--security-protocol", choices=SECURITY_PROTOCOLS, default="PLAINTEXT")
    connection.add_argument("--ssl-cafile", help="PEM file of the CA that signed the brokers")
    connection.add_argument("--ssl-certfile", help="PEM client certificate (mutual TLS)")
    connection.add_argument("--ssl-keyfile", help="PEM client key (mutual TLS)")
    connection.add_argument(
        "--ssl-key-password-env",
        metavar="VAR",
        help="environment variable holding the client key's password",
    )
    connection.add_argument(
        "--no-ssl-check-hostname",
        action="store_true",
        help="do not check that the broker certificate names the host",
    )
    connection.add_argument("--sasl-mechanism", choices=SASL_MECHANISMS)
    connection.add_argument("--sasl-username")
    connection.add_argument(
        "--sasl-password-env",
        metavar="VAR",
        default="AE_SASL_PASSWORD",
        help="environment variable holding the SASL password (default: %(default)s); on a"
        " terminal the password is asked for when the variable is unset",
    )
    connection.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT_S,
        help="seconds to wait for the cluster, per request (default: %(default)s)",
    )
    connection.add_argument(
        "--broker-version",
        type=_version,
        help="assume this broker version (e.g. 2.0) instead of asking the broker",
    )
    parser = argparse.ArgumentParser(
        prog="python -m cluster",
        description="Read groups (classic, consumer, streams, share) from Kafka, read-only.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    groups = commands.add_parser("groups", parents=[common], help="list every group with its type")
    groups.add_argument("--json", action="store_true", help="print JSON lines")
    snapshot = commands.add_parser(
        "snapshot", parents=[common], help="print one group as a scenario JSON file"
    )
    snapshot.add_argument("--group", required=True, help="the group id")
    snapshot.add_argument(
        "--sample-seconds",
        type=float,
        default=0.0,
        help=f"read offsets twice this many seconds apart (at most {MAX_SAMPLE_SECONDS:g}) to"
        " estimate produce and consume rates (default: no sampling)",
    )
    snapshot.add_argument("--output", help="write the scenario here instead of stdout")
    from cluster.record import add_record_parser

    add_record_parser(commands, common)
    return parser


def _version(text: str) -> tuple[int, ...]:
    try:
        parts = tuple(int(part) for part in text.split("."))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a version like 2.8, got {text!r}") from None
    if not 1 <= len(parts) <= 3:
        raise argparse.ArgumentTypeError(f"expected a version like 2.8, got {text!r}")
    return parts


def _secret(variable: str | None, prompt: str, needed: bool) -> Secret | None:
    if variable and os.environ.get(variable):
        return Secret(os.environ[variable])
    if not needed:
        return None
    if sys.stdin.isatty():
        return Secret(getpass.getpass(prompt))
    raise ConnectionSettingsError(
        f"{prompt.rstrip(': ')} needed: set the environment variable {variable} (passwords are"
        " never read from the command line)"
    )


def settings_from_arguments(options: argparse.Namespace) -> ConnectionSettings:
    """Connection settings from parsed options and the environment."""
    protocol = cast(SecurityProtocol, options.security_protocol)
    uses_sasl = protocol in ("SASL_PLAINTEXT", "SASL_SSL")
    return ConnectionSettings(
        bootstrap_servers=options.bootstrap_servers,
        security_protocol=protocol,
        ssl_cafile=options.ssl_cafile,
        ssl_certfile=options.ssl_certfile,
        ssl_keyfile=options.ssl_keyfile,
        ssl_key_password=_secret(options.ssl_key_password_env, "TLS key password: ", False),
        ssl_check_hostname=not options.no_ssl_check_hostname,
        sasl_mechanism=cast("SaslMechanism | None", options.sasl_mechanism),
        sasl_username=options.sasl_username,
        sasl_password=_secret(options.sasl_password_env, "SASL password: ", uses_sasl),
        timeout_s=options.timeout,
        broker_version=options.broker_version,
    )


def _groups(settings: ConnectionSettings, as_json: bool) -> None:
    with ClusterReader(settings) as reader:
        listings = reader.list_groups()
    if as_json:
        for listing in listings:
            print(json.dumps({slot: getattr(listing, slot) for slot in listing.__slots__}))
        return
    if not listings:
        print("no groups")
        return
    width = max(len("GROUP"), *(len(listing.group_id) for listing in listings))
    print(f"{'GROUP':<{width}}  {'STATE':<20} {'PROTOCOL':<10} {'TYPE':<9} MEMBERS")
    for listing in listings:
        members = "?" if listing.members is None else str(listing.members)
        print(
            f"{listing.group_id:<{width}}  {listing.state:<20} {listing.protocol_type:<10}"
            f" {listing.group_type or '-':<9} {members}"
        )


def _snapshot(
    settings: ConnectionSettings, group_id: str, sample_seconds: float, output: str | None
) -> None:
    from assignors import (
        StreamsScenario,
        dumps_scenario,
        scenario_to_json,
        streams_scenario_to_json,
    )

    with ClusterReader(settings) as reader:
        release = reader.kafka_release()
        try:
            read: Scenario | StreamsScenario
            read, warnings = snapshot_group(
                reader, group_id, sample_seconds=sample_seconds, release=release
            )
        except StreamsGroupError:
            read, warnings = snapshot_streams_group(reader, group_id, release=release)
    print(f"kafka version: {release.sentence()}", file=sys.stderr)
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if isinstance(read, StreamsScenario):
        text = json.dumps(streams_scenario_to_json(read), indent=2) + "\n"
    else:
        text = dumps_scenario(scenario_to_json(read))
    if output is None:
        sys.stdout.write(text)
    else:
        with open(output, "w", encoding="utf-8") as file:
            file.write(text)


def main(argv: list[str] | None = None) -> int:
    options = _parser().parse_args(argv)
    # kafka-python logs every retry at WARNING/ERROR; the CLI reports one clear message instead.
    logging.getLogger("kafka").addHandler(logging.NullHandler())
    logging.getLogger("kafka").propagate = False
    settings: ConnectionSettings | None = None
    try:
        settings = settings_from_arguments(options)
        if options.command == "groups":
            _groups(settings, options.json)
        elif options.command == "record":
            from cluster.record import run_record

            run_record(settings, options)
        else:
            _snapshot(settings, options.group, options.sample_seconds, options.output)
        return 0
    except AssignmentExplorerError as error:
        message = str(error)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except OSError as error:
        message = f"{error.strerror or error} ({getattr(error, 'filename', '') or ''})"
    except Exception as error:  # the CLI promises a message, never a traceback
        message = f"unexpected failure: {type(error).__name__}: {error}"
    if settings is not None:
        message = redact(message, settings)
    print(f"error: {message}", file=sys.stderr)
    return EXIT_FAILURE


if __name__ == "__main__":
    raise SystemExit(main())

"""Which round of the rebalance protocol ``assign`` prints, and the line that says so.

A cooperative strategy hands one rebalance out in rounds
(:func:`assignors.simulate.rebalance.rebalance_rounds`): round 1 withholds what a member gives
up, the next round hands it to its new owner. ``assign`` prints round 1 (the assignor's own
answer, as ``batch`` gives it) unless ``--round N`` or ``--round final`` asks for another, and
always says which: the table's first line (:func:`round_line`) and, in ``--json``, the fields of
:func:`round_fields` beside ``assignment`` and ``warnings``.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from assignors.errors import AssignmentExplorerError
from assignors.model import Assignment, Scenario
from assignors.strategy import PartitionStrategy

#: ``--round final``: the last round, where the group ends.
FINAL = "final"


class RoundRequestError(AssignmentExplorerError, ValueError):
    """A ``--round`` the rebalance does not have (or one ``--explain`` cannot trace)."""


def parse_round(text: str) -> str:
    """``--round``'s value: ``final`` or a round number from 1 (argparse's type check)."""
    if text == FINAL or (text.isascii() and text.isdigit() and int(text) >= 1 and len(text) < 4):
        return text
    raise argparse.ArgumentTypeError(f"expected final or a round number from 1, got {text!r}")


def add_round_argument(parser: argparse.ArgumentParser) -> None:
    """``--round``: which round of the strategy's protocol to print."""
    parser.add_argument(
        "--round",
        type=parse_round,
        default=None,
        metavar="N|final",
        help=(
            "which round of the rebalance to print: a cooperative strategy hands partitions out "
            "in rounds (round 1 withholds what a member gives up); default 1, the assignor's "
            "own answer; `final`: where the group ends"
        ),
    )


@dataclass(frozen=True, slots=True)
class RoundShown:
    """Round ``number`` of the ``count`` a rebalance under ``strategy`` takes, and ``final``."""

    strategy: PartitionStrategy
    number: int
    count: int
    assignment: Assignment
    final: Assignment


def pick_round(
    strategy: PartitionStrategy, scenario: Scenario, first: Assignment, asked: str | None
) -> RoundShown:
    """The round ``asked`` names (``None``: round 1, which is ``first``, the assignor's answer
    with its warnings); :class:`RoundRequestError` for one the rebalance does not have.

    Only a cooperative strategy takes more than one round
    (:func:`~assignors.simulate.rebalance.rebalance_rounds`), so only then is the simulator
    imported: an eager strategy's command starts without it."""
    rounds: tuple[Assignment, ...] = (first,)
    if strategy.protocol == "cooperative":
        from assignors.simulate.rebalance import rebalance_rounds

        rounds = rebalance_rounds(strategy, scenario, first)
    count = len(rounds)
    number = count if asked == FINAL else int(asked or 1)
    if number > count:
        raise RoundRequestError(
            f"--round {asked}: {strategy.name} takes {count} round{'s' if count != 1 else ''} on"
            f" this group (1 to {count}, or final)"
        )
    shown = first if number == 1 else rounds[number - 1]
    return RoundShown(strategy, number, count, shown, rounds[-1])


def _handed_out(assignment: Assignment) -> int:
    return sum(len(partitions) for partitions in assignment.partitions.values())


def round_line(shown: RoundShown) -> str:
    """The table's first line: the round, the protocol, what this round hands out."""
    handed, total = _handed_out(shown.assignment), _handed_out(shown.final)
    head = (
        f"{shown.strategy.name}: round {shown.number} of {shown.count}"
        f" ({shown.strategy.protocol} protocol): {handed:,} of {total:,} partitions handed out;"
    )
    if shown.number == shown.count:
        return f"{head} the final round"
    return (
        f"{head} {total - handed:,} are revoked in this round and handed out in round"
        f" {shown.number + 1} (--round final)"
    )


def round_fields(shown: RoundShown) -> dict[str, object]:
    """The ``--json`` answer's added fields: ``round``, ``rounds`` and ``protocol``."""
    return {"round": shown.number, "rounds": shown.count, "protocol": shown.strategy.protocol}

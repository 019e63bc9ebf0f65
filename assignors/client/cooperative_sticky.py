"""Kafka's client-side ``CooperativeStickyAssignor`` (classic protocol, cooperative).

Inputs: as :mod:`assignors.client.sticky`, except that a member's previous ownership travels in the
subscription itself (``owned_partitions`` with the subscription's generation id), so when two
claims on one partition meet, both generations are known: the newer claim wins, equal
generations void the partition for both.

The algorithm:

1. Compute the sticky target exactly as the eager sticky assignor does
   (:func:`assignors.client.sticky.sticky_assign`: constrained algorithm for equal subscriptions,
   general algorithm otherwise, rack-aware per KIP-881).
2. Find the partitions *transferring ownership*, each with its new owner:
   a. constrained algorithm: partitions a member gave up (above its quota, or off its rack),
      or that were doubly claimed in one generation, which the fill steps then handed to a
      different member;
   b. general algorithm: partitions newly in a member's target (not among its own claims) that
      some member claimed and no longer gets in the target (claims as sent, any generation).
3. Round 1 (what this rebalance hands out) is the target without each transferring partition
   in its new owner's list: its previous owner revokes it first and the follow-up rebalance
   hands it over.

Invariants: round 1 assigns every partition at most once, only to subscribers; a partition is
withheld only when it moves to a new owner (another member claimed it); the target assigns
every partition of an assignable topic exactly once and, where no two claims meet, equals the
eager sticky target; both are deterministic and, as in Kafka, depend on the listing order of
members only between ids that share a bucket of Kafka's subscription map.

:func:`assign_with_target` returns both answers, ``(round1, target)``; the rebalance simulator
uses it to play the two rounds of a cooperative rebalance. On a fresh group the target may hold
:class:`~assignors.model.PartitionRuns` (see :mod:`assignors.client.sticky`); round 1 keeps a
member's runs as they are unless a partition is withheld from it (then a list of the rest).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from assignors.client.sticky import COOPERATIVE_RULES, STICKY_OLDER_LINES, sticky_assign
from assignors.kafka_versions import CLIENT_STICKY_LINES
from assignors.model import Scenario, SortedAnswer, TopicPartition
from assignors.strategy import PartitionStrategy
from assignors.trace import DecisionTrace

MemberPartitions = Mapping[str, Sequence[TopicPartition]]


def assign_with_target(
    scenario: Scenario, trace: DecisionTrace | None = None
) -> tuple[MemberPartitions, MemberPartitions]:
    """``(round1, target)``: what one cooperative round hands out, and where it is heading.

    Both map every member id to its partitions. ``round1`` is ``target`` minus the partitions
    that move from a previous owner to another member (withheld from the new owner this round);
    a member that keeps all of its target has the same list in both.
    """
    outcome = sticky_assign(scenario, COOPERATIVE_RULES, trace)
    target = outcome.assignment
    withheld: dict[str, set[TopicPartition]] = {}
    for tp, new_owner in outcome.transferring.items():
        withheld.setdefault(new_owner, set()).add(tp)
        if trace is not None:
            claimant = next(
                (
                    m.member_id
                    for m in scenario.members
                    if tp in m.owned_partitions and m.member_id != new_owner
                ),
                "its previous owner",
            )
            trace.release(
                tp,
                new_owner,
                "3 withheld",
                f"withheld from {new_owner} this round: {claimant} claimed it and revokes it "
                f"first; the follow-up rebalance hands it to {new_owner}",
            )
    round1: dict[str, Sequence[TopicPartition]] = {
        member_id: _without(partitions, withheld[member_id])
        if member_id in withheld
        else partitions
        for member_id, partitions in target.items()
    }
    # Leaving partitions out keeps a list's order: a sorted target gives a sorted round 1.
    return (SortedAnswer(round1) if isinstance(target, SortedAnswer) else round1), target


def _without(
    partitions: Sequence[TopicPartition], withheld: set[TopicPartition]
) -> list[TopicPartition]:
    """``partitions`` without the first occurrence of each withheld one (Kafka's
    ``List.remove``; a partition is listed twice only where Kafka 3.4 let two claims stand)."""
    left = set(withheld)
    kept: list[TopicPartition] = []
    for tp in partitions:
        if tp in left:
            left.discard(tp)
        else:
            kept.append(tp)
    return kept


def assign_cooperative_sticky(
    scenario: Scenario, trace: DecisionTrace | None = None
) -> MemberPartitions:
    """Round 1 of a cooperative rebalance (see :func:`assign_with_target` for the target too)."""
    return assign_with_target(scenario, trace)[0]


STRATEGY = PartitionStrategy(
    name="cooperative-sticky",
    summary=(
        "The sticky assignment (balanced first, then as few moves as possible, rack-aware "
        "when racks are known) on the cooperative protocol: members keep consuming the "
        "partitions that stay put, and a partition that moves is first revoked by its old "
        "owner and handed to the new one in a follow-up rebalance. Shown: the first round."
    ),
    when_to_use=(
        "The default choice for classic-protocol consumer groups whose clients all support it "
        "(Kafka 2.4+): stop-the-world pauses shrink to the partitions that actually move."
    ),
    consumer_config=(
        "partition.assignment.strategy=org.apache.kafka.clients.consumer.CooperativeStickyAssignor"
    ),
    protocol="cooperative",
    compute=assign_cooperative_sticky,
    kafka_lines=CLIENT_STICKY_LINES,
    older_kafka=STICKY_OLDER_LINES,
)

"""The stream-join sticky strategy of KIP-315 (design document 004), classic protocol, eager.

For joins of co-partitioned topics: partition ``N`` of every joined topic must be read by the
same member, and a member should keep its partition numbers across rebalances because it holds
join state for them. The strategy assigns partition *numbers*, then expands each number into
that partition of every topic the member subscribes to.

Inputs: the topics' partition counts, each member's subscription, and its claim from the last
rebalance: ``owned_partitions`` (only their partition numbers count) with ``generation`` as the
epoch of that claim (absent: 0). In a live group the claim travels in the subscription's user
data and the epoch in the assignment's (see :mod:`adapters.kafka_python`).

The algorithm:

1. Eligible numbers: ``0 .. E-1``, where ``E`` is the smallest partition count among the existing
   topics the group subscribes to. Partitions ``E`` and up of bigger topics stay unassigned this
   round (a topic whose partition count grew waits until every joined topic has grown).
2. Previous owners: each member claims the numbers of its ``owned_partitions`` below ``E``. A
   number claimed by several members belongs to the claim with the higher epoch (fencing a
   zombie that missed rebalances); equal epochs go to the smaller member id.
3. Unowned numbers: eligible numbers that nobody claims, in ascending order.
4. Draft, one number per member per round, until every eligible number is taken. A round's order
   is: the members that still have previous numbers nobody has taken yet (by member id), then
   everyone else (by member id). On its turn a member takes
   a. its own lowest previous number not yet taken; else
   b. the lowest unowned number left; else
   c. steals the lowest not-yet-taken previous number of a victim. Victims are the members that
      had previous numbers, ordered by how many they had (most first, then member id), visited
      in rotation starting where the last steal left off, skipping those with nothing left.
5. Expansion: a member gets partition ``N`` of every topic it subscribes to that has partition
   ``N``, for each number ``N`` it drafted.

Invariants:

* partition ``N`` of every topic a member subscribes to sits with the member that drafted ``N``
  (co-partitioning), and each partition is assigned at most once, only to a subscriber;
* drafted counts differ by at most one between members (one number per member per round);
* when no member had more previous numbers than ``E // members``, nothing is stolen and every
  member keeps all of its previous numbers (the common "a member left" rebalance);
* in the first round every member that had previous numbers keeps at least one of them;
* a claim with an older epoch never beats a newer claim on the same number;
* the answer does not depend on the order of members in the scenario.

Where this departs from the KIP's text and its example code (``sticky-join-assignor``):

* The KIP leaves the draft's tie-breaks open (which member picks first, which victim is robbed
  next); here they are fixed by member id and by the rotation above, so answers are
  reproducible. A consequence worth knowing: the rotation is fair between victims, not optimal
  for stickiness, so when a member joins, a victim at or under its fair share can lose a number
  while a bigger one keeps more than its share.
* Members are drafted whether or not they subscribe to an existing topic, as in the KIP (every
  consumer selects numbers); such a member's numbers expand to no partition at all.
* A member with no epoch counts as epoch 0, the lowest real claim, so any member that reports an
  epoch wins over one that does not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from assignors.model import Member, Scenario, TopicPartition
from assignors.strategy import PartitionStrategy
from assignors.trace import DecisionTrace


def eligible_count(scenario: Scenario) -> int:
    """``E``: the smallest partition count among the existing topics the group subscribes to."""
    counts = scenario.partition_counts()
    subscribed = scenario.subscribed_existing_topics()
    return min((counts[topic] for topic in subscribed), default=0)


def claim_epoch(member: Member) -> int:
    """The epoch of the member's claim: its ``generation``, 0 when it stated none."""
    return 0 if member.generation is None else member.generation


def next_epoch(members: Sequence[Member]) -> int:
    """The epoch the next assignment carries: the highest claimed epoch plus one (KIP-315)."""
    return max((claim_epoch(member) for member in members), default=0) + 1


def resolve_claims(members: Sequence[Member], eligible: int) -> dict[str, list[int]]:
    """Member id -> its previous numbers (ascending) after settling double claims (step 2)."""
    winner: dict[int, tuple[int, str]] = {}
    for member in members:
        epoch = claim_epoch(member)
        for number in {tp.partition for tp in member.owned_partitions}:
            if not 0 <= number < eligible:
                continue
            current = winner.get(number)
            # Higher epoch wins; equal epochs go to the smaller member id.
            if current is None or (-epoch, member.member_id) < (-current[0], current[1]):
                winner[number] = (epoch, member.member_id)
    previous: dict[str, list[int]] = {member.member_id: [] for member in members}
    for number in sorted(winner):
        previous[winner[number][1]].append(number)
    return previous


def draft_numbers(
    previous: Mapping[str, Sequence[int]],
    eligible: int,
    reasons: dict[int, tuple[str, str]] | None = None,
) -> dict[str, list[int]]:
    """Step 3 and 4: member id -> drafted partition numbers, given each member's previous ones.

    ``previous`` lists every member (empty for a member with no claim); its numbers must be
    distinct across members and below ``eligible``. ``reasons``, when given, receives for each
    drafted number the step and the reason it went where it did (for the trace).
    """
    member_ids = sorted(previous)
    drafted: dict[str, list[int]] = {member_id: [] for member_id in member_ids}
    if not member_ids or eligible <= 0:
        return drafted
    taken: set[int] = set()
    # Each member's previous numbers, ascending, with a cursor past those already taken.
    own = {member_id: sorted(previous[member_id]) for member_id in member_ids}
    cursor = dict.fromkeys(member_ids, 0)
    claimed = {number for numbers in own.values() for number in numbers}
    unowned = [number for number in range(eligible) if number not in claimed]
    next_unowned = 0
    victims = sorted((m for m in member_ids if own[m]), key=lambda m: (-len(own[m]), m))
    next_victim = 0

    def lowest_left(member_id: str) -> int | None:
        numbers, index = own[member_id], cursor[member_id]
        while index < len(numbers) and numbers[index] in taken:
            index += 1
        cursor[member_id] = index
        return numbers[index] if index < len(numbers) else None

    draft_round = 0
    while len(taken) < eligible:
        draft_round += 1
        holding = [m for m in member_ids if lowest_left(m) is not None]
        holding_set = set(holding)
        turn_order = holding + [m for m in member_ids if m not in holding_set]
        for member_id in turn_order:
            if len(taken) == eligible:
                break
            number = lowest_left(member_id)
            source: str | None = None  # the victim of a steal (step 4c)
            from_own = number is not None
            if number is None and next_unowned < len(unowned):
                number = unowned[next_unowned]
                next_unowned += 1
            if number is None:
                for step in range(len(victims)):
                    source = victims[(next_victim + step) % len(victims)]
                    number = lowest_left(source)
                    if number is not None:
                        next_victim = (next_victim + step + 1) % len(victims)
                        break
            if number is None:  # pragma: no cover - every untaken number is unowned or claimed
                raise AssertionError("stream-join draft ran out of numbers before the end")
            taken.add(number)
            drafted[member_id].append(number)
            if reasons is not None:
                step_name, why = _draft_reason(from_own, source, victims)
                reasons[number] = (
                    step_name,
                    f"round {draft_round}, turn order {', '.join(turn_order)}: "
                    f"{member_id} drafted number {number}, {why}",
                )
    return drafted


def _draft_reason(own: bool, victim: str | None, victims: Sequence[str]) -> tuple[str, str]:
    """The step (4a, 4b or 4c) a drafted number came from, and why, for the trace."""
    if own:
        return "4a own", "its own lowest previous number not yet taken"
    if victim is None:
        return "4b unowned", "it had no previous number left: the lowest unowned one"
    return (
        "4c steal",
        f"nothing of its own or unowned left: stolen from {victim}, the next victim in rotation "
        f"(victims by previous count: {', '.join(victims)})",
    )


def assign_stream_join_sticky(
    scenario: Scenario, trace: DecisionTrace | None = None
) -> dict[str, list[TopicPartition]]:
    """Member id -> partitions under the KIP-315 rules (see the module docstring)."""
    eligible = eligible_count(scenario)
    previous = resolve_claims(scenario.members, eligible)
    reasons: dict[int, tuple[str, str]] | None = None
    if trace is not None:
        reasons = {}
        trace.note(
            f"eligible numbers 0..{eligible - 1}: E = {eligible}, the smallest partition count "
            "of the subscribed topics"
        )
        trace.note(
            "previous numbers after settling double claims: "
            + "; ".join(f"{m} {numbers}" for m, numbers in sorted(previous.items()))
        )
    drafted = draft_numbers(previous, eligible, reasons)
    counts = scenario.partition_counts()
    assignment: dict[str, list[TopicPartition]] = {}
    for member in scenario.members:
        topics = sorted({t for t in member.topics if t in counts})
        assignment[member.member_id] = [
            TopicPartition(topic, number)
            for number in sorted(drafted[member.member_id])
            for topic in topics
            if number < counts[topic]
        ]
        if reasons is not None and trace is not None:
            for tp in assignment[member.member_id]:
                step, why = reasons[tp.partition]
                trace.place(
                    tp,
                    member.member_id,
                    step,
                    f"{why}; number {tp.partition} of every topic it subscribes to goes with it",
                )
    return assignment


STRATEGY = PartitionStrategy(
    name="stream-join-sticky",
    summary=(
        "Assigns partition numbers, not partitions: the member that gets number N reads "
        "partition N of every topic it subscribes to, so joined topics stay co-partitioned. "
        "Numbers are drafted one per member per round, each member first taking back what it "
        "owned before (newer epochs win double claims), then unowned numbers, then numbers "
        "taken fairly from the biggest previous owners. Only numbers below the smallest "
        "subscribed topic's partition count are assigned. Eager."
    ),
    when_to_use=(
        "Stream-stream joins in plain consumers over topics with the same key and partition "
        "count, where each member keeps join state per partition and moving a number is costly. "
        "Use range if you need co-partitioning without stickiness, cooperative-sticky if you do "
        "not join."
    ),
    consumer_config=(
        "partition.assignment.strategy=<a StickyStreamJoinAssignor (KIP-315, protocol name "
        "'sticky-join')>; in Python: adapters.kafka_python.StreamJoinStickyAssignor"
    ),
    protocol="eager",
    compute=assign_stream_join_sticky,
)

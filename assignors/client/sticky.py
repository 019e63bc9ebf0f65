"""Kafka's client-side sticky assignment (``StickyAssignor``, eager) and its shared machinery.

The same engine serves :mod:`assignors.client.cooperative_sticky`; only how a member's previous
ownership reaches the assignor differs (see :class:`ClaimRules`). It follows Kafka's
``AbstractStickyAssignor`` (trunk of October 2024) decision for decision, including where
Kafka walks a Java ``HashMap`` (:mod:`assignors.java_order`).

Inputs: topics (partition counts, optional replica racks) and members (subscription, rack,
``owned_partitions`` with the ``generation`` they were owned in). Only topics that exist and that
someone subscribes to are assigned.

Step 0, the claims. Members are visited in the iteration order of Kafka's subscription map (a
``HashMap`` keyed by member id). Every member's generation (absent: -1) raises the group's
maximum generation. Each claim on a partition of an assignable topic is checked against the
partition's earlier claimant, whose generation Kafka reads from its *subscription*: none, the
claim stands; the same generation, the partition is taken from both and remembered as *doubly
claimed*; a newer generation takes it over; an older one is ignored. Cooperative-sticky sends
the generation in the subscription, so the newest claim wins. The eager sticky assignor sends it
in user data only, so the earlier claimant counts as generation -1 and any later claim with a
generation takes the partition over (:class:`ClaimRules`). Claims on topics nobody subscribes
to, or on partitions that do not exist, are dropped. Older-generation claims that meet no
conflict still stand (Kafka keeps them).

Step 1, the choice: when every member's subscription (as sent, existing or not) is the same set,
the *constrained* algorithm runs; otherwise the *general* one.

Rack awareness (KIP-881): used when some member has a non-empty rack, member racks meet
partition replica racks, and not every partition has replicas on every rack. Then a member's
claim on a partition with no replica on its rack is not kept, and new partitions go to
same-rack members first, as long as that costs no balance.

Constrained algorithm (``P`` partitions, ``N`` members; floor ``P // N``, ceiling
``ceil(P / N)``, and ``P % N`` members may end at the ceiling):

1. In subscription-map order, each member keeps its claims (rack-matching, not doubly claimed),
   sorted by partition number then topic: all of them when fewer than the floor; the first
   ceiling-many when it has at least that many and ceiling slots remain; else the first
   floor-many. What it does not keep (over quota, or off its rack) it *gives up*. Members
   below the floor are *unfilled*; members kept at the floor while ceiling slots remain may
   take one more.
2. The unassigned partitions, in topic-then-partition order (stably re-sorted by how many
   members share their replicas' racks, when any member has a rack), are handed out:
   a. rack-aware only: each partition to the next unfilled member on one of its racks
      (round-robin), else to the first floor member on one of its racks; a member reaching the
      floor may take one more only while ceiling slots remain, and reaching the ceiling uses
      up a slot; partitions with no such member wait for step b;
   b. round-robin over the unfilled members sorted by id until each has the floor; any
      partitions left go one each to the floor members in queue order (sorted by id first,
      then in the order they reached the floor).

General algorithm:

1. Keep every claim that is still subscribed (and rack-matching); sort all partitions by how
   many members subscribe to their topic, then topic, then partition.
2. Hand each unassigned partition to the member with the fewest partitions (then smallest id)
   that subscribes to its topic (rack-matching first, when rack-aware).
3. Topics with one subscriber and members that can neither gain nor lose are set aside.
4. Reassignment loop, until balanced (no member could take a partition from one with two more):
   for each partition (first the newly assigned ones, unless a subscription change already
   forces revocations, then all), give it back to its previous-generation owner if that owner
   has two fewer; else, if some subscriber has two fewer, move it to the least-loaded
   subscriber. Kafka's movement ledger may swap in an earlier-moved partition instead, to
   avoid moving partitions back and forth (the first in its hash-set order). That swap can
   move a partition between two members that are not the ones compared, and on some groups
   the loop then moves the same partitions back and forth for ever: Kafka's assignor never
   returns (the group cannot rebalance). Ours stops with :class:`StickyAssignmentError` as
   soon as a pass of the loop starts in a state an earlier pass started in (the same owner for
   every partition, the same ledger): being deterministic, the loop would repeat for ever. A
   repeating state lies on a cycle of passes, and the sum of the squared member sizes cannot
   fall all the way round one, so every cycle has a pass that did not lower it: only the states
   such passes start in are kept (few, since a pass without a swap always lowers the sum).
5. If the loop ran on a non-fresh group and did not lower the balance score (sum over member
   pairs of the count difference), undo it.

Invariants: every partition of an assignable topic goes to exactly one member that subscribes
to its topic (one Kafka exception: general step 4 gives a partition back to its
previous-generation claimant without checking that it still subscribes); with equal
subscriptions counts differ by at most one; a member keeps as many of its valid claims as the
balance allows; deterministic. Member order: Kafka fills its subscription map in the order
members arrive, and walks it in hash order, so the listing order of the scenario matters only
between member ids that land in the same bucket of that map
(:func:`subscription_order`); reordering members any other way never changes the answer.

For the cooperative protocol the engine also reports which partitions are *transferring
ownership*: after the constrained algorithm, those a member gave up (or that were doubly
claimed) and the fill steps handed to a different member; after the general algorithm, those
newly in a member's target that some member claimed and no longer gets.

Kafka versions (the scenario's ``kafka_version``): the above is Kafka 3.7 and later. Kafka 3.5
and 3.6 ran the constrained algorithm in an earlier form: in step 1 a member keeps the first of
its claims in the order it sent them (the cooperative assignor's owned list; the eager one's user
data, topic by topic in ``HashMap`` order), and a claim off its rack is not counted as given up;
the same-rack fill (step 2a) queues every member reaching the floor below the ceiling for one
more and does not count those it brings to the ceiling; and a partition given up or claimed
twice is *transferring* whoever it goes to, even the member that gave it up.

Kafka 3.4 runs 3.5/3.6's algorithms without racks (KIP-881 came with 3.5), with two more
differences (:class:`LineRules`). Step 0 records a claim's member as the partition's claimant
before comparing generations, so a claim that loses to a newer generation's is what the next
claim on the partition is compared with: with the cooperative assignor, a claim newer than the
loser but older than the winner is kept too, and two members keep one partition. Kafka then
finds the unassigned partitions by merging the sorted kept partitions into the sorted partition
list, which stops matching at the repeated one (:func:`_kafka_unmatched`): every later partition
is handed out again, so a partition can end up with two members, or Kafka throws for want of
members to take them. And general step 4's balance test calls a member short while a member
holding a partition of its topics has *one* more (3.5: two more), so the loop goes on over every
partition while counts differ by one, and can give a partition back to its previous-generation
owner that no longer subscribes to its topic. Kafka 3.0 to 3.3 run 3.4's algorithms, but step 0
keeps only the newest generation's claims: a member whose generation is older than the newest
seen so far keeps none, and one of a newer generation voids every claim kept before it (claims
of one generation that meet void the partition for both; older claims count only in step 4,
as their owner's previous generation).

The answer: each member's partitions as a list or tuple, sorted where the answer is a
:class:`~assignors.model.SortedAnswer`. One case answers with runs instead
(:class:`~assignors.model.PartitionRuns`, equal to the sorted tuple): a fresh group (constrained,
nobody keeps a claim, no racks, Java's topic order is Python's, no trace asked), where step 2b
deals every member every ``n``-th partition, a range of step ``n`` per topic
(:func:`_round_robin_runs`), as long as the runs hold 64 partitions or more on average.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections import Counter, deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from functools import partial
from itertools import chain, compress, repeat
from operator import itemgetter

from assignors.errors import AssignmentExplorerError
from assignors.gc_pause import paused_gc
from assignors.java_order import (
    JavaHashMapOrder,
    hash_order,
    java_string_key,
    string_hash,
    topic_partition_hash,
)
from assignors.kafka_versions import CLIENT_STICKY_LINES, at_least
from assignors.model import (
    Member,
    PartitionRun,
    PartitionRuns,
    Scenario,
    SortedAnswer,
    TopicPartition,
    topic_partitions,
)
from assignors.strategy import PartitionStrategy
from assignors.trace import DecisionTrace

#: Kafka's generation for a member that states none.
DEFAULT_GENERATION = -1

# TopicPartition((topic, partition)) without the Python-level ``_make``: a C call per partition
_new_partition = partial(tuple.__new__, TopicPartition)
_by_partition_then_topic = itemgetter(1, 0)
_topic_of = itemgetter(0)
_partition_of = itemgetter(1)
_FLIP = bytes.maketrans(b"\x00\x01", b"\x01\x00")
#: What step 2 of the constrained algorithm gives each member: a list, or a slice as dealt.
_Given = dict[str, Sequence[TopicPartition]]


class StickyAssignmentError(AssignmentExplorerError, RuntimeError):
    """Kafka's sticky assignor would fail on this input (it raises ``IllegalStateException``)."""


@dataclass(frozen=True, slots=True)
class ClaimRules:
    """How a strategy reads a member's previous ownership.

    ``conflict_uses_claim_generation``: when two claims on one partition meet, Kafka compares the
    new claim's generation with the *subscription* generation of the earlier claimant. For
    cooperative-sticky that is the claim's generation; the eager sticky assignor carries its
    generation in user data only, so the earlier claimant's subscription states none (-1).
    """

    conflict_uses_claim_generation: bool
    #: The eager assignor reads a member's claims back from its user data, written topic by topic
    #: in ``HashMap`` order (``CollectionUtils.groupPartitionsByTopic``); only Kafka 3.5 and 3.6
    #: keep claims in that order (3.7 sorts them), see :func:`_claim_order_before_37`.
    claims_grouped_by_topic: bool


#: The first release line whose sticky assignors read the claims of every generation (3.0 to 3.3
#: keep only the newest generation's, :func:`_resolve_newest_generation_claims`).
CLAIMS_OF_EVERY_GENERATION_SINCE = "3.4"
#: KIP-881 came with 3.5: racks, and the general algorithm's balance test that tolerates members
#: one partition apart (3.0 to 3.4 call a group unbalanced while a member is one behind another).
KIP_881_SINCE = "3.5"


@dataclass(frozen=True, slots=True)
class LineRules:
    """What a release line's sticky assignors do differently (beyond :data:`STICKY_OLDER_LINES`'s
    constrained-algorithm changes of 3.7).

    ``newest_generation_only`` (3.0-3.3): only the newest generation's members keep claims.
    ``ignored_claim_recorded`` (3.4): a claim that loses to an earlier, newer-generation claim
    still becomes the partition's recorded claimant, which the next claim is compared with.
    ``racks`` (3.5 on): rack-aware assignment exists. ``balance_slack``: how far apart the
    general algorithm's balance test lets a member and a holder of a partition it could take
    be, beyond one (1 from 3.5; 0 before, so a member one partition behind keeps the
    rebalancing loop going).
    """

    newest_generation_only: bool
    ignored_claim_recorded: bool
    racks: bool
    balance_slack: int

    @classmethod
    def of(cls, version: str | None) -> LineRules:
        """The rules of release line ``version`` (``None``: the newest)."""
        every_generation = at_least(version, CLAIMS_OF_EVERY_GENERATION_SINCE)
        kip_881 = at_least(version, KIP_881_SINCE)
        return cls(
            newest_generation_only=not every_generation,
            ignored_claim_recorded=every_generation and not kip_881,
            racks=kip_881,
            balance_slack=1 if kip_881 else 0,
        )


NEWEST_LINE_RULES = LineRules.of(None)
STICKY_RULES = ClaimRules(conflict_uses_claim_generation=False, claims_grouped_by_topic=True)
COOPERATIVE_RULES = ClaimRules(conflict_uses_claim_generation=True, claims_grouped_by_topic=False)
#: The first release line whose constrained algorithm is the one :func:`_constrained` describes
#: first; 3.5 and 3.6 ran the earlier form (the module docstring's "Kafka 3.5 and 3.6").
REVISED_CONSTRAINED_SINCE = "3.7"
#: What the older lines the sticky assignors answer for do differently (``older_kafka``).
STICKY_OLDER_LINES = (
    (
        "3.0-3.3",
        "as 3.4, except that only the newest generation's members keep their claims: a member "
        "of an older generation keeps none, and a newer generation voids every claim read "
        "before it",
    ),
    (
        "3.4",
        "as 3.5-3.6 without racks (KIP-881 came with 3.5); with different subscriptions the "
        "rebalancing goes on while a member is one partition behind another holding its topics, "
        "which can hand a partition back to its previous-generation owner even when that owner "
        "no longer subscribes to its topic; a cooperative claim that loses to a newer "
        "generation's still counts against the next claim, so two members may keep one partition",
    ),
    (
        "3.5-3.6",
        "equal subscriptions: a member keeps the first of its claims in the order it sent them "
        "(3.7 keeps the lowest partition numbers), claims off its rack are not counted as given "
        "up, and the same-rack fill does not count members it brings to the ceiling",
    ),
)


@dataclass(frozen=True, slots=True)
class StickyOutcome:
    """The engine's answer.

    ``assignment``: member id -> partitions (every member, possibly empty): the target.
    ``transferring``: partition -> new owner, for partitions the target moves away from a member
    that owned them (what the cooperative protocol withholds for one round).
    """

    assignment: Mapping[str, Sequence[TopicPartition]]
    transferring: dict[TopicPartition, str]


def _java_sorted(names: Sequence[str]) -> list[str]:
    """Names in Java ``String.compareTo`` order."""
    if all(name.isascii() for name in names):
        return sorted(names)
    return sorted(names, key=java_string_key)


def subscription_order(member_ids: Sequence[str]) -> list[str]:
    """The iteration order of Kafka's subscription map (a default ``HashMap`` by member id).

    Members enter the map in the order given (the scenario's listing order). Only member ids
    that share a hash bucket keep that relative order; every other pair is ordered by bucket.
    """
    return hash_order(member_ids, string_hash)


# --------------------------------------------------------------------------------------------
# Step 0: the claims


@dataclass(slots=True)
class _Claims:
    """Claims after conflict resolution (Kafka's ``allSubscriptionsEqual``)."""

    owned: dict[str, list[TopicPartition]]  # member -> surviving claims, subscription-map order
    doubly_claimed: set[TopicPartition]
    all_equal: bool
    max_generation: int


def _resolve_claims(
    order: Sequence[str],
    members: Mapping[str, Member],
    partition_counts: Mapping[str, int],
    rules: ClaimRules,
    line: LineRules = NEWEST_LINE_RULES,
) -> _Claims:
    if line.newest_generation_only:
        return _resolve_newest_generation_claims(order, members, partition_counts)
    owned: dict[str, list[TopicPartition]] = {}
    previous_owner: dict[TopicPartition, str] = {}
    doubly_claimed: set[TopicPartition] = set()
    subscribed: set[str] = set()
    first: tuple[str, ...] = ()  # the subscription ``subscribed`` was filled from
    all_equal = True
    max_generation = DEFAULT_GENERATION
    smallest_count = min(partition_counts.values(), default=0)
    for member_id in order:
        member = members[member_id]
        if not subscribed:
            subscribed.update(member.topics)
            first = member.topics
        elif all_equal and not _same_subscription(member.topics, first, subscribed):
            all_equal = False
        generation = DEFAULT_GENERATION if member.generation is None else member.generation
        max_generation = max(max_generation, generation)
        mine = _valid_claims(member.owned_partitions, partition_counts, smallest_count)
        owned[member_id] = mine
        if not mine:
            continue
        # Fast path, in bulk: no claim meets an earlier one (nor repeats within the member).
        if previous_owner.keys().isdisjoint(mine):
            before = len(previous_owner)
            previous_owner.update(zip(mine, repeat(member_id)))
            if len(previous_owner) - before == len(mine):
                continue
            for tp in mine:
                previous_owner.pop(tp, None)
        owned[member_id] = []
        ledger = _Ledger(owned, previous_owner, doubly_claimed)
        _settle_claims(member_id, mine, ledger, members, rules, line)
    return _Claims(owned, doubly_claimed, all_equal, max_generation)


@dataclass(slots=True)
class _Ledger:
    """Step 0's bookkeeping: each member's surviving claims, each partition's recorded
    claimant (Kafka's ``allPreviousPartitionsToOwner``) and the partitions claimed twice."""

    owned: dict[str, list[TopicPartition]]
    claimant: dict[TopicPartition, str]
    doubly_claimed: set[TopicPartition]


def _settle_claims(
    member_id: str,
    claims: Sequence[TopicPartition],
    ledger: _Ledger,
    members: Mapping[str, Member],
    rules: ClaimRules,
    line: LineRules,
) -> None:
    """Kafka's claim-by-claim resolution of ``member_id``'s claims against the earlier ones."""
    mine = ledger.owned[member_id]
    generation = _generation(members[member_id])
    for tp in claims:
        other = ledger.claimant.get(tp)
        if other is None:
            mine.append(tp)
            ledger.claimant[tp] = member_id
            continue
        other_generation = DEFAULT_GENERATION
        if rules.conflict_uses_claim_generation:
            other_generation = _generation(members[other])
        if generation == other_generation:
            ledger.doubly_claimed.add(tp)
            _remove_first(ledger.owned[other], tp)
            ledger.claimant[tp] = member_id
        elif generation > other_generation:
            mine.append(tp)
            _remove_first(ledger.owned[other], tp)
            ledger.claimant[tp] = member_id
        elif line.ignored_claim_recorded:
            # Kafka 3.4 records the claimant before comparing generations: the ignored claim
            # is what the next claim on the partition is compared with.
            ledger.claimant[tp] = member_id


def _resolve_newest_generation_claims(
    order: Sequence[str], members: Mapping[str, Member], partition_counts: Mapping[str, int]
) -> _Claims:
    """Step 0 as Kafka 3.0 to 3.3 ran it: only the members of the newest generation seen so far
    keep claims. A member of an older generation keeps nothing; one of a newer generation voids
    every claim kept before it (and what was claimed twice). Two claims on one partition within
    the generation void it for both (*doubly claimed*)."""
    ledger = _Ledger({}, {}, set())
    newest: list[str] = []  # the members of the newest generation seen so far
    max_generation = DEFAULT_GENERATION
    smallest_count = min(partition_counts.values(), default=0)
    for member_id in order:
        member = members[member_id]
        ledger.owned[member_id] = []
        generation = _generation(member)
        if generation < max_generation:
            continue
        if generation > max_generation:
            ledger.claimant.clear()
            ledger.doubly_claimed.clear()
            for earlier in newest:
                ledger.owned[earlier].clear()
            newest.clear()
            max_generation = generation
        newest.append(member_id)
        mine = ledger.owned[member_id]
        for tp in _valid_claims(member.owned_partitions, partition_counts, smallest_count):
            other = ledger.claimant.get(tp)
            ledger.claimant[tp] = member_id
            if other is None:
                mine.append(tp)
            else:
                _remove_first(ledger.owned[other], tp)
                ledger.doubly_claimed.add(tp)
    all_equal = _subscriptions_equal([members[m].topics for m in order])
    return _Claims(ledger.owned, ledger.doubly_claimed, all_equal, max_generation)


def _subscriptions_equal(subscriptions: Sequence[tuple[str, ...]]) -> bool:
    """Kafka's ``allSubscriptionsEqual`` test: every subscription is the first one's set."""
    subscribed: set[str] = set()
    first: tuple[str, ...] = ()
    for topics in subscriptions:
        if not subscribed:  # an empty subscription leaves the set to the next member
            subscribed.update(topics)
            first = topics
        elif not _same_subscription(topics, first, subscribed):
            return False
    return True


def _same_subscription(
    topics: tuple[str, ...], first: tuple[str, ...], subscribed: set[str]
) -> bool:
    """Kafka's test that a member subscribes to the same topics as the first: as many topics
    as the first one's set, all in it. A list equal to the first member's, element by element
    (cheaper than hashing every name; the parser shares equal lists, so mostly the same tuple)
    passes exactly when the first list has no repeats."""
    if topics is first or topics == first:
        return len(first) == len(subscribed)
    return len(topics) == len(subscribed) and subscribed.issuperset(topics)


def _valid_claims(
    claims: Sequence[TopicPartition], partition_counts: Mapping[str, int], smallest_count: int
) -> list[TopicPartition]:
    """The claims on partitions that exist in an assignable topic, in claim order.

    ``smallest_count`` is the smallest partition count: claims below it need no lookup.
    """
    if not claims:
        return []
    if max(map(_partition_of, claims)) < smallest_count and partition_counts.keys() >= set(
        map(_topic_of, claims)
    ):
        return list(claims)
    return [tp for tp in claims if partition_counts.get(tp.topic, 0) > tp.partition]


def _generation(member: Member) -> int:
    return DEFAULT_GENERATION if member.generation is None else member.generation


def _remove_first(items: list[TopicPartition], tp: TopicPartition) -> None:
    with suppress(ValueError):
        items.remove(tp)


# --------------------------------------------------------------------------------------------
# Racks (KIP-881)


@dataclass(slots=True)
class _Racks:
    """Kafka's ``RackInfo``: empty maps when rack-aware assignment is off."""

    member_rack: dict[str, str]  # only when rack-aware
    partition_racks: dict[TopicPartition, frozenset[str]]  # only when rack-aware
    members_sharing: dict[TopicPartition, int]  # whenever some member has a rack

    @property
    def aware(self) -> bool:
        return bool(self.member_rack)

    def mismatch(self, member_id: str, tp: TopicPartition) -> bool:
        rack = self.member_rack.get(member_id)
        if rack is None:
            return False
        racks = self.partition_racks.get(tp)
        return racks is None or rack not in racks

    def sort_by_members_sharing(
        self, partitions: Sequence[TopicPartition]
    ) -> Sequence[TopicPartition]:
        if not self.members_sharing:
            return partitions
        sharing = self.members_sharing
        return sorted(partitions, key=lambda tp: sharing.get(tp, 0))

    def next_rack_member(self, tp: TopicPartition, candidates: Sequence[str], first: int) -> int:
        racks = self.partition_racks.get(tp)
        if not racks:
            return -1
        size = len(candidates)
        for step in range(size):
            index = (first + step) % size
            rack = self.member_rack.get(candidates[index])
            if rack is not None and rack in racks:
                return index
        return -1


_NO_RACKS = _Racks({}, {}, {})


def _rack_info(
    scenario: Scenario, order: Sequence[str], members: Mapping[str, Member], topics: list[str]
) -> _Racks:
    members_by_rack: dict[str, list[str]] = {}
    for member_id in order:
        rack = members[member_id].rack
        if rack:
            members_by_rack.setdefault(rack, []).append(member_id)
    if not members_by_rack:
        return _NO_RACKS
    by_name = scenario.topic_by_name()
    partition_racks: dict[TopicPartition, frozenset[str]] = {}
    all_partition_racks: set[str] = set()
    for name in topics:
        topic = by_name[name]
        replica_racks = topic.replica_racks
        for partition in range(topic.partitions):
            racks = frozenset(replica_racks[partition]) if replica_racks else frozenset()
            all_partition_racks |= racks
            partition_racks[TopicPartition(name, partition)] = racks
    members_sharing = {
        tp: sum(len(members_by_rack.get(rack, ())) for rack in racks)
        for tp, racks in partition_racks.items()
    }
    aware = not all_partition_racks.isdisjoint(members_by_rack) and not all(
        racks == all_partition_racks for racks in partition_racks.values()
    )
    if not aware:
        return _Racks({}, {}, members_sharing)
    member_rack = {m: rack for rack, ids in members_by_rack.items() for m in ids}
    return _Racks(member_rack, partition_racks, members_sharing)


# --------------------------------------------------------------------------------------------
# The engine


def sticky_assign(
    scenario: Scenario, rules: ClaimRules = STICKY_RULES, trace: DecisionTrace | None = None
) -> StickyOutcome:
    """Run Kafka's sticky assignment on ``scenario`` (see the module docstring).

    ``trace``, when given, records every keep, hand-out and move (:mod:`assignors.trace`).
    """
    with paused_gc():
        return _sticky_assign(scenario, rules, trace)


def _sticky_assign(
    scenario: Scenario, rules: ClaimRules, trace: DecisionTrace | None
) -> StickyOutcome:
    members = {member.member_id: member for member in scenario.members}
    if not members:
        return StickyOutcome({}, {})
    counts = scenario.partition_counts()
    subscribed = scenario.subscribed_topics()
    partition_counts = {
        topic: count for topic, count in counts.items() if count > 0 and topic in subscribed
    }
    order = subscription_order(list(members))
    line = LineRules.of(scenario.kafka_version)
    claims = _resolve_claims(order, members, partition_counts, rules, line)
    racks = _NO_RACKS
    if line.racks:
        racks = _rack_info(scenario, order, members, list(partition_counts))
    if trace is not None:
        _note_claims(trace, claims, racks)
    if claims.all_equal:
        if at_least(scenario.kafka_version, REVISED_CONSTRAINED_SINCE):
            return _constrained(partition_counts, claims, racks, trace)
        return _constrained(
            partition_counts, _claim_order_before_37(claims, rules), racks, trace, revised=False
        )
    general = _GeneralAssignment(order, members, partition_counts, claims, racks, trace)
    general.balance_slack = line.balance_slack
    assignment = general.build()
    return StickyOutcome(assignment, _transferring_from_claims(members, assignment))


def _note_claims(trace: DecisionTrace, claims: _Claims, racks: _Racks) -> None:
    algorithm = "constrained" if claims.all_equal else "general"
    trace.note(
        f"subscriptions {'all equal' if claims.all_equal else 'differ'}: the {algorithm} "
        f"algorithm; rack-aware: {'yes' if racks.aware else 'no'}"
    )
    trace.note(
        "valid claims per member, in subscription-map order: "
        + ", ".join(f"{m} {len(tps)}" for m, tps in claims.owned.items())
    )
    if claims.doubly_claimed:
        trace.note(
            "claimed twice in one generation, kept by nobody: "
            + ", ".join(str(tp) for tp in sorted(claims.doubly_claimed))
        )


def _transferring_from_claims(
    members: Mapping[str, Member], assignment: Mapping[str, list[TopicPartition]]
) -> dict[TopicPartition, str]:
    """Partitions newly given to a member that another member claimed and no longer gets.

    Kafka's ``CooperativeStickyAssignor`` computes this from the members' raw claims whenever
    the general algorithm ran.
    """
    added: dict[TopicPartition, str] = {}
    revoked: set[TopicPartition] = set()
    for member_id, assigned in assignment.items():
        claimed = members[member_id].owned_partitions
        claimed_set = set(claimed)
        for tp in assigned:
            if tp not in claimed_set:
                added[tp] = member_id
        assigned_set = set(assigned)
        revoked.update(tp for tp in claimed if tp not in assigned_set)
    return {tp: member_id for tp, member_id in added.items() if tp in revoked}


# --------------------------------------------------------------------------------------------
# The constrained algorithm (all subscriptions equal)


def _constrained(
    partition_counts: Mapping[str, int],
    claims: _Claims,
    racks: _Racks,
    trace: DecisionTrace | None = None,
    revised: bool = True,
) -> StickyOutcome:
    """The constrained algorithm; ``revised`` ``False``: as Kafka 3.5 and 3.6 ran it."""
    total = sum(partition_counts.values())
    member_count = len(claims.owned)
    floor_quota = total // member_count
    ceiling_quota = -(-total // member_count)
    ceiling_slots = total % member_count
    at_ceiling = 0
    if trace is not None:
        _note_quotas(trace, total, member_count)

    assignment: dict[str, list[TopicPartition]] = {}
    kept_marks = {topic: bytearray(count) for topic, count in partition_counts.items()}
    under_floor: list[str] = []
    at_floor: list[str] = []
    given_up: dict[TopicPartition, str] = {}  # partition -> the member that gave it up
    # Kafka 3.5/3.6 do not count a claim off the member's rack as given up.
    off_rack = given_up if revised else {}
    doubly_claimed = claims.doubly_claimed

    # Step 1: keep owned partitions up to the quotas, in subscription-map order.
    for member_id, claimed in claims.owned.items():
        owned = claimed
        if racks.aware:
            owned = _on_rack(member_id, claimed, racks, off_rack, trace)
        if doubly_claimed:
            owned = [tp for tp in owned if tp not in doubly_claimed]
        if len(owned) < floor_quota:
            keep = len(owned)
            under_floor.append(member_id)
        elif len(owned) >= ceiling_quota and at_ceiling < ceiling_slots:
            keep = ceiling_quota
            at_ceiling += 1
            if at_ceiling == ceiling_slots:
                at_floor.clear()
        else:
            keep = floor_quota
            if at_ceiling < ceiling_slots:
                at_floor.append(member_id)
        slots = f"{at_ceiling} of {ceiling_slots}"
        owned = _cut(owned, keep, member_id, given_up, revised, trace, slots)
        assignment[member_id] = owned
        for tp in owned:
            kept_marks[tp.topic][tp.partition] = 1

    topic_order = _java_sorted(list(partition_counts))
    presorted = _dealt_in_order(assignment, topic_order, racks)
    if presorted and trace is None:
        fresh = _fresh_deal(partition_counts, topic_order, list(assignment), doubly_claimed)
        if fresh is not None:
            return fresh
    unassigned = _unassigned_after_step_1(topic_order, kept_marks, assignment)
    under_floor = _java_sorted(under_floor)
    at_floor = _java_sorted(at_floor)
    unassigned = racks.sort_by_members_sharing(unassigned)

    given: _Given = {member_id: [] for member_id in assignment}
    if racks.aware:
        quotas = _Quotas(floor_quota, ceiling_quota, ceiling_slots, at_ceiling, revised)
        unassigned = _fill_same_rack(
            unassigned, under_floor, at_floor, assignment, given, racks, quotas, trace
        )
    if trace is not None:
        _note_to_hand_out(trace, unassigned, under_floor, at_floor)
    _fill_round_robin(
        unassigned, under_floor, deque(at_floor), assignment, given, floor_quota, trace
    )

    if not revised:
        return _hand_over_before_37(assignment, given, given_up, doubly_claimed)
    return _hand_over(assignment, given, given_up, doubly_claimed, presorted)


def _cut(
    owned: list[TopicPartition],
    keep: int,
    member_id: str,
    given_up: dict[TopicPartition, str],
    revised: bool,
    trace: DecisionTrace | None,
    slots: str,
) -> list[TopicPartition]:
    """Step 1's cut: a member keeps ``keep`` of its claims and gives up the rest. From Kafka 3.7
    it keeps the lowest partition numbers; 3.5/3.6 keep the first in the order claimed."""
    if keep < len(owned):
        if revised:
            owned = sorted(owned, key=_by_partition_then_topic)
        given_up.update(zip(owned[keep:], repeat(member_id)))
    if trace is not None:
        _trace_kept(trace, owned, keep, member_id, slots)
    return owned[:keep]


def _claim_order_before_37(claims: _Claims, rules: ClaimRules) -> _Claims:
    """Kafka 3.5/3.6 keep a member's first claims in the order the member sent them: the
    cooperative assignor's owned list as it is; the eager one's user data topic by topic, in the
    ``HashMap`` order of the topics as first met in the claims (partitions in claim order)."""
    if not rules.claims_grouped_by_topic:
        return claims
    owned = {}
    for member_id, claimed in claims.owned.items():
        topic_order = hash_order((tp.topic for tp in claimed), string_hash)
        rank = {topic: index for index, topic in enumerate(topic_order)}
        owned[member_id] = sorted(claimed, key=lambda tp: rank[tp.topic])
    return _Claims(owned, claims.doubly_claimed, claims.all_equal, claims.max_generation)


def _hand_over_before_37(
    assignment: dict[str, list[TopicPartition]],
    given: _Given,
    given_up: Mapping[TopicPartition, str],
    doubly_claimed: set[TopicPartition],
) -> StickyOutcome:
    """:func:`_hand_over` as Kafka 3.5/3.6: a partition given up (over quota) or claimed twice
    changes hands whoever the fill steps give it to, even the member that gave it up."""
    transferring: dict[TopicPartition, str] = {}
    for member_id, kept in assignment.items():
        new_partitions = given[member_id]
        kept.extend(new_partitions)
        for tp in new_partitions:
            if tp in given_up or tp in doubly_claimed:
                transferring[tp] = member_id
    return StickyOutcome(assignment, transferring)


def _on_rack(
    member_id: str,
    claimed: list[TopicPartition],
    racks: _Racks,
    given_up: dict[TopicPartition, str],
    trace: DecisionTrace | None,
) -> list[TopicPartition]:
    """Step 1, rack-aware: the claims on a replica's rack; the others are given up."""
    owned: list[TopicPartition] = []
    for tp in claimed:
        if racks.mismatch(member_id, tp):
            given_up[tp] = member_id
            if trace is not None:
                trace.release(tp, member_id, "1 give up", "no replica on its rack")
        else:
            owned.append(tp)
    return owned


def _dealt_in_order(
    kept: Mapping[str, list[TopicPartition]], topic_order: list[str], racks: _Racks
) -> bool:
    """Whether every list of the constrained answer comes out in :class:`TopicPartition`
    order without a sort: nobody kept a claim, no rack reorders the unassigned partitions and
    Java's topic order is Python's. Step 2 then deals each member its partitions in the order
    of the unassigned list, which is sorted (whether or not the counts come out even)."""
    return (
        not any(kept.values()) and not racks.members_sharing and topic_order == sorted(topic_order)
    )


#: The fewest partitions per run, on average, for which a fresh round-robin deal answers with
#: runs (:func:`_round_robin_runs`). At 1M partitions x 2,000 members (2026-11-28, load 1) the
#: call plus one full read cost as much with runs as with tuples at 64 partitions a run (0.15 s
#: CPU), 17% more at 16 and 70% more at 4: below it, tuples.
_PARTITIONS_PER_RUN = 64


def _fresh_deal(
    partition_counts: Mapping[str, int],
    topic_order: list[str],
    member_ids: list[str],
    doubly_claimed: set[TopicPartition],
) -> StickyOutcome | None:
    """Step 2 of a fresh group (:func:`_dealt_in_order` holds) as runs, when they are compact
    (:func:`_round_robin_runs`); else ``None``, and step 2 deals tuples."""
    ordered = _java_sorted(member_ids)
    dealt = _round_robin_runs(partition_counts, topic_order, ordered)
    if dealt is None:
        return None
    moved = _dealt_away(doubly_claimed, partition_counts, topic_order, ordered)
    return StickyOutcome(SortedAnswer(dealt), moved)


def _round_robin_runs(
    partition_counts: Mapping[str, int], topic_order: list[str], ordered: list[str]
) -> dict[str, PartitionRuns] | None:
    """Step 2b of a fresh group, as runs: ``None`` where they would not be compact.

    Nobody kept a claim, no rack reorders and Java's topic order is Python's
    (:func:`_dealt_in_order`): the ``n`` members, in Java order (``ordered``), all start
    empty. Step 2b deals round the circle of them all (all below the floor; or, when the floor
    is 0, all in the queue that may take one more), so the ``j``-th gets ``unassigned[j::n]``:
    the ``n * floor``-th partition on goes one each to the queue, in the same order. A topic at
    offset ``o`` with ``c`` partitions gives it ``range((j - o) % n, c, n)``. Consecutive topics
    with the same offset modulo ``n`` and count (a *segment*) give every member the same range,
    one run; the first ``min(n, c)`` members from ``o % n`` on get one, so the runs number the
    sum of ``min(n, c)`` over segments: when that leaves fewer than :data:`_PARTITIONS_PER_RUN`
    partitions per run, ``None``.
    """
    members = len(ordered)
    segments: list[tuple[list[str], int, int]] = []  # topics, offset % n, count
    offset = 0
    for topic in topic_order:
        count = partition_counts[topic]
        if segments and segments[-1][1] == offset % members and segments[-1][2] == count:
            segments[-1][0].append(topic)
        else:
            segments.append(([topic], offset % members, count))
        offset += count
    runs = sum(min(members, count) for _, _, count in segments)
    if runs * _PARTITIONS_PER_RUN > offset:
        return None
    held: list[list[PartitionRun]] = [[] for _ in ordered]
    ranges: dict[int, list[range]] = {}
    for topics, shift, count in segments:
        dealt = ranges.get(count)
        if dealt is None:
            dealt = ranges[count] = [
                range(first, count, members) if first + members < count else range(first, first + 1)
                for first in range(min(members, count))
            ]
        wrapped = shift + len(dealt) - members  # the ones that go round to the circle's start
        targets = chain(held[shift : shift + len(dealt)], held[: max(wrapped, 0)])
        deque(map(list.append, targets, zip(repeat(tuple(topics)), dealt)), maxlen=0)  # in C
    return {
        member_id: PartitionRuns(runs_of) for member_id, runs_of in zip(ordered, held, strict=True)
    }


def _dealt_away(
    doubly_claimed: set[TopicPartition],
    partition_counts: Mapping[str, int],
    topic_order: list[str],
    ordered: list[str],
) -> dict[TopicPartition, str]:
    """What changes hands after :func:`_round_robin_runs`: nobody kept or gave up a claim, so
    only the partitions claimed twice in one generation, each to the member dealt it (the
    partition at offset ``o`` of the unassigned list goes to ``ordered[o % n]``)."""
    if not doubly_claimed:
        return {}
    offsets: dict[str, int] = {}
    offset = 0
    for topic in topic_order:
        offsets[topic] = offset
        offset += partition_counts[topic]
    members = len(ordered)
    return {tp: ordered[(offsets[tp.topic] + tp.partition) % members] for tp in doubly_claimed}


def _hand_over(
    assignment: dict[str, list[TopicPartition]],
    given: _Given,
    given_up: Mapping[TopicPartition, str],
    doubly_claimed: set[TopicPartition],
    presorted: bool,
) -> StickyOutcome:
    """Add what the fill steps gave to the kept claims, and find what changes hands.

    A partition changes hands when a member gave it up (or its claim was void) and the fill
    steps handed it to a different member. ``presorted``: every list ends up sorted
    (:func:`_dealt_in_order`), so the answer is a :class:`SortedAnswer`.
    """
    watched = given_up.keys() | doubly_claimed
    transferring: dict[TopicPartition, str] = {}
    answer: dict[str, Sequence[TopicPartition]] = {}
    for member_id, kept in assignment.items():
        new_partitions = given[member_id]
        answer[member_id] = kept if kept else new_partitions
        if new_partitions:
            if kept:
                kept.extend(new_partitions)
            if watched:
                for tp in watched.intersection(new_partitions):
                    if given_up.get(tp) != member_id or tp in doubly_claimed:
                        transferring[tp] = member_id
    return StickyOutcome(SortedAnswer(answer) if presorted else answer, transferring)


def _note_quotas(trace: DecisionTrace, total: int, members: int) -> None:
    trace.note(
        f"{total} partitions over {members} members: floor {total} // {members} = "
        f"{total // members}, ceiling {-(-total // members)}, {total} % {members} = "
        f"{total % members} member(s) may end at the ceiling"
    )


def _trace_kept(
    trace: DecisionTrace, owned: list[TopicPartition], keep: int, member_id: str, slots: str
) -> None:
    """Step 1 for one member: the first ``keep`` of ``owned`` kept, the rest given up."""
    counts = f"{member_id} keeps {keep} of its {len(owned)} valid claim(s)"
    trace.place_all(
        owned[:keep],
        member_id,
        "1 keep claim",
        f"kept from its claim: {counts} (ceiling slots taken: {slots})",
    )
    for tp in owned[keep:]:
        trace.release(
            tp,
            member_id,
            "1 give up",
            f"over its quota: {counts}, lowest partition numbers first (ceiling slots taken: "
            f"{slots})",
        )


def _note_to_hand_out(
    trace: DecisionTrace, unassigned: Sequence[TopicPartition], under: list[str], at: list[str]
) -> None:
    trace.note(
        f"to hand out: {len(unassigned)} partition(s); members under the floor, by id: "
        f"{', '.join(under) or 'none'}; at the floor, may take one more: {', '.join(at) or 'none'}"
    )


@dataclass(slots=True)
class _Quotas:
    floor: int
    ceiling: int
    ceiling_slots: int  # how many members may end at the ceiling
    at_ceiling: int  # how many are there (or promised) so far
    #: Kafka 3.7 on: the same-rack fill counts the members it brings to the ceiling (3.5/3.6 do
    #: not, and queue a member reaching the floor for one more whatever the count).
    counts_ceiling: bool = True


def _unassigned_after_step_1(
    topics: Sequence[str],
    kept_marks: Mapping[str, bytearray],
    kept: Mapping[str, list[TopicPartition]],
) -> Sequence[TopicPartition]:
    """The partitions step 2 hands out: those nobody kept (:func:`_unassigned_partitions`), unless
    two members kept the same partition (Kafka 3.4 lets two claims on one partition stand, see
    :class:`LineRules`); then Kafka's merge of the sorted kept list into the sorted partitions,
    which stops matching at the repeat (:func:`_kafka_unmatched`)."""
    if sum(map(len, kept.values())) == sum(marks.count(1) for marks in kept_marks.values()):
        return _unassigned_partitions(topics, kept_marks)
    rank = {topic: index for index, topic in enumerate(topics)}
    every = (TopicPartition(topic, p) for topic in topics for p in range(len(kept_marks[topic])))
    ordered = sorted(chain.from_iterable(kept.values()), key=lambda tp: (rank[tp.topic], tp[1]))
    return _kafka_unmatched(every, ordered)


def _kafka_unmatched(
    every: Iterable[TopicPartition], assigned: Sequence[TopicPartition]
) -> list[TopicPartition]:
    """Kafka's ``getUnassignedPartitions``: walk ``every`` partition (sorted) beside the sorted
    ``assigned`` list, skipping a partition when it equals the next assigned one. A partition
    assigned twice stops the matching there: every later partition counts as unassigned."""
    unmatched: list[TopicPartition] = []
    pending = iter(assigned)
    expected = next(pending, None)
    for tp in every:
        if tp == expected:
            expected = next(pending, None)  # None once used up: every later one is unmatched
        else:
            unmatched.append(tp)
    return unmatched


def _unassigned_partitions(
    topics: Sequence[str], kept_marks: Mapping[str, bytearray]
) -> tuple[TopicPartition, ...]:
    """Every partition not kept, topics in the order given, partitions by number.

    The partition numbers are drawn from one list so that every topic shares the same ``int``
    objects instead of making its own. A tuple: its slices, what step 2 deals, are tuples that
    can go into the answer as they are."""
    numbers = list(range(max(map(len, kept_marks.values()), default=0)))
    return tuple(
        chain.from_iterable(map(_free_partitions, topics, repeat(kept_marks), repeat(numbers)))
    )


def _free_partitions(
    topic: str, kept_marks: Mapping[str, bytearray], numbers: list[int]
) -> Iterator[TopicPartition]:
    """The partitions of ``topic`` not marked kept, by number (``numbers``: 0, 1, 2, ...)."""
    marks = kept_marks[topic]
    free = compress(numbers, marks.translate(_FLIP)) if 1 in marks else numbers
    return topic_partitions(topic, free, len(marks))


def _deal(given: _Given, member_id: str, partitions: Sequence[TopicPartition]) -> None:
    """Add ``partitions`` to what step 2 gives ``member_id``: as they are (no copy) while it
    has nothing yet, else onto a list."""
    held = given[member_id]
    if not held:
        given[member_id] = partitions
    elif isinstance(held, list):
        held.extend(partitions)
    else:
        given[member_id] = [*held, *partitions]


def _fill_same_rack(
    unassigned: Sequence[TopicPartition],
    under_floor: list[str],
    at_floor: list[str],
    assignment: Mapping[str, list[TopicPartition]],
    given: _Given,
    racks: _Racks,
    quotas: _Quotas,
    trace: DecisionTrace | None = None,
) -> list[TopicPartition]:
    """Step 2a: round-robin within racks; returns the partitions still unassigned."""
    left: list[TopicPartition] = []
    next_index = 0
    for tp in unassigned:
        receiver: str | None = None
        index = racks.next_rack_member(tp, under_floor, next_index)
        if index >= 0:
            receiver = under_floor[index]
            count = len(assignment[receiver]) + len(given[receiver]) + 1
            if count >= quotas.floor:
                under_floor.remove(receiver)
                if count < quotas.ceiling and (
                    quotas.at_ceiling < quotas.ceiling_slots or not quotas.counts_ceiling
                ):
                    at_floor.append(receiver)
            else:
                index += 1
            next_index = index % len(under_floor) if under_floor else 0
        elif at_floor:
            first = racks.next_rack_member(tp, at_floor, 0)
            if first >= 0:
                receiver = at_floor[first]
                if len(assignment[receiver]) + len(given[receiver]) + 1 == quotas.ceiling:
                    del at_floor[first]
                    if quotas.counts_ceiling:
                        quotas.at_ceiling += 1
                        if quotas.at_ceiling == quotas.ceiling_slots:
                            at_floor.clear()
        if receiver is None:
            left.append(tp)
        else:
            _deal(given, receiver, [tp])
            if trace is not None:
                trace.place(
                    tp,
                    receiver,
                    "2a same rack",
                    f"the next member short of its quota on one of the partition's racks "
                    f"({', '.join(sorted(racks.partition_racks.get(tp, ())))}); it now has "
                    f"{len(assignment[receiver]) + len(given[receiver])}",
                )
    return left


def _fill_round_robin(
    unassigned: Sequence[TopicPartition],
    under_floor: list[str],
    at_floor: deque[str],
    assignment: Mapping[str, list[TopicPartition]],
    given: _Given,
    floor_quota: int,
    trace: DecisionTrace | None = None,
) -> None:
    """Step 2b, computed in bulk.

    Kafka deals one partition at a time round the unfilled members, dropping a member from the
    circle when it reaches the floor. Between two drops the circle is fixed, so its ``j``-th
    member receives every ``len(circle)``-th partition from the ``j``-th on: one slice each.
    """
    deficits = {m: floor_quota - len(assignment[m]) - len(given[m]) for m in under_floor}
    if sum(deficits.values()) > len(unassigned):
        _fill_round_robin_one_by_one(
            unassigned, under_floor, at_floor, assignment, given, floor_quota, trace
        )
        return
    position = 0
    circle = under_floor
    while circle:
        passes = min(deficits[m] for m in circle)
        width = len(circle)
        end = position + width * passes
        for offset, member_id in enumerate(circle):
            dealt = unassigned[position + offset : end : width]
            _deal(given, member_id, dealt)
            if trace is not None:
                trace.place_all(
                    dealt,
                    member_id,
                    "2b round-robin",
                    f"dealt round the members under the floor ({', '.join(circle)}), one "
                    f"each in turn, until {member_id} reaches the floor of {floor_quota}",
                )
        position = end
        at_floor.extend(m for m in circle if deficits[m] == passes)
        circle = [m for m in circle if deficits[m] > passes]
        for member_id in circle:
            deficits[member_id] -= passes
    for tp in unassigned[position:]:
        if not at_floor:
            raise StickyAssignmentError(
                "some partitions are unassigned but every member is at its maximum quota"
            )
        receiver = at_floor.popleft()
        _deal(given, receiver, [tp])
        if trace is not None:
            trace.place(
                tp,
                receiver,
                "2b one more",
                f"everyone is at the floor of {floor_quota}: the next member in the queue of "
                f"those that may take one more, {receiver}, takes it",
            )


def _fill_round_robin_one_by_one(
    unassigned: Sequence[TopicPartition],
    under_floor: list[str],
    at_floor: deque[str],
    assignment: Mapping[str, list[TopicPartition]],
    given: _Given,
    floor_quota: int,
    trace: DecisionTrace | None = None,
) -> None:
    """Step 2b partition by partition, as Kafka writes it (used when partitions run short)."""
    circle = list(under_floor)
    cursor = 0
    for tp in unassigned:
        if cursor < len(circle):
            receiver = circle[cursor]
            cursor += 1
        elif not circle and not at_floor:
            raise StickyAssignmentError("no more unfilled members to assign partitions to")
        elif not circle:
            receiver = at_floor.popleft()
        else:
            receiver = circle[0]
            cursor = 1
        _deal(given, receiver, [tp])
        if trace is not None:
            trace.place(
                tp,
                receiver,
                "2b round-robin",
                f"next in the circle of members under the floor ({', '.join(circle)}); "
                f"{receiver} now has {len(assignment[receiver]) + len(given[receiver])} of "
                f"{floor_quota}",
            )
        if len(assignment[receiver]) + len(given[receiver]) == floor_quota:
            cursor -= 1
            del circle[cursor]
            at_floor.append(receiver)
    for member_id in circle:
        if len(assignment[member_id]) + len(given[member_id]) != floor_quota:
            raise StickyAssignmentError(
                f"member {member_id!r} does not reach its minimum quota of {floor_quota} "
                "partitions and no partitions are left (Kafka fails this assignment)"
            )


# --------------------------------------------------------------------------------------------
# The general algorithm (subscriptions differ)


class _MembersByLoad:
    """Kafka's ``sortedCurrentSubscriptions``: members by (partition count, id).

    A member's key is read when it enters; remove it before its count changes.
    """

    __slots__ = ("_entries", "_key_of")

    def __init__(self, key_of: dict[str, str]) -> None:
        self._entries: list[tuple[int, str, str]] = []
        self._key_of = key_of

    def add(self, member_id: str, count: int) -> None:
        insort(self._entries, (count, self._key_of[member_id], member_id))

    def remove(self, member_id: str, count: int) -> None:
        entry = (count, self._key_of[member_id], member_id)
        index = bisect_left(self._entries, entry)
        if index < len(self._entries) and self._entries[index] == entry:
            del self._entries[index]

    def __iter__(self) -> Iterator[str]:
        return (entry[2] for entry in self._entries)

    def first(self) -> str:
        return self._entries[0][2]

    def last(self) -> str:
        return self._entries[-1][2]


class _MovementLedger:
    """Kafka's ``PartitionMovements``: where each moved partition came from.

    Partitions that moved between the same two members (per topic) sit in a Java ``HashSet``;
    when a partition would move back along such a pair, Kafka moves the first partition of
    that set (hash order) instead.
    """

    __slots__ = ("_by_topic", "_moves")

    def __init__(self) -> None:
        self._moves: dict[TopicPartition, tuple[str, str]] = {}
        self._by_topic: dict[str, dict[tuple[str, str], JavaHashMapOrder[TopicPartition]]] = {}

    def _forget(self, tp: TopicPartition) -> tuple[str, str]:
        pair = self._moves.pop(tp)
        pairs = self._by_topic[tp.topic]
        moved = pairs[pair]
        moved.remove(tp)
        if not len(moved):
            del pairs[pair]
        if not pairs:
            del self._by_topic[tp.topic]
        return pair

    def _record(self, tp: TopicPartition, pair: tuple[str, str]) -> None:
        self._moves[tp] = pair
        pairs = self._by_topic.setdefault(tp.topic, {})
        moved = pairs.get(pair)
        if moved is None:
            moved = pairs[pair] = JavaHashMapOrder(_tp_hash)
        moved.put(tp)

    def move(self, tp: TopicPartition, old_owner: str, new_owner: str) -> None:
        if tp in self._moves:
            source, _ = self._forget(tp)
            if source != new_owner:
                self._record(tp, (source, new_owner))
        else:
            self._record(tp, (old_owner, new_owner))

    def state(self) -> frozenset[tuple[str, tuple[str, str], int, tuple[TopicPartition, ...]]]:
        """Everything the ledger's future answers depend on: per topic and member pair, the
        moved partitions in hash-set order and the set's table size."""
        return frozenset(
            (topic, pair, moved.capacity, tuple(moved))
            for topic, pairs in self._by_topic.items()
            for pair, moved in pairs.items()
        )

    def partition_to_move(
        self, tp: TopicPartition, old_owner: str, new_owner: str
    ) -> TopicPartition:
        pairs = self._by_topic.get(tp.topic)
        if pairs is None:
            return tp
        if tp in self._moves:
            old_owner = self._moves[tp][0]
        moved_back = pairs.get((new_owner, old_owner))
        if moved_back is None:
            return tp
        return next(iter(moved_back))


class _PassStates:
    """The states passes of the reassignment loop started in, to stop a loop that repeats
    (module docstring, general step 4). Only the states of passes that start with a sum of
    squared member sizes no lower than the pass before are kept: every cycle has one."""

    __slots__ = ("_load", "_seen")

    def __init__(self) -> None:
        self._load: int | None = None
        self._seen: set[object] = set()

    def check(
        self,
        current: Mapping[str, list[TopicPartition]],
        owner: Mapping[TopicPartition, str],
        ledger: _MovementLedger,
    ) -> None:
        """Record the state a pass starts in; :class:`StickyAssignmentError` if it recurs.
        ``owner``'s keys do not change during the loop, so its values in order name every
        partition's owner."""
        load = sum(len(owned) ** 2 for owned in current.values())
        if self._load is not None and load >= self._load:
            state = (tuple(owner.values()), ledger.state())
            if state in self._seen:
                raise StickyAssignmentError(
                    "Kafka's sticky assignor never finishes on this group: its rebalancing loop "
                    "came back to a state it had been in, so it moves the same partitions back "
                    "and forth for ever and the group cannot rebalance (Kafka's movement ledger "
                    "swaps in a partition held by a third member); pick another assignor for "
                    "this group"
                )
            self._seen.add(state)
        self._load = load


def _tp_hash(tp: TopicPartition) -> int:
    return topic_partition_hash(tp.topic, tp.partition)


class _GeneralAssignment:
    """Kafka's ``GeneralAssignmentBuilder``, one instance per assignment."""

    def __init__(
        self,
        order: Sequence[str],
        members: Mapping[str, Member],
        partition_counts: Mapping[str, int],
        claims: _Claims,
        racks: _Racks,
        trace: DecisionTrace | None = None,
    ) -> None:
        self.trace = trace
        self.order = order
        self.members = members
        self.partition_counts = partition_counts
        self.claims = claims
        self.racks = racks
        self.topic_members: dict[str, list[str]] = {topic: [] for topic in partition_counts}
        self.member_topics: dict[str, list[str]] = {}
        for member_id in order:
            topics: list[str] = []
            for topic in dict.fromkeys(members[member_id].topics):
                if topic in partition_counts:
                    topics.append(topic)
                    self.topic_members[topic].append(member_id)
            self.member_topics[member_id] = topics
        self.member_topic_set = {m: frozenset(t) for m, t in self.member_topics.items()}
        self.max_size = {
            m: sum(partition_counts[t] for t in topics) for m, topics in self.member_topics.items()
        }
        self.current: dict[str, list[TopicPartition]] = {
            m: list(owned) for m, owned in claims.owned.items()
        }
        self.owner: dict[TopicPartition, str] = {
            tp: m for m, owned in self.current.items() for tp in owned
        }
        sorted_topics = sorted(
            partition_counts, key=lambda t: (len(self.topic_members[t]), java_string_key(t))
        )
        self.sorted_partitions = [
            TopicPartition(topic, p)
            for topic in sorted_topics
            for p in range(partition_counts[topic])
        ]
        self.by_load = _MembersByLoad({m: java_string_key(m) for m in order})
        self.ledger = _MovementLedger()
        self.revocation_required = False
        self.balance_slack = 1  # LineRules.balance_slack
        #: Two members kept one partition (Kafka 3.4, :class:`LineRules`): set by :meth:`build`.
        self.shared_claims = False
        # topic -> member -> how many of the topic's partitions it holds (for _is_balanced)
        self.topic_holders: dict[str, Counter[str]] = {t: Counter() for t in partition_counts}

    # -- helpers -------------------------------------------------------------------------

    def size(self, member_id: str) -> int:
        return len(self.current[member_id])

    def _give(self, tp: TopicPartition, member_id: str) -> None:
        self.by_load.remove(member_id, self.size(member_id))
        self.current[member_id].append(tp)
        self.owner[tp] = member_id
        self.topic_holders[tp.topic][member_id] += 1
        self.by_load.add(member_id, self.size(member_id))

    # -- the steps -----------------------------------------------------------------------

    def build(self) -> dict[str, list[TopicPartition]]:
        previous = self._previous_generation_owners()
        assigned = self._keep_owned()
        assigned_set = set(assigned)
        if len(assigned_set) == len(assigned):
            unassigned = [tp for tp in self.sorted_partitions if tp not in assigned_set]
        else:  # two members kept one partition (Kafka 3.4): Kafka's merge of sorted lists
            self.shared_claims = True
            rank = {tp: index for index, tp in enumerate(self.sorted_partitions)}
            unassigned = _kafka_unmatched(
                self.sorted_partitions, sorted(assigned, key=rank.__getitem__)
            )
        for member_id in self.current:
            self.by_load.add(member_id, self.size(member_id))
        self._balance(previous, unassigned)
        return {m: self.current.get(m, []) for m in self.order}

    def _previous_generation_owners(self) -> dict[TopicPartition, tuple[str, int]]:
        """Claims from older generations: partition -> (member, generation), newest kept."""
        previous: dict[TopicPartition, tuple[str, int]] = {}
        max_generation = self.claims.max_generation
        for member_id in self.order:
            member = self.members[member_id]
            if member.generation is not None and member.generation < max_generation:
                generation = member.generation
            elif member.generation is None and max_generation > DEFAULT_GENERATION:
                generation = DEFAULT_GENERATION
            else:
                continue
            for tp in member.owned_partitions:
                known = previous.get(tp)
                if known is None or generation > known[1]:
                    previous[tp] = (member_id, generation)
        return previous

    def _keep_owned(self) -> list[TopicPartition]:
        assigned: list[TopicPartition] = []
        for member_id, owned in self.current.items():
            subscription = set(self.members[member_id].topics)
            kept: list[TopicPartition] = []
            for tp in owned:
                if tp.topic not in subscription or self.racks.mismatch(member_id, tp):
                    # Kafka leaves the stale owner entry; the partition is reassigned below.
                    self.revocation_required = True
                    if self.trace is not None:
                        why = "no longer subscribed" if tp.topic not in subscription else "off rack"
                        self.trace.release(tp, member_id, "1 give up", f"claimed, but {why}")
                else:
                    kept.append(tp)
            self.current[member_id] = kept
            assigned.extend(kept)
            if self.trace is not None:
                self.trace.place_all(
                    kept,
                    member_id,
                    "1 keep claim",
                    f"kept from its claim: {member_id} still subscribes to the topic"
                    + (" and shares a rack with a replica" if self.racks.aware else ""),
                )
            for tp in kept:
                self.topic_holders[tp.topic][member_id] += 1
        return assigned

    def _assign_one(self, tp: TopicPartition, rack_aware: bool) -> bool:
        for member_id in self.by_load:
            if tp.topic in self.member_topic_set[member_id] and not (
                rack_aware and self.racks.mismatch(member_id, tp)
            ):
                if self.trace is not None:
                    self._trace_least_loaded(tp, member_id, rack_aware)
                self._give(tp, member_id)
                return True
        return False

    def _trace_least_loaded(self, tp: TopicPartition, member_id: str, rack_aware: bool) -> None:
        assert self.trace is not None
        eligible = [m for m in self.by_load if tp.topic in self.member_topic_set[m]][:4]
        loads = ", ".join(f"{m} {self.size(m)}" for m in eligible)
        where = " on a replica's rack" if rack_aware else ""
        self.trace.place(
            tp,
            member_id,
            "2 least loaded",
            f"unclaimed: given to the least-loaded subscriber of {tp.topic}{where} (fewest "
            f"partitions, then smallest id); loads then: {loads}",
        )

    def _assign_all(
        self, partitions: list[TopicPartition], rack_aware: bool
    ) -> list[TopicPartition]:
        """Assign what can be; return the partitions that found no member."""
        left: list[TopicPartition] = []
        for tp in partitions:
            if not self.topic_members[tp.topic] or not self._assign_one(tp, rack_aware):
                left.append(tp)
        return left

    def _can_move(self, member_id: str) -> bool:
        owned = self.current[member_id]
        if len(owned) < self.max_size[member_id]:
            return True
        return any(len(self.topic_members[tp.topic]) >= 2 for tp in owned)

    def _balance(
        self, previous: dict[TopicPartition, tuple[str, int]], unassigned: list[TopicPartition]
    ) -> None:
        initializing = not self.current[self.by_load.last()]
        if self.racks.aware:
            self._assign_all(self._assign_all(list(unassigned), True), False)
        else:
            self._assign_all(unassigned, False)

        movable_topics = {t for t, ms in self.topic_members.items() if len(ms) >= 2}
        self.sorted_partitions = [tp for tp in self.sorted_partitions if tp.topic in movable_topics]
        unassigned = [tp for tp in unassigned if tp.topic in movable_topics]

        fixed: dict[str, list[TopicPartition]] = {}
        for member_id in self.order:
            if not self._can_move(member_id):
                self.by_load.remove(member_id, self.size(member_id))
                fixed[member_id] = self.current.pop(member_id)

        before = {m: list(tps) for m, tps in self.current.items()}
        owner_before = dict(self.owner)
        if not self.revocation_required:
            self._reassign(unassigned, previous)
        moved = self._reassign(self.sorted_partitions, previous)
        if not initializing and moved and _balance_score(self.current) >= _balance_score(before):
            if self.trace is not None:
                self._trace_undo(before)
            self.current = before
            self.owner = owner_before
        for member_id, owned in fixed.items():
            self.current[member_id] = owned

    def _trace_undo(self, before: Mapping[str, list[TopicPartition]]) -> None:
        assert self.trace is not None
        score_after, score_before = _balance_score(self.current), _balance_score(before)
        for member_id, owned in before.items():
            for tp in owned:
                if self.owner[tp] != member_id:
                    self.trace.move(
                        tp,
                        self.owner[tp],
                        member_id,
                        "5 undo",
                        f"the reassignment did not lower the balance score ({score_after} "
                        f">= {score_before}): every move is undone",
                    )

    def _is_balanced(self) -> bool:
        if self.shared_claims:
            return self._is_balanced_by_partition()
        if self.balance_slack == 0:
            return self._is_balanced_before_35()
        return self._is_balanced_within_one()

    def _is_balanced_by_partition(self) -> bool:
        """Kafka 3.4's ``isBalanced`` partition by partition, for a group in which two members
        kept one partition: a partition's holder is the last member listing it, in the
        subscription map's order, and a member is short while a partition of its topics that it
        does not list has a holder with more partitions than it."""
        largest = self.size(self.by_load.last())
        if self.size(self.by_load.first()) >= largest - 1:
            return True
        holder = {tp: m for m, owned in self.current.items() for tp in owned}
        for member_id in self.by_load:
            size = self.size(member_id)
            if size == self.max_size[member_id]:
                continue
            mine = set(self.current[member_id])
            for topic in self.member_topics[member_id]:
                for tp in topic_partitions(topic, range(self.partition_counts[topic])):
                    if tp in mine:
                        continue
                    other = holder.get(tp)
                    if other is None:
                        raise StickyAssignmentError(
                            f"Kafka's sticky assignor fails on this group (NullPointerException): "
                            f"partition {tp.topic}-{tp.partition} has no holder it can move"
                        )
                    if self.size(other) > size + self.balance_slack:
                        return False
        return True

    def _is_balanced_before_35(self) -> bool:
        """Kafka 3.0-3.4's ``isBalanced``: as :meth:`_is_balanced_within_one`, but a member is
        short while another member holds a partition it could take and more partitions than
        it (not two more). The largest holder of each topic other than the member decides."""
        largest = self.size(self.by_load.last())
        if self.size(self.by_load.first()) >= largest - 1:
            return True
        holders: dict[str, list[tuple[int, str]]] = {}  # topic -> its two largest holders
        current = self.current
        for member_id in self.by_load:  # fewest partitions first
            size = len(current[member_id])
            if size >= largest:
                return True  # nobody holds more
            if size == self.max_size[member_id]:
                continue
            for topic in self.member_topics[member_id]:
                top = holders.get(topic)
                if top is None:
                    held = [(len(current[m]), m) for m in self.topic_holders[topic] if m in current]
                    top = holders[topic] = sorted(held, reverse=True)[:2]
                other = next((count for count, holder in top if holder != member_id), -1)
                if other > size:
                    return False
        return True

    def _is_balanced_within_one(self) -> bool:
        """Kafka's ``isBalanced``: no member could take a partition of its topics from a
        member holding two more than it (members that already hold everything they can are
        skipped). Same answer as Kafka's partition-by-partition scan, computed per topic."""
        largest = self.size(self.by_load.last())
        if self.size(self.by_load.first()) >= largest - 1:
            return True
        largest_holder: dict[str, int] = {}
        current = self.current
        for member_id in self.by_load:  # fewest partitions first
            size = len(current[member_id])
            if size >= largest - 1:
                return True  # nobody holds more than ``largest``
            if size == self.max_size[member_id]:
                continue
            for topic in self.member_topics[member_id]:
                holder_size = largest_holder.get(topic)
                if holder_size is None:
                    holder_size = max(
                        (len(current[m]) for m in self.topic_holders[topic] if m in current),
                        default=-1,
                    )
                    largest_holder[topic] = holder_size
                if holder_size > size + 1:
                    return False
        return True

    def _reassign(
        self, partitions: list[TopicPartition], previous: dict[TopicPartition, tuple[str, int]]
    ) -> bool:
        performed = False
        modified = True
        seen = _PassStates()
        while modified:
            modified = False
            seen.check(self.current, self.owner, self.ledger)
            for tp in partitions:
                if self._is_balanced():
                    break
                member_id = self.owner[tp]
                size = self.size(member_id)
                earlier = previous.get(tp)
                if earlier is not None and earlier[0] not in self.current:
                    # Kafka reads the load of the previous-generation claimant, which was set
                    # aside with the members that cannot move, and fails: so do we.
                    raise StickyAssignmentError(
                        f"Kafka's sticky assignor fails on this group (NullPointerException): "
                        f"partition {tp.topic}-{tp.partition} was last held by {earlier[0]!r} in "
                        "an older generation, a member Kafka set aside before balancing"
                    )
                if earlier is not None and size > self.size(earlier[0]) + 1:
                    self._move(tp, earlier[0], "back to its previous-generation owner")
                    performed = modified = True
                    continue
                if self._has_lighter_subscriber(tp, member_id, size):
                    self._move_to_lightest(tp)
                    performed = modified = True
        return performed

    def _has_lighter_subscriber(self, tp: TopicPartition, member_id: str, size: int) -> bool:
        # Kafka first looks among same-rack subscribers, then among all; either way the
        # partition then goes to the least-loaded subscriber, so one test covers both.
        return any(size > self.size(other) + 1 for other in self.topic_members[tp.topic])

    def _move_to_lightest(self, tp: TopicPartition) -> None:
        for member_id in self.by_load:
            if tp.topic in self.member_topic_set[member_id]:
                self._move(tp, member_id, "to the least-loaded subscriber")
                return
        raise StickyAssignmentError(f"no member subscribes to topic {tp.topic!r}")

    def _move(self, tp: TopicPartition, new_owner: str, why: str = "") -> None:
        chosen = self.ledger.partition_to_move(tp, self.owner[tp], new_owner)
        old_owner = self.owner[chosen]
        if self.trace is not None:
            swapped = "" if chosen == tp else f" (moved instead of {tp}, which would go back)"
            self.trace.move(
                chosen,
                old_owner,
                new_owner,
                "4 rebalance",
                f"moved {why}{swapped}: {old_owner} held {self.size(old_owner)}, "
                f"{new_owner} {self.size(new_owner)}, more than one apart",
            )
        self.by_load.remove(old_owner, self.size(old_owner))
        self.by_load.remove(new_owner, self.size(new_owner))
        self.ledger.move(chosen, old_owner, new_owner)
        holders = self.topic_holders[chosen.topic]
        try:
            self.current[old_owner].remove(chosen)
        except ValueError:
            # Kafka 3.4 let two members keep one partition, and its recorded owner no longer
            # subscribes to it: Kafka's List.remove finds nothing to remove.
            pass
        else:
            holders[old_owner] -= 1
            if not holders[old_owner]:
                del holders[old_owner]
        self.current[new_owner].append(chosen)
        self.owner[chosen] = new_owner
        holders[new_owner] += 1
        self.by_load.add(new_owner, self.size(new_owner))
        self.by_load.add(old_owner, self.size(old_owner))


def _balance_score(assignment: Mapping[str, list[TopicPartition]]) -> int:
    """Sum over member pairs of the difference of their partition counts."""
    sizes = sorted(len(tps) for tps in assignment.values())
    count = len(sizes)
    return sum(size * (2 * index - count + 1) for index, size in enumerate(sizes))


# --------------------------------------------------------------------------------------------


def assign_sticky(
    scenario: Scenario, trace: DecisionTrace | None = None
) -> Mapping[str, Sequence[TopicPartition]]:
    """Kafka's ``StickyAssignor``: claims travel in user data; eager protocol."""
    return sticky_assign(scenario, STICKY_RULES, trace).assignment


STRATEGY = PartitionStrategy(
    name="sticky",
    summary=(
        "Balances the group first (counts within one of each other when subscriptions are "
        "equal) and, within that, keeps as many of each member's previous partitions as it "
        "can; new or freed partitions go to the least-loaded members. Rack-aware when members "
        "and partition replicas have racks. Eager: every rebalance still revokes everything "
        "before the new, mostly unchanged, assignment arrives."
    ),
    when_to_use=(
        "Consumers with expensive per-partition state or caches on the classic eager protocol; "
        "prefer cooperative-sticky where every client supports it, so unmoved partitions keep "
        "being consumed during a rebalance."
    ),
    consumer_config="partition.assignment.strategy=org.apache.kafka.clients.consumer.StickyAssignor",
    protocol="eager",
    compute=assign_sticky,
    kafka_lines=CLIENT_STICKY_LINES,
    older_kafka=STICKY_OLDER_LINES,
)

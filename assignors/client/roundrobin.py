"""Kafka's client-side ``RoundRobinAssignor`` (classic protocol, eager).

Inputs: the scenario's topics (partition counts) and members (subscription, optional
``group.instance.id``). Racks, owned partitions and generations are not read.

The algorithm:

1. Lay out every partition of every subscribed, existing topic: topics in Java string order,
   partitions by number.
2. Put the members in a circle in Kafka's ``MemberInfo`` order (static members by group
   instance id, then dynamic members by member id; see
   :func:`assignors.client.range.kafka_member_order`), with a pointer at the first member.
3. For each partition in turn, move the pointer forward past members not subscribed to its
   topic, give the partition to the member it points at, and move the pointer one further.

Computed in bulk rather than partition by partition: for a run of consecutive topics with the
same subscribers ``s_0 < s_1 < ... < s_{m-1}`` (positions in the circle), the pointer's first
stop is the first subscriber at or after it, ``s_j``, and the run's ``g``-th partition goes to
``s_{(j + g) mod m}``; so subscriber ``s_{(j + q) mod m}`` gets every ``m``-th partition of the
run from the ``q``-th on, and the pointer ends just past the last partition's owner.

Invariants: every partition of a subscribed, existing topic goes to exactly one of its
subscribers; when all members subscribe to the same topics, their counts differ by at most one
(the first ``total % members`` members in order have one more); with differing subscriptions the
balance can be poor (a member is skipped for topics it does not read); the answer does not
depend on the order members are listed in.
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import chain, product

from assignors.client.range import index_subscriptions, new_topic_partition
from assignors.java_order import java_string_key
from assignors.model import Scenario, Topic, TopicPartition
from assignors.strategy import PartitionStrategy
from assignors.trace import DecisionTrace


def assign_roundrobin(
    scenario: Scenario, trace: DecisionTrace | None = None
) -> dict[str, list[TopicPartition]]:
    """Member id -> partitions, as Kafka's ``RoundRobinAssignor`` answers for ``scenario``."""
    index = index_subscriptions(scenario)
    member_ids = [member.member_id for member in index.ordered]
    out: dict[str, list[TopicPartition]] = {member_id: [] for member_id in member_ids}
    if not index.topics:
        return out
    position = {member_id: i for i, member_id in enumerate(member_ids)}
    # Subscriber positions per distinct subscriber list (shared list objects, see the index).
    positions_of: dict[int, list[int]] = {}
    runs: list[tuple[list[int], list[Topic]]] = []
    for topic in sorted(index.topics, key=lambda t: java_string_key(t.name)):
        consumers = index.consumers_of[topic.name]
        positions = positions_of.get(id(consumers))
        if positions is None:
            positions = positions_of[id(consumers)] = [position[c] for c in consumers]
        if runs and runs[-1][0] is positions:
            runs[-1][1].append(topic)
        else:
            runs.append((positions, [topic]))

    if trace is not None:
        trace.note(
            "the circle (static members by group.instance.id, then the rest by member id): "
            + " -> ".join(member_ids)
        )
        trace.note(
            "partitions dealt in order: "
            + ", ".join(t.name for t in sorted(index.topics, key=lambda t: java_string_key(t.name)))
            + " (topics by name, partitions by number)"
        )
    pointer = 0
    for positions, topics in runs:
        partitions = list(
            map(
                new_topic_partition,
                chain.from_iterable(product((t.name,), range(t.partitions)) for t in topics),
            )
        )
        subscribers = len(positions)
        first = bisect_left(positions, pointer)
        if first == subscribers:
            first = 0
        for offset in range(min(subscribers, len(partitions))):
            owner = member_ids[positions[(first + offset) % subscribers]]
            out[owner].extend(partitions[offset::subscribers])
            if trace is not None:
                _record_deal(trace, partitions, offset, owner, member_ids, positions, pointer)
        last_owner = positions[(first + len(partitions) - 1) % subscribers]
        pointer = (last_owner + 1) % len(member_ids)
    return out


def _record_deal(
    trace: DecisionTrace,
    partitions: list[TopicPartition],
    offset: int,
    owner: str,
    member_ids: list[str],
    positions: list[int],
    pointer: int,
) -> None:
    """Step 3 for the partitions one subscriber receives in one run of the deal."""
    subscribers = [member_ids[p] for p in positions]
    for k in range(offset, len(partitions), len(positions)):
        trace.place(
            partitions[k],
            owner,
            "3 deal",
            f"card {k + 1} of a deal that began with the pointer at {member_ids[pointer]}; "
            f"the pointer skips members not subscribed to {partitions[k].topic} "
            f"(its subscribers: {', '.join(subscribers)}) and stood at {owner}",
        )


STRATEGY = PartitionStrategy(
    name="roundrobin",
    summary=(
        "Lays out all subscribed partitions (topics by name, partitions by number) and deals "
        "them one at a time round a circle of the members (static members by group.instance.id "
        "first, then the rest by member id), skipping a member that does not subscribe to the "
        "partition's topic. With identical subscriptions every member's count is within one of "
        "the others'; with differing subscriptions the skips can leave it unbalanced. Eager: "
        "every rebalance revokes everything, and partitions usually move between members."
    ),
    when_to_use=(
        "Many topics (or partition counts that do not divide by the member count) read by a "
        "group whose members all subscribe to the same topics, when overall balance matters "
        "more than co-partitioning and stickiness. Prefer cooperative-sticky to avoid "
        "stop-the-world rebalances and needless movement."
    ),
    consumer_config=(
        "partition.assignment.strategy=org.apache.kafka.clients.consumer.RoundRobinAssignor"
    ),
    protocol="eager",
    compute=assign_roundrobin,
)

"""The lag-aware strategy of KAFKA-5337 (design document 000), classic protocol, eager.

Inputs: the scenario's topics with their per-partition lag facts (``lags``, or log-start,
log-end and committed offsets), ``auto_offset_reset``, and each member's subscription. Racks,
owned partitions, generations and priorities are not read.

The algorithm works topic by topic, over the topics that exist and that at least one member
subscribes to; topics are independent of each other:

1. Work out every partition's lag with :func:`assignors.simulate.lag.partition_lags` (given ``lags``
   win; otherwise log-end minus the committed offset, and with no commit 0 under ``latest`` and
   log-end minus log-start otherwise; never below 0).
2. Order the partitions by lag, largest first; equal lags by partition number, smallest first.
3. Hand them out in that order. Each goes to the topic's subscriber that has the fewest
   partitions *of this topic* so far; among those, the one with the least summed lag *of this
   topic* so far; among those, the smallest member id (code-point order).

Invariants:

* every partition of a subscribed, existing topic goes to exactly one of that topic's
  subscribers, and to nobody else;
* per topic, the subscribers' partition counts differ by at most one (step 3 always picks a
  member with the fewest), so count balance comes first and lag balance second;
* with all lags equal the answer is a round-robin by member id within each topic;
* the answer depends only on the members' ids and subscriptions, never on their order in the
  scenario.

Where this departs from the prototype the design document links to (a Java
``PartitionAssignor`` that gives the same answers on every conformance case):

* Lags come from the scenario, or in a live consumer from a read-only lag source (see
  :mod:`adapters.kafka_python`), not from an extra ``KafkaConsumer`` that the prototype opens
  with the group's own ``group.id``: reading offsets must not disturb the group being assigned.
* A committed offset beyond the log end (a truncated log) gives lag 0 here; taken literally the
  prototype's subtraction gives a negative lag, which would make that partition look "free" and
  skew the lag totals.
* The final tie-break (smallest member id) is stated, so the answer never depends on the order of
  a hash map or of the members in the request.
"""

from __future__ import annotations

import heapq

from assignors.model import Scenario, TopicPartition
from assignors.simulate.lag import partition_lags
from assignors.strategy import PartitionStrategy
from assignors.trace import DecisionTrace


def assign_lag_aware(
    scenario: Scenario, trace: DecisionTrace | None = None
) -> dict[str, list[TopicPartition]]:
    """Member id -> partitions under the lag-aware rules (see the module docstring).

    Per topic, a heap of ``(partitions of this topic so far, lag so far, member id)`` finds the
    subscriber each partition goes to in O(log members): the tuple order is exactly the rule's
    order (fewest partitions, then least lag, then the smallest id in code-point order).
    """
    assignment: dict[str, list[TopicPartition]] = {m.member_id: [] for m in scenario.members}
    counts = scenario.partition_counts()
    subscribers_by_topic: dict[str, list[str]] = {}
    for member in scenario.members:
        for topic_name in set(member.topics):
            if topic_name in counts:
                subscribers_by_topic.setdefault(topic_name, []).append(member.member_id)
    topics = scenario.topic_by_name()
    for topic_name in sorted(subscribers_by_topic):
        lags = partition_lags(topics[topic_name], scenario.auto_offset_reset)
        # A sorted list is a valid heap: everyone starts at no partitions and no lag.
        heap = [(0, 0, member_id) for member_id in sorted(subscribers_by_topic[topic_name])]
        order = sorted(range(counts[topic_name]), key=lambda p: (-lags[p], p))
        if trace is not None:
            trace.note(
                f"partitions of {topic_name} by lag, largest first: "
                + ", ".join(f"{p} (lag {lags[p]})" for p in order),
                topic_name,
            )
        for partition in order:
            count, lag, member_id = heap[0]
            assignment[member_id].append(TopicPartition(topic_name, partition))
            if trace is not None:
                trace.place(
                    TopicPartition(topic_name, partition),
                    member_id,
                    "3 fewest, then least lag",
                    f"lag {lags[partition]}; {member_id} had the fewest partitions of "
                    f"{topic_name} ({count}), then the least lag ({lag}), then the smallest id; "
                    f"loads then: {_loads(heap)}",
                )
            heapq.heapreplace(heap, (count + 1, lag + lags[partition], member_id))
    return assignment


def _loads(heap: list[tuple[int, int, str]]) -> str:
    """Every subscriber's (partitions, lag) so far, in rule order."""
    return ", ".join(f"{m} {c} partitions/lag {lag}" for c, lag, m in sorted(heap))


STRATEGY = PartitionStrategy(
    name="lag-aware",
    summary=(
        "Topic by topic, hands out partitions from the most lagging to the least, each to the "
        "subscriber with the fewest partitions of that topic so far, then the least lag so far, "
        "then the smallest member id. Partition counts per topic stay within one of each other; "
        "within that, backlog is spread as evenly as the greedy order allows. Eager: every "
        "rebalance revokes everything, and partitions move whenever lags change."
    ),
    when_to_use=(
        "A group catching up on an uneven backlog (some partitions far behind), where range or "
        "roundrobin would stack the heavy partitions on one member. Needs the group's offsets at "
        "assignment time; not sticky, so avoid it where moving a partition is expensive."
    ),
    consumer_config=(
        "partition.assignment.strategy=<a LagAwareAssignor, e.g. the KAFKA-5337 prototype "
        "com.github.grantneale.kafka.LagBasedPartitionAssignor>; in Python: "
        "adapters.kafka_python.LagAwareAssignor (protocol name 'lag')"
    ),
    protocol="eager",
    compute=assign_lag_aware,
)

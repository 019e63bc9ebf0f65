"""The failover (active/passive) strategy of design document 001, classic protocol, eager.

Inputs: each member's subscription and ``priority`` (an integer sent in the subscription's user
data; a member that states none has the lowest possible priority, Java's ``Integer.MIN_VALUE``,
:data:`assignors.model.LOWEST_PRIORITY`). Lags, racks and owned partitions are not read.

The algorithm, topic by topic over the topics that exist and that someone subscribes to:

1. Among the topic's subscribers, pick the one with the highest priority; equal priorities go to
   the smallest member id (code-point order).
2. Give that member every partition of the topic.

Invariants:

* each subscribed, existing topic has exactly one owner, a subscriber of it, which holds all of
  its partitions; everyone else is idle on that topic (standby);
* when the owner leaves, its topics go to the next subscriber in (priority desc, member id asc)
  order, and nobody else's topics move;
* when every member subscribes to the same topics, one member owns everything;
* the answer does not depend on the order of the members in the scenario.

Where this departs from the prototype of the blog post the document is drawn from:

* The prototype picks one member for the whole group and hands it every partition of every topic
  in the metadata, including topics that member does not subscribe to, which a Kafka consumer
  rejects (it only accepts partitions of its own subscription). Here the choice is made per
  topic among that topic's subscribers. With identical subscriptions the two agree.
* The prototype's equal-priority order comes from sorting its (member id, priority) records
  descending, which the post does not pin down; here ties go to the smallest member id, so the
  answer is deterministic and documented.
* A member without a priority has the lowest one, as in the prototype's later configuration
  default; the post's first version defaulted to the highest (``Integer.MAX_VALUE``), which would
  make any member that forgot the setting take over the group.
"""

from __future__ import annotations

from collections.abc import Sequence

from assignors.model import LOWEST_PRIORITY, Member, Scenario, TopicPartition
from assignors.strategy import PartitionStrategy
from assignors.trace import DecisionTrace


def effective_priority(member: Member) -> int:
    """The member's priority, the lowest possible when it stated none."""
    return LOWEST_PRIORITY if member.priority is None else member.priority


def failover_order(members: Sequence[Member]) -> list[Member]:
    """Members in takeover order: highest priority first, then smallest member id."""
    return sorted(members, key=lambda m: (-effective_priority(m), m.member_id))


def assign_failover(
    scenario: Scenario, trace: DecisionTrace | None = None
) -> dict[str, list[TopicPartition]]:
    """Member id -> partitions under the failover rules (see the module docstring)."""
    assignment: dict[str, list[TopicPartition]] = {m.member_id: [] for m in scenario.members}
    topics = scenario.topic_by_name()
    ordered = failover_order(scenario.members)
    if trace is not None:
        trace.note(
            "takeover order (priority high to low, then member id): "
            + ", ".join(f"{m.member_id} (priority {_priority_text(m)})" for m in ordered)
        )
    for topic_name in scenario.subscribed_existing_topics():
        owner = next(m for m in ordered if topic_name in m.topics)
        assignment[owner.member_id].extend(topics[topic_name].topic_partitions())
        if trace is not None:
            trace.place_all(
                topics[topic_name].topic_partitions(),
                owner.member_id,
                "2 whole topic",
                f"{owner.member_id} is the first subscriber of {topic_name} in takeover order "
                f"(priority {_priority_text(owner)}): it takes every partition of the topic",
            )
    return assignment


def _priority_text(member: Member) -> str:
    return "none: lowest" if member.priority is None else str(member.priority)


STRATEGY = PartitionStrategy(
    name="failover",
    summary=(
        "Active/passive: every partition of a topic goes to that topic's subscriber with the "
        "highest priority (ties: smallest member id); the others stand by. When the active "
        "member leaves, the next one in priority order takes over all of its partitions. Eager."
    ),
    when_to_use=(
        "Consumption that must happen on one instance at a time (ordering across partitions, a "
        "single writer downstream, a licensed or stateful sink) with hot standbys ready to take "
        "over. Not for throughput: only one member works per topic."
    ),
    consumer_config=(
        "partition.assignment.strategy=<a FailoverAssignor (protocol name 'failover')> with "
        "assignment.consumer.priority=<int>; in Python: adapters.kafka_python.FailoverAssignor"
    ),
    protocol="eager",
    compute=assign_failover,
)

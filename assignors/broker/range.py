"""``server-range``: the broker-side range assignor (KIP-848, ``group.remote.assignor=range``).

Kafka's group-coordinator ``RangeAssignor`` (trunk of October 2024), reproduced to the partition.
It hands out contiguous ranges of partition numbers, like the client-side ``range``; it reads
neither the current target assignment (``owned_partitions``) nor ``generation``: its stickiness
comes from a stable member order, which static members (``group_instance_id``) keep across
restarts. Topic ids play no part. Subscribed topics missing from the scenario are ignored.

1. Order the members: static members first, by instance id, then dynamic members by member id
   (both compared as Java's ``String.compareTo``, UTF-16 code units). The sort is stable over the
   coordinator's member map (a ``java.util.HashMap`` keyed by member id, filled in the listed
   order), which only shows when two members share an instance id.
2. Each subscribed existing topic on its own, with ``N`` partitions and ``k`` subscribers:
   ``floor = N // k``, ``extra = N % k``. Walking the subscribers in that order, each takes the next
   ``floor`` partition numbers, plus one more while ``extra`` lasts (the first ``extra``
   subscribers); a subscriber that comes after the last partition gets none of the topic.

Invariants: every partition of a subscribed existing topic goes to exactly one of its subscribers;
a topic's subscribers differ by at most one of its partitions; each member's partitions of a topic
are contiguous. With equal subscriptions and equal partition counts, every member gets the same
partition numbers of every topic (co-partitioning for joins). Homogeneous and heterogeneous groups
take the same steps (Kafka has two code paths that agree).
"""

from __future__ import annotations

from assignors.java_order import hash_order, java_string_key, string_hash
from assignors.model import Member, Scenario, TopicPartition
from assignors.strategy import PartitionStrategy
from assignors.trace import DecisionTrace


def member_order(members: tuple[Member, ...]) -> list[str]:
    """Member ids in Kafka's range order: static by instance id, then dynamic by member id."""
    by_id = {member.member_id: member for member in members}
    map_order = hash_order((member.member_id for member in members), string_hash)
    static = [m for m in map_order if by_id[m].group_instance_id is not None]
    dynamic = [m for m in map_order if by_id[m].group_instance_id is None]
    static.sort(key=lambda m: java_string_key(by_id[m].group_instance_id or ""))
    dynamic.sort(key=java_string_key)
    return static + dynamic


def compute(
    scenario: Scenario, trace: DecisionTrace | None = None
) -> dict[str, list[TopicPartition]]:
    """Member id -> partitions, as Kafka's broker-side ``RangeAssignor`` computes them."""
    counts = scenario.partition_counts()
    by_id = {member.member_id: member for member in scenario.members}
    ordered = member_order(scenario.members)
    subscribers: dict[str, list[str]] = {}
    for member_id in ordered:
        for topic in dict.fromkeys(by_id[member_id].topics):
            if topic in counts:
                subscribers.setdefault(topic, []).append(member_id)
    result: dict[str, list[TopicPartition]] = {member_id: [] for member_id in ordered}
    if trace is not None:
        trace.note(
            "member order (static members by instance id, then the rest by member id): "
            + ", ".join(ordered)
        )
    for topic, members in subscribers.items():
        partitions = [TopicPartition(topic, p) for p in range(counts[topic])]
        floor, extra = divmod(len(partitions), len(members))
        if trace is not None:
            _note_split(trace, topic, members, len(partitions), floor, extra)
        start = 0
        for position, member_id in enumerate(members):
            if start >= len(partitions):
                break
            end = start + floor + (1 if position < extra else 0)
            result[member_id] += partitions[start:end]
            if trace is not None:
                share = f"{floor} + 1 extra = {end - start}" if position < extra else f"{floor}"
                trace.place_all(
                    partitions[start:end],
                    member_id,
                    "2 range split",
                    f"subscriber #{position + 1} of {len(members)} in member order takes "
                    f"partitions {start}..{end - 1} ({share})",
                )
            start = end
    return result


def _note_split(
    trace: DecisionTrace, topic: str, members: list[str], partitions: int, floor: int, extra: int
) -> None:
    count = len(members)
    trace.note(f"subscribers of {topic} in member order: {', '.join(members)}", topic)
    trace.note(
        f"{partitions} partitions over {count} subscribers: {partitions} // {count} = {floor} "
        f"each, {partitions} % {count} = {extra} extra, one each for the first {extra}",
        topic,
    )


STRATEGY = PartitionStrategy(
    name="server-range",
    summary=(
        "Kafka 4's broker-side range assignor (KIP-848): contiguous partition ranges per topic "
        "over members sorted by instance id, then member id."
    ),
    when_to_use=(
        "Groups on the consumer rebalance protocol that join co-partitioned topics and need the "
        "same partition numbers on one member; use static members to keep ranges across restarts."
    ),
    consumer_config="group.protocol=consumer\ngroup.remote.assignor=range",
    protocol="consumer",
    compute=compute,
)

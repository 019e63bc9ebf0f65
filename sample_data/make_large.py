"""Write ``large-group.json``: a realistic, seeded, large consumer group for the dashboard.

Run ``python sample_data/make_large.py`` (or ``python -m sample_data.make_large``); the output
depends only on :data:`SEED`, so the committed file is reproducible byte for byte.

What it models, step by step:

1. Four topics of 64-256 partitions, replication factor 2 over three zones (each partition's two
   replicas sit in two different zones, picked at random).
2. Per partition a produce rate from a skewed (Pareto) distribution: a few hot partitions carry
   most of the traffic, as with a skewed key.
3. Offsets: the log start moves with retention, the log end is start plus what was retained, the
   committed offset trails the end by a lag that grows with the partition's rate; a few
   partitions have a stuck consumer (large lag) and a few have no commit at all.
4. 28 members over the three zones with different hardware (``consume_rate``), static ids on
   half of them, all subscribed to every topic, each owning what a previous roundrobin-like
   assignment gave it in generation 41.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from assignors.io.scenario import dumps_scenario

SEED = 20241023
OUTPUT = Path(__file__).with_name("large-group.json")
ZONES = ("us-east-1a", "us-east-1b", "us-east-1c")
TOPICS = (("orders", 256), ("payments", 128), ("clickstream", 192), ("inventory", 64))
MEMBER_COUNT = 28
GENERATION = 41


def build(seed: int = SEED) -> dict[str, Any]:
    """The scenario object (steps 1-4 of the module docstring)."""
    rng = random.Random(seed)
    topics: list[dict[str, Any]] = []
    for name, count in TOPICS:
        base_rate = rng.uniform(20.0, 200.0)
        rates = [round(base_rate * rng.paretovariate(1.6), 1) for _ in range(count)]
        starts: list[int] = []
        ends: list[int] = []
        committed: list[int | None] = []
        for rate in rates:
            start = rng.randrange(0, 5_000_000)
            end = start + int(rate * rng.uniform(3_600, 7 * 86_400))
            roll = rng.random()
            if roll < 0.03:
                commit: int | None = None  # never consumed: no commit
            elif roll < 0.08:
                commit = max(start, end - int(rate * rng.uniform(1_800, 20_000)))  # stuck
            else:
                commit = max(start, end - int(rate * rng.uniform(0.0, 30.0)))
            starts.append(start)
            ends.append(end)
            committed.append(commit)
        replica_racks = [sorted(rng.sample(ZONES, 2)) for _ in range(count)]
        topics.append(
            {
                "name": name,
                "partitions": count,
                "replica_racks": replica_racks,
                "log_start_offsets": starts,
                "log_end_offsets": ends,
                "committed_offsets": committed,
                "produce_rates": rates,
            }
        )
    subscription = [name for name, _ in TOPICS]
    member_ids = [f"order-service-{i:02d}-{rng.getrandbits(64):016x}" for i in range(MEMBER_COUNT)]
    partitions = [[name, p] for name, count in TOPICS for p in range(count)]
    ordered = sorted(member_ids)
    owned: dict[str, list[list[Any]]] = {member: [] for member in member_ids}
    for index, pair in enumerate(partitions):
        owned[ordered[index % len(ordered)]].append(pair)
    members: list[dict[str, Any]] = []
    for i, member_id in enumerate(member_ids):
        member: dict[str, Any] = {
            "member_id": member_id,
            "topics": subscription,
            "rack": ZONES[i % len(ZONES)],
            "client_id": f"order-service-{i:02d}",
            "host": f"/10.4.{i % len(ZONES)}.{20 + i}",
            "consume_rate": float(rng.choice((2_500, 4_000, 4_000, 6_000, 9_000))),
            "owned_partitions": owned[member_id],
            "generation": GENERATION,
        }
        if i % 2 == 0:
            member["group_instance_id"] = f"order-service-pod-{i:02d}"
        members.append(member)
    return {
        "name": "A large production-like group",
        "description": (
            f"{MEMBER_COUNT} members in three zones, four topics of 64-256 partitions, skewed"
            " produce rates and lag, different consumer speeds (seeded, from make_large.py)."
        ),
        "group_id": "order-service",
        "assignor": "cooperative-sticky",
        "topics": topics,
        "members": members,
        "walkthrough": [
            {
                "title": "Where is the lag?",
                "text": (
                    "A few hot partitions carry most of the traffic and a few consumers are"
                    " stuck: sort by lag to find them. Partition counts per member are even, lag"
                    " per member is not."
                ),
            },
            {
                "title": "Spread the lag",
                "text": (
                    "lag-aware keeps the partition counts balanced topic by topic and gives the"
                    " largest lags to the members with the least so far."
                ),
                "change": {"assignor": "lag-aware", "carry_assignment": False},
            },
            {
                "title": "A zone fails",
                "text": (
                    "Every member in us-east-1c stops. cooperative-sticky moves only their"
                    " partitions, and with racks set it prefers members in a zone holding a"
                    " replica."
                ),
                "change": {
                    "assignor": "cooperative-sticky",
                    "remove_members": [m for i, m in enumerate(member_ids) if i % 3 == 2],
                },
            },
        ],
    }


def dumps(scenario: dict[str, Any]) -> str:
    """JSON text with one topic, member or step per line (the project's scenario layout)."""
    return dumps_scenario(scenario)


def main() -> None:
    OUTPUT.write_text(dumps(build()), encoding="utf-8")
    print(f"wrote {OUTPUT}")


if __name__ == "__main__":
    main()

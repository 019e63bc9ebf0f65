"""Seeded generators of groups of every shape Kafka's assignors care about.

One seed -> one request (``{"id", "strategy", "scenario"}``), reproducibly: the case id carries
the seed, so ``case(strategy, seed)`` rebuilds any case a run reports.

Partition groups: one to six topics (empty topics included), given or derived topic ids, replica
racks, member ids that share a Java ``String.hashCode`` (built from the colliding blocks "Aa" and
"BB") or a hash bucket, static members, member racks, homogeneous or mixed subscriptions
(sometimes naming a topic that does not exist), more members than partitions, and current owners
with generations: owners from an earlier balanced or random spread, members that left or joined,
doubly claimed partitions (same or different generations), claims on topics a member no longer
subscribes to, or (except for the sticky assignors, where Kafka then hands out the missing
partition or throws while ours drops the claim: a known gap) on partitions that do not exist.

Streams groups for ``streams-ha``: :mod:`tests.differential.streams_ha_cases` (which also says
what they cover). For ``streams-sticky``: tasks over one to four subtopologies, stateful or
stateless, clients with capacities and UUIDs at the signed extremes, lags (``-2`` ran as
active, ``-3`` unknown, around ``acceptable_recovery_lag``, large), previous active / standby
tasks, standby replicas, warm-up limits.
"""

from __future__ import annotations

import base64
import random
import uuid
from typing import Any

from tests.differential.core import STREAMS_GROUP_STRATEGIES, STREAMS_STRATEGIES
from tests.differential.streams_ha_cases import streams_ha_scenario

TOPIC_NAMES = ("t0", "t1", "t2", "orders", "payments", "clicks", "a", "B", "audit", "logs_raw")
RACKS = ("r0", "r1", "r2")
#: Two strings with one Java hashCode; any concatenation of them shares it with its permutations.
COLLIDING_BLOCKS = ("Aa", "BB")
#: At most this many member ids share one hash: a ninth turns Java's HashMap bin into a tree, whose
#: iteration order ``assignors.java_order`` does not reproduce yet (a known gap of ``uniform``).
MAX_SAME_HASH = 8


def case(strategy: str, seed: int) -> dict[str, Any]:
    """The request for ``strategy`` built from ``seed`` (same seed, same request)."""
    rng = random.Random(f"{strategy}:{seed}")
    if strategy == "streams-ha":
        scenario = streams_ha_scenario(rng)
    elif strategy in STREAMS_STRATEGIES:
        scenario = streams_scenario(rng)
    elif strategy in STREAMS_GROUP_STRATEGIES:
        scenario = streams_group_scenario(rng)
    else:
        scenario = partition_scenario(rng, strategy)
    return {"id": f"{strategy}:{seed}", "strategy": strategy, "scenario": scenario}


def partition_scenario(rng: random.Random, strategy: str) -> dict[str, Any]:
    topics = _topics(rng, server=strategy in ("uniform", "server-range", "share-simple"))
    names = [topic["name"] for topic in topics]
    member_ids = _member_ids(rng, rng.choice((1, 2, 3, 3, 4, 5, 6, 8, 12)))
    subscriptions = _subscriptions(rng, names, len(member_ids))
    members: list[dict[str, Any]] = []
    for member_id, subscription in zip(member_ids, subscriptions, strict=True):
        member: dict[str, Any] = {"member_id": member_id, "topics": subscription}
        if rng.random() < 0.3:
            member["rack"] = rng.choice(RACKS)
        if rng.random() < 0.2:
            member["group_instance_id"] = f"instance-{rng.randrange(1000)}"
        members.append(member)
    if rng.random() < 0.6:
        if strategy == "share-simple" and rng.random() < 0.6:
            _shared_claims(rng, topics, members)
        else:
            _claims(rng, topics, members, strategy)
    rng.shuffle(members)
    return {"topics": topics, "members": members}


def crowded_claims_case(strategy: str, seed: int) -> dict[str, Any]:
    """A small group whose members' claims crowd: each partition claimed by zero to three
    members, generations from three in a row (or none), so that claims of several generations
    meet on one partition far more often than in :func:`case` (the sticky assignors' claim
    rules differ by release line there). No racks; claims only on partitions that exist."""
    rng = random.Random(f"crowded:{strategy}:{seed}")
    topics = [
        {"name": name, "partitions": rng.randint(1, 6)}
        for name in rng.sample(TOPIC_NAMES, rng.randint(1, 3))
    ]
    names = [topic["name"] for topic in topics]
    member_ids = _member_ids(rng, rng.randint(2, 6))
    newest = rng.randint(1, 6)
    members: list[dict[str, Any]] = []
    for member_id, subscription in zip(
        member_ids, _subscriptions(rng, names, len(member_ids)), strict=True
    ):
        member: dict[str, Any] = {"member_id": member_id, "topics": subscription}
        generation = rng.choice((None, newest - 2, newest - 1, newest, newest))
        if generation is not None:
            member["generation"] = generation
        member["owned_partitions"] = []
        members.append(member)
    for topic in topics:
        for partition in range(topic["partitions"]):
            for member in rng.sample(members, min(len(members), rng.choice((0, 1, 2, 2, 3)))):
                member["owned_partitions"].append([topic["name"], partition])
    for member in members:
        rng.shuffle(member["owned_partitions"])
    scenario = {"topics": topics, "members": members}
    return {"id": f"{strategy}:crowded:{seed}", "strategy": strategy, "scenario": scenario}


def _topics(rng: random.Random, server: bool) -> list[dict[str, Any]]:
    count = rng.choice((1, 1, 2, 2, 3, 3, 4, 6))
    topics = []
    for name in rng.sample(TOPIC_NAMES, count):
        partitions = (
            rng.choice((0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 24)) if rng.random() < 0.9 else 1
        )
        topic: dict[str, Any] = {"name": name, "partitions": partitions}
        if server and rng.random() < 0.5:
            topic["id"] = base64.urlsafe_b64encode(rng.randbytes(16)).decode().rstrip("=")
        if rng.random() < 0.3:
            topic["replica_racks"] = [
                rng.sample(RACKS, rng.choice((1, 1, 2, 3))) for _ in range(partitions)
            ]
        topics.append(topic)
    return topics


def _member_ids(rng: random.Random, count: int, colliding: bool = True) -> list[str]:
    kinds: tuple[str, ...] = ("short", "uuid", "consumer")
    if colliding:
        kinds = (*kinds, "colliding")
    style = rng.choice((*kinds, "mixed"))
    ids: list[str] = []
    for _ in range(50 * count):
        if len(ids) == count:
            break
        kind = rng.choice(kinds) if style == "mixed" else style
        if kind == "short":
            member_id = f"c{rng.randrange(40)}"
        elif kind == "uuid":
            member_id = base64.urlsafe_b64encode(rng.randbytes(16)).decode().rstrip("=")
        elif kind == "consumer":
            member_id = f"consumer-{rng.randrange(5)}-{uuid.UUID(int=rng.getrandbits(128))}"
        elif sum(i.startswith("m-") for i in ids) < MAX_SAME_HASH:
            member_id = "m-" + "".join(rng.choice(COLLIDING_BLOCKS) for _ in range(4))
        else:
            continue
        if member_id not in ids:
            ids.append(member_id)
    return ids


def _subscriptions(rng: random.Random, names: list[str], members: int) -> list[list[str]]:
    shape = rng.random()
    if shape < 0.5:
        common = names if rng.random() < 0.7 else rng.sample(names, rng.randint(1, len(names)))
        if rng.random() < 0.1:
            common = [*common, "ghost"]
        return [rng.sample(common, len(common)) for _ in range(members)]
    result = []
    for _ in range(members):
        chosen = rng.sample(names, rng.randint(1, len(names)))
        if rng.random() < 0.05:
            chosen.append("ghost")
        result.append(chosen)
    return result


def _claims(
    rng: random.Random, topics: list[dict[str, Any]], members: list[dict[str, Any]], strategy: str
) -> None:
    """Current owners: an earlier spread over (most of) the members, with generations."""
    generation = rng.randint(1, 6)
    holders = [m for m in members if rng.random() < 0.85] or members[:1]
    for topic in topics:
        for partition in range(topic["partitions"]):
            if rng.random() < 0.15:
                continue  # nobody holds it (new partition, or its owner left)
            subscribers = [m for m in holders if topic["name"] in m["topics"]]
            if rng.random() < 0.05 or not subscribers:
                subscribers = holders  # a claim on a topic the member no longer subscribes to
            owner = rng.choice(subscribers)
            owner.setdefault("owned_partitions", []).append([topic["name"], partition])
            if rng.random() < 0.04:
                other = rng.choice(holders)
                if other is not owner:
                    other.setdefault("owned_partitions", []).append([topic["name"], partition])
    if rng.random() < 0.05 and topics and strategy not in ("sticky", "cooperative-sticky"):
        rng.choice(holders).setdefault("owned_partitions", []).append(
            [topics[0]["name"], topics[0]["partitions"] + rng.randint(0, 2)]
        )
    for member in holders:
        if "owned_partitions" in member or rng.random() < 0.3:
            roll = rng.random()
            if roll < 0.7:
                member["generation"] = generation
            elif roll < 0.9:
                member["generation"] = generation - rng.randint(1, 2)
        if "owned_partitions" in member:
            rng.shuffle(member["owned_partitions"])


def _shared_claims(
    rng: random.Random, topics: list[dict[str, Any]], members: list[dict[str, Any]]
) -> None:
    """Share-group targets: each partition held by zero to several members (often too many)."""
    for topic in topics:
        for partition in range(topic["partitions"]):
            holders = rng.sample(members, min(len(members), rng.choice((0, 1, 1, 2, 3, 5))))
            for member in holders:
                if topic["name"] in member["topics"] or rng.random() < 0.1:
                    member.setdefault("owned_partitions", []).append([topic["name"], partition])
    for member in members:
        if "owned_partitions" in member:
            rng.shuffle(member["owned_partitions"])


def streams_scenario(rng: random.Random) -> dict[str, Any]:
    tasks = []
    for subtopology in range(rng.randint(1, 4)):
        stateful = rng.random() < 0.6
        for partition in range(rng.choice((1, 2, 3, 4, 6, 8, 12))):
            tasks.append(
                {"id": f"{subtopology}_{partition}", "stateful": stateful or rng.random() < 0.1}
            )
    rng.shuffle(tasks)
    config = {
        "num_standby_replicas": rng.choice((0, 0, 1, 1, 2)),
        "acceptable_recovery_lag": rng.choice((0, 100, 10_000)),
        "max_warmup_replicas": rng.choice((1, 2, 3)),
        "probing_rebalance_interval_ms": 600_000,
    }
    stateful_ids = [task["id"] for task in tasks if task["stateful"]]
    task_ids = [task["id"] for task in tasks]
    clients = []
    seen: set[str] = set()
    for _ in range(rng.choice((1, 2, 3, 3, 4, 5, 6))):
        process_id = _process_id(rng)
        if process_id in seen:
            continue
        seen.add(process_id)
        prev_active = sorted(t for t in task_ids if rng.random() < 0.3)
        prev_standby = sorted(
            t for t in stateful_ids if t not in prev_active and rng.random() < 0.2
        )
        lags = {
            t: _lag(rng, t in prev_active, config["acceptable_recovery_lag"]) for t in stateful_ids
        }
        clients.append(
            {
                "process_id": process_id,
                "capacity": rng.choice((1, 1, 2, 3, 4)),
                "prev_active": prev_active,
                "prev_standby": prev_standby,
                "task_lags": lags,
            }
        )
    return {"tasks": tasks, "clients": clients, "config": config}


def _process_id(rng: random.Random) -> str:
    halves = [rng.getrandbits(64), rng.getrandbits(64)]
    for half in (0, 1):
        if rng.random() < 0.15:
            halves[half] = rng.choice((0, 2**63 - 1, 2**63, 2**64 - 1))
    return str(uuid.UUID(int=(halves[0] << 64) | halves[1]))


def _lag(rng: random.Random, was_active: bool, acceptable: int) -> int:
    roll = rng.random()
    if was_active and roll < 0.6:
        return -2
    if roll < 0.1:
        return -3
    if roll < 0.3:
        return 0
    if roll < 0.6:
        return max(0, acceptable + rng.randint(-2, 2))
    return rng.choice((rng.randint(0, 50), rng.randint(0, 20_000), rng.randint(0, 10**7)))


def streams_group_scenario(rng: random.Random) -> dict[str, Any]:
    """A Streams group (KIP-1071): subtopologies (up to 12, so "10" sorts before "2"), processes
    of one to four members (ids of every style, colliding hashes included; one group in ten
    larger: up to 20 processes of up to 8, ids without colliding hashes), a previous target
    assignment with owners that left, doubly claimed actives and standbys, and offset sums
    (ties, -2 for running actives, dormant state on other members); some clients list no
    members and stand for their threads."""
    large = rng.random() < 0.1  # more processes and threads than buckets in a small HashMap
    tasks: list[dict[str, Any]] = []
    stateful_ids: list[str] = []
    for subtopology in range(rng.choice((1, 1, 2, 2, 3, 4, 12))):
        stateful = rng.random() < 0.6
        for partition in range(rng.choice((1, 2, 3, 4, 6, 8, 12, *((24, 32) if large else ())))):
            task_id = f"{subtopology}_{partition}"
            tasks.append({"id": task_id, "stateful": stateful})
            if stateful:
                stateful_ids.append(task_id)
    rng.shuffle(tasks)
    standbys = rng.choice((0, 0, 1, 1, 2, 3))
    processes = rng.choice((8, 12, 20)) if large else rng.choice((1, 2, 3, 4, 6))
    process_ids = list(dict.fromkeys(_process_id(rng) for _ in range(processes)))
    sizes = [rng.choice((1, 2, 4, 8) if large else (1, 1, 2, 3, 4)) for _ in process_ids]
    # Large groups (HashMaps of 64 buckets and more) without colliding ids: eight of them plus
    # one more id in their bucket make a tree bin, whose order java_order does not model.
    member_ids = iter(_member_ids(rng, sum(sizes) + 4, colliding=not large))
    clients: list[dict[str, Any]] = []
    members: list[dict[str, Any]] = []
    for process_id, size in zip(process_ids, sizes, strict=True):
        client: dict[str, Any] = {"process_id": process_id, "capacity": size}
        client["task_lags"] = {t: rng.choice((-2, 0, 50, 20_000)) for t in stateful_ids}
        if rng.random() < 0.15:
            client["prev_active"], client["prev_standby"] = [], []
            members.append(client)  # a client without members: its tasks at the client level
        else:
            client["members"] = []
            for _ in range(size):
                member_id = next(member_ids, None) or f"extra-{len(members)}"
                member = {"member_id": member_id, "prev_active": [], "prev_standby": []}
                client["members"].append(member)
                members.append(member)
        clients.append(client)
    _group_history(rng, [t["id"] for t in tasks], stateful_ids, members, standbys)
    rng.shuffle(clients)
    return {"tasks": tasks, "clients": clients, "config": {"num_standby_replicas": standbys}}


def streams_group_equal_case(seed: int) -> dict[str, Any]:
    """The request of :func:`streams_group_equal_scenario` built from ``seed``."""
    scenario = streams_group_equal_scenario(random.Random(f"streams-group-equal:{seed}"))
    return {
        "id": f"streams-group-equal:{seed}",
        "strategy": "streams-group-sticky",
        "scenario": scenario,
    }


def streams_group_equal_scenario(rng: random.Random) -> dict[str, Any]:
    """A Streams group whose processes all have as many members (1 to 3), 2 to 130 processes,
    up to 1,400 tasks: Kafka's process queue then polls whole rounds of equal loads, which our
    assignor takes a round at a time. New, after a balanced assignment (some processes left
    since), or with :func:`_group_history`'s history; 0 to 3 standbys."""
    size, processes = rng.choice((1, 1, 2, 3)), rng.choice((2, 3, 5, 7, 16, 40, 130))
    tasks: list[dict[str, Any]] = []
    stateful_ids: list[str] = []
    for subtopology in range(rng.randint(1, 14)):
        stateful = rng.random() < 0.5
        for partition in range(rng.choice((1, 3, 8, 30, 64, 100))):
            tasks.append({"id": f"{subtopology}_{partition}", "stateful": stateful})
            if stateful:
                stateful_ids.append(f"{subtopology}_{partition}")
    process_ids: dict[str, None] = {}
    while len(process_ids) < processes:  # distinct: an instance appears once
        process_ids[_process_id(rng)] = None
    member_ids = _member_ids(rng, processes * size, colliding=False)
    member_ids += [f"extra-{n}" for n in range(processes * size - len(member_ids))]
    clients: list[dict[str, Any]] = []
    for index, process_id in enumerate(process_ids):
        members = [
            {
                "member_id": member_ids[index * size + n],
                "prev_active": [],
                "prev_standby": [],
            }
            for n in range(size)
        ]
        lags = dict.fromkeys(stateful_ids, 0)
        clients.append(
            {
                "process_id": process_id,
                "capacity": size,
                "members": members,
                "task_lags": lags,
            }
        )
    standbys = rng.choice((0, 1, 1, 2, 3))
    history = rng.random()
    holders = [member for client in clients for member in client["members"]]
    if history < 0.4:  # a balanced assignment, then some processes left
        for index, task in enumerate(tasks):
            if rng.random() < 0.95:
                holders[index % len(holders)]["prev_active"].append(task["id"])
        for index, task_id in enumerate(stateful_ids):
            holder = holders[(index + size) % len(holders)]
            if task_id not in holder["prev_active"]:
                holder["prev_standby"].append(task_id)
        clients = [c for c in clients if rng.random() < 0.9] or clients[:1]
    elif history < 0.7:
        _group_history(rng, [t["id"] for t in tasks], stateful_ids, holders, standbys)
    rng.shuffle(clients)
    return {"tasks": tasks, "clients": clients, "config": {"num_standby_replicas": standbys}}


def _group_history(
    rng: random.Random,
    task_ids: list[str],
    stateful_ids: list[str],
    holders: list[dict[str, Any]],
    standbys: int,
) -> None:
    """Previous active / standby tasks and offset sums on ``holders`` (members or clients)."""
    if rng.random() < 0.15:
        return  # a new group
    present = [h for h in holders if rng.random() < 0.8] or holders[:1]
    offsets = (0, 100, 100, 5_000, rng.randrange(10**6))
    for task in task_ids:
        if rng.random() < 0.8:
            owners = rng.sample(present, 2 if rng.random() < 0.05 and len(present) > 1 else 1)
            for owner in owners:
                owner["prev_active"].append(task)
                if task in stateful_ids and "member_id" in owner and rng.random() < 0.7:
                    owner.setdefault("task_offsets", {})[task] = rng.choice((-2, *offsets))
        if task not in stateful_ids:
            continue
        for holder in rng.sample(present, min(len(present), rng.randint(0, standbys + 1))):
            if task not in holder["prev_active"]:
                holder["prev_standby"].append(task)
                if "member_id" in holder and rng.random() < 0.7:
                    holder.setdefault("task_offsets", {})[task] = rng.choice(offsets)
        for holder in present:
            if "member_id" in holder and rng.random() < 0.1:
                holder.setdefault("task_offsets", {}).setdefault(task, rng.choice(offsets))
    for holder in holders:
        rng.shuffle(holder["prev_active"])
        rng.shuffle(holder["prev_standby"])

"""Seeded Kafka Streams groups for ``streams-ha``, and what each one covers.

Kafka's ``HighAvailabilityTaskAssignor`` decides by loads (tasks per thread), UUID order and
lags, and its movement steps keep a ``java.util.PriorityQueue`` of clients whose loads change
while they sit in it: which client a poll answers then depends on the heap's layout, built by
every earlier offer and poll. The groups here reach those paths: up to 32 clients (often eight
and more) and up to 120 tasks, with capacities 1 to 4 (so loads tie across capacities: 1 task on
1 thread and 2 on 2), process ids of several styles (random UUIDs, UUIDs at the signed extremes of
``UUID.compareTo``, small sequential ones) listed shuffled, sorted or reversed, previous active
and standby tasks, and lags as Kafka computes them (``ClientState.computeTaskLags``): ``-2``
(``Task.LATEST_OFFSET``: ran the task as active), ``-3`` (``SubscriptionInfo.UNKNOWN_OFFSET_SUM``:
offset unknown; every client's lag is ``-3`` when the end offsets could not be fetched), the end
offset sum itself (no state on disk, or state ahead of the log: ties across clients), ``0``, a
lag at or just past ``acceptable_recovery_lag``, and large ones; ``acceptable_recovery_lag`` is
sometimes Java's ``Long.MAX_VALUE`` (every client caught up). One to three standbys, one to
three warm-ups, so that warm-up slots run out while movements remain.

:func:`features` reads a generated scenario (not the generator's choices) and names what it
covers; :data:`FEATURES` lists every name the generator promises, and the test suite fails when
one is never generated. ``python -m tests.differential.streams_ha_cases [cases]`` prints the
coverage table.
"""

from __future__ import annotations

import random
import sys
import uuid
from collections import Counter
from typing import Any

LATEST_OFFSET = -2
UNKNOWN_OFFSET_SUM = -3
JAVA_LONG_MAX = 2**63 - 1

#: Every feature :func:`features` can name, grouped by what it describes.
FEATURES = (
    "clients: 1-3",
    "clients: 4-7",
    "clients: 8-12",
    "clients: 13-32",
    "stateful tasks: 1-8",
    "stateful tasks: 9-24",
    "stateful tasks: 25-48",
    "stateful tasks: 49+",
    "stateless tasks",
    "capacity 1",
    "capacity 2",
    "capacity 3",
    "capacity 4",
    "equal capacities",
    "loads tie across capacities",
    "ids: random UUIDs",
    "ids: signed extremes",
    "ids: small sequential",
    "order: shuffled",
    "order: sorted",
    "order: reversed",
    "previous actives",
    "previous standbys",
    "no previous tasks",
    "lag -2 (LATEST_OFFSET)",
    "lag -3 (UNKNOWN_OFFSET_SUM)",
    "lag: end offset sum tie",
    "lag 0",
    "lag at acceptable",
    "lag just past acceptable",
    "lag large",
    "end offsets unknown (all -3)",
    "acceptable lag Long.MAX_VALUE",
    "standbys 0",
    "standbys 1",
    "standbys 2",
    "standbys 3",
    "warm-ups 1",
    "warm-ups 2-3",
)


def streams_ha_scenario(rng: random.Random) -> dict[str, Any]:
    """One group (see the module docstring); the same ``rng`` state gives the same group."""
    tasks = _tasks(rng)
    stateful = [task["id"] for task in tasks if task["stateful"]]
    config = {
        "num_standby_replicas": rng.choice((0, 1, 1, 1, 2, 2, 3)),
        "acceptable_recovery_lag": rng.choice((0, 0, 100, 100, 10_000, JAVA_LONG_MAX)),
        "max_warmup_replicas": rng.choice((1, 1, 1, 2, 3)),
        "probing_rebalance_interval_ms": 600_000,
    }
    count = rng.choice((1, 2, 3, 4, 5, 6, 7, 8, 8, 9, 10, 12, 12, 16, 16, 20))
    process_ids = _process_ids(rng, count)
    history = _history(rng, [task["id"] for task in tasks], stateful, count)
    lags = _lags(rng, stateful, history, config["acceptable_recovery_lag"], count)
    same_capacity = rng.random() < 0.25
    capacity = rng.randint(1, 4)
    clients: list[dict[str, Any]] = [
        {
            "process_id": process_id,
            "capacity": capacity if same_capacity else rng.randint(1, 4),
            "prev_active": sorted(history[index][0]),
            "prev_standby": sorted(history[index][1]),
            "task_lags": lags[index],
        }
        for index, process_id in enumerate(process_ids)
    ]
    order = rng.choice(("shuffled", "shuffled", "sorted", "reversed"))
    if order == "shuffled":
        rng.shuffle(clients)
    else:
        clients.sort(key=lambda c: _java_uuid_order(c["process_id"]), reverse=order == "reversed")
    return {"tasks": tasks, "clients": clients, "config": config}


def _tasks(rng: random.Random) -> list[dict[str, Any]]:
    tasks = []
    for subtopology in range(rng.randint(1, 5)):
        stateful = rng.random() < 0.8
        for partition in range(rng.choice((1, 2, 3, 4, 6, 8, 12, 16, 24))):
            tasks.append({"id": f"{subtopology}_{partition}", "stateful": stateful})
    rng.shuffle(tasks)
    return tasks


def _process_ids(rng: random.Random, count: int) -> list[str]:
    style = rng.choice(("random", "random", "random", "extremes", "small", "mixed"))
    ids: dict[str, None] = {}
    while len(ids) < count:
        kind = rng.choice(("random", "extremes", "small")) if style == "mixed" else style
        if kind == "random":
            ids[str(uuid.UUID(int=rng.getrandbits(128)))] = None
        elif kind == "small":
            ids[str(uuid.UUID(int=rng.randrange(1, 64)))] = None
        else:
            halves = [rng.getrandbits(64), rng.getrandbits(64)]
            halves[rng.randrange(2)] = rng.choice((0, 2**63 - 1, 2**63, 2**64 - 1))
            ids[str(uuid.UUID(int=(halves[0] << 64) | halves[1]))] = None
    return list(ids)


def _history(
    rng: random.Random, task_ids: list[str], stateful: list[str], count: int
) -> list[tuple[set[str], set[str]]]:
    """Each client's previous active and standby tasks: none (a new group), or an earlier
    owner per task (some of them gone: ``count + 2`` owners) and standbys beside it."""
    history: list[tuple[set[str], set[str]]] = [(set(), set()) for _ in range(count)]
    if rng.random() < 0.15:
        return history
    for task in task_ids:
        owner = rng.randrange(count + 2)
        if owner < count:
            history[owner][0].add(task)
        if task in stateful:
            for client in range(count):
                if client != owner and rng.random() < 0.25:
                    history[client][1].add(task)
    return history


def _lags(
    rng: random.Random,
    stateful: list[str],
    history: list[tuple[set[str], set[str]]],
    acceptable: int,
    count: int,
) -> list[dict[str, int]]:
    """Lags as ``ClientState.computeTaskLags`` makes them from offset sums."""
    unknown_end_offsets = rng.random() < 0.08  # every lag -3 but the running actives'
    near = acceptable if acceptable < JAVA_LONG_MAX else 10_000
    end_offset = {task: rng.choice((0, 50, near + 1, 20_000, 10**7)) for task in stateful}
    lags: list[dict[str, int]] = [{} for _ in range(count)]
    for index, (active, standby) in enumerate(history):
        for task in stateful:
            roll = rng.random()
            if task in active and roll < 0.7:
                lag = LATEST_OFFSET
            elif unknown_end_offsets or roll < 0.1:
                lag = UNKNOWN_OFFSET_SUM
            elif task in standby or task in active:
                lag = rng.choice((0, near, near + 1, end_offset[task] // 3, rng.randrange(100)))
            elif roll < 0.75:
                lag = end_offset[task]  # no state on disk (or state ahead of the log)
            else:
                lag = rng.choice((0, near, near + 1, 10**9))
            lags[index][task] = lag
    return lags


def _java_uuid_order(process_id: str) -> tuple[int, int]:
    value = uuid.UUID(process_id).int
    high, low = value >> 64, value & (2**64 - 1)
    return (high - 2**64 if high >= 2**63 else high, low - 2**64 if low >= 2**63 else low)


def features(scenario: dict[str, Any]) -> set[str]:
    """The :data:`FEATURES` that ``scenario`` covers, read from the scenario itself."""
    clients, config = scenario["clients"], scenario["config"]
    stateful = [task["id"] for task in scenario["tasks"] if task["stateful"]]
    found = {_size("clients", len(clients), ((1, 3), (4, 7), (8, 12), (13, 32)))}
    found.add(_size("stateful tasks", len(stateful), ((1, 8), (9, 24), (25, 48), (49, 10**9))))
    if len(stateful) < len(scenario["tasks"]):
        found.add("stateless tasks")
    found |= _capacity_features([client["capacity"] for client in clients])
    found |= _id_features([client["process_id"] for client in clients])
    found |= _history_features(clients)
    found |= _lag_features(clients, stateful, config["acceptable_recovery_lag"])
    found.add(f"standbys {config['num_standby_replicas']}")
    found.add("warm-ups 1" if config["max_warmup_replicas"] == 1 else "warm-ups 2-3")
    return found & set(FEATURES)


def _size(label: str, value: int, ranges: tuple[tuple[int, int], ...]) -> str:
    for low, high in ranges:
        if low <= value <= high:
            return f"{label}: {low}-{high}" if high < 10**9 else f"{label}: {low}+"
    return f"{label}: none"


def _capacity_features(capacities: list[int]) -> set[str]:
    found = {f"capacity {capacity}" for capacity in capacities}
    if len(capacities) > 1 and len(set(capacities)) < len(capacities):
        found.add("equal capacities")
    if any(b % a == 0 and a != b for a in capacities for b in capacities):
        found.add("loads tie across capacities")  # n tasks on a threads, n*b/a on b threads
    return found


def _id_features(process_ids: list[str]) -> set[str]:
    found: set[str] = set()
    for process_id in process_ids:
        value = uuid.UUID(process_id).int
        high, low = value >> 64, value & (2**64 - 1)
        if value < 64:
            found.add("ids: small sequential")
        elif {high, low} & {0, 2**63 - 1, 2**63, 2**64 - 1}:
            found.add("ids: signed extremes")
        else:
            found.add("ids: random UUIDs")
    java = sorted(process_ids, key=_java_uuid_order)
    if len(process_ids) > 2:
        if process_ids == java:
            found.add("order: sorted")
        elif process_ids == java[::-1]:
            found.add("order: reversed")
        else:
            found.add("order: shuffled")
    return found


def _history_features(clients: list[dict[str, Any]]) -> set[str]:
    found: set[str] = set()
    if any(client.get("prev_active") for client in clients):
        found.add("previous actives")
    if any(client.get("prev_standby") for client in clients):
        found.add("previous standbys")
    if not found:
        found.add("no previous tasks")
    return found


def _lag_features(clients: list[dict[str, Any]], stateful: list[str], acceptable: int) -> set[str]:
    found: set[str] = set()
    if acceptable == JAVA_LONG_MAX:
        found.add("acceptable lag Long.MAX_VALUE")
    for task in stateful:
        lags = [client["task_lags"][task] for client in clients]
        named = {
            LATEST_OFFSET: "lag -2 (LATEST_OFFSET)",
            UNKNOWN_OFFSET_SUM: "lag -3 (UNKNOWN_OFFSET_SUM)",
            0: "lag 0",
        }
        found |= {named[lag] for lag in lags if lag in named}
        if acceptable < JAVA_LONG_MAX:
            if acceptable in lags and acceptable > 0:
                found.add("lag at acceptable")
            if acceptable + 1 in lags:
                found.add("lag just past acceptable")
        if any(lag > 10**6 for lag in lags):
            found.add("lag large")
        positive = Counter(lag for lag in lags if lag > 0)
        if any(times > 1 for times in positive.values()):
            found.add("lag: end offset sum tie")
        if (
            len(lags) > 1
            and set(lags) <= {LATEST_OFFSET, UNKNOWN_OFFSET_SUM}
            and (UNKNOWN_OFFSET_SUM in lags)
        ):
            found.add("end offsets unknown (all -3)")
    return found


def coverage(cases: int, first_seed: int = 0) -> Counter[str]:
    """How many of ``cases`` generated groups (``generate.case`` seeds) cover each feature."""
    from tests.differential.generate import case

    counts: Counter[str] = Counter(dict.fromkeys(FEATURES, 0))
    for seed in range(first_seed, first_seed + cases):
        counts.update(features(case("streams-ha", seed)["scenario"]))
    return counts


def coverage_table(counts: Counter[str], cases: int) -> str:
    width = max(map(len, FEATURES))
    lines = [f"streams-ha generator: {cases:,} cases", f"{'feature':<{width}}  cases"]
    lines += [f"{name:<{width}}  {counts[name]:>6,}" for name in FEATURES]
    return "\n".join(lines)


if __name__ == "__main__":
    total = int(sys.argv[1]) if len(sys.argv) > 1 else 2_000
    print(coverage_table(coverage(total), total))

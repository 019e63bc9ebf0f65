"""Seeded synthetic offset history: ``python -m pipeline synth --groups 1000 --hours 24``.

Writes ``OUTPUT/offsets/*.parquet`` and ``OUTPUT/members/*.parquet`` in the documented format
(``docs/pipeline.md``). The same arguments give byte-for-byte the same rows.

The model, per group ``g`` (its own random stream, seeded by ``(seed, g)``):

1. Shape: one or two topics, ``P`` partitions in all (log-uniform between the bounds), ``M``
   members (log-uniform, at most ``P``), an assignor among range, roundrobin, sticky and
   cooperative-sticky; members subscribe to every topic of the group.
2. Produce rate of partition ``p`` at time ``t``: ``base_g * skew_p * diurnal(t) * burst_g(t)``
   with ``diurnal(t) = 1 + 0.6 sin(2 pi (t / 1 day - phase_g))``, a lognormal skew, in 15% of
   groups one *hot* partition at 6x, and bursts (3x to 8x for 5 to 20 minutes, about one per
   six hours).
3. Each member reads at most ``capacity`` records/s, sized for the group's peak load at a
   utilisation between 0.45 and 1.15 (so some groups fall behind at peak); a member's reads are
   shared among its partitions in proportion to their backlog (the drain model of
   :mod:`assignors.simulate.drain`). Offsets are whole records (floored).
4. Incidents: 30% of groups lose a member and gain a new one a few minutes later (churn; the
   group re-assigns with its own strategy through :func:`assignors.simulate.rebalance.simulate`, the
   rebalance itself taking no time); 5% have a member stuck for an hour (owns its partitions,
   reads nothing: STALL); 2% lose every member for an hour (STOP); 1% rewind one partition's
   committed offset (REWIND).

The simulation advances all groups together, one vectorised step per sample interval.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from assignors import (
    Assignment,
    Member,
    PartitionStrategy,
    Scenario,
    Topic,
    TopicPartition,
    registry,
)
from pipeline.scenarios import _target

ASSIGNORS = ("range", "roundrobin", "sticky", "cooperative-sticky")
ASSIGNOR_WEIGHTS = (0.4, 0.15, 0.15, 0.3)
DEFAULT_START = datetime(2026, 1, 5, tzinfo=UTC)
#: Steps per written file: bounds memory on long histories.
STEPS_PER_FILE = 240


@dataclass(frozen=True, slots=True)
class SynthConfig:
    """What to generate; the defaults make a day of 60-second samples."""

    groups: int = 100
    hours: float = 24.0
    interval_s: int = 60
    seed: int = 7
    clusters: int = 1
    min_partitions: int = 4
    max_partitions: int = 64
    min_members: int = 1
    max_members: int = 16
    start: datetime = field(default=DEFAULT_START)
    #: Give group ``i`` incident ``i % 6`` for sure (1 churn, 2 stuck member, 3 hot partition,
    #: 4 stopped group, 5 rewind): a small history then shows every case.
    every_incident: bool = False

    @property
    def steps(self) -> int:
        return max(1, round(self.hours * 3600 / self.interval_s) + 1)


@dataclass(slots=True)
class _Member:
    member_id: str
    client_id: str
    host: str
    rack: str
    instance: str | None
    capacity: float
    stuck: tuple[int, int] | None = None


@dataclass(slots=True)
class _Group:
    name: str
    cluster: str
    topics: tuple[tuple[str, int], ...]
    assignor: str
    base_rates: np.ndarray
    phase: float
    bursts: list[tuple[int, int, float]]
    members: list[_Member]
    #: step -> ("leave", member index) / ("join", _Member) / ("stop"|"start", ...)
    events: dict[int, list[tuple[str, object]]]
    rewind: tuple[int, int] | None
    first: int = 0  # index of the group's first partition in the global arrays
    next_member: int = 0


def _log_uniform(rng: np.random.Generator, low: int, high: int) -> int:
    return round(math.exp(rng.uniform(math.log(low), math.log(high + 0.499))))


def _make_member(rng: np.random.Generator, group: str, number: int, capacity: float) -> _Member:
    host = f"10.{rng.integers(0, 255)}.{rng.integers(0, 255)}.{rng.integers(1, 255)}"
    return _Member(
        member_id=f"{group}-c{number}-{rng.integers(0, 16**8):08x}",
        client_id=f"{group}-c{number}",
        host=f"/{host}",
        rack=f"az{1 + number % 3}",
        instance=None,
        capacity=capacity,
    )


def _make_group(config: SynthConfig, index: int) -> _Group:
    rng = np.random.default_rng([config.seed, index])
    forced = index % 6 if config.every_incident else -1
    name = f"group-{index:05d}"
    partitions = _log_uniform(rng, config.min_partitions, config.max_partitions)
    members = min(_log_uniform(rng, config.min_members, config.max_members), partitions)
    if partitions >= 8 and rng.random() < 0.3:
        split = int(rng.integers(1, partitions))
        topics: tuple[tuple[str, int], ...] = (
            (f"{name}-a", split),
            (f"{name}-b", partitions - split),
        )
    else:
        topics = ((f"{name}-events", partitions),)
    assignor = str(rng.choice(ASSIGNORS, p=ASSIGNOR_WEIGHTS))
    base = math.exp(rng.uniform(math.log(5), math.log(500)))
    rates = base * rng.lognormal(0.0, 0.3, partitions)
    if (rng.random() < 0.15) | (forced == 3):
        rates[int(rng.integers(0, partitions))] *= 6.0
    peak = float(rates.sum()) * 1.6
    utilisation = rng.uniform(0.45, 1.15)
    capacity = peak / members / utilisation
    crew = [_make_member(rng, name, n, capacity * rng.uniform(0.9, 1.1)) for n in range(members)]
    steps = config.steps
    bursts = []
    expected = config.hours / 6.0
    for _ in range(int(rng.poisson(expected))):
        start = int(rng.integers(0, steps))
        length = max(1, int(rng.uniform(300, 1200) / config.interval_s))
        bursts.append((start, start + length, float(rng.uniform(3, 8))))
    events: dict[int, list[tuple[str, object]]] = {}
    hour = max(1, 3600 // config.interval_s)
    if ((rng.random() < 0.3) | (forced == 1)) and members > 1 and steps > 4:
        leave = int(rng.integers(1, steps - 2))
        join = min(steps - 1, leave + max(1, int(rng.uniform(120, 600) / config.interval_s)))
        events.setdefault(leave, []).append(("leave", int(rng.integers(0, members))))
        events.setdefault(join, []).append(("join", float(capacity)))
    if ((rng.random() < 0.05) | (forced == 2)) and steps > 2:
        start = int(rng.integers(0, max(1, steps - hour)))
        crew[int(rng.integers(0, members))].stuck = (start, start + hour)
    if ((rng.random() < 0.02) | (forced == 4)) and steps > 2:
        start = int(rng.integers(1, max(2, steps - hour)))
        events.setdefault(start, []).append(("stop", None))
        events.setdefault(min(steps - 1, start + hour), []).append(("start", float(capacity)))
    rewind = None
    if ((rng.random() < 0.01) | (forced == 5)) and steps > 2:
        rewind = (int(rng.integers(1, steps)), int(rng.integers(0, partitions)))
    return _Group(
        name=name,
        cluster=f"cluster-{index % config.clusters + 1}",
        topics=topics,
        assignor=assignor,
        base_rates=rates,
        phase=float(rng.uniform(0, 1)),
        bursts=bursts,
        members=crew,
        events=events,
        rewind=rewind,
        next_member=members,
    )


def _assign(group: _Group, owners: list[str | None]) -> list[str | None]:
    """Owner per partition after the group re-assigns with its strategy (core)."""
    tps = [TopicPartition(t, p) for t, count in group.topics for p in range(count)]
    topics = tuple(Topic(t, count) for t, count in group.topics)
    names = tuple(t for t, _ in group.topics)
    present = [m.member_id for m in group.members]
    owned: dict[str, list[TopicPartition]] = {m: [] for m in present}
    for tp, owner in zip(tps, owners, strict=True):
        if owner in owned:
            owned[owner].append(tp)
    scenario = Scenario(
        topics=topics,
        members=tuple(
            Member(m.member_id, names, rack=m.rack, client_id=m.client_id, host=m.host)
            for m in group.members
        ),
        assignor=group.assignor,
        group_id=group.name,
    )
    strategy = registry.get(group.assignor)
    assert isinstance(strategy, PartitionStrategy)
    if not present:
        return [None] * len(tps)
    target = _target(scenario, strategy, Assignment.of(present, owned))
    owner_of = target.owner_of()
    return [owner_of.get(tp) for tp in tps]


def generate(
    config: SynthConfig, progress: Callable[[str], None] | None = None
) -> Iterator[tuple[pa.Table, pa.Table]]:
    """(offsets, members) Arrow tables, one pair per :data:`STEPS_PER_FILE` steps.

    1. Make every group and lay their partitions end to end in global arrays (:func:`_layout`).
    2. Draw the first offsets (:func:`_first_offsets`) and assign each group with its own
       strategy (:func:`_first_owners`).
    3. Per step: the incidents due (:func:`_apply_events`: members leave, join, stop, start;
       the group re-assigns), then from the second step on production
       (:func:`_produced`) and consumption (:func:`_consumed`), then rewinds
       (:func:`_rewind`); the step's rows are kept (:func:`_record`).
    4. Every :data:`STEPS_PER_FILE` steps, and after the last, the kept rows become the two
       tables (:func:`_tables`) and are dropped.

    Invariant: the same ``config`` gives the same rows (every random draw comes from a stream
    seeded by ``config.seed``).
    """
    layout = _layout(config)
    offsets = _first_offsets(config, layout)
    owners = _first_owners(layout)
    start_s = int(config.start.timestamp())
    dt = float(config.interval_s)
    columns_off: dict[str, list[np.ndarray]] = {
        k: [] for k in ("t", "row", "start", "end", "committed", "owner")
    }
    columns_mem: dict[str, list[np.ndarray]] = {"t": [], "member": []}
    for step in range(config.steps):
        t = start_s + step * config.interval_s
        _apply_events(config, layout.groups, owners, step)
        if step > 0:
            offsets.end = offsets.end + _produced(layout, t, step, dt)
            offsets.committed = offsets.committed + _consumed(layout, owners, offsets, step, dt)
        _rewind(layout, offsets, step, dt)
        _record(columns_off, columns_mem, layout, owners, offsets, t)
        if len(columns_off["t"]) == STEPS_PER_FILE or step == config.steps - 1:
            yield _tables(
                layout.groups,
                layout.group_of,
                layout.topic_names,
                layout.topic_index,
                layout.partition_number,
                owners.member_table,
                columns_off,
                columns_mem,
            )
            for values in (*columns_off.values(), *columns_mem.values()):
                values.clear()
            if progress:
                progress(f"generated {step + 1}/{config.steps} samples")


@dataclass(frozen=True, slots=True)
class _Layout:
    """Every group's partitions end to end: partition ``i`` (of ``total``) belongs to group
    ``group_of[i]``, is partition ``partition_number[i]`` of topic
    ``topic_names[topic_index[i]]``, produced at ``base[i]`` records/s before the diurnal
    swing, whose phase is ``phase[i]`` (its group's)."""

    groups: list[_Group]
    total: int
    group_of: np.ndarray
    topic_names: list[str]
    topic_index: np.ndarray
    partition_number: np.ndarray
    base: np.ndarray
    phase: np.ndarray


@dataclass(slots=True)
class _Owners:
    """Who owns what, as members come and go: ``member_table`` (global member index ->
    (group, member); a member keeps its index after it leaves), ``member_index`` (member id ->
    that index), ``owner`` (partition -> member index, -1 for nobody) and ``names`` (per group,
    its partitions' owners by member id)."""

    member_table: list[tuple[int, _Member]]
    member_index: dict[str, int]
    owner: np.ndarray
    names: list[list[str | None]]

    def register(self, group: int, member: _Member) -> None:
        self.member_index[member.member_id] = len(self.member_table)
        self.member_table.append((group, member))

    def reassign(self, g: int, group: _Group, previous: list[str | None]) -> None:
        """Group ``g`` assigned by its own strategy, from the owners ``previous``."""
        names = _assign(group, previous)
        self.names[g] = names
        self.owner[group.first : group.first + len(names)] = [
            -1 if n is None else self.member_index[n] for n in names
        ]


@dataclass(slots=True)
class _Offsets:
    """Per partition (global index): log start, log end and committed offsets, whole records
    held as floats (the arrays are replaced as the steps advance)."""

    log_start: np.ndarray
    end: np.ndarray
    committed: np.ndarray


def _layout(config: SynthConfig) -> _Layout:
    """Step 1 of :func:`generate`: the groups, each told where its first partition sits."""
    groups = [_make_group(config, g) for g in range(config.groups)]
    total = 0
    for group in groups:
        group.first = total
        total += sum(count for _, count in group.topics)
    group_of = np.concatenate(
        [np.full(sum(c for _, c in g.topics), i, dtype=np.int32) for i, g in enumerate(groups)]
    )
    topic_names: list[str] = []
    topic_index = np.empty(total, dtype=np.int32)
    partition_number = np.empty(total, dtype=np.int32)
    for group in groups:
        position = group.first
        for topic, count in group.topics:
            topic_index[position : position + count] = len(topic_names)
            partition_number[position : position + count] = np.arange(count)
            topic_names.append(topic)
            position += count
    return _Layout(
        groups=groups,
        total=total,
        group_of=group_of,
        topic_names=topic_names,
        topic_index=topic_index,
        partition_number=partition_number,
        base=np.concatenate([g.base_rates for g in groups]),
        phase=np.array([g.phase for g in groups])[group_of],
    )


def _first_offsets(config: SynthConfig, layout: _Layout) -> _Offsets:
    """Step 2 of :func:`generate`: random logs (start below a million, 100k to 10M records
    long) with up to 30 seconds of backlog each, from one stream seeded by ``config.seed``."""
    total = layout.total
    rng = np.random.default_rng([config.seed, 1_000_003])
    log_start = np.floor(rng.uniform(0, 1e6, total))
    end = log_start + np.floor(rng.uniform(1e5, 1e7, total))
    committed = end - np.floor(layout.base * rng.uniform(0, 30, total))
    return _Offsets(log_start, end, committed)


def _first_owners(layout: _Layout) -> _Owners:
    """Step 2 of :func:`generate`: every group's members registered, each group assigned."""
    owners = _Owners([], {}, np.full(layout.total, -1, dtype=np.int64), [])
    for g, group in enumerate(layout.groups):
        for member in group.members:
            owners.register(g, member)
        owners.names.append([])
        owners.reassign(g, group, [None] * sum(c for _, c in group.topics))
    return owners


def _apply_events(config: SynthConfig, groups: list[_Group], owners: _Owners, step: int) -> None:
    """Step 3 of :func:`generate`, the incidents due at ``step``: each group with one draws
    from its own stream (seeded by ``(seed, group, step)``) and re-assigns afterwards."""
    for g, group in enumerate(groups):
        happened = group.events.get(step)
        if not happened:
            continue
        grng = np.random.default_rng([config.seed, g, step])
        for kind, value in happened:
            if kind == "leave" and group.members:
                group.members.pop(int(value) % len(group.members))  # type: ignore[call-overload]
            elif kind == "stop":
                group.members = []
            elif kind in ("join", "start"):
                count = 1 if kind == "join" else max(1, len(owners.names[g]) // 4)
                for _ in range(count):
                    new = _make_member(grng, group.name, group.next_member, float(value))  # type: ignore[arg-type]
                    group.next_member += 1
                    group.members.append(new)
                    owners.register(g, new)
        owners.reassign(g, group, owners.names[g])


def _produced(layout: _Layout, t: int, step: int, dt: float) -> np.ndarray:
    """Step 3 of :func:`generate`: the records each partition gets in the ``dt`` seconds
    before ``t`` (module docstring, step 2: base rate, diurnal swing, bursts)."""
    seconds_of_day = (t % 86400) / 86400.0
    factor = 1.0 + 0.6 * np.sin(2 * np.pi * (seconds_of_day - layout.phase))
    burst = np.ones(len(layout.groups))
    for g, group in enumerate(layout.groups):
        for first, last, size in group.bursts:
            if first <= step < last:
                burst[g] = size
    produced: np.ndarray = np.floor(layout.base * factor * burst[layout.group_of] * dt)
    return produced


def _consumed(
    layout: _Layout, owners: _Owners, offsets: _Offsets, step: int, dt: float
) -> np.ndarray:
    """Step 3 of :func:`generate`: the records each partition's owner reads in ``dt``
    seconds. A member reads at most its capacity (nothing while stuck), shared among its
    partitions in proportion to their backlog; a partition nobody owns is not read."""
    member_table, owner = owners.member_table, owners.owner
    capacity = np.zeros(len(member_table))
    for i, (_, member) in enumerate(member_table):
        stuck = member.stuck is not None and member.stuck[0] <= step < member.stuck[1]
        capacity[i] = 0.0 if stuck else member.capacity
    backlog = offsets.end - offsets.committed
    owned = owner >= 0
    demand = np.bincount(owner[owned], weights=backlog[owned], minlength=len(member_table))
    readable = np.minimum(capacity * dt, demand)
    share = np.divide(readable, demand, out=np.zeros_like(demand), where=demand > 0)
    taken = np.zeros(layout.total)
    taken[owned] = np.floor(backlog[owned] * share[owner[owned]])
    return taken


def _rewind(layout: _Layout, offsets: _Offsets, step: int, dt: float) -> None:
    """Step 3 of :func:`generate`: a group's rewind due at ``step`` moves one partition's
    committed offset back by 50 intervals of its base rate (never below the log start)."""
    for group in layout.groups:
        if group.rewind is not None and group.rewind[0] == step:
            p = group.first + group.rewind[1]
            offsets.committed[p] = max(
                offsets.log_start[p], offsets.committed[p] - 50 * layout.base[p] * dt
            )


def _record(
    columns_off: dict[str, list[np.ndarray]],
    columns_mem: dict[str, list[np.ndarray]],
    layout: _Layout,
    owners: _Owners,
    offsets: _Offsets,
    t: int,
) -> None:
    """Step 3 of :func:`generate`: the step's offset rows (every partition) and member rows
    (every present member), appended to the columns being kept."""
    total = layout.total
    columns_off["t"].append(np.full(total, t, dtype=np.int64))
    columns_off["row"].append(np.arange(total, dtype=np.int32))
    columns_off["start"].append(offsets.log_start.astype(np.int64))
    columns_off["end"].append(offsets.end.astype(np.int64))
    columns_off["committed"].append(offsets.committed.astype(np.int64))
    columns_off["owner"].append(owners.owner.copy())
    present = [owners.member_index[m.member_id] for group in layout.groups for m in group.members]
    columns_mem["t"].append(np.full(len(present), t, dtype=np.int64))
    columns_mem["member"].append(np.array(present, dtype=np.int64))


def _dictionary(
    indices: np.ndarray, values: Sequence[str], mask: np.ndarray | None = None
) -> pa.Array:
    """A dictionary-encoded string column; repeated values share one dictionary entry."""
    unique = list(dict.fromkeys(values))
    position = {value: i for i, value in enumerate(unique)}
    remap = np.array([position[value] for value in values], dtype=np.int32)
    codes = remap[indices] if len(indices) else np.zeros(0, np.int32)
    return pa.DictionaryArray.from_arrays(
        pa.array(codes, type=pa.int32(), mask=mask), pa.array(unique, type=pa.string())
    )


def _tables(
    groups: list[_Group],
    group_of: np.ndarray,
    topic_names: list[str],
    topic_index: np.ndarray,
    partition_number: np.ndarray,
    member_table: list[tuple[int, _Member]],
    columns_off: dict[str, list[np.ndarray]],
    columns_mem: dict[str, list[np.ndarray]],
) -> tuple[pa.Table, pa.Table]:
    rows = np.concatenate(columns_off["row"])
    owners = np.concatenate(columns_off["owner"])
    unowned = owners < 0
    safe = np.where(unowned, 0, owners)
    times = pa.array(
        np.concatenate(columns_off["t"]) * 1_000_000, type=pa.timestamp("us", tz="UTC")
    )
    group_names = [g.name for g in groups]
    cluster_names = [g.cluster for g in groups]
    ids = [m.member_id for _, m in member_table]
    clients = [m.client_id for _, m in member_table]
    hosts = [m.host for _, m in member_table]
    g_rows = group_of[rows]
    offsets = pa.table(
        {
            "time": times,
            "cluster": _dictionary(g_rows, cluster_names),
            "group_id": _dictionary(g_rows, group_names),
            "topic": _dictionary(topic_index[rows], topic_names),
            "partition": pa.array(partition_number[rows], type=pa.int32()),
            "log_start": pa.array(np.concatenate(columns_off["start"])),
            "log_end": pa.array(np.concatenate(columns_off["end"])),
            "committed": pa.array(np.concatenate(columns_off["committed"])),
            "member_id": _dictionary(safe, ids, unowned),
            "client_id": _dictionary(safe, clients, unowned),
            "host": _dictionary(safe, hosts, unowned),
        }
    )
    present = (
        np.concatenate(columns_mem["member"]) if columns_mem["member"] else np.zeros(0, np.int64)
    )
    member_group = np.array([g for g, _ in member_table], dtype=np.int32)
    pg = member_group[present] if len(present) else np.zeros(0, np.int32)
    topics_of = [[t for t, _ in g.topics] for g in groups]
    members = pa.table(
        {
            "time": pa.array(
                np.concatenate(columns_mem["t"]) * 1_000_000, type=pa.timestamp("us", tz="UTC")
            ),
            "cluster": _dictionary(pg, cluster_names),
            "group_id": _dictionary(pg, group_names),
            "member_id": _dictionary(present, ids),
            "client_id": _dictionary(present, clients),
            "host": _dictionary(present, hosts),
            "rack": _dictionary(present, [m.rack for _, m in member_table]),
            "group_instance_id": pa.nulls(len(present), pa.string()),
            "topics": pa.array([topics_of[g] for g in pg], type=pa.list_(pa.string())),
            "assignor": _dictionary(pg, [g.assignor for g in groups]),
        }
    )
    return offsets, members


def write_history(
    config: SynthConfig, output: Path, progress: Callable[[str], None] | None = None
) -> tuple[int, int]:
    """Generate and write Parquet under ``output/offsets`` and ``output/members``; row counts."""
    (output / "offsets").mkdir(parents=True, exist_ok=True)
    (output / "members").mkdir(parents=True, exist_ok=True)
    counts = [0, 0]
    for part, (offsets, members) in enumerate(generate(config, progress)):
        pq.write_table(offsets, output / "offsets" / f"part-{part:05d}.parquet")
        pq.write_table(members, output / "members" / f"part-{part:05d}.parquet")
        counts[0] += offsets.num_rows
        counts[1] += members.num_rows
    return counts[0], counts[1]

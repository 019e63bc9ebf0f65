"""One group of a ``kafka-consumer-groups.sh`` listing -> a scenario object.

The steps and every assumption are listed in :mod:`assignors.io.describe`'s docstring
(:func:`scenario_from_listing` is the second half there). The result is a JSON object in the
format of ``docs/scenario-format.md``, to be checked by the one loader
(:func:`assignors.io.scenario.parse_scenario`) like any file: this module builds, the loader
judges.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from assignors.errors import ScenarioError
from assignors.io.describe import (
    Listing,
    MemberRow,
    OffsetRow,
    Pair,
    merge_listings,
    parse_describe,
)
from assignors.io.kcat import ClusterMetadata

#: Strategy names Kafka prints (``ASSIGNMENT-STRATEGY``) -> ours, classic groups.
CLASSIC_ASSIGNORS = {
    "range": "range",
    "roundrobin": "roundrobin",
    "sticky": "sticky",
    "cooperative-sticky": "cooperative-sticky",
}
#: The same for KIP-848 consumer groups (``group.remote.assignor``).
CONSUMER_ASSIGNORS = {"uniform": "uniform", "range": "server-range"}


@dataclass(slots=True)
class _Group:
    """The rows of one group, and what building its scenario found."""

    name: str
    offsets: list[OffsetRow]
    members: list[MemberRow]
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _pick_group(listing: Listing, group: str | None) -> _Group:
    groups = listing.groups()
    if group is None:
        if len(groups) != 1:
            raise ScenarioError(
                [
                    f"the listing holds {len(groups)} groups ({', '.join(groups)}): pick one "
                    "with --group"
                ]
            )
        group = groups[0]
    elif group not in groups:
        raise ScenarioError(
            [f"group {group!r} is not in the listing (it has: {', '.join(groups)})"]
        )
    return _Group(
        group,
        [row for row in listing.offsets if row.group == group],
        [row for row in listing.members if row.group == group],
    )


def _listed_partitions(group: _Group) -> dict[str, dict[int, OffsetRow | None]]:
    """Topic -> partition number -> its offsets row (``None``: seen only in an assignment)."""
    listed: dict[str, dict[int, OffsetRow | None]] = defaultdict(dict)
    for row in group.offsets:
        if row.topic is not None and row.partition is not None:
            if row.partition in listed[row.topic]:
                group.errors.append(f"line {row.line}: {row.topic}-{row.partition} is listed twice")
            listed[row.topic][row.partition] = row
    for member in group.members:
        for topic, partition in member.assignment or ():
            listed[topic].setdefault(partition, None)
    return listed


def _partition_count(
    topic: str,
    numbers: set[int],
    given: Mapping[str, int],
    metadata: ClusterMetadata | None,
    group: _Group,
) -> int:
    """Step 1: the count from ``--partitions``, the metadata, or the listing with a warning."""
    highest = max(numbers)
    if topic in given:
        count = given[topic]
    elif metadata is not None and topic in metadata.topics:
        count = metadata.topics[topic].partitions
    else:
        missing = sorted(set(range(highest + 1)) - numbers)
        if missing:
            group.errors.append(
                f"topic {topic!r}: the listing shows no row for partition(s) "
                f"{', '.join(map(str, missing[:10]))}: give the count with --partitions {topic}:N"
            )
        else:
            group.warnings.append(
                f"topic {topic!r}: {highest + 1} partition(s), the highest number listed + 1; "
                f"if it has more, give --partitions {topic}:N"
            )
        return highest + 1
    if count <= highest:
        group.errors.append(
            f"topic {topic!r}: the listing shows partition {highest} but the count given is {count}"
        )
    return count


def _offsets(topic: dict[str, Any], rows: Mapping[int, OffsetRow | None], group: _Group) -> None:
    """Step 2: offsets when every partition has a listed log end, else explicit lags."""
    count = topic["partitions"]
    full = [rows.get(p) for p in range(count)]
    if all(row is not None and row.log_end is not None for row in full):
        topic["log_end_offsets"] = [row.log_end for row in full if row is not None]
        topic["committed_offsets"] = [row.committed for row in full if row is not None]
        return
    if not any(row is not None and row.lag is not None for row in full):
        return
    unknown = [p for p, row in enumerate(full) if row is None or row.lag is None]
    topic["lags"] = [0 if row is None or row.lag is None else row.lag for row in full]
    group.warnings.append(
        f"topic {topic['name']!r}: no lag listed for partition(s) "
        f"{', '.join(map(str, unknown[:10]))}{' ...' if len(unknown) > 10 else ''}: taken as 0"
    )


def _topics(
    group: _Group, given: Mapping[str, int], metadata: ClusterMetadata | None
) -> list[dict[str, Any]]:
    topics: list[dict[str, Any]] = []
    for name, rows in sorted(_listed_partitions(group).items()):
        topic: dict[str, Any] = {
            "name": name,
            "partitions": _partition_count(name, set(rows), given, metadata, group),
        }
        if metadata is not None and name in metadata.topics:
            racks = metadata.topics[name].replica_racks
            if racks is not None and len(racks) == topic["partitions"]:
                topic["replica_racks"] = [list(r) for r in racks]
        _offsets(topic, rows, group)
        topics.append(topic)
    return topics


def _owned_from_offsets(group: _Group) -> dict[str, list[Pair]]:
    owned: dict[str, list[Pair]] = defaultdict(list)
    for row in group.offsets:
        if row.consumer_id and row.topic is not None and row.partition is not None:
            owned[row.consumer_id].append((row.topic, row.partition))
    return owned


def _member(consumer_id: str, owned: list[Pair], topics: list[str]) -> dict[str, Any]:
    return {
        "member_id": consumer_id,
        "topics": topics,
        "owned_partitions": [[t, p] for t, p in sorted(set(owned))],
    }


def _members(group: _Group, topics: list[str]) -> list[dict[str, Any]]:
    """Step 3: members from the members table, else from the offsets table."""
    owned = _owned_from_offsets(group)
    members: dict[str, dict[str, Any]] = {}
    for row in group.members:
        claims = owned.get(row.consumer_id) or list(row.assignment or ())
        member = _member(row.consumer_id, claims, topics)
        for key, value in (
            ("group_instance_id", row.instance_id),
            ("client_id", row.client_id),
            ("host", row.host),
        ):
            if value is not None:
                member[key] = value
        reconciling = row.target is not None and row.assignment is not None
        if reconciling and set(row.target or ()) != set(row.assignment or ()):
            group.warnings.append(
                f"line {row.line}: member {row.consumer_id} is reconciling (its target "
                "assignment differs from what it owns): the scenario uses what it owns"
            )
        members[row.consumer_id] = member
    for offsets_row in group.offsets:
        consumer_id = offsets_row.consumer_id
        if consumer_id and consumer_id not in members:
            member = _member(consumer_id, owned.get(consumer_id, []), topics)
            for key, value in (("client_id", offsets_row.client_id), ("host", offsets_row.host)):
                if value is not None:
                    member[key] = value
            members[consumer_id] = member
    if members:
        group.warnings.append(
            "the listing shows no subscriptions: every member is taken to subscribe to every "
            f"topic of the group ({', '.join(topics)})"
        )
    return list(members.values())


def _assignor(listing: Listing, group: _Group) -> str | None:
    """Step 4: our name for the strategy the state table reports."""
    printed = listing.strategies.get(group.name)
    if printed is None:
        return None
    has_epochs = any(row.epoch is not None for row in group.members)
    names = CONSUMER_ASSIGNORS if has_epochs else CLASSIC_ASSIGNORS
    if printed not in names:
        group.warnings.append(f"assignment strategy {printed!r} is not one we reproduce")
        return None
    return names[printed]


def scenario_from_listing(
    listing: Listing,
    *,
    group: str | None = None,
    partitions: Mapping[str, int] | None = None,
    metadata: ClusterMetadata | None = None,
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The scenario object of one group, and the warnings that say what was assumed.

    ``group`` may be omitted when the listing holds one group. ``partitions`` (topic -> count)
    and ``metadata`` fill in what the listing cannot show. Raises :class:`ScenarioError` with
    every problem found.
    """
    chosen = _pick_group(listing, group)
    topics = _topics(chosen, partitions or {}, metadata)
    members = _members(chosen, [t["name"] for t in topics])
    scenario: dict[str, Any] = {
        "name": f"Group {chosen.name or '(unnamed)'}",
        "description": "Read from kafka-consumer-groups.sh --describe output.",
        **({"group_id": chosen.name} if chosen.name else {}),
        "topics": topics,
        "members": members,
    }
    assignor = _assignor(listing, chosen)
    if assignor is not None:
        scenario["assignor"] = assignor
    if not members:
        chosen.warnings.append(
            f"group {chosen.name!r} has no active members: add some to see an assignment"
        )
    if chosen.errors:
        raise ScenarioError(chosen.errors)
    extra = metadata.warnings if metadata is not None else ()
    return scenario, (*listing.warnings, *extra, *chosen.warnings)


def scenario_from_describe(
    texts: Sequence[tuple[str, str]],
    *,
    group: str | None = None,
    partitions: Mapping[str, int] | None = None,
    metadata: ClusterMetadata | None = None,
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """Listings as ``(source name, text)`` pairs -> one group's scenario object and warnings.

    Every text is read (:func:`~assignors.io.describe.parse_describe`) before any error is
    raised, so a :class:`ScenarioError` lists the unreadable lines of all of them, each as
    ``"<source>:<line>: <what is wrong>"``; the readable listings are then merged and turned
    into a scenario (:func:`scenario_from_listing`).
    """
    listings: list[Listing] = []
    problems: list[str] = []
    for source, text in texts:
        try:
            listings.append(parse_describe(text, source))
        except ScenarioError as error:
            problems.extend(error.problems)
    if problems:
        raise ScenarioError(problems)
    if not listings:
        raise ScenarioError(["no listing given: paste or upload kafka-consumer-groups.sh output"])
    return scenario_from_listing(
        merge_listings(listings), group=group, partitions=partitions, metadata=metadata
    )


def parse_partition_counts(values: Sequence[str], option: str = "--partitions") -> dict[str, int]:
    """``["orders:12", ...]`` -> ``{"orders": 12}``; each N from 1 to 1,000,000.

    The topic is everything before the last colon. Errors name ``option`` and the value.
    """
    counts: dict[str, int] = {}
    for value in values:
        topic, colon, count = value.rpartition(":")
        if not colon or not topic or not count:
            raise ScenarioError([f"{option}: expected TOPIC:N, got {value!r}"])
        digits = count.isascii() and count.isdigit() and len(count) <= 18
        if not digits or not 0 < int(count) <= 1_000_000:
            raise ScenarioError([f"{option}: {topic}:{count}: N must be 1 to 1,000,000"])
        counts[topic] = int(count)
    return counts

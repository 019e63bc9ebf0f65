"""The one loader: JSON scenario objects -> :class:`~assignors.model.Scenario`, and back.

The format is the one of the conformance cases (``tests/conformance/``) plus optional
fields documented in ``docs/scenario-format.md`` and described by the JSON Schema shipped beside
this module (``scenario.schema.json``, see :func:`schema`). :func:`parse_scenario` checks
everything and reports *every* problem at once as a :class:`~assignors.errors.ScenarioError`,
each with its JSON path and what was expected.

How a scenario is checked, in order:

1. The top level must be an object with ``topics`` and ``members`` lists; unknown fields anywhere
   are warnings (usually a typo), never errors.
2. Each topic: a unique non-empty ``name``, a ``partitions`` count, and optional per-partition
   arrays that must be exactly ``partitions`` long (``replica_racks``, ``lags``,
   ``log_start_offsets``, ``log_end_offsets``, ``committed_offsets`` with ``null`` for "no
   commit", ``produce_rates``). Offsets and lags are integers >= 0; rates are numbers >= 0.
3. Offsets that contradict each other: a log-start offset beyond the log-end offset is an error
   (no broker reports that); a committed offset below the log start (records deleted by
   retention) or beyond the log end (log truncated) is a *warning*, because live clusters show
   both and the lag rules still define a lag for them (see :mod:`assignors.simulate.lag` and the
   format document).
4. Each member: a unique non-empty ``member_id``, a ``topics`` list; optional ``rack``,
   ``group_instance_id``, ``client_id``, ``host``, ``priority``, ``consume_rate``,
   ``owned_partitions`` and ``generation``. A claim on a topic or partition that does not exist
   is not an error: Kafka ignores it, and so do the strategies; the loader returns a warning
   with the claim's path.
5. The optional ``reconciliation`` (a KIP-848 group read live): ``group_epoch`` and
   ``assignment_epoch`` (integers >= 0) and ``members``, each a ``member_id`` of the scenario
   (listed once; an id not in ``members`` is a warning and the entry is dropped), its
   ``member_epoch`` and, when it does not hold its target yet, ``current`` ([topic, partition]
   pairs, checked as ``owned_partitions`` are). The member's target is its ``owned_partitions``.
6. The optional ``kafka_version``: a release line of
   :data:`assignors.kafka_versions.KAFKA_VERSIONS` (a patch release reads as its line); the
   version-dependent strategies reproduce that release, the others ignore it.
6. The optional ``walkthrough`` (teaching steps) is left as it is: :mod:`assignors.io.walkthrough`
   reads and checks it (it needs the parsed scenario and the changes of
   :mod:`assignors.simulate.changes`, which this module does not depend on).

Invariant: :func:`scenario_to_json` followed by :func:`parse_scenario` gives back an equal
scenario.

Size limits (:mod:`assignors.limits`; memory stays bounded; larger input is refused with a
message):

* ``MAX_PARTITIONS_PER_TOPIC`` partitions in one topic, ``MAX_TOTAL_PARTITIONS`` in all topics,
* ``MAX_MEMBERS`` members, ``MAX_TOPICS`` topics,
* ``MAX_OWNED_PER_MEMBER`` owned partitions per member,
* ``MAX_FILE_BYTES`` bytes of JSON text for :func:`load_scenario_file` and
  :func:`parse_scenario_text` (a keyword argument raises it for one call),
* and the JSON gate's own limits (:mod:`assignors.io.json_safe`: nesting depth, digits per
  integer, finite numbers only), which every scenario passes, whether read from text or built.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar, cast

from assignors.errors import ScenarioError
from assignors.io.json_checks import Problems, is_int, is_number, type_name
from assignors.io.json_safe import check_json_value, decode_json, too_large_message
from assignors.kafka_versions import kafka_version_problem, release_line
from assignors.limits import (
    MAX_MEMBERS,
    MAX_NAME_LENGTH,
    MAX_OWNED_PER_MEMBER,
    MAX_PARTITIONS_PER_TOPIC,
    MAX_TOPICS,
    MAX_TOTAL_PARTITIONS,
)
from assignors.model import (
    AutoOffsetReset,
    Member,
    MemberReconciliation,
    Reconciliation,
    Scenario,
    Topic,
    TopicPartition,
)

#: The largest scenario text :func:`load_scenario_file` / :func:`parse_scenario_text` read, in
#: bytes. A realistic 100,000-partition snapshot with every offset array is about 10 MiB.
MAX_FILE_BYTES = 32 * 1024 * 1024

AUTO_OFFSET_RESETS: tuple[AutoOffsetReset, ...] = ("latest", "earliest", "none")
SCENARIO_FIELDS = frozenset(
    {
        "$schema",
        "name",
        "description",
        "group_id",
        "assignor",
        "kafka_version",
        "auto_offset_reset",
        "topics",
        "members",
        "walkthrough",
        "reconciliation",
    }
)
#: The topic fields that hold one entry per partition (parallel to the partition numbers).
PER_PARTITION_FIELDS = (
    "replica_racks",
    "lags",
    "log_start_offsets",
    "log_end_offsets",
    "committed_offsets",
    "produce_rates",
)
TOPIC_FIELDS = frozenset({"name", "partitions", "id", *PER_PARTITION_FIELDS})
MEMBER_FIELDS = frozenset(
    {
        "member_id",
        "topics",
        "rack",
        "group_instance_id",
        "owned_partitions",
        "generation",
        "priority",
        "consume_rate",
        "client_id",
        "host",
    }
)
RECONCILIATION_FIELDS = frozenset({"group_epoch", "assignment_epoch", "members"})
RECONCILING_MEMBER_FIELDS = frozenset({"member_id", "member_epoch", "current"})
_JAVA_INT_MIN = -(2**31)
_JAVA_INT_MAX = 2**31 - 1
_JAVA_LONG_MAX = 2**63 - 1

T = TypeVar("T")


def parse_string(
    value: object, path: str, problems: Problems, *, nonempty: bool = True
) -> str | None:
    """``value`` if it is a (non-empty) string of at most ``MAX_NAME_LENGTH`` characters; else
    record why at ``path`` and return ``None``."""
    if not isinstance(value, str):
        problems.error(path, f"expected a string, got {type_name(value)}")
        return None
    if nonempty and not value:
        problems.error(path, "expected a non-empty string")
        return None
    if len(value) > MAX_NAME_LENGTH:
        problems.error(path, f"longer than {MAX_NAME_LENGTH} characters")
        return None
    return value


def parse_optional_string(
    obj: Mapping[str, Any], key: str, path: str, problems: Problems
) -> str | None:
    """``obj[key]`` checked by :func:`parse_string`; ``None`` when absent or ``null``."""
    value = obj.get(key)
    if value is None:
        return None
    return parse_string(value, f"{path}.{key}" if path else key, problems)


def _parallel_array(
    obj: Mapping[str, Any],
    key: str,
    path: str,
    length: int | None,
    problems: Problems,
    element: Callable[[object, str], T | None],
    *,
    nullable: bool = False,
) -> tuple[T | None, ...] | None:
    """A per-partition array: a list exactly ``length`` long of elements ``element`` accepts."""
    if key not in obj or obj[key] is None:
        return None
    value = obj[key]
    here = f"{path}.{key}"
    if not isinstance(value, list):
        problems.error(
            here, f"expected a list with one entry per partition, got {type_name(value)}"
        )
        return None
    if length is not None and len(value) != length:
        problems.error(
            here,
            f"expected {length:,} entries (one per partition, parallel to the partition numbers),"
            f" got {len(value):,}",
        )
        return None
    result: list[T | None] = []
    ok = True
    for index, item in enumerate(value):
        if item is None and nullable:
            result.append(None)
            continue
        parsed = element(item, f"{here}[{index}]")
        ok = ok and parsed is not None
        result.append(parsed)
    return tuple(result) if ok else None


def _check_offsets(
    topic: Topic,
    path: str,
    problems: Problems,
) -> None:
    """Step 3 of the module docstring: offsets that contradict each other."""
    starts, ends, committed = (
        topic.log_start_offsets,
        topic.log_end_offsets,
        topic.committed_offsets,
    )
    if starts is not None and ends is not None:
        for p, (start, end) in enumerate(zip(starts, ends, strict=True)):
            if start > end:
                problems.error(
                    f"{path}.log_start_offsets[{p}]",
                    f"log-start offset {start:,} is beyond the log-end offset {end:,}",
                )
    if committed is None:
        return
    for p, commit in enumerate(committed):
        if commit is None:
            continue
        if starts is not None and commit < starts[p]:
            problems.warn(
                f"{path}.committed_offsets[{p}]",
                f"committed offset {commit:,} is below the log-start offset {starts[p]:,}: the"
                " records in between were deleted; lag counts from the committed offset, and on"
                " its next fetch the consumer resets by auto.offset.reset",
            )
        if ends is not None and commit > ends[p]:
            problems.warn(
                f"{path}.committed_offsets[{p}]",
                f"committed offset {commit:,} is beyond the log-end offset {ends[p]:,} (the log"
                " was truncated); lag counts as 0, and on its next fetch the consumer resets by"
                " auto.offset.reset",
            )


def _parse_topic(raw: object, path: str, problems: Problems) -> Topic | None:
    if not isinstance(raw, dict):
        problems.error(path, f"expected a topic object, got {type_name(raw)}")
        return None
    problems.unknown_fields(raw, TOPIC_FIELDS, path)
    name = parse_string(raw.get("name"), f"{path}.name", problems)
    count: int | None = None
    if "partitions" not in raw:
        problems.error(f"{path}.partitions", "missing: the partition count is required")
    elif not is_int(raw["partitions"]):
        problems.error(
            f"{path}.partitions",
            f"expected the partition count (an integer), got {type_name(raw['partitions'])}",
        )
    elif not 0 <= raw["partitions"] <= MAX_PARTITIONS_PER_TOPIC:
        problems.error(
            f"{path}.partitions",
            f"{raw['partitions']:,} partitions; expected 0 to {MAX_PARTITIONS_PER_TOPIC:,}"
            " per topic",
        )
    else:
        count = raw["partitions"]

    def offset(item: object, where: str) -> int | None:
        if is_int(item) and cast(int, item) < 0:
            problems.error(where, f"offsets and lags are never negative, got {item:,}")
            return None
        return problems.integer(item, where, minimum=0, maximum=_JAVA_LONG_MAX)

    def rate(item: object, where: str) -> float | None:
        if not is_number(item) or cast(float, item) < 0:
            problems.error(where, f"expected records/s (a number >= 0), got {item!r:.40}")
            return None
        return float(cast(float, item))

    def racks(item: object, where: str) -> tuple[str, ...] | None:
        if not isinstance(item, list):
            problems.error(where, f"expected a list of rack names, got {type_name(item)}")
            return None
        names = [parse_string(rack, f"{where}[{i}]", problems) for i, rack in enumerate(item)]
        return tuple(n for n in names if n is not None) if None not in names else None

    replica_racks = _parallel_array(raw, "replica_racks", path, count, problems, racks)
    lags = _parallel_array(raw, "lags", path, count, problems, offset)
    starts = _parallel_array(raw, "log_start_offsets", path, count, problems, offset)
    ends = _parallel_array(raw, "log_end_offsets", path, count, problems, offset)
    committed = _parallel_array(
        raw, "committed_offsets", path, count, problems, offset, nullable=True
    )
    produce_rates = _parallel_array(raw, "produce_rates", path, count, problems, rate)
    topic_id = parse_optional_string(raw, "id", path, problems)
    if name is None or count is None:
        return None
    topic = Topic(
        name=name,
        partitions=count,
        replica_racks=cast("tuple[tuple[str, ...], ...] | None", replica_racks),
        topic_id=topic_id,
        lags=cast("tuple[int, ...] | None", lags),
        log_start_offsets=cast("tuple[int, ...] | None", starts),
        log_end_offsets=cast("tuple[int, ...] | None", ends),
        committed_offsets=committed,
        produce_rates=cast("tuple[float, ...] | None", produce_rates),
    )
    _check_offsets(topic, path, problems)
    return topic


def _parse_owned(
    owned_raw: object, path: str, counts: Mapping[str, int], problems: Problems
) -> list[TopicPartition]:
    """A member's ``owned_partitions``: [topic, partition] pairs; a claim on a partition that
    does not exist is a warning (Kafka ignores it), a malformed one an error."""
    owned: list[TopicPartition] = []
    if owned_raw is None:
        return owned
    if not isinstance(owned_raw, list):
        problems.error(
            path, f"expected a list of [topic, partition] pairs, got {type_name(owned_raw)}"
        )
        return owned
    if len(owned_raw) > MAX_OWNED_PER_MEMBER:
        problems.error(path, f"more than {MAX_OWNED_PER_MEMBER:,} claims")
        return owned
    for index, pair in enumerate(owned_raw):
        here = f"{path}[{index}]"
        if (
            not isinstance(pair, list)
            or len(pair) != 2
            or not isinstance(pair[0], str)
            or not is_int(pair[1])
        ):
            problems.error(here, f"expected a [topic, partition] pair, got {pair!r:.80}")
            continue
        topic, partition = pair[0], cast(int, pair[1])
        if partition < 0 or partition > _JAVA_INT_MAX:
            problems.error(here, f"partition {partition} is not a valid partition number")
            continue
        if topic not in counts:
            problems.warn(here, f'topic "{topic}" does not exist; Kafka ignores this claim')
        elif partition >= counts[topic]:
            problems.warn(
                here,
                f'partition {partition} does not exist in topic "{topic}" '
                f"({counts[topic]} partitions); Kafka ignores this claim",
            )
        owned.append(TopicPartition(topic, partition))
    return owned


def _parse_member(
    raw: object,
    path: str,
    counts: Mapping[str, int],
    problems: Problems,
    subscriptions: dict[tuple[str, ...], tuple[str, ...]],
) -> Member | None:
    """One member; a subscription equal to an earlier member's is that member's tuple
    (``subscriptions``: each distinct subscription once)."""
    if not isinstance(raw, dict):
        problems.error(path, f"expected a member object, got {type_name(raw)}")
        return None
    problems.unknown_fields(raw, MEMBER_FIELDS, path)
    member_id = parse_string(raw.get("member_id"), f"{path}.member_id", problems)
    topics_raw = raw.get("topics")
    topics: list[str] = []
    if not isinstance(topics_raw, list):
        problems.error(
            f"{path}.topics", f"expected a list of topic names, got {type_name(topics_raw)}"
        )
    else:
        for index, topic in enumerate(topics_raw):
            name = parse_string(topic, f"{path}.topics[{index}]", problems)
            if name is not None:
                topics.append(name)
    owned = _parse_owned(raw.get("owned_partitions"), f"{path}.owned_partitions", counts, problems)
    generation = None
    if raw.get("generation") is not None:
        generation = problems.integer(
            raw["generation"], f"{path}.generation",
            minimum=-1, maximum=_JAVA_INT_MAX,
        )  # fmt: skip
    priority = None
    if raw.get("priority") is not None:
        priority = problems.integer(
            raw["priority"], f"{path}.priority",
            minimum=_JAVA_INT_MIN, maximum=_JAVA_INT_MAX,
        )  # fmt: skip
    consume_rate = None
    if raw.get("consume_rate") is not None:
        value = raw["consume_rate"]
        if not is_number(value) or value < 0:
            problems.error(
                f"{path}.consume_rate", f"expected records/s (a number >= 0), got {value!r:.40}"
            )
        else:
            consume_rate = float(value)
    rack = parse_optional_string(raw, "rack", path, problems)
    group_instance_id = parse_optional_string(raw, "group_instance_id", path, problems)
    client_id = parse_optional_string(raw, "client_id", path, problems)
    host = parse_optional_string(raw, "host", path, problems)
    if member_id is None:
        return None
    subscription = tuple(topics)
    return Member(
        member_id=member_id,
        topics=subscriptions.setdefault(subscription, subscription),
        rack=rack,
        group_instance_id=group_instance_id,
        owned_partitions=tuple(owned),
        generation=generation,
        priority=priority,
        consume_rate=consume_rate,
        client_id=client_id,
        host=host,
    )


def parse_reconciliation(
    raw: object,
    path: str,
    members: list[Member],
    counts: Mapping[str, int],
    problems: Problems,
) -> Reconciliation | None:
    """Step 5 of the module docstring: the optional ``reconciliation`` object (``None`` when
    absent). Records problems; returns what parsed."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        problems.error(path, f"expected an object with the epochs, got {type_name(raw)}")
        return None
    problems.unknown_fields(raw, RECONCILIATION_FIELDS, path)
    epochs = [
        problems.integer(raw.get(key), f"{path}.{key}", minimum=0, maximum=_JAVA_INT_MAX)
        for key in ("group_epoch", "assignment_epoch")
    ]
    entries_raw = raw.get("members", [])
    if not isinstance(entries_raw, list):
        problems.error(f"{path}.members", f"expected a list, got {type_name(entries_raw)}")
        entries_raw = []
    elif len(entries_raw) > MAX_MEMBERS:
        problems.error(f"{path}.members", f"{len(entries_raw):,} entries; at most {MAX_MEMBERS:,}")
        entries_raw = []
    known = {member.member_id for member in members}
    seen: dict[str, int] = {}
    entries: list[MemberReconciliation] = []
    for index, item in enumerate(entries_raw):
        entry = _parse_reconciling_member(item, f"{path}.members[{index}]", counts, problems)
        if entry is None:
            continue
        here = f"{path}.members[{index}].member_id"
        if entry.member_id in seen:
            first = seen[entry.member_id]
            problems.error(here, f'member "{entry.member_id}" listed twice (also members[{first}])')
        elif entry.member_id not in known:
            problems.warn(here, f'member "{entry.member_id}" is not in the group; entry ignored')
        else:
            seen[entry.member_id] = index
            entries.append(entry)
    group_epoch, assignment_epoch = epochs
    if group_epoch is None or assignment_epoch is None:
        return None
    order = {member.member_id: position for position, member in enumerate(members)}
    entries.sort(key=lambda entry: order[entry.member_id])
    return Reconciliation(group_epoch, assignment_epoch, tuple(entries))


def _parse_reconciling_member(
    raw: object, path: str, counts: Mapping[str, int], problems: Problems
) -> MemberReconciliation | None:
    if not isinstance(raw, dict):
        problems.error(path, f"expected a member object, got {type_name(raw)}")
        return None
    problems.unknown_fields(raw, RECONCILING_MEMBER_FIELDS, path)
    member_id = parse_string(raw.get("member_id"), f"{path}.member_id", problems)
    epoch = problems.integer(
        raw.get("member_epoch"), f"{path}.member_epoch",
        minimum=_JAVA_INT_MIN, maximum=_JAVA_INT_MAX,
    )  # fmt: skip
    current = None
    if raw.get("current") is not None:
        current = tuple(sorted(_parse_owned(raw["current"], f"{path}.current", counts, problems)))
    if member_id is None or epoch is None:
        return None
    return MemberReconciliation(member_id, epoch, current)


def parse_members(
    members_raw: object, path: str, counts: Mapping[str, int], problems: Problems
) -> list[Member]:
    """A list of member objects (step 4 of the module docstring); ``counts`` (topic ->
    partitions) decides which ownership claims get a warning. Records problems, returns the
    members that parsed. Members with equal subscriptions share one ``topics`` tuple (2,000
    members of 500 topics hold 500 names, not a million copies, and comparing two of them
    meets the same names)."""
    members: list[Member] = []
    subscriptions: dict[tuple[str, ...], tuple[str, ...]] = {}
    if not isinstance(members_raw, list):
        problems.error(path, f"expected a list of members, got {type_name(members_raw)}")
    elif len(members_raw) > MAX_MEMBERS:
        problems.error(path, f"{len(members_raw):,} members; at most {MAX_MEMBERS:,}")
    else:
        seen_members: dict[str, int] = {}
        for index, member_raw in enumerate(members_raw):
            member = _parse_member(member_raw, f"{path}[{index}]", counts, problems, subscriptions)
            if member is None:
                continue
            if member.member_id in seen_members:
                problems.error(
                    f"{path}[{index}].member_id",
                    f'duplicate member "{member.member_id}" '
                    f"(also {path}[{seen_members[member.member_id]}])",
                )
                continue
            seen_members[member.member_id] = index
            members.append(member)
    return members


def _parse_topics(topics_raw: object, prefix: str, problems: Problems) -> list[Topic]:
    """The scenario's topics (unique names, within the limits); problems recorded."""
    topics: list[Topic] = []
    if not isinstance(topics_raw, list):
        problems.error(f"{prefix}topics", f"expected a list of topics, got {type_name(topics_raw)}")
    elif len(topics_raw) > MAX_TOPICS:
        problems.error(f"{prefix}topics", f"{len(topics_raw):,} topics; at most {MAX_TOPICS:,}")
    else:
        seen: dict[str, int] = {}
        total = 0
        for index, topic_raw in enumerate(topics_raw):
            topic = _parse_topic(topic_raw, f"{prefix}topics[{index}]", problems)
            if topic is None:
                continue
            if topic.name in seen:
                problems.error(
                    f"{prefix}topics[{index}].name",
                    f'duplicate topic "{topic.name}" (also topics[{seen[topic.name]}])',
                )
                continue
            seen[topic.name] = index
            total += topic.partitions
            topics.append(topic)
        if total > MAX_TOTAL_PARTITIONS:
            problems.error(
                f"{prefix}topics",
                f"{total:,} partitions in all; at most {MAX_TOTAL_PARTITIONS:,}",
            )
    return topics


def parse_scenario(
    raw: object, path: str = "scenario", *, json_checked: bool = False
) -> tuple[Scenario, tuple[str, ...]]:
    """Validate a JSON scenario object; return the scenario and its warnings.

    Raises :class:`ScenarioError` listing every problem, each prefixed with its JSON path
    (relative to ``path``; pass ``""`` for paths like ``members[3].rack``). A ``walkthrough``
    is not read here: :func:`assignors.io.walkthrough.parse_walkthrough` reads and checks it.
    ``raw`` first passes the JSON gate's value checks (:func:`check_json_value`: depth, number
    sizes, NaN, text), unless ``json_checked`` says it came from :func:`decode_json` already.
    """
    prefix = f"{path}." if path else ""
    problems = Problems()
    if not json_checked:
        check_json_value(raw, path)
    if not isinstance(raw, dict):
        raise ScenarioError([f"{path or 'scenario'}: expected a JSON object, got {type_name(raw)}"])
    if "tasks" in raw or "clients" in raw:
        raise ScenarioError(
            [
                f"{path or 'scenario'}: this is a Kafka Streams task scenario (tasks and clients);"
                " load it with a task strategy such as streams-ha, not as a consumer group"
            ]
        )
    problems.unknown_fields(raw, SCENARIO_FIELDS, path)
    topics = _parse_topics(raw.get("topics"), prefix, problems)
    counts = {topic.name: topic.partitions for topic in topics}
    members = parse_members(raw.get("members"), f"{prefix}members", counts, problems)
    reset = raw.get("auto_offset_reset", "latest")
    if reset not in AUTO_OFFSET_RESETS:
        problems.error(
            f"{prefix}auto_offset_reset",
            f"expected one of {', '.join(AUTO_OFFSET_RESETS)}, got {reset!r:.40}",
        )
        reset = "latest"
    texts = {
        key: parse_optional_string(raw, key, path, problems)
        for key in ("name", "description", "group_id", "assignor")
    }
    reconciliation = parse_reconciliation(
        raw.get("reconciliation"), f"{prefix}reconciliation", members, counts, problems
    )
    kafka_version = raw.get("kafka_version")
    if kafka_version is not None:
        problem = kafka_version_problem(kafka_version)
        if problem is not None:
            problems.error(f"{prefix}kafka_version", problem)
    if problems.errors:
        raise ScenarioError(problems.errors)
    scenario = Scenario(
        topics=tuple(topics),
        members=tuple(members),
        auto_offset_reset=cast(AutoOffsetReset, reset),
        reconciliation=reconciliation,
        kafka_version=None if kafka_version is None else release_line(kafka_version),
        **texts,
    )
    return scenario, tuple(problems.warnings)


def scenario_to_json(scenario: Scenario) -> dict[str, Any]:
    """The JSON object form of a scenario; :func:`parse_scenario` reads it back unchanged."""
    topics: list[dict[str, Any]] = []
    for topic in scenario.topics:
        entry: dict[str, Any] = {"name": topic.name, "partitions": topic.partitions}
        if topic.topic_id is not None:
            entry["id"] = topic.topic_id
        for key in PER_PARTITION_FIELDS:
            value = getattr(topic, key)
            if value is not None:
                entry[key] = [list(v) if isinstance(v, tuple) else v for v in value]
        topics.append(entry)
    result: dict[str, Any] = {}
    for key in ("name", "description", "group_id", "assignor"):
        value = getattr(scenario, key)
        if value is not None:
            result[key] = value
    result["topics"] = topics
    result["members"] = [member_to_json(member) for member in scenario.members]
    if scenario.auto_offset_reset != "latest":
        result["auto_offset_reset"] = scenario.auto_offset_reset
    if scenario.reconciliation is not None:
        result["reconciliation"] = reconciliation_to_json(scenario.reconciliation)
    if scenario.kafka_version is not None:
        result["kafka_version"] = scenario.kafka_version
    return result


def reconciliation_to_json(reconciliation: Reconciliation) -> dict[str, Any]:
    """The ``reconciliation`` object of :func:`scenario_to_json` (``current`` only for the
    members that do not hold their target)."""
    members: list[dict[str, Any]] = []
    for entry in reconciliation.members:
        item: dict[str, Any] = {"member_id": entry.member_id, "member_epoch": entry.member_epoch}
        if entry.current is not None:
            item["current"] = [[tp.topic, tp.partition] for tp in entry.current]
        members.append(item)
    return {
        "group_epoch": reconciliation.group_epoch,
        "assignment_epoch": reconciliation.assignment_epoch,
        "members": members,
    }


def dumps_scenario(raw: Mapping[str, Any]) -> str:
    """Scenario JSON text with one topic, member or walkthrough step per line.

    Short diffs and readable in an editor; ``json.loads`` of the result equals ``raw``.
    """
    lines = ["{"]
    keys = list(raw)
    for position, key in enumerate(keys):
        value = raw[key]
        comma = "," if position < len(keys) - 1 else ""
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            lines.append(f"  {json.dumps(key)}: [")
            lines.extend(
                f"    {json.dumps(item, ensure_ascii=False)}{',' if i < len(value) - 1 else ''}"
                for i, item in enumerate(value)
            )
            lines.append(f"  ]{comma}")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def member_to_json(member: Member) -> dict[str, Any]:
    """One member's JSON object (the ``members[i]`` entry of :func:`scenario_to_json`)."""
    item: dict[str, Any] = {"member_id": member.member_id, "topics": list(member.topics)}
    for key in ("rack", "group_instance_id", "client_id", "host", "priority", "consume_rate"):
        value = getattr(member, key)
        if value is not None:
            item[key] = value
    if member.owned_partitions:
        item["owned_partitions"] = [[tp.topic, tp.partition] for tp in member.owned_partitions]
    if member.generation is not None:
        item["generation"] = member.generation
    return item


# --- files, text and the schema ------------------------------------------------------------------


def read_json_file(path: str | Path, *, max_bytes: int = MAX_FILE_BYTES) -> object:
    """The JSON value in a file, through the gate (:func:`assignors.io.json_safe.decode_json`):
    files over ``max_bytes`` are refused before they are read; failures are ScenarioError."""
    file = Path(path)
    try:
        size = file.stat().st_size
        if size <= max_bytes:
            with file.open("rb") as handle:
                data = handle.read(max_bytes + 1)
    except (OSError, ValueError) as error:  # ValueError: a NUL byte in the path
        reason = getattr(error, "strerror", None) or str(error)
        raise ScenarioError([f"{file}: cannot read the file ({reason})"]) from None
    if size > max_bytes:
        raise ScenarioError([too_large_message(str(file), size, max_bytes)])
    return decode_json(data, str(file), max_bytes=max_bytes)


def load_scenario_file(
    path: str | Path, *, max_bytes: int = MAX_FILE_BYTES
) -> tuple[Scenario, tuple[str, ...]]:
    """Read and validate a scenario JSON file; every failure is a :class:`ScenarioError`."""
    return parse_scenario(read_json_file(path, max_bytes=max_bytes), path="", json_checked=True)


def decode_scenario_text(
    text: str | bytes, source: str = "scenario", *, max_bytes: int = MAX_FILE_BYTES
) -> object:
    """The JSON value of a scenario's text (a file's content, an upload, a paste), through the
    gate: a byte-order mark is accepted, sizes, numbers and nesting are bounded."""
    return decode_json(text, source, max_bytes=max_bytes)


def parse_scenario_text(
    text: str | bytes, source: str = "scenario", *, max_bytes: int = MAX_FILE_BYTES
) -> tuple[Scenario, tuple[str, ...]]:
    """Parse and validate scenario JSON text (a file's content or an upload)."""
    raw = decode_scenario_text(text, source, max_bytes=max_bytes)
    return parse_scenario(raw, path="", json_checked=True)


def schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the scenario format, shipped as package data."""
    text = resources.files("assignors.io").joinpath("scenario.schema.json").read_text("utf-8")
    return cast("dict[str, Any]", json.loads(text))

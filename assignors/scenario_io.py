"""The one loader: JSON scenario objects -> :class:`~assignors.model.Scenario`, and back.

The format is the conformance format (see ``../shared/conformance/README.md``) plus optional
fields documented in ``docs/scenario-format.md``. :func:`parse_scenario` checks everything and
reports *every* problem at once as a :class:`~assignors.errors.ScenarioError`, each with its JSON
path and what was expected. Claims on partitions that do not exist are not errors: Kafka ignores
them, and so do the strategies; the loader returns a warning for each.

Size limits (memory stays bounded; larger input is refused with a message):

* ``MAX_PARTITIONS_PER_TOPIC`` partitions in one topic, ``MAX_TOTAL_PARTITIONS`` in all topics,
* ``MAX_MEMBERS`` members, ``MAX_TOPICS`` topics,
* ``MAX_OWNED_PER_MEMBER`` owned partitions per member.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar, cast

from assignors.errors import ScenarioError
from assignors.model import AutoOffsetReset, Member, Scenario, Topic, TopicPartition

MAX_PARTITIONS_PER_TOPIC = 1_000_000
MAX_TOTAL_PARTITIONS = 5_000_000
MAX_MEMBERS = 100_000
MAX_TOPICS = 100_000
MAX_OWNED_PER_MEMBER = 5_000_000
MAX_NAME_LENGTH = 4_096
#: The largest scenario file :func:`load_scenario_file` reads, in bytes.
MAX_FILE_BYTES = 512 * 1024 * 1024

AUTO_OFFSET_RESETS: tuple[AutoOffsetReset, ...] = ("latest", "earliest", "none")
_JAVA_INT_MIN = -(2**31)
_JAVA_INT_MAX = 2**31 - 1
_JAVA_LONG_MAX = 2**63 - 1

T = TypeVar("T")


class _Problems:
    """Collects problems with their JSON paths."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.warnings: list[str] = []

    def error(self, path: str, message: str) -> None:
        self.errors.append(f"{path}: {message}")

    def warn(self, path: str, message: str) -> None:
        self.warnings.append(f"{path}: {message}")


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return (_is_int(value) or isinstance(value, float)) and math.isfinite(cast(float, value))


def _string(value: object, path: str, problems: _Problems, *, nonempty: bool = True) -> str | None:
    if not isinstance(value, str):
        problems.error(path, f"expected a string, got {_type_name(value)}")
        return None
    if nonempty and not value:
        problems.error(path, "expected a non-empty string")
        return None
    if len(value) > MAX_NAME_LENGTH:
        problems.error(path, f"longer than {MAX_NAME_LENGTH} characters")
        return None
    return value


def _optional_string(
    obj: Mapping[str, Any], key: str, path: str, problems: _Problems
) -> str | None:
    value = obj.get(key)
    if value is None:
        return None
    return _string(value, f"{path}.{key}", problems)


def _int(
    value: object, path: str, problems: _Problems, *, minimum: int, maximum: int
) -> int | None:
    if not _is_int(value):
        problems.error(path, f"expected an integer, got {_type_name(value)}")
        return None
    number = cast(int, value)
    if number < minimum or number > maximum:
        problems.error(path, f"expected an integer from {minimum:,} to {maximum:,}, got {number:,}")
        return None
    return number


def _parallel_array(
    obj: Mapping[str, Any],
    key: str,
    path: str,
    length: int | None,
    problems: _Problems,
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
            here, f"expected a list with one entry per partition, got {_type_name(value)}"
        )
        return None
    if length is not None and len(value) != length:
        problems.error(here, f"expected {length} entries (one per partition), got {len(value)}")
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


def _parse_topic(raw: object, path: str, problems: _Problems) -> Topic | None:
    if not isinstance(raw, dict):
        problems.error(path, f"expected a topic object, got {_type_name(raw)}")
        return None
    name = _string(raw.get("name"), f"{path}.name", problems)
    if "partitions" not in raw:
        problems.error(f"{path}.partitions", "missing: the partition count is required")
        count = None
    else:
        count = _int(
            raw["partitions"], f"{path}.partitions", problems,
            minimum=0, maximum=MAX_PARTITIONS_PER_TOPIC,
        )  # fmt: skip
    size = count if count is not None else None

    def offset(item: object, where: str) -> int | None:
        return _int(item, where, problems, minimum=0, maximum=_JAVA_LONG_MAX)

    def rate(item: object, where: str) -> float | None:
        if not _is_number(item) or cast(float, item) < 0:
            problems.error(where, f"expected a non-negative number, got {item!r}")
            return None
        return float(cast(float, item))

    def racks(item: object, where: str) -> tuple[str, ...] | None:
        if not isinstance(item, list):
            problems.error(where, f"expected a list of rack names, got {_type_name(item)}")
            return None
        names = [_string(rack, f"{where}[{i}]", problems) for i, rack in enumerate(item)]
        return tuple(n for n in names if n is not None) if None not in names else None

    replica_racks = _parallel_array(raw, "replica_racks", path, size, problems, racks)
    lags = _parallel_array(raw, "lags", path, size, problems, offset)
    starts = _parallel_array(raw, "log_start_offsets", path, size, problems, offset)
    ends = _parallel_array(raw, "log_end_offsets", path, size, problems, offset)
    committed = _parallel_array(
        raw, "committed_offsets", path, size, problems, offset, nullable=True
    )
    produce_rates = _parallel_array(raw, "produce_rates", path, size, problems, rate)
    topic_id = _optional_string(raw, "id", path, problems)
    if starts is not None and ends is not None:
        for p, (start, end) in enumerate(zip(starts, ends, strict=True)):
            if start is not None and end is not None and start > end:
                problems.error(
                    f"{path}.log_start_offsets[{p}]",
                    f"log-start offset {start:,} is beyond the log-end offset {end:,}",
                )
    if committed is not None and starts is not None:
        for p, (commit, start) in enumerate(zip(committed, starts, strict=True)):
            if commit is not None and start is not None and commit < start:
                problems.error(
                    f"{path}.committed_offsets[{p}]",
                    f"committed offset {commit:,} is below the log-start offset {start:,}"
                    " (the records were deleted; the consumer would reset)",
                )
    if name is None or count is None:
        return None
    return Topic(
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


def _parse_member(
    raw: object, path: str, counts: Mapping[str, int], problems: _Problems
) -> Member | None:
    if not isinstance(raw, dict):
        problems.error(path, f"expected a member object, got {_type_name(raw)}")
        return None
    member_id = _string(raw.get("member_id"), f"{path}.member_id", problems)
    topics_raw = raw.get("topics")
    topics: list[str] = []
    if not isinstance(topics_raw, list):
        problems.error(
            f"{path}.topics", f"expected a list of topic names, got {_type_name(topics_raw)}"
        )
    else:
        for index, topic in enumerate(topics_raw):
            name = _string(topic, f"{path}.topics[{index}]", problems)
            if name is not None:
                topics.append(name)
    owned: list[TopicPartition] = []
    owned_raw = raw.get("owned_partitions")
    if owned_raw is not None:
        if not isinstance(owned_raw, list):
            problems.error(
                f"{path}.owned_partitions",
                f"expected a list of [topic, partition] pairs, got {_type_name(owned_raw)}",
            )
        elif len(owned_raw) > MAX_OWNED_PER_MEMBER:
            problems.error(f"{path}.owned_partitions", f"more than {MAX_OWNED_PER_MEMBER:,} claims")
        else:
            for index, pair in enumerate(owned_raw):
                here = f"{path}.owned_partitions[{index}]"
                if (
                    not isinstance(pair, list)
                    or len(pair) != 2
                    or not isinstance(pair[0], str)
                    or not _is_int(pair[1])
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
    generation = None
    if raw.get("generation") is not None:
        generation = _int(
            raw["generation"], f"{path}.generation", problems,
            minimum=-1, maximum=_JAVA_INT_MAX,
        )  # fmt: skip
    priority = None
    if raw.get("priority") is not None:
        priority = _int(
            raw["priority"], f"{path}.priority", problems,
            minimum=_JAVA_INT_MIN, maximum=_JAVA_INT_MAX,
        )  # fmt: skip
    consume_rate = None
    if raw.get("consume_rate") is not None:
        value = raw["consume_rate"]
        if not _is_number(value) or value < 0:
            problems.error(f"{path}.consume_rate", f"expected records/s >= 0, got {value!r}")
        else:
            consume_rate = float(value)
    if member_id is None:
        return None
    return Member(
        member_id=member_id,
        topics=tuple(topics),
        rack=_optional_string(raw, "rack", path, problems),
        group_instance_id=_optional_string(raw, "group_instance_id", path, problems),
        owned_partitions=tuple(owned),
        generation=generation,
        priority=priority,
        consume_rate=consume_rate,
        client_id=_optional_string(raw, "client_id", path, problems),
        host=_optional_string(raw, "host", path, problems),
    )


def parse_scenario(raw: object, path: str = "scenario") -> tuple[Scenario, tuple[str, ...]]:
    """Validate a JSON scenario object; return the scenario and its warnings.

    Raises :class:`ScenarioError` listing every problem, each prefixed with its JSON path
    (relative to ``path``; pass ``""`` for paths like ``members[3].rack``).
    """
    prefix = f"{path}." if path else ""
    problems = _Problems()
    if not isinstance(raw, dict):
        raise ScenarioError(
            [f"{path or 'scenario'}: expected a JSON object, got {_type_name(raw)}"]
        )
    topics_raw = raw.get("topics")
    members_raw = raw.get("members")
    topics: list[Topic] = []
    if not isinstance(topics_raw, list):
        problems.error(
            f"{prefix}topics", f"expected a list of topics, got {_type_name(topics_raw)}"
        )
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
    counts = {topic.name: topic.partitions for topic in topics}
    members: list[Member] = []
    if not isinstance(members_raw, list):
        problems.error(
            f"{prefix}members", f"expected a list of members, got {_type_name(members_raw)}"
        )
    elif len(members_raw) > MAX_MEMBERS:
        problems.error(f"{prefix}members", f"{len(members_raw):,} members; at most {MAX_MEMBERS:,}")
    else:
        seen_members: dict[str, int] = {}
        for index, member_raw in enumerate(members_raw):
            member = _parse_member(member_raw, f"{prefix}members[{index}]", counts, problems)
            if member is None:
                continue
            if member.member_id in seen_members:
                problems.error(
                    f"{prefix}members[{index}].member_id",
                    f'duplicate member "{member.member_id}" '
                    f"(also members[{seen_members[member.member_id]}])",
                )
                continue
            seen_members[member.member_id] = index
            members.append(member)
    reset = raw.get("auto_offset_reset", "latest")
    if reset not in AUTO_OFFSET_RESETS:
        problems.error(
            f"{prefix}auto_offset_reset",
            f"expected one of {', '.join(AUTO_OFFSET_RESETS)}, got {reset!r}",
        )
        reset = "latest"
    texts = {
        key: _optional_string(raw, key, path or "scenario", problems)
        for key in ("name", "description", "group_id", "assignor")
    }
    if problems.errors:
        raise ScenarioError(problems.errors)
    scenario = Scenario(
        topics=tuple(topics),
        members=tuple(members),
        auto_offset_reset=cast(AutoOffsetReset, reset),
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
        for key in (
            "replica_racks",
            "lags",
            "log_start_offsets",
            "log_end_offsets",
            "committed_offsets",
            "produce_rates",
        ):
            value = getattr(topic, key)
            if value is not None:
                entry[key] = [list(v) if isinstance(v, tuple) else v for v in value]
        topics.append(entry)
    members: list[dict[str, Any]] = []
    for member in scenario.members:
        item: dict[str, Any] = {"member_id": member.member_id, "topics": list(member.topics)}
        for key in ("rack", "group_instance_id", "client_id", "host", "priority", "consume_rate"):
            value = getattr(member, key)
            if value is not None:
                item[key] = value
        if member.owned_partitions:
            item["owned_partitions"] = [[tp.topic, tp.partition] for tp in member.owned_partitions]
        if member.generation is not None:
            item["generation"] = member.generation
        members.append(item)
    result: dict[str, Any] = {}
    for key in ("name", "description", "group_id", "assignor"):
        value = getattr(scenario, key)
        if value is not None:
            result[key] = value
    result["topics"] = topics
    result["members"] = members
    if scenario.auto_offset_reset != "latest":
        result["auto_offset_reset"] = scenario.auto_offset_reset
    return result


def read_json_file(path: str | Path) -> object:
    """Read a JSON file within :data:`MAX_FILE_BYTES`; every failure is a :class:`ScenarioError`."""
    file = Path(path)
    try:
        size = file.stat().st_size
    except OSError as error:
        raise ScenarioError([f"{file}: cannot read the file ({error.strerror})"]) from None
    if size > MAX_FILE_BYTES:
        raise ScenarioError(
            [f"{file}: the file is {size / 2**20:,.0f} MiB; at most {MAX_FILE_BYTES // 2**20} MiB"]
        )
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ScenarioError([f"{file}: cannot read the file as UTF-8 text ({error})"]) from None
    return _json_loads(text, str(file))


def load_scenario_file(path: str | Path) -> tuple[Scenario, tuple[str, ...]]:
    """Read and validate a scenario JSON file; every failure is a :class:`ScenarioError`."""
    return parse_scenario(read_json_file(path), path="")


def parse_scenario_text(text: str, source: str = "scenario") -> tuple[Scenario, tuple[str, ...]]:
    """Parse and validate scenario JSON text (a file's content or an upload)."""
    return parse_scenario(_json_loads(text, source), path="")


def _json_loads(text: str, source: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ScenarioError(
            [f"{source}: not valid JSON: {error.msg} at line {error.lineno} column {error.colno}"]
        ) from None
    except RecursionError:
        raise ScenarioError([f"{source}: not valid JSON: nested too deeply"]) from None

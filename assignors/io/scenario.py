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

7. The compact form (:mod:`assignors.io.compact`) may stand wherever a list of partitions or of
   per-partition values is expected: ``"topics": "*"``, claims as runs (``["orders", "0-499"]``)
   and blocks (``{"topics": "*", "partitions": "17"}``), per-partition values as an object from
   runs to values. It is expanded as it is read, with the same checks and messages.

Invariant: :func:`scenario_to_json` (either form) followed by :func:`parse_scenario` gives back
an equal scenario. Cost: linear in the partitions, each per-partition list checked in C at once
(entry by entry only when something is wrong, to name where).

Size limits (:mod:`assignors.limits`; memory stays bounded; larger input is refused with a
message):

* ``MAX_PARTITIONS_PER_TOPIC`` partitions in one topic, ``MAX_TOTAL_PARTITIONS`` in all topics,
* ``MAX_MEMBERS`` members, ``MAX_TOPICS`` topics,
* ``MAX_OWNED_PER_MEMBER`` owned partitions per member and ``MAX_TOTAL_OWNED`` in all members
  (a run of the compact form counts each partition it names, before any is made),
* bytes, only to stop a text too large to decode before it is read: ``MAX_SCENARIO_FILE_BYTES``
  for :func:`load_scenario_file` (generous: the counts above bound the memory) and
  ``MAX_FILE_BYTES`` for :func:`parse_scenario_text` (uploads and pastes; a keyword argument
  raises either for one call),
* and the JSON gate's own limits (:mod:`assignors.io.json_safe`: nesting depth, digits per
  integer, finite numbers only), which every scenario passes, whether read from text or built.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import chain, repeat
from operator import ge, gt, is_not, itemgetter, lt
from pathlib import Path
from typing import Any, TypeVar, cast

from assignors.errors import ScenarioError
from assignors.gc_pause import paused_gc
from assignors.io.compact import (
    BLOCK_FIELDS,
    EVERY_TOPIC,
    claims_to_json,
    expand,
    parse_numbers,
    values_to_json,
)
from assignors.io.json_checks import Problems, is_int, is_number, type_name
from assignors.io.json_safe import check_json_value, decode_json, too_large_message
from assignors.kafka_versions import kafka_version_problem, release_line
from assignors.limits import (
    MAX_MEMBERS,
    MAX_NAME_LENGTH,
    MAX_OWNED_PER_MEMBER,
    MAX_PARTITIONS_PER_TOPIC,
    MAX_SCENARIO_FILE_BYTES,
    MAX_TOPICS,
    MAX_TOTAL_OWNED,
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

#: The largest scenario text :func:`parse_scenario_text` reads (an upload, a paste), in bytes. A
#: realistic 100,000-partition snapshot with every offset array is about 10 MiB; in the compact
#: form (:mod:`assignors.io.compact`) a million owned partitions take a few hundred KiB.
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
    bulk: Callable[[list[Any]], tuple[Any, ...] | None] | None = None,
) -> tuple[T | None, ...] | None:
    """A per-partition array: a list exactly ``length`` long of elements ``element`` accepts, or
    the compact form's object from partition runs to values (:func:`_keyed_values`).

    ``bulk`` checks a whole list at once in C (``None`` when it cannot vouch for every entry);
    only then does ``element`` run entry by entry, to name each problem with its path."""
    if key not in obj or obj[key] is None:
        return None
    value = obj[key]
    here = f"{path}.{key}"
    if isinstance(value, dict) and length is not None:
        return _keyed_values(value, here, length, problems, element, nullable=nullable)
    if not isinstance(value, list):
        problems.error(
            here,
            f"expected a list with one entry per partition (or an object from partition runs to"
            f" values), got {type_name(value)}",
        )
        return None
    if length is not None and len(value) != length:
        problems.error(
            here,
            f"expected {length:,} entries (one per partition, parallel to the partition numbers),"
            f" got {len(value):,}",
        )
        return None
    if bulk is not None:
        checked = bulk(value)
        if checked is not None:
            return checked
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


def _keyed_values(
    value: dict[str, Any],
    here: str,
    length: int,
    problems: Problems,
    element: Callable[[object, str], T | None],
    *,
    nullable: bool,
) -> tuple[T | None, ...] | None:
    """Rule 4 of :mod:`assignors.io.compact`: ``{"0-498": 0, "499": 12}``, every partition
    ``0`` to ``length - 1`` given exactly once. Linear in the partitions, filled in C."""
    values: list[T | None] = [None] * length
    covered = bytearray(length)
    ok = True
    for key, item in value.items():
        where = f"{here}.{key}"
        try:
            ranges = parse_numbers(key)
        except ValueError as error:
            problems.error(where, f"expected partition numbers as the key: {error}")
            ok = False
            continue
        outside = [numbers[-1] for numbers in ranges if numbers[-1] >= length]
        if outside:
            problems.error(
                where, f"partition {outside[0]:,} does not exist (partitions 0 to {length - 1:,})"
            )
            ok = False
            continue
        parsed = None if item is None and nullable else element(item, where)
        if parsed is None and not (item is None and nullable):
            ok = False
            continue
        for numbers in ranges:
            cut = slice(numbers.start, numbers.stop, numbers.step)
            if any(covered[cut]):
                again = next(n for n in numbers if covered[n])
                problems.error(where, f"partition {again:,} is given a value twice")
                ok = False
                break
            covered[cut] = b"\x01" * len(numbers)
            values[cut] = [parsed] * len(numbers)
    if ok and covered.count(0):
        problems.error(
            here,
            f"{covered.count(0):,} partitions have no value (the first: {covered.index(0):,});"
            f" give every partition 0 to {length - 1:,} one",
        )
        ok = False
    return tuple(values) if ok else None


def _bulk_offsets(values: list[Any]) -> tuple[int, ...] | None:
    """``values`` when every one is an offset (an integer from 0 to a Java long), decided in C."""
    if values and not (set(map(type, values)) <= {int} and min(values) >= 0):
        return None
    return tuple(values) if not values or max(values) <= _JAVA_LONG_MAX else None


def _bulk_commits(values: list[Any]) -> tuple[int | None, ...] | None:
    """Like :func:`_bulk_offsets`, ``null`` allowed (no commit)."""
    present = list(filter(partial(is_not, None), values))
    return tuple(values) if _bulk_offsets(present) is not None else None


def _bulk_rates(values: list[Any]) -> tuple[float, ...] | None:
    """``values`` as floats when every one is a number >= 0 (the gate let only finite ones in)."""
    if values and not (set(map(type, values)) <= {int, float} and min(values) >= 0):
        return None
    return tuple(map(float, values))


def _bulk_racks(values: list[Any]) -> tuple[tuple[str, ...], ...] | None:
    """``values`` as tuples when every one is a list of valid rack names."""
    if not set(map(type, values)) <= {list}:
        return None
    names = list(chain.from_iterable(values))
    if names and not (
        set(map(type, names)) <= {str}
        and min(map(len, names)) >= 1
        and max(map(len, names)) <= MAX_NAME_LENGTH
    ):
        return None
    return tuple(map(tuple, values))


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
    # Each comparison is first made in C over the whole topic; only a topic where one fails
    # is walked partition by partition to name them.
    if starts is not None and ends is not None and any(map(gt, starts, ends)):
        for p, (start, end) in enumerate(zip(starts, ends, strict=True)):
            if start > end:
                problems.error(
                    f"{path}.log_start_offsets[{p}]",
                    f"log-start offset {start:,} is beyond the log-end offset {end:,}",
                )
    if committed is None or not _commits_stray(committed, starts, ends):
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


def _commits_stray(
    committed: Sequence[int | None],
    starts: Sequence[int] | None,
    ends: Sequence[int] | None,
) -> bool:
    """Whether some committed offset is below its log start or beyond its log end."""
    if None in committed:
        below = [_JAVA_LONG_MAX if c is None else c for c in committed]
        above = [-1 if c is None else c for c in committed]
    else:
        below = above = cast("list[int]", committed)
    return (starts is not None and any(map(lt, below, starts))) or (
        ends is not None and any(map(gt, above, ends))
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

    def array(key: str, element: Callable[[object, str], T | None], bulk: Any) -> Any:
        nullable = key == "committed_offsets"
        return _parallel_array(
            raw, key, path, count, problems, element, nullable=nullable, bulk=bulk
        )

    replica_racks = array("replica_racks", racks, _bulk_racks)
    lags = array("lags", offset, _bulk_offsets)
    starts = array("log_start_offsets", offset, _bulk_offsets)
    ends = array("log_end_offsets", offset, _bulk_offsets)
    committed = array("committed_offsets", offset, _bulk_commits)
    produce_rates = array("produce_rates", rate, _bulk_rates)
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


@dataclass(slots=True)
class ClaimBudget:
    """Claims still allowed in all members together (:data:`MAX_TOTAL_OWNED`), spent as each
    member's are read, before a run's partitions are made."""

    left: int = field(default_factory=lambda: MAX_TOTAL_OWNED)


def _parse_owned(
    owned_raw: object,
    path: str,
    counts: Mapping[str, int],
    problems: Problems,
    budget: ClaimBudget | None = None,
) -> list[TopicPartition]:
    """A member's ``owned_partitions``: [topic, partition] pairs, or the compact form's runs and
    blocks (rule 3 of :mod:`assignors.io.compact`), expanded in the order written. A claim on a
    partition that does not exist is a warning (Kafka ignores it), a malformed one an error.
    ``counts`` lists the scenario's topics in order (``"*"`` is all of them)."""
    if owned_raw is None:
        return []
    if not isinstance(owned_raw, list):
        problems.error(
            path, f"expected a list of [topic, partition] pairs, got {type_name(owned_raw)}"
        )
        return []
    budget = ClaimBudget() if budget is None else budget
    pairs = _pairs_at_once(owned_raw, counts)
    if pairs is not None and len(pairs) <= min(MAX_OWNED_PER_MEMBER, budget.left):
        budget.left -= len(pairs)
        return pairs
    owned: list[TopicPartition] = []
    for index, entry in enumerate(owned_raw):
        block = _claim_block(entry, f"{path}[{index}]", counts, problems)
        if block is None:
            continue
        topics, ranges = block
        size = len(topics) * sum(map(len, ranges))
        over = len(owned) + size > MAX_OWNED_PER_MEMBER
        if over or size > budget.left:
            limit = MAX_OWNED_PER_MEMBER if over else MAX_TOTAL_OWNED
            scope = "for one member" if over else "in all members"
            problems.error(
                path, f"more than {limit:,} claims {scope} (a run counts each partition)"
            )
            return owned
        budget.left -= size
        owned.extend(expand(topics, ranges))
    return owned


def _pairs_at_once(raw: list[Any], counts: Mapping[str, int]) -> list[TopicPartition] | None:
    """``raw`` as claims when every entry is a [topic, partition] pair on a partition that
    exists, decided in C; ``None`` otherwise (the entry-by-entry walk names each problem)."""
    if not raw:
        return []
    if set(map(type, raw)) != {list} or set(map(len, raw)) != {2}:
        return None
    topics, numbers = list(map(itemgetter(0), raw)), list(map(itemgetter(1), raw))
    if set(map(type, topics)) != {str} or set(map(type, numbers)) != {int}:
        return None
    if not set(topics) <= counts.keys() or min(numbers) < 0:
        return None
    if any(map(ge, numbers, map(counts.__getitem__, topics))):
        return None
    return list(cast("map[TopicPartition]", map(tuple.__new__, repeat(TopicPartition), raw)))


_Block = tuple[tuple[str, ...], list[range]]


def _claim_block(
    entry: object, here: str, counts: Mapping[str, int], problems: Problems
) -> _Block | None:
    """One entry of a claims list as topics x partition numbers; problems recorded."""
    if isinstance(entry, dict):
        return _block_entry(entry, here, counts, problems)
    if (
        not isinstance(entry, list)
        or len(entry) != 2
        or not isinstance(entry[0], str)
        or not (is_int(entry[1]) or isinstance(entry[1], str))
    ):
        problems.error(here, f"expected a [topic, partition] pair, got {entry!r:.80}")
        return None
    topic, partitions = entry
    ranges = _claim_numbers(partitions, here, problems)
    if ranges is None:
        return None
    if not _all_exist((topic,), ranges, counts):
        _warn_missing(topic, ranges, here, counts, problems)
    return (topic,), ranges


def _claim_numbers(value: object, here: str, problems: Problems) -> list[range] | None:
    """A claim's partition numbers: an integer or a string of runs, each a valid partition."""
    if is_int(value):
        number = cast(int, value)
        if number < 0 or number > _JAVA_INT_MAX:
            problems.error(here, f"partition {number} is not a valid partition number")
            return None
        return [range(number, number + 1)]
    if not isinstance(value, str):
        problems.error(here, f'expected partition numbers such as "0-499", got {type_name(value)}')
        return None
    try:
        ranges = parse_numbers(value)
    except ValueError as error:
        problems.error(here, str(error))
        return None
    if any(numbers[-1] > _JAVA_INT_MAX for numbers in ranges):
        problems.error(here, f"{value!r:.40} names a partition beyond {_JAVA_INT_MAX:,}")
        return None
    return ranges


def _block_entry(
    entry: dict[str, Any], here: str, counts: Mapping[str, int], problems: Problems
) -> _Block | None:
    """``{"topics": "*" | [names], "partitions": "0-499"}``: each topic in turn."""
    problems.unknown_fields(entry, BLOCK_FIELDS, here)
    listed = entry.get("topics")
    topics: tuple[str, ...] | None = None
    if listed == EVERY_TOPIC:
        topics = tuple(counts)
    elif isinstance(listed, list) and listed:
        names = [
            parse_string(name, f"{here}.topics[{i}]", problems) for i, name in enumerate(listed)
        ]
        topics = None if None in names else cast("tuple[str, ...]", tuple(names))
    else:
        problems.error(
            f"{here}.topics",
            'expected "*" (every topic) or a non-empty list of topic names,'
            f" got {type_name(listed)}",
        )
    ranges = _claim_numbers(entry.get("partitions"), f"{here}.partitions", problems)
    if topics is None or ranges is None:
        return None
    if not _all_exist(topics, ranges, counts, every=listed == EVERY_TOPIC):
        for topic in dict.fromkeys(topics):
            _warn_missing(topic, ranges, here, counts, problems)
    return topics, ranges


def _all_exist(
    topics: Sequence[str], ranges: list[range], counts: Mapping[str, int], every: bool = False
) -> bool:
    """Whether every partition ``ranges`` names exists in every one of ``topics`` (in C; true of
    no topics at all). ``every``: ``topics`` are all of ``counts``' topics, so only the smallest
    count is read (a block of ``"*"`` per member of a large group: no set of every topic)."""
    if every:
        counted: Iterable[int] = counts.values()
    elif set(topics) <= counts.keys():
        counted = map(counts.__getitem__, topics)
    else:
        return False
    return max(numbers[-1] for numbers in ranges) < min(counted, default=_JAVA_INT_MAX + 1)


def _warn_missing(
    topic: str, ranges: list[range], here: str, counts: Mapping[str, int], problems: Problems
) -> None:
    """Warn about claims on a topic or partitions that do not exist (Kafka ignores them)."""
    if topic not in counts:
        problems.warn(here, f'topic "{topic}" does not exist; Kafka ignores this claim')
        return
    count = counts[topic]
    beyond = [numbers[max(0, -(-(count - numbers.start) // numbers.step)) :] for numbers in ranges]
    missing = sum(map(len, beyond))
    if missing == 0:
        return
    if missing == 1 and sum(map(len, ranges)) == 1:
        problems.warn(
            here,
            f'partition {ranges[0][0]} does not exist in topic "{topic}" '
            f"({count} partitions); Kafka ignores this claim",
        )
        return
    first = min(numbers[0] for numbers in beyond if numbers)
    problems.warn(
        here,
        f'{missing:,} of these partitions do not exist in topic "{topic}" ({count} partitions,'
        f" the first missing: {first}); Kafka ignores those claims",
    )


def _names_ok(names: list[Any]) -> bool:
    """Whether every one of ``names`` passes :func:`parse_string`, decided in C."""
    if not names:
        return True
    lengths = list(map(len, names)) if set(map(type, names)) == {str} else None
    return lengths is not None and min(lengths) >= 1 and max(lengths) <= MAX_NAME_LENGTH


def _parse_member(
    raw: object,
    path: str,
    counts: Mapping[str, int],
    problems: Problems,
    subscriptions: dict[tuple[str, ...], tuple[str, ...]],
    budget: ClaimBudget,
) -> Member | None:
    """One member; a subscription equal to an earlier member's is that member's tuple
    (``subscriptions``: each distinct subscription once). ``counts`` lists the scenario's
    topics in order: ``"topics": "*"`` subscribes to all of them."""
    if not isinstance(raw, dict):
        problems.error(path, f"expected a member object, got {type_name(raw)}")
        return None
    problems.unknown_fields(raw, MEMBER_FIELDS, path)
    member_id = parse_string(raw.get("member_id"), f"{path}.member_id", problems)
    topics_raw = raw.get("topics")
    topics: list[str] = []
    if topics_raw == EVERY_TOPIC:
        topics = list(counts)
    elif not isinstance(topics_raw, list):
        problems.error(
            f"{path}.topics",
            f'expected a list of topic names (or "*": every topic), got {type_name(topics_raw)}',
        )
    elif _names_ok(topics_raw):
        topics = topics_raw
    else:
        for index, topic in enumerate(topics_raw):
            name = parse_string(topic, f"{path}.topics[{index}]", problems)
            if name is not None:
                topics.append(name)
    owned = _parse_owned(
        raw.get("owned_partitions"), f"{path}.owned_partitions", counts, problems, budget
    )
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
    budget = ClaimBudget()
    for index, item in enumerate(entries_raw):
        here = f"{path}.members[{index}]"
        entry = _parse_reconciling_member(item, here, counts, problems, budget)
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
    raw: object, path: str, counts: Mapping[str, int], problems: Problems, budget: ClaimBudget
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
        claims = _parse_owned(raw["current"], f"{path}.current", counts, problems, budget)
        current = tuple(sorted(claims))
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
        budget = ClaimBudget()
        for index, member_raw in enumerate(members_raw):
            member = _parse_member(
                member_raw, f"{path}[{index}]", counts, problems, subscriptions, budget
            )
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
    with paused_gc():  # a million claims are a million tuples, and no cycles
        return _parse_scenario(raw, path, json_checked=json_checked)


def _parse_scenario(
    raw: object, path: str, *, json_checked: bool
) -> tuple[Scenario, tuple[str, ...]]:
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


def scenario_to_json(scenario: Scenario, *, compact: bool = False) -> dict[str, Any]:
    """The JSON object form of a scenario; :func:`parse_scenario` reads it back unchanged.

    ``compact``: owned partitions as runs, a subscription to every topic as ``"*"`` and
    per-partition values as runs where that is shorter (:mod:`assignors.io.compact`)."""
    every_topic = tuple(topic.name for topic in scenario.topics) if compact else None
    topics: list[dict[str, Any]] = []
    for topic in scenario.topics:
        entry: dict[str, Any] = {"name": topic.name, "partitions": topic.partitions}
        if topic.topic_id is not None:
            entry["id"] = topic.topic_id
        for key in PER_PARTITION_FIELDS:
            value = getattr(topic, key)
            if value is not None:
                entry[key] = (
                    values_to_json(value)
                    if compact
                    else [list(v) if isinstance(v, tuple) else v for v in value]
                )
        topics.append(entry)
    result: dict[str, Any] = {}
    for key in ("name", "description", "group_id", "assignor"):
        value = getattr(scenario, key)
        if value is not None:
            result[key] = value
    result["topics"] = topics
    result["members"] = [member_to_json(member, every_topic) for member in scenario.members]
    if scenario.auto_offset_reset != "latest":
        result["auto_offset_reset"] = scenario.auto_offset_reset
    if scenario.reconciliation is not None:
        result["reconciliation"] = reconciliation_to_json(scenario.reconciliation, every_topic)
    if scenario.kafka_version is not None:
        result["kafka_version"] = scenario.kafka_version
    return result


def claims_json(claims: Sequence[TopicPartition], every_topic: Sequence[str] | None) -> list[Any]:
    """Claims one by one (``every_topic`` ``None``) or in the compact form, order kept."""
    if every_topic is None:
        return [[tp.topic, tp.partition] for tp in claims]
    return claims_to_json(claims, every_topic)


def reconciliation_to_json(
    reconciliation: Reconciliation, every_topic: Sequence[str] | None = None
) -> dict[str, Any]:
    """The ``reconciliation`` object of :func:`scenario_to_json` (``current`` only for the
    members that do not hold their target; compact when ``every_topic`` is given)."""
    members: list[dict[str, Any]] = []
    for entry in reconciliation.members:
        item: dict[str, Any] = {"member_id": entry.member_id, "member_epoch": entry.member_epoch}
        if entry.current is not None:
            item["current"] = claims_json(entry.current, every_topic)
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


def member_to_json(member: Member, every_topic: Sequence[str] | None = None) -> dict[str, Any]:
    """One member's JSON object (the ``members[i]`` entry of :func:`scenario_to_json`); in the
    compact form when ``every_topic`` (the scenario's topic names, in order) is given."""
    subscription: str | list[str] = list(member.topics)
    if every_topic is not None and member.topics and tuple(member.topics) == tuple(every_topic):
        subscription = EVERY_TOPIC
    item: dict[str, Any] = {"member_id": member.member_id, "topics": subscription}
    for key in ("rack", "group_instance_id", "client_id", "host", "priority", "consume_rate"):
        value = getattr(member, key)
        if value is not None:
            item[key] = value
    if member.owned_partitions:
        item["owned_partitions"] = claims_json(member.owned_partitions, every_topic)
    if member.generation is not None:
        item["generation"] = member.generation
    return item


# --- files, text and the schema ------------------------------------------------------------------


def read_json_file(path: str | Path, *, max_bytes: int = MAX_SCENARIO_FILE_BYTES) -> object:
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
    path: str | Path, *, max_bytes: int = MAX_SCENARIO_FILE_BYTES
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
    from importlib import resources  # here: importing it costs every command, only this reads it

    text = resources.files("assignors.io").joinpath("scenario.schema.json").read_text("utf-8")
    return cast("dict[str, Any]", json.loads(text))

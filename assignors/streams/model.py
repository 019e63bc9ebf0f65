"""Kafka Streams task assignment: the scenario a task strategy reads and the answer it writes.

A Kafka Streams application is split into *tasks* (``<subtopology>_<partition>``, e.g. ``0_3``);
each *client* (one Streams instance, identified by its ``process_id`` UUID) runs ``capacity``
stream threads and reports, for every stateful task, how far its local state is behind (its
*lag*). A task strategy maps a :class:`StreamsScenario` to a :class:`StreamsAssignment`: per
client the active tasks, the standby replicas and, among those, the warm-up replicas.

The JSON shape is the one of ``streams.jsonl`` in the shared conformance folder::

    {"tasks":   [{"id": "0_1", "stateful": true}, {"id": "1_0", "stateful": false}],
     "clients": [{"process_id": "9a0c1e2f-...", "capacity": 2,
                  "prev_active": ["0_1"], "prev_standby": [], "task_lags": {"0_1": -2}}],
     "config":  {"num_standby_replicas": 1, "acceptable_recovery_lag": 10000,
                 "max_warmup_replicas": 2, "probing_rebalance_interval_ms": 600000}}

How :func:`parse_streams_scenario` checks a scenario (every problem is reported at once, each as
``<json path>: <what is wrong>``, in one :class:`~assignors.errors.ScenarioError`):

1. The top level is an object with ``tasks`` and ``clients`` lists and an optional ``config``
   object (absent fields take Kafka Streams' defaults). Unknown fields are warnings (a typo
   usually), kept in :attr:`StreamsScenario.warnings`.
2. Each task: an ``id`` of the form ``<subtopology>_<partition>`` (two non-negative integers),
   unique, and a boolean ``stateful`` (default ``false``).
3. Each client: a unique ``process_id`` in the canonical lower-case UUID form, a ``capacity``
   of at least one thread, ``prev_active`` / ``prev_standby`` lists of known task ids (a task in
   both lists of one client is an error), and ``task_lags``: exactly one integer per stateful
   task, ``>= 0`` or one of the markers :data:`LATEST_OFFSET` (-2, ran the task as active last
   time) and :data:`UNKNOWN_OFFSET` (-3, offset unknown); no entry for a stateless or unknown
   task.
4. ``config``: ``num_standby_replicas >= 0``, ``acceptable_recovery_lag >= 0``,
   ``max_warmup_replicas >= 1``, ``probing_rebalance_interval_ms >= 60000`` (Kafka's own bounds).
5. ``reconciliation`` (optional; a Streams group read live): ``group_epoch`` and
   ``assignment_epoch`` (integers >= 0) and ``members``, each with a unique ``member_id``, the
   ``process_id`` of one of the clients (an entry for another is a warning and is dropped), its
   ``member_epoch``, and its tasks ``current`` (what it runs now) and ``target`` (what the
   group's assignor gave it; absent when equal to ``current``), each ``{"active", "standby",
   "warmup"}`` lists of known task ids (``standby`` includes the warm-ups, as in an answer).
6. ``kafka_version`` (optional): the Kafka release line a version-dependent task strategy
   reproduces (:data:`assignors.kafka_versions.KAFKA_VERSIONS`; default the newest).
6. Sizes are bounded (:data:`MAX_TASKS`, :data:`MAX_CLIENTS`, :data:`MAX_CAPACITY`) so that a
   mistaken input is refused with a message rather than exhausting memory.

Invariants the types keep: task ids order numerically (subtopology, then partition: ``0_2``
before ``0_10``), as Kafka's ``TaskId.compareTo`` does; every list in an answer is sorted that
way; :func:`streams_scenario_to_json` followed by :func:`parse_streams_scenario` gives back an
equal scenario. Nothing here imports outside the standard library.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

from assignors.errors import ScenarioError
from assignors.io.json_checks import Problems, type_name
from assignors.io.json_safe import check_json_value
from assignors.kafka_versions import kafka_version_problem, release_line

#: Lag marker: the client ran this task as active in the previous generation (caught up).
LATEST_OFFSET = -2
#: Lag marker: the client's offset for this task is unknown (not caught up; ranks ahead of real
#: lags when clients are ordered by lag, as in Kafka).
UNKNOWN_OFFSET = -3

MAX_TASKS = 200_000
MAX_CLIENTS = 10_000
MAX_CAPACITY = 10_000
MAX_STANDBY_REPLICAS = 1_000
#: The longest ``name`` or ``description`` (the scenario format's limit for every text).
MAX_TEXT_LENGTH = 4_096
_JAVA_INT_MAX = 2**31 - 1
_JAVA_LONG_MAX = 2**63 - 1
#: Kafka's lower bound for ``probing.rebalance.interval.ms`` (one minute).
MIN_PROBING_REBALANCE_INTERVAL_MS = 60_000

_TASK_ID = re.compile(r"^(0|[1-9][0-9]{0,9})_(0|[1-9][0-9]{0,9})$")
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_UUID_ANY_CASE = re.compile(r"^[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}$")

_TOP_FIELDS = (
    "tasks",
    "clients",
    "config",
    "name",
    "description",
    "reconciliation",
    "kafka_version",
    "walkthrough",  # teaching steps: read by sample_data, not here
)
_RECONCILIATION_FIELDS = ("group_epoch", "assignment_epoch", "members")
_RECONCILING_FIELDS = ("member_id", "process_id", "member_epoch", "current", "target")
_TASKS_FIELDS = ("active", "standby", "warmup")
_TASK_FIELDS = ("id", "stateful")
_CLIENT_FIELDS = ("process_id", "capacity", "prev_active", "prev_standby", "task_lags", "members")
_MEMBER_FIELDS = ("member_id", "prev_active", "prev_standby", "task_offsets")
#: The longest member id (Kafka's own are 22 to 36 characters).
MAX_MEMBER_ID_LENGTH = 1_024
_CONFIG_FIELDS = (
    "num_standby_replicas",
    "acceptable_recovery_lag",
    "max_warmup_replicas",
    "probing_rebalance_interval_ms",
)


class TaskId(NamedTuple):
    """A Kafka Streams task: one partition of one subtopology; orders numerically."""

    subtopology: int
    partition: int

    def __str__(self) -> str:
        return f"{self.subtopology}_{self.partition}"

    @staticmethod
    def parse(text: str) -> TaskId:
        """``"1_10"`` -> ``TaskId(1, 10)``; :class:`ValueError` when not of that form."""
        match = _TASK_ID.match(text)
        if match is None:
            raise ValueError(f"not a task id: {text!r}")
        return TaskId(int(match.group(1)), int(match.group(2)))


@dataclass(frozen=True, slots=True)
class StreamsTask:
    """A task of the application; ``stateful`` tasks have state stores (and so lags)."""

    id: TaskId
    stateful: bool


@dataclass(frozen=True, slots=True)
class StreamsMember:
    """One member of a Streams group (KIP-1071): one stream thread of a client.

    Only the broker-side assignor of Streams groups reads members. ``prev_active`` and
    ``prev_standby`` are the member's current target tasks; ``task_offsets`` the cumulative
    changelog offsets (offset sums) the member reported, per task (higher: more state restored;
    ``-2`` for a task it runs as active).
    """

    member_id: str
    prev_active: tuple[TaskId, ...] = ()
    prev_standby: tuple[TaskId, ...] = ()
    task_offsets: Mapping[TaskId, int] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True, slots=True)
class StreamsClient:
    """One Kafka Streams instance.

    ``task_lags`` holds one lag per stateful task (``LATEST_OFFSET``, ``UNKNOWN_OFFSET`` or a
    record count >= 0). ``prev_active`` / ``prev_standby`` are what the client held before; the
    high-availability assignor reads only the lags (its stickiness comes from them).
    ``members`` (optional) are the client's group members (one per thread, so exactly
    ``capacity`` of them) with their own previous tasks; the client's ``prev_active`` is then the
    union of theirs and ``prev_standby`` the union of theirs less ``prev_active``.
    """

    process_id: str
    capacity: int
    prev_active: tuple[TaskId, ...] = ()
    prev_standby: tuple[TaskId, ...] = ()
    task_lags: Mapping[TaskId, int] = field(default_factory=lambda: MappingProxyType({}))
    members: tuple[StreamsMember, ...] = ()


@dataclass(frozen=True, slots=True)
class StreamsConfig:
    """The Kafka Streams settings the assignor reads; defaults are Kafka's."""

    num_standby_replicas: int = 0
    acceptable_recovery_lag: int = 10_000
    max_warmup_replicas: int = 2
    probing_rebalance_interval_ms: int = 600_000


@dataclass(frozen=True, slots=True)
class StreamsMemberReconciliation:
    """One Streams group member (a stream thread of client ``process_id``) on its way to its
    target: its epoch, the tasks it runs now and the tasks the group's assignor gave it."""

    member_id: str
    process_id: str
    member_epoch: int
    current: ClientAssignment
    target: ClientAssignment

    @property
    def pending(self) -> bool:
        """Whether the member does not run its target tasks yet."""
        return self.current != self.target


@dataclass(frozen=True, slots=True)
class StreamsReconciliation:
    """Where a Streams group (KIP-1071) stands between two assignments: the group epoch, the
    target assignment epoch and each member's epoch, current and target tasks."""

    group_epoch: int
    assignment_epoch: int
    members: tuple[StreamsMemberReconciliation, ...] = ()


@dataclass(frozen=True, slots=True)
class StreamsScenario:
    """A Kafka Streams application at a rebalance: its tasks, its clients and its settings.

    ``tasks`` is sorted by task id; ``clients`` keeps the input order (the assignor orders them
    itself). ``warnings`` lists unknown fields the parser ignored. ``kafka_version``: the Kafka
    release line a version-dependent strategy reproduces (``None``: the newest).
    """

    tasks: tuple[StreamsTask, ...]
    clients: tuple[StreamsClient, ...]
    config: StreamsConfig = StreamsConfig()
    name: str | None = None
    description: str | None = None
    warnings: tuple[str, ...] = ()
    reconciliation: StreamsReconciliation | None = None
    """Set for a Streams group read live (see :class:`StreamsReconciliation`)."""
    kafka_version: str | None = None

    @property
    def stateful_tasks(self) -> tuple[TaskId, ...]:
        return tuple(task.id for task in self.tasks if task.stateful)

    @property
    def stateless_tasks(self) -> tuple[TaskId, ...]:
        return tuple(task.id for task in self.tasks if not task.stateful)


@dataclass(frozen=True, slots=True)
class ClientAssignment:
    """What one client runs: ``standby`` includes every warm-up; ``warmup`` is that subset."""

    active: tuple[TaskId, ...] = ()
    standby: tuple[TaskId, ...] = ()
    warmup: tuple[TaskId, ...] = ()

    @staticmethod
    def of(
        active: Iterable[TaskId], standby: Iterable[TaskId], warmup: Iterable[TaskId] = ()
    ) -> ClientAssignment:
        return ClientAssignment(
            tuple(sorted(active)), tuple(sorted(standby)), tuple(sorted(warmup))
        )


@dataclass(frozen=True, slots=True)
class StreamsAssignment:
    """The answer: per client (by process id) its tasks, and whether to probe again later.

    ``probing_rebalance_needed`` is true when the assignment is a step toward a better one that
    a follow-up probing rebalance (after ``probing_rebalance_interval_ms``) should finish.
    ``warmup_count`` is the number of warm-up replicas handed out.
    """

    clients: Mapping[str, ClientAssignment]
    probing_rebalance_needed: bool
    warmup_count: int
    warnings: tuple[str, ...] = ()


def streams_assignment_to_json(answer: StreamsAssignment) -> dict[str, Any]:
    """The ``expected`` shape of ``streams.jsonl`` (``warnings`` only when there are some)."""
    result: dict[str, Any] = {
        "clients": {
            process_id: {
                "active": [str(task) for task in tasks.active],
                "standby": [str(task) for task in tasks.standby],
                "warmup": [str(task) for task in tasks.warmup],
            }
            for process_id, tasks in answer.clients.items()
        },
        "probing_rebalance_needed": answer.probing_rebalance_needed,
        "warmup_count": answer.warmup_count,
    }
    if answer.warnings:
        result["warnings"] = list(answer.warnings)
    return result


def streams_scenario_to_json(scenario: StreamsScenario) -> dict[str, Any]:
    """The JSON object :func:`parse_streams_scenario` reads back into an equal scenario."""
    result: dict[str, Any] = {
        "tasks": [{"id": str(task.id), "stateful": task.stateful} for task in scenario.tasks],
        "clients": [
            {
                "process_id": client.process_id,
                "capacity": client.capacity,
                "prev_active": [str(task) for task in client.prev_active],
                "prev_standby": [str(task) for task in client.prev_standby],
                "task_lags": {str(task): lag for task, lag in sorted(client.task_lags.items())},
            }
            | _members_to_json(client)
            for client in scenario.clients
        ],
        "config": {
            "num_standby_replicas": scenario.config.num_standby_replicas,
            "acceptable_recovery_lag": scenario.config.acceptable_recovery_lag,
            "max_warmup_replicas": scenario.config.max_warmup_replicas,
            "probing_rebalance_interval_ms": scenario.config.probing_rebalance_interval_ms,
        },
    }
    if scenario.name is not None:
        result["name"] = scenario.name
    if scenario.description is not None:
        result["description"] = scenario.description
    if scenario.reconciliation is not None:
        result["reconciliation"] = _reconciliation_to_json(scenario.reconciliation)
    if scenario.kafka_version is not None:
        result["kafka_version"] = scenario.kafka_version
    return result


def _tasks_to_json(tasks: ClientAssignment) -> dict[str, list[str]]:
    return {
        "active": [str(task) for task in tasks.active],
        "standby": [str(task) for task in tasks.standby],
        "warmup": [str(task) for task in tasks.warmup],
    }


def _reconciliation_to_json(reconciliation: StreamsReconciliation) -> dict[str, Any]:
    """The ``reconciliation`` object (``target`` only where it differs from ``current``)."""
    members = []
    for entry in reconciliation.members:
        item: dict[str, Any] = {
            "member_id": entry.member_id,
            "process_id": entry.process_id,
            "member_epoch": entry.member_epoch,
            "current": _tasks_to_json(entry.current),
        }
        if entry.pending:
            item["target"] = _tasks_to_json(entry.target)
        members.append(item)
    return {
        "group_epoch": reconciliation.group_epoch,
        "assignment_epoch": reconciliation.assignment_epoch,
        "members": members,
    }


def _members_to_json(client: StreamsClient) -> dict[str, Any]:
    """A client's ``members`` (its previous tasks then live there, not on the client)."""
    if not client.members:
        return {}
    return {
        "prev_active": [],
        "prev_standby": [],
        "members": [
            {
                "member_id": member.member_id,
                "prev_active": [str(task) for task in member.prev_active],
                "prev_standby": [str(task) for task in member.prev_standby],
                "task_offsets": {str(t): o for t, o in sorted(member.task_offsets.items())},
            }
            for member in client.members
        ],
    }


# ---------------------------------------------------------------------------------------------
# Parsing


@dataclass(frozen=True, slots=True)
class _TaskTable:
    """The scenario's tasks: whether each is stateful, each id's text -> task, and the stateful
    ones in task order (sorted once: every client's lags are checked against them).

    Valid task ids have no leading zeros, so a task's text is unique and ``str(task)``.
    """

    stateful: dict[TaskId, bool]
    by_text: dict[str, TaskId]
    stateful_sorted: tuple[TaskId, ...]

    @staticmethod
    def of(stateful: dict[TaskId, bool]) -> _TaskTable:
        by_text = {str(task): task for task in stateful}
        return _TaskTable(stateful, by_text, tuple(sorted(t for t, s in stateful.items() if s)))


def _report_bad_task_ref(text: str, path: str, check: Problems) -> None:
    if _TASK_ID.match(text):
        check.error(path, f'unknown task "{text}"; it is not in scenario.tasks')
    else:
        check.error(
            path,
            f'"{text[:80]}" is not a task id; expected "<subtopology>_<partition>", e.g. "0_3"',
        )


def _parse_task_ref(value: object, path: str, known: _TaskTable, check: Problems) -> TaskId | None:
    if not isinstance(value, str):
        check.error(path, f'expected a task id string like "0_1", got {type_name(value)}')
        return None
    task = known.by_text.get(value)
    if task is None:
        _report_bad_task_ref(value, path, check)
    return task


def _parse_task_list(
    raw: object, path: str, known: _TaskTable, check: Problems
) -> tuple[TaskId, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        check.error(path, f"expected a list of task ids, got {type_name(raw)}")
        return ()
    if len(raw) > MAX_TASKS:
        check.error(path, f"{len(raw):,} entries; at most {MAX_TASKS:,} (one per task)")
        return ()
    seen: set[TaskId] = set()
    tasks: list[TaskId] = []
    for index, item in enumerate(raw):
        task = _parse_task_ref(item, f"{path}[{index}]", known, check)
        if task is None:
            continue
        if task in seen:
            check.error(f"{path}[{index}]", f'task "{task}" listed twice')
            continue
        seen.add(task)
        tasks.append(task)
    return tuple(sorted(tasks))


def _parse_tasks(raw: object, path: str, check: Problems) -> dict[TaskId, bool]:
    tasks: dict[TaskId, bool] = {}
    if not isinstance(raw, list):
        check.error(path, f"expected a list of tasks, got {type_name(raw)}")
        return tasks
    if len(raw) > MAX_TASKS:
        check.error(path, f"{len(raw):,} tasks; at most {MAX_TASKS:,}")
        return tasks
    first_index: dict[TaskId, int] = {}
    for index, item in enumerate(raw):
        here = f"{path}[{index}]"
        if not isinstance(item, dict):
            check.error(
                here,
                f'expected a task object like {{"id": "0_1", "stateful": true}}, '
                f"got {type_name(item)}",
            )
            continue
        check.unknown_fields(item, _TASK_FIELDS, here)
        raw_id = item.get("id")
        stateful = item.get("stateful", False)
        if not isinstance(stateful, bool):
            check.error(f"{here}.stateful", f"expected true or false, got {type_name(stateful)}")
            stateful = False
        if not isinstance(raw_id, str):
            check.error(
                f"{here}.id", f'expected a task id string like "0_1", got {type_name(raw_id)}'
            )
            continue
        try:
            task = TaskId.parse(raw_id)
        except ValueError:
            check.error(
                f"{here}.id",
                f'"{raw_id[:80]}" is not a task id; expected "<subtopology>_<partition>" '
                'with two non-negative integers, e.g. "0_3"',
            )
            continue
        if task in first_index:
            check.error(
                f"{here}.id", f'duplicate task "{task}" (first at {path}[{first_index[task]}])'
            )
            continue
        first_index[task] = index
        tasks[task] = stateful
    return tasks


def _parse_lags(raw: object, path: str, table: _TaskTable, check: Problems) -> dict[TaskId, int]:
    lags: dict[TaskId, int] = {}
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        check.error(path, f"expected an object mapping task id to lag, got {type_name(raw)}")
        return lags
    if len(raw) > MAX_TASKS:
        check.error(path, f"{len(raw):,} entries; at most {MAX_TASKS:,} (one per task)")
        return lags
    by_text, tasks = table.by_text, table.stateful
    reported: set[TaskId] = set()
    for key, value in raw.items():
        task = by_text.get(key)
        # The common case first (a known stateful task, a valid lag); one client reports a lag
        # for every stateful task, so this loop runs clients x stateful tasks times.
        if (
            task is not None
            and tasks[task]
            and type(value) is int
            and (0 <= value <= _JAVA_LONG_MAX or value in (LATEST_OFFSET, UNKNOWN_OFFSET))
        ):
            lags[task] = value
            continue
        if task is not None:
            reported.add(task)
        _report_bad_lag(key, value, task, f"{path}.{key}", table, check)
    # Every key of ``lags`` is a stateful task: as many lags as stateful tasks is all of them.
    if len(lags) < len(table.stateful_sorted):
        _report_missing_lags(lags, reported, path, table, check)
    return lags


def _report_bad_lag(
    key: str, value: object, task: TaskId | None, here: str, table: _TaskTable, check: Problems
) -> None:
    """What is wrong with one ``task_lags`` entry that :func:`_parse_lags` did not take."""
    if task is None:
        _report_bad_task_ref(key, here, check)
    elif not table.stateful[task]:
        check.error(
            here,
            f'task "{key}" is stateless; lags exist only for stateful tasks (remove this '
            'entry or mark the task "stateful": true)',
        )
    elif not isinstance(value, int) or isinstance(value, bool):
        check.error(here, f"expected an integer lag, got {type_name(value)}")
    elif value < 0:
        check.error(
            here,
            f"lag {value} is not valid; use a record count >= 0, -2 (ran the task as "
            "active last time) or -3 (offset unknown)",
        )
    else:
        check.error(here, f"lag {value:,} exceeds {_JAVA_LONG_MAX:,} (a Java long)")


def _report_missing_lags(
    lags: dict[TaskId, int], reported: set[TaskId], path: str, table: _TaskTable, check: Problems
) -> None:
    missing = [t for t in table.stateful_sorted if t not in lags and t not in reported]
    if missing:
        shown = ", ".join(str(task) for task in missing[:10])
        more = f" and {len(missing) - 10:,} more" if len(missing) > 10 else ""
        check.error(
            path,
            f"no lag for stateful task{'s' if len(missing) > 1 else ''} {shown}{more}; every "
            "client needs a lag for every stateful task (-2 if it ran the task as active, -3 if "
            "unknown, else the number of records its state is behind)",
        )


def _parse_client(
    raw: object, path: str, tasks: _TaskTable, check: Problems
) -> StreamsClient | None:
    if not isinstance(raw, dict):
        check.error(path, f"expected a client object, got {type_name(raw)}")
        return None
    check.unknown_fields(raw, _CLIENT_FIELDS, path)
    errors_before = len(check.errors)
    process_id = raw.get("process_id")
    if not isinstance(process_id, str):
        check.error(f"{path}.process_id", f"expected a UUID string, got {type_name(process_id)}")
    elif not _UUID.match(process_id):
        if _UUID_ANY_CASE.match(process_id):
            check.error(
                f"{path}.process_id",
                f'"{process_id}" must be written in lower case, as Kafka Streams prints it',
            )
        else:
            check.error(
                f"{path}.process_id",
                f'"{process_id[:80]}" is not a UUID; expected 32 hex digits in the form '
                "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
            )
    capacity = check.integer(
        raw.get("capacity"),
        f"{path}.capacity",
        minimum=1,
        maximum=MAX_CAPACITY,
        hint=" (the number of stream threads)",
    )
    prev_active = _parse_task_list(raw.get("prev_active"), f"{path}.prev_active", tasks, check)
    prev_standby = _parse_task_list(raw.get("prev_standby"), f"{path}.prev_standby", tasks, check)
    both = sorted(set(prev_active) & set(prev_standby))
    if both:
        check.error(
            f"{path}.prev_standby",
            f"task{'s' if len(both) > 1 else ''} {', '.join(map(str, both[:10]))} also in "
            "prev_active; a client holds a task either as active or as standby",
        )
    lags = _parse_lags(raw.get("task_lags"), f"{path}.task_lags", tasks, check)
    members = _parse_members(raw.get("members"), f"{path}.members", tasks, check)
    if members:
        if prev_active or prev_standby:
            check.error(
                f"{path}.prev_active",
                "a client that lists its members gives the previous tasks per member; leave "
                "the client's prev_active and prev_standby empty",
            )
        if capacity is not None and capacity != len(members):
            check.error(
                f"{path}.capacity",
                f"capacity {capacity} but {len(members)} member(s); a Streams group member is "
                "one stream thread, so capacity must equal the number of members",
            )
        prev_active = tuple(sorted({t for m in members for t in m.prev_active}))
        prev_standby = tuple(
            sorted({t for m in members for t in m.prev_standby} - set(prev_active))
        )
    if len(check.errors) > errors_before or capacity is None or not isinstance(process_id, str):
        return None
    return StreamsClient(
        process_id=process_id,
        capacity=capacity,
        prev_active=prev_active,
        prev_standby=prev_standby,
        task_lags=MappingProxyType(dict(sorted(lags.items()))),
        members=members,
    )


def _parse_members(
    raw: object, path: str, tasks: _TaskTable, check: Problems
) -> tuple[StreamsMember, ...]:
    """A client's optional ``members`` list (see :class:`StreamsMember`)."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        check.error(path, f"expected a list of members, got {type_name(raw)}")
        return ()
    if len(raw) > MAX_CAPACITY:
        check.error(path, f"{len(raw):,} members; at most {MAX_CAPACITY:,}")
        return ()
    members: list[StreamsMember] = []
    for index, item in enumerate(raw):
        here = f"{path}[{index}]"
        if not isinstance(item, dict):
            check.error(here, f"expected a member object, got {type_name(item)}")
            continue
        check.unknown_fields(item, _MEMBER_FIELDS, here)
        member_id = item.get("member_id")
        if not isinstance(member_id, str) or not member_id:
            check.error(
                f"{here}.member_id", f"expected a non-empty string, got {type_name(member_id)}"
            )
            continue
        if len(member_id) > MAX_MEMBER_ID_LENGTH:
            check.error(f"{here}.member_id", f"longer than {MAX_MEMBER_ID_LENGTH:,} characters")
            continue
        active = _parse_task_list(item.get("prev_active"), f"{here}.prev_active", tasks, check)
        standby = _parse_task_list(item.get("prev_standby"), f"{here}.prev_standby", tasks, check)
        both = sorted(set(active) & set(standby))
        if both:
            check.error(
                f"{here}.prev_standby",
                f"task {both[0]} also in prev_active; a member holds a task either as active "
                "or as standby",
            )
        offsets = _parse_offsets(item.get("task_offsets"), f"{here}.task_offsets", tasks, check)
        members.append(StreamsMember(member_id, active, standby, MappingProxyType(offsets)))
    return tuple(members)


def _parse_offsets(raw: object, path: str, tasks: _TaskTable, check: Problems) -> dict[TaskId, int]:
    """A member's ``task_offsets``: task id -> offset sum (a Java long)."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        check.error(path, f"expected an object mapping task id to offset sum, got {type_name(raw)}")
        return {}
    if len(raw) > MAX_TASKS:
        check.error(path, f"{len(raw):,} entries; at most {MAX_TASKS:,} (one per task)")
        return {}
    offsets: dict[TaskId, int] = {}
    for key, value in raw.items():
        here = f"{path}.{key}"
        task = tasks.by_text.get(key)
        if task is None:
            _report_bad_task_ref(key, here, check)
            continue
        value = check.integer(value, here, minimum=-_JAVA_LONG_MAX - 1, maximum=_JAVA_LONG_MAX)
        if value is not None:
            offsets[task] = value
    return dict(sorted(offsets.items()))


def _parse_config(raw: object, path: str, check: Problems) -> StreamsConfig:
    defaults = StreamsConfig()
    if raw is None:
        return defaults
    if not isinstance(raw, dict):
        check.error(path, f"expected an object, got {type_name(raw)}")
        return defaults
    check.unknown_fields(raw, _CONFIG_FIELDS, path)

    def read(key: str, default: int, minimum: int, maximum: int, hint: str) -> int:
        if key not in raw:
            return default
        value = check.integer(
            raw[key], f"{path}.{key}", minimum=minimum, maximum=maximum, hint=hint
        )
        return default if value is None else value

    return StreamsConfig(
        num_standby_replicas=read(
            "num_standby_replicas",
            defaults.num_standby_replicas,
            0,
            MAX_STANDBY_REPLICAS,
            " (num.standby.replicas)",
        ),
        acceptable_recovery_lag=read(
            "acceptable_recovery_lag",
            defaults.acceptable_recovery_lag,
            0,
            _JAVA_LONG_MAX,
            " (acceptable.recovery.lag)",
        ),
        max_warmup_replicas=read(
            "max_warmup_replicas",
            defaults.max_warmup_replicas,
            1,
            _JAVA_INT_MAX,
            " (max.warmup.replicas must be at least 1)",
        ),
        probing_rebalance_interval_ms=read(
            "probing_rebalance_interval_ms",
            defaults.probing_rebalance_interval_ms,
            MIN_PROBING_REBALANCE_INTERVAL_MS,
            _JAVA_LONG_MAX,
            " (probing.rebalance.interval.ms must be at least one minute)",
        ),
    )


def _check_member_ids_unique(clients: list[StreamsClient], path: str, check: Problems) -> None:
    """Member ids identify members across the whole group."""
    seen: dict[str, str] = {}
    for client in clients:
        for member in client.members:
            if member.member_id in seen:
                check.error(
                    f"{path}.clients",
                    f'member "{member.member_id[:80]}" listed twice (clients '
                    f"{seen[member.member_id]} and {client.process_id}); member ids are unique "
                    "in a group",
                )
            else:
                seen[member.member_id] = client.process_id


def _parse_tasks_of(
    raw: object, path: str, table: _TaskTable, check: Problems
) -> ClientAssignment | None:
    """``{"active", "standby", "warmup"}`` task lists (a reconciling member's tasks)."""
    if not isinstance(raw, dict):
        check.error(path, f"expected {{active, standby, warmup}} task lists, got {type_name(raw)}")
        return None
    check.unknown_fields(raw, _TASKS_FIELDS, path)
    lists = [_parse_task_list(raw.get(key), f"{path}.{key}", table, check) for key in _TASKS_FIELDS]
    return ClientAssignment.of(*lists)


def _parse_reconciling(
    raw: object, path: str, table: _TaskTable, check: Problems
) -> StreamsMemberReconciliation | None:
    if not isinstance(raw, dict):
        check.error(path, f"expected a member object, got {type_name(raw)}")
        return None
    check.unknown_fields(raw, _RECONCILING_FIELDS, path)
    member_id, process_id = raw.get("member_id"), raw.get("process_id")
    for key, value in (("member_id", member_id), ("process_id", process_id)):
        if not isinstance(value, str) or not value or len(value) > MAX_MEMBER_ID_LENGTH:
            check.error(f"{path}.{key}", f"expected a non-empty string, got {type_name(value)}")
    epoch = check.integer(
        raw.get("member_epoch"), f"{path}.member_epoch", minimum=-(2**31), maximum=_JAVA_INT_MAX
    )
    current = _parse_tasks_of(raw.get("current", {}), f"{path}.current", table, check)
    target = current
    if raw.get("target") is not None:
        target = _parse_tasks_of(raw["target"], f"{path}.target", table, check)
    if not isinstance(member_id, str) or not isinstance(process_id, str) or epoch is None:
        return None
    if current is None or target is None:
        return None
    return StreamsMemberReconciliation(member_id, process_id, epoch, current, target)


def _parse_reconciliation(
    raw: object, path: str, table: _TaskTable, clients: list[StreamsClient], check: Problems
) -> StreamsReconciliation | None:
    """Step 5 of the module docstring (``None`` when absent)."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        check.error(path, f"expected an object with the epochs, got {type_name(raw)}")
        return None
    check.unknown_fields(raw, _RECONCILIATION_FIELDS, path)
    group_epoch, assignment_epoch = (
        check.integer(raw.get(key), f"{path}.{key}", minimum=0, maximum=_JAVA_INT_MAX)
        for key in ("group_epoch", "assignment_epoch")
    )
    entries_raw = raw.get("members", [])
    if not isinstance(entries_raw, list) or len(entries_raw) > MAX_CLIENTS * MAX_CAPACITY:
        check.error(f"{path}.members", f"expected a list of members, got {type_name(entries_raw)}")
        entries_raw = []
    known = {client.process_id for client in clients}
    seen: set[str] = set()
    entries: list[StreamsMemberReconciliation] = []
    for index, item in enumerate(entries_raw):
        here = f"{path}.members[{index}]"
        entry = _parse_reconciling(item, here, table, check)
        if entry is None:
            continue
        if entry.member_id in seen:
            check.error(f"{here}.member_id", f'member "{entry.member_id[:80]}" listed twice')
        elif entry.process_id not in known:
            check.warn(
                f"{here}.process_id",
                f'"{entry.process_id[:80]}" is not one of the clients; entry ignored',
            )
        else:
            seen.add(entry.member_id)
            entries.append(entry)
    if group_epoch is None or assignment_epoch is None:
        return None
    return StreamsReconciliation(group_epoch, assignment_epoch, tuple(entries))


def parse_streams_scenario(raw: object, path: str = "scenario") -> StreamsScenario:
    """Validate a JSON Streams scenario object (see the module docstring for the rules).

    Raises :class:`ScenarioError` listing every problem with its JSON path. ``raw`` first passes
    the JSON gate's value checks (:func:`assignors.io.json_safe.check_json_value`).
    """
    check_json_value(raw, path)
    check = Problems()
    if not isinstance(raw, dict):
        raise ScenarioError([f"{path}: expected a JSON object, got {type_name(raw)}"])
    check.unknown_fields(raw, _TOP_FIELDS, path)
    tasks = _parse_tasks(raw.get("tasks"), f"{path}.tasks", check)
    table = _TaskTable.of(tasks)
    config = _parse_config(raw.get("config"), f"{path}.config", check)

    clients: list[StreamsClient] = []
    clients_raw = raw.get("clients")
    if not isinstance(clients_raw, list):
        check.error(f"{path}.clients", f"expected a list of clients, got {type_name(clients_raw)}")
    elif not clients_raw:
        check.error(f"{path}.clients", "no clients; an application needs at least one instance")
    elif len(clients_raw) > MAX_CLIENTS:
        check.error(f"{path}.clients", f"{len(clients_raw):,} clients; at most {MAX_CLIENTS:,}")
    else:
        first_index: dict[str, int] = {}
        for index, item in enumerate(clients_raw):
            here = f"{path}.clients[{index}]"
            process_id = item.get("process_id") if isinstance(item, dict) else None
            if isinstance(process_id, str) and process_id in first_index:
                check.error(
                    f"{here}.process_id",
                    f'duplicate client "{process_id}" (first at '
                    f"{path}.clients[{first_index[process_id]}]); each instance appears once",
                )
                continue
            if isinstance(process_id, str):
                first_index[process_id] = index
            client = _parse_client(item, here, table, check)
            if client is not None:
                clients.append(client)

    _check_member_ids_unique(clients, path, check)
    reconciliation = _parse_reconciliation(
        raw.get("reconciliation"), f"{path}.reconciliation", table, clients, check
    )
    name = raw.get("name")
    description = raw.get("description")
    for key, value in (("name", name), ("description", description)):
        if value is not None and not isinstance(value, str):
            check.error(f"{path}.{key}", f"expected a string, got {type_name(value)}")
        elif isinstance(value, str) and len(value) > MAX_TEXT_LENGTH:
            check.error(f"{path}.{key}", f"longer than {MAX_TEXT_LENGTH:,} characters")
    kafka_version = raw.get("kafka_version")
    if kafka_version is not None and (problem := kafka_version_problem(kafka_version)):
        check.error(f"{path}.kafka_version", problem)
    if check.errors:
        raise ScenarioError(check.errors)
    return StreamsScenario(
        tasks=tuple(StreamsTask(task, stateful) for task, stateful in sorted(tasks.items())),
        clients=tuple(clients),
        config=config,
        name=name if isinstance(name, str) else None,
        description=description if isinstance(description, str) else None,
        warnings=tuple(check.warnings),
        reconciliation=reconciliation,
        kafka_version=None if not isinstance(kafka_version, str) else release_line(kafka_version),
    )

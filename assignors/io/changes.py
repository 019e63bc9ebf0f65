"""The one change format: every change to a group as one JSON object, and a short text form.

The CLI's ``compare``, the dashboard's edit stack and share links, the pipeline's ``--change``
options and the walkthrough files all write a change this way and read it with this module, so
a change is checked once, with the same messages everywhere, and becomes one of the core's
change types (:mod:`assignors.simulate.changes`).

JSON form, one object per change (``op`` says which; unknown fields are errors)::

    {"op": "add_member", "member_id": "C9", "topics": ["orders"], "rack": "a",
     "consume_rate": 500, "priority": 1, "group_instance_id": "c9",
     "client_id": "app", "host": "/10.0.0.9"}                      (all but member_id optional)
    {"op": "add_members", "count": 2, "consume_rate": 500}            (new-1, new-2, ...)
    {"op": "remove_member", "member_id": "C1"}
    {"op": "remove_member", "member_id": "C1", "static_restart": true}  (or "op": "restart_member")
    {"op": "subscribe", "member_id": "C1", "topics": ["orders", "pay"]}
    {"op": "set_partitions", "topic": "orders", "partitions": 12}
    {"op": "set_lags", "topic": "orders", "lags": {"0": 100, "3": 5}}
    {"op": "set_produce_rates", "topic": "orders", "rates": {"0": 1.5}}
    {"op": "skew_lag"}                                   (optional factor, floor, share)

Text form, for command lines and pipeline options (each maps onto one JSON object above)::

    add:2   add:C9   add:C9:orders,pay   remove:C1   restart:C1   subscribe:C1:orders,pay
    partitions:orders=12   lag:orders:0=100,3=5   rates:orders:0=1.5   skew

``add:N`` with N made only of digits adds N members; a member id made only of digits needs the
JSON form.

Checks (:func:`parse_change`): the fields' types, names at most
:data:`~assignors.limits.MAX_NAME_LENGTH` characters, partition counts at most
:data:`~assignors.limits.MAX_PARTITIONS_PER_TOPIC`, member counts at most
:data:`~assignors.limits.MAX_MEMBERS`, at most :data:`MAX_CHANGES` changes in a list. What depends
on the scenario (a member or topic that exists, the partitions in all) is checked when the change
applies (:func:`assignors.simulate.changes.apply_one`), after every change.

Invariants: :func:`change_to_json` followed by :func:`parse_change` gives back an equal change;
:func:`parse_change_text` returns a JSON object :func:`parse_change` accepts; every problem is a
:class:`ChangeFormatError` (a :class:`~assignors.simulate.changes.ChangeError`) whose message
starts with the JSON path (or the text) it is about and names each field that is wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from assignors.io.json_checks import Problems, is_number, type_name
from assignors.io.json_safe import JsonInputError, check_json_value
from assignors.limits import MAX_MEMBERS, MAX_NAME_LENGTH, MAX_PARTITIONS_PER_TOPIC
from assignors.simulate.changes import (
    SKEW_FACTOR,
    SKEW_FLOOR,
    SKEW_SHARE,
    AddMember,
    AddMembers,
    Change,
    ChangeError,
    RemoveMember,
    SetLags,
    SetPartitions,
    SetProduceRates,
    SkewLag,
    Subscribe,
)

#: The most digits a count in the text form may have (beyond every limit, within a Java long).
MAX_COUNT_DIGITS = 18
#: The most changes one list (a what-if, a share link, a walkthrough step) may hold.
MAX_CHANGES = 1_000
#: The most partitions one ``set_lags`` / ``set_produce_rates`` change may name.
MAX_PARTITION_VALUES = MAX_PARTITIONS_PER_TOPIC

#: op -> (required fields, optional fields).
FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "add_member": (
        ("member_id",),
        ("topics", "rack", "consume_rate", "priority", "group_instance_id", "client_id", "host"),
    ),
    "add_members": (("count",), ("consume_rate",)),
    "remove_member": (("member_id",), ("static_restart",)),
    "restart_member": (("member_id",), ()),
    "subscribe": (("member_id", "topics"), ()),
    "set_partitions": (("topic", "partitions"), ()),
    "set_lags": (("topic", "lags"), ()),
    "set_produce_rates": (("topic", "rates"), ()),
    "skew_lag": ((), ("factor", "floor", "share")),
}
OPS = tuple(FIELDS)


class ChangeFormatError(ChangeError):
    """A change written wrongly (JSON or text); the message says where and what is wrong."""


# --- small readers: each records a problem at its path and returns None when it fails ---------


def _name(value: object, path: str, problems: Problems) -> str | None:
    if not isinstance(value, str) or not value:
        problems.error(path, f"expected a non-empty string, got {type_name(value)}")
        return None
    if len(value) > MAX_NAME_LENGTH:
        problems.error(path, f"{len(value):,} characters; at most {MAX_NAME_LENGTH:,}")
        return None
    return value


def _names(value: object, path: str, problems: Problems) -> tuple[str, ...] | None:
    if not isinstance(value, list):
        problems.error(path, f"expected a list of topic names, got {type_name(value)}")
        return None
    found = [_name(item, f"{path}[{i}]", problems) for i, item in enumerate(value)]
    if any(name is None for name in found):
        return None
    return tuple(name for name in found if name is not None)


def _rate(value: object, path: str, problems: Problems) -> float | None:
    if not is_number(value) or float(value) < 0:  # type: ignore[arg-type]
        problems.error(path, f"expected records/s (a number >= 0), got {value!r:.40}")
        return None
    return float(value)  # type: ignore[arg-type]


def _flag(value: object, path: str, problems: Problems) -> bool | None:
    if not isinstance(value, bool):
        problems.error(path, f"expected true or false, got {type_name(value)}")
        return None
    return value


def _per_partition(
    value: object, path: str, problems: Problems, whole: bool
) -> tuple[tuple[int, Any], ...] | None:
    """``{"3": 100}`` (JSON keys are strings) -> ``((3, 100),)``, numbers >= 0 checked."""
    if not isinstance(value, dict) or not value:
        problems.error(path, f"expected an object partition -> value, got {type_name(value)}")
        return None
    if len(value) > MAX_PARTITION_VALUES:
        problems.error(path, f"{len(value):,} partitions; at most {MAX_PARTITION_VALUES:,}")
        return None
    pairs: list[tuple[int, Any]] = []
    for key, item in value.items():
        here = f"{path}.{key}"
        text = str(key)
        if not text.isdigit() or len(text) > 7:
            problems.error(here, "expected a partition number as the key")
        elif not is_number(item) or item < 0 or (whole and item != int(item)):
            kind = "a whole number of records" if whole else "a number"
            problems.error(here, f"expected {kind} >= 0, got {item!r:.40}")
        else:
            pairs.append((int(text), int(item) if whole else item))
    return tuple(pairs) if len(pairs) == len(value) else None


# --- one builder per op: (the checked fields, problems, path) -> the core's change -------------

_Fields = Mapping[str, Any]


def _add_member(raw: _Fields, path: str, problems: Problems) -> Change | None:
    member_id = _name(raw.get("member_id"), f"{path}.member_id", problems)
    topics = (
        None if raw.get("topics") is None else _names(raw["topics"], f"{path}.topics", problems)
    )
    rack = None if raw.get("rack") is None else _name(raw["rack"], f"{path}.rack", problems)
    named = {
        key: None if raw.get(key) is None else _name(raw[key], f"{path}.{key}", problems)
        for key in ("group_instance_id", "client_id", "host")
    }
    rate = raw.get("consume_rate")
    if rate is not None:
        rate = _rate(rate, f"{path}.consume_rate", problems)
    priority = raw.get("priority")
    if priority is not None:
        priority = problems.integer(
            priority, f"{path}.priority", minimum=-(2**31), maximum=2**31 - 1
        )
    if problems.errors or member_id is None:
        return None
    return AddMember(
        member_id,
        topics,
        rack,
        named["group_instance_id"],
        rate,
        priority,
        client_id=named["client_id"],
        host=named["host"],
    )


def _add_members(raw: _Fields, path: str, problems: Problems) -> Change | None:
    count = problems.integer(raw.get("count"), f"{path}.count", minimum=1, maximum=MAX_MEMBERS)
    rate = raw.get("consume_rate")
    if rate is not None:
        rate = _rate(rate, f"{path}.consume_rate", problems)
    return None if problems.errors or count is None else AddMembers(count, rate)


def _remove_member(raw: _Fields, path: str, problems: Problems) -> Change | None:
    member_id = _name(raw.get("member_id"), f"{path}.member_id", problems)
    restart = raw.get("op") == "restart_member"
    if raw.get("static_restart") is not None:
        restart = bool(_flag(raw["static_restart"], f"{path}.static_restart", problems))
    return None if problems.errors or member_id is None else RemoveMember(member_id, restart)


def _subscribe(raw: _Fields, path: str, problems: Problems) -> Change | None:
    member_id = _name(raw.get("member_id"), f"{path}.member_id", problems)
    topics = _names(raw.get("topics"), f"{path}.topics", problems)
    if problems.errors or member_id is None or topics is None:
        return None
    return Subscribe(member_id, topics)


def _set_partitions(raw: _Fields, path: str, problems: Problems) -> Change | None:
    topic = _name(raw.get("topic"), f"{path}.topic", problems)
    count = problems.integer(
        raw.get("partitions"),
        f"{path}.partitions",
        minimum=1,
        maximum=MAX_PARTITIONS_PER_TOPIC,
        hint=" (the most partitions one topic may have)",
    )
    if problems.errors or topic is None or count is None:
        return None
    return SetPartitions(topic, count)


def _set_lags(raw: _Fields, path: str, problems: Problems) -> Change | None:
    topic = _name(raw.get("topic"), f"{path}.topic", problems)
    lags = _per_partition(raw.get("lags"), f"{path}.lags", problems, whole=True)
    return None if problems.errors or topic is None or lags is None else SetLags(topic, lags)


def _set_produce_rates(raw: _Fields, path: str, problems: Problems) -> Change | None:
    topic = _name(raw.get("topic"), f"{path}.topic", problems)
    rates = _per_partition(raw.get("rates"), f"{path}.rates", problems, whole=False)
    if problems.errors or topic is None or rates is None:
        return None
    return SetProduceRates(topic, tuple((p, float(r)) for p, r in rates))


def _skew_lag(raw: _Fields, path: str, problems: Problems) -> Change | None:
    factor = problems.integer(
        raw.get("factor", SKEW_FACTOR), f"{path}.factor", minimum=1, maximum=1_000_000
    )
    floor = problems.integer(
        raw.get("floor", SKEW_FLOOR), f"{path}.floor", minimum=0, maximum=10**15
    )
    share = raw.get("share", SKEW_SHARE)
    if not is_number(share) or not 0 < share <= 1:
        problems.error(f"{path}.share", f"expected a number in (0, 1], got {share!r}")
    if problems.errors or factor is None or floor is None:
        return None
    return SkewLag(factor, floor, float(share))


_BUILDERS: dict[str, Callable[[_Fields, str, Problems], Change | None]] = {
    "add_member": _add_member,
    "add_members": _add_members,
    "remove_member": _remove_member,
    "restart_member": _remove_member,
    "subscribe": _subscribe,
    "set_partitions": _set_partitions,
    "set_lags": _set_lags,
    "set_produce_rates": _set_produce_rates,
    "skew_lag": _skew_lag,
}


def parse_change(raw: object, path: str = "change") -> Change:
    """The core's change for one JSON change object (see the module docstring).

    Steps: 1. an object with a known ``op``; 2. no unknown field and every required one;
    3. each field checked by the op's builder. Raises :class:`ChangeFormatError`: ``"<path>
    (<op>) is malformed: <field>: <what>; ..."`` listing every problem.
    """
    try:
        check_json_value(raw, path)  # the JSON gate: no NaN, no huge number, bounded nesting
    except JsonInputError as error:
        raise ChangeFormatError(str(error)) from None
    if not isinstance(raw, dict):
        raise ChangeFormatError(
            f"{path}: expected a change object with an op, got {type_name(raw)}"
        )
    op = raw.get("op")
    if op not in FIELDS:
        raise ChangeFormatError(f"{path}.op: unknown operation {op!r} (known: {', '.join(OPS)})")
    required, optional = FIELDS[op]
    problems = Problems()
    for key in raw:
        if key not in (*required, *optional, "op"):
            known = ", ".join((*required, *optional)) or "none"
            problems.error(f".{key}", f"unknown field (fields of {op}: {known})")
    for key in required:
        if raw.get(key) is None:
            problems.error(f".{key}", "missing")
    change = None if problems.errors else _BUILDERS[op](raw, "", problems)
    if problems.errors or change is None:
        details = "; ".join(error.removeprefix(".") for error in problems.errors)
        raise ChangeFormatError(f"{path} ({op}) is malformed: {details}")
    return change


def parse_changes(raw: object, path: str = "changes") -> tuple[Change, ...]:
    """A JSON list of change objects, each read by :func:`parse_change`, at most
    :data:`MAX_CHANGES`."""
    if not isinstance(raw, list):
        raise ChangeFormatError(f"{path}: expected a list of change objects, got {type_name(raw)}")
    if len(raw) > MAX_CHANGES:
        raise ChangeFormatError(f"{path}: {len(raw):,} changes; at most {MAX_CHANGES:,}")
    return tuple(parse_change(item, f"{path}[{index}]") for index, item in enumerate(raw))


def _partition_values(pairs: tuple[tuple[int, Any], ...]) -> dict[str, Any]:
    return {str(partition): value for partition, value in pairs}


def change_to_json(change: Change) -> dict[str, Any]:
    """The JSON object of one change; :func:`parse_change` reads it back equal."""
    if isinstance(change, AddMember):
        if change.owned_partitions or change.generation is not None:
            raise ChangeFormatError(
                f"add member {change.member_id!r}: owned partitions and a generation have no"
                " change form (a joining member owns nothing)"
            )
        entry: dict[str, Any] = {"op": "add_member", "member_id": change.member_id}
        if change.topics is not None:
            entry["topics"] = list(change.topics)
        for key in ("rack", "consume_rate", "priority", "group_instance_id", "client_id", "host"):
            if getattr(change, key) is not None:
                entry[key] = getattr(change, key)
        return entry
    if isinstance(change, AddMembers):
        entry = {"op": "add_members", "count": change.count}
        return (
            entry if change.consume_rate is None else {**entry, "consume_rate": change.consume_rate}
        )
    if isinstance(change, RemoveMember):
        entry = {"op": "remove_member", "member_id": change.member_id}
        return {**entry, "static_restart": True} if change.static_restart else entry
    if isinstance(change, Subscribe):
        return {"op": "subscribe", "member_id": change.member_id, "topics": list(change.topics)}
    if isinstance(change, SetPartitions):
        return {"op": "set_partitions", "topic": change.topic, "partitions": change.partitions}
    if isinstance(change, SetLags):
        return {"op": "set_lags", "topic": change.topic, "lags": _partition_values(change.lags)}
    if isinstance(change, SetProduceRates):
        rates = _partition_values(change.rates)
        return {"op": "set_produce_rates", "topic": change.topic, "rates": rates}
    return {"op": "skew_lag", "factor": change.factor, "floor": change.floor, "share": change.share}


# --- the text form -----------------------------------------------------------------------------

TEXT_FORMS = (
    "add:N",
    "add:ID",
    "add:ID:topic,topic",
    "remove:ID",
    "restart:ID",
    "subscribe:ID:topic,topic",
    "partitions:topic=N",
    "lag:topic:P=LAG,P=LAG",
    "rates:topic:P=RATE,P=RATE",
    "skew",
)


def _text_error(text: str, expected: str) -> ChangeFormatError:
    return ChangeFormatError(f"change {text!r}: expected {expected}")


def _topic_list(value: str, text: str, expected: str) -> list[str]:
    topics = [topic.strip() for topic in value.split(",")]
    if not value or any(not topic for topic in topics):
        raise _text_error(text, expected)
    return topics


def _pairs(value: str, text: str, expected: str, whole: bool) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for item in value.split(","):
        partition, equals, number = item.strip().partition("=")
        try:
            if len(number) > MAX_COUNT_DIGITS * 2:  # int() and float() of huge digit strings
                raise ValueError(number)
            result[partition.strip()] = int(number) if whole else float(number)
        except ValueError:
            raise _text_error(text, expected) from None
        if not equals:
            raise _text_error(text, expected)
    return result


def _count(value: str, text: str, expected: str) -> int | None:
    """A whole number written in ASCII digits (``None`` if it is not one); a number too long
    for any limit is refused here, before Python's own limit on reading integers is reached."""
    if not (value.isascii() and value.isdigit()):
        return None
    if len(value) > MAX_COUNT_DIGITS:
        raise _text_error(text[:80], f"{expected} (a number of {len(value):,} digits is too big)")
    return int(value)


def parse_change_text(text: str) -> dict[str, Any]:
    """The JSON object (module docstring) that one text-form change stands for.

    Raises :class:`ChangeFormatError` naming the forms when ``text`` is none of them.
    """
    kind, _, rest = text.strip().partition(":")
    count = _count(rest, text, "add:N") if kind == "add" else None
    if count is not None:
        return {"op": "add_members", "count": count}
    if kind in ("add", "subscribe"):
        member_id, colon, topics = rest.partition(":")
        expected = (
            "add:N, add:ID or add:ID:topic,topic" if kind == "add" else "subscribe:ID:topic,topic"
        )
        if not member_id or (kind == "subscribe" and not colon):
            raise _text_error(text, expected)
        entry: dict[str, Any] = {"op": "add_member" if kind == "add" else "subscribe"}
        entry["member_id"] = member_id
        if colon:
            entry["topics"] = _topic_list(topics, text, expected)
        return entry
    if kind in ("remove", "restart"):
        if not rest:
            raise _text_error(text, f"{kind}:MEMBER_ID")
        return {
            "op": "remove_member",
            "member_id": rest,
            **({"static_restart": True} if kind == "restart" else {}),
        }
    if kind == "partitions":
        topic, equals, digits = rest.rpartition("=")
        expected = "partitions:topic=N with N a whole number"
        number = _count(digits, text, expected)
        if not topic or not equals or number is None:
            raise _text_error(text, expected)
        return {"op": "set_partitions", "topic": topic, "partitions": number}
    if kind in ("lag", "rates"):
        topic, colon, values = rest.rpartition(":")
        expected = f"{kind}:topic:P=VALUE,P=VALUE"
        if not topic or not colon:
            raise _text_error(text, expected)
        key = "lags" if kind == "lag" else "rates"
        op = "set_lags" if kind == "lag" else "set_produce_rates"
        return {"op": op, "topic": topic, key: _pairs(values, text, expected, kind == "lag")}
    if kind == "skew" and not rest:
        return {"op": "skew_lag"}
    raise ChangeFormatError(f"unknown change {text!r}: use one of {', '.join(TEXT_FORMS)}")


def change_from_text(text: str) -> Change:
    """:func:`parse_change` of :func:`parse_change_text` (the JSON path is the text itself)."""
    return parse_change(parse_change_text(text), f"change {text!r}")

"""Generated garbage for the input gate's tests: JSON texts that Python's ``json`` would not write.

A value is built as a tree whose leaves may be :class:`Raw` pieces of JSON text (a 5,000-digit
integer, ``NaN``, ``1e400``, a lone surrogate escape), then rendered by :func:`render`;
scenario-like trees use the format's real field names so that the garbage reaches deep into the
loaders.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from hypothesis import strategies as st

from assignors.errors import AssignmentExplorerError


@dataclass(frozen=True)
class Raw:
    """A piece of JSON text rendered as it is."""

    text: str


def render(value: object) -> str:
    """JSON text of a tree whose leaves may be :class:`Raw` (no recursion limit issue: shallow)."""
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{render(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(render(v) for v in value) + "]"
    return json.dumps(value)


BAD_NUMBERS = st.one_of(
    st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", "-1e999", "1E+309"]),
    st.integers(101, 6_000).map(lambda n: "9" * n),
    st.integers(4_301, 6_000).map(lambda n: "-" + "1" * n),
).map(Raw)

LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    st.sampled_from(["range", "sticky", "t0", "C0", "", "x" * 5_000]),
    st.sampled_from(['"\\ud800"', '"\\udfff x"', "0.5", "3.0", "-0", "1e2"]).map(Raw),
    BAD_NUMBERS,
)

JSON_TREES = st.recursive(
    LEAVES,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.text(max_size=8), children, max_size=4),
    ),
    max_leaves=20,
)

TOPIC_FIELDS = (
    "name",
    "partitions",
    "id",
    "replica_racks",
    "lags",
    "log_start_offsets",
    "log_end_offsets",
    "committed_offsets",
    "produce_rates",
)
MEMBER_FIELDS = (
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
)


def _objects(fields: tuple[str, ...], plausible: st.SearchStrategy[object]) -> st.SearchStrategy:
    return st.dictionaries(st.sampled_from(fields), st.one_of(plausible, JSON_TREES), max_size=6)


PLAUSIBLE = st.one_of(
    st.integers(0, 5),
    st.sampled_from(["t0", "t1", "C0", "C1"]),
    st.lists(st.sampled_from(["t0", "t1"]), max_size=3),
    st.lists(st.integers(0, 9), min_size=0, max_size=4),
    st.lists(st.lists(st.one_of(st.sampled_from(["t0", "t1"]), st.integers(0, 4)), max_size=2)),
)

SCENARIO_TREES = st.fixed_dictionaries(
    {
        "topics": st.one_of(
            st.lists(_objects(TOPIC_FIELDS, PLAUSIBLE), max_size=3),
            JSON_TREES,
        ),
        "members": st.one_of(
            st.lists(_objects(MEMBER_FIELDS, PLAUSIBLE), max_size=3),
            JSON_TREES,
        ),
    },
    optional={
        "name": LEAVES,
        "assignor": LEAVES,
        "auto_offset_reset": st.one_of(st.sampled_from(["latest", "earliest"]), LEAVES),
        "walkthrough": JSON_TREES,
        "tasks": JSON_TREES,
    },
)


def deep(levels: int) -> str:
    """A JSON text nested ``levels`` deep."""
    return "[" * levels + "]" * levels


#: Texts every entry point is fed besides the generated ones (each a problem of issue 21).
KNOWN_BAD = {
    "5000-digit partitions": '{"topics": [{"name": "t", "partitions": ' + "9" * 5000 + "}],"
    ' "members": []}',
    "NaN rate": '{"topics": [{"name": "t", "partitions": 1, "produce_rates": [NaN]}],'
    ' "members": []}',
    "1e400 rate": '{"topics": [], "members": [{"member_id": "a", "topics": [],'
    ' "consume_rate": 1e400}]}',
    "deep": deep(5_000),
    "64 deep": '{"topics": [], "members": [], "x": ' + deep(70) + "}",
    "lone surrogate": '{"topics": [], "members": [{"member_id": "\\ud800", "topics": []}]}',
    "null": "null",
    "empty": "",
}


def is_ours(error: BaseException) -> bool:
    """Whether ``error`` is one of the project's own (what a gate test accepts)."""
    return isinstance(error, AssignmentExplorerError)


def one_line_of_ours(stderr: str) -> bool:
    """A CLI's stderr on bad input: one line, no traceback."""
    lines = stderr.strip().splitlines()
    return len(lines) == 1 and "Traceback" not in stderr

"""The pipeline's inputs fed garbage rows: a group is rebuilt, or refused in the project's words.

Entry points: :func:`pipeline.scenarios.scenario_from_frames` (each group's rows, in the Spark
executors and the pandas path alike), :func:`pipeline.scenarios.whatif_rows` (never raises: one
row with ``error``), and :func:`pipeline.local.group_scenario` (JSON lines files read without
Spark, for the dashboard's "open in explorer").
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.local import group_scenario
from pipeline.scenarios import ChangeSpec, GroupDataError, scenario_from_frames, whatif_rows
from tests.garbage import is_ours

GARBAGE = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
T0 = 1_767_571_200

CELLS = st.one_of(
    st.none(),
    st.integers(-5, 20),
    st.sampled_from([math.nan, math.inf, -math.inf, 1.5, 2**62, 10**9, 2**70, 1e300]),
    st.sampled_from(["", "x", "12", "t0"]),
)


def _offsets(rows: list[dict[str, Any]]) -> pd.DataFrame:
    base = {
        "cluster": "c1",
        "group_id": "g",
        "t": T0,
        "topic": "t0",
        "partition": 0,
        "log_start": 0,
        "log_end": 5,
        "committed": 1,
        "member_id": None,
    }
    return pd.DataFrame([{**base, **row} for row in rows])


def _members(ids: list[object]) -> pd.DataFrame:
    rows = [
        {"cluster": "c1", "group_id": "g", "t": T0, "member_id": m, "topics": ["t0"]} for m in ids
    ]
    return pd.DataFrame(rows, columns=["cluster", "group_id", "t", "member_id", "topics"])


def _ours(call: object) -> object:
    try:
        return call()  # type: ignore[operator]
    except Exception as error:  # the test: nothing but the project's errors escapes
        assert is_ours(error), f"{type(error).__name__}: {error}"
        return None


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"partition": 10**9, "log_end": 5, "committed": 1}, "partition 1000000000 is not"),
        ({"partition": math.nan, "log_end": 5, "committed": 1}, "a partition number"),
        ({"partition": 0, "log_end": math.inf, "committed": 1}, "an offset: expected a whole"),
        ({"partition": 0, "log_end": 1e300, "committed": 1}, "beyond any offset"),
        ({"partition": 0, "log_end": 5, "committed": 1, "produce_rate": math.inf}, "produce_rates"),
        ({"partition": 0, "produce_rate": "x"}, "'t0': a produce rate: expected a number"),
        ({"partition": 0, "consume_rate": "12"}, "a consume rate: expected a number, got '12'"),
        ({"partition": 0, "lag": "x"}, "a lag: expected a number"),
    ],
    ids=[
        "billion-partition",
        "nan-partition",
        "inf-offset",
        "1e300-offset",
        "inf-rate",
        "text-produce-rate",
        "text-consume-rate",
        "text-lag",
    ],
)
def test_rows_that_cannot_be_right_are_refused_by_name(row: dict[str, Any], message: str) -> None:
    """Before: a partition of 10**9 allocated a billion-entry set; inf raised OverflowError;
    text in a rate or lag cell raised Python's own TypeError or ValueError."""
    with pytest.raises(GroupDataError if "rates" not in message else Exception) as caught:
        scenario_from_frames(
            _offsets([{"member_id": "m", **row}]), _members(["m"]), cluster="c1", group_id="g"
        )
    assert is_ours(caught.value)
    assert message in str(caught.value)


@GARBAGE
@given(
    st.lists(
        st.fixed_dictionaries(
            {
                "topic": st.one_of(st.sampled_from(["t0", "t1"]), CELLS),
                "partition": st.one_of(st.integers(0, 3), CELLS),
                "log_start": CELLS,
                "log_end": st.one_of(st.integers(0, 100), CELLS),
                "committed": CELLS,
                "member_id": st.one_of(st.sampled_from(["m0", "m1"]), CELLS),
                "produce_rate": CELLS,
                "consume_rate": CELLS,
                "lag": CELLS,
            }
        ),
        min_size=1,
        max_size=6,
    ),
    st.lists(st.one_of(st.sampled_from(["m0", "m1"]), CELLS), max_size=3),
)
def test_garbage_rows_rebuild_a_group_or_give_our_error(
    rows: list[dict[str, Any]], member_ids: list[object]
) -> None:
    offsets, members = _offsets(rows), _members(member_ids)
    _ours(lambda: scenario_from_frames(offsets, members, cluster="c1", group_id="g"))
    answer = whatif_rows(
        offsets,
        members,
        strategies=["range", "sticky"],
        change_specs=[ChangeSpec("none"), ChangeSpec("add", count=1)],
        drain_target_s=None,
    )
    assert answer and all(set(row) >= {"error", "strategy"} for row in answer)


@GARBAGE
@given(st.lists(st.binary(max_size=120), min_size=1, max_size=4))
def test_garbage_json_lines_files_give_a_scenario_or_our_error(lines: list[bytes]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for table in ("offsets", "members"):
            (root / table).mkdir()
            (root / table / "part.jsonl").write_bytes(b"\n".join(lines))
        _ours(lambda: group_scenario(root, "c1", "g"))


JSON_CELLS = st.one_of(
    st.none(),
    st.integers(-5, 20),
    st.sampled_from([1.5, 2**62, 10**9, "", "x", "t0", [], {}, True]),
)


@GARBAGE
@given(
    st.lists(
        st.fixed_dictionaries(
            {
                "time": st.one_of(st.sampled_from(["2026-01-05T00:00:00Z", 1, "soon"]), JSON_CELLS),
                "topic": st.one_of(st.just("t0"), JSON_CELLS),
                "partition": st.one_of(st.integers(0, 3), JSON_CELLS),
                "log_end": st.one_of(st.integers(0, 100), JSON_CELLS),
                "committed": JSON_CELLS,
                "member_id": st.one_of(st.just("m0"), JSON_CELLS),
                "topics": st.one_of(st.just(["t0"]), JSON_CELLS),
            }
        ),
        min_size=1,
        max_size=4,
    )
)
def test_json_lines_rows_with_garbage_cells_give_a_scenario_or_our_error(
    rows: list[dict[str, Any]],
) -> None:
    import json

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for table in ("offsets", "members"):
            (root / table).mkdir()
            lines = [json.dumps({"cluster": "c1", "group_id": "g", **row}) for row in rows]
            (root / table / "part.jsonl").write_text("\n".join(lines))
        _ours(lambda: group_scenario(root, "c1", "g"))

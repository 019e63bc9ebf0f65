"""The loader as a specification: what it accepts, what it warns about, what it refuses.

* A bad-input corpus: each entry is a scenario with one mistake and the exact message (with its
  JSON path) the loader must give. Errors raise ScenarioError listing every problem; claims on
  partitions that do not exist and offsets that contradict the log (commit below the log start
  or beyond the log end) are warnings.
* Size limits: huge counts and a 50 MB file are refused with a message, without reading it all.
* Properties: scenario_to_json followed by parse_scenario is the identity; the loader never
  raises anything but ScenarioError on arbitrary JSON.
* A ``walkthrough`` is not the loader's: it is accepted as it is and read by
  :mod:`assignors.io.walkthrough` (tests/assignors/test_walkthrough.py).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assignors.errors import ScenarioError
from assignors.io.scenario import (
    MAX_FILE_BYTES,
    load_scenario_file,
    parse_scenario,
    parse_scenario_text,
    read_json_file,
    scenario_to_json,
)
from assignors.limits import MAX_SCENARIO_FILE_BYTES
from assignors.model import Member, Scenario, Topic, TopicPartition
from assignors.simulate.lag import partition_lags

BASE: dict[str, Any] = {
    "topics": [
        {
            "name": "orders",
            "partitions": 3,
            "log_start_offsets": [0, 10, 0],
            "log_end_offsets": [100, 200, 50],
            "committed_offsets": [40, None, 50],
        }
    ],
    "members": [
        {"member_id": "a", "topics": ["orders"]},
        {"member_id": "b", "topics": ["orders"]},
    ],
}


def _with(change: Any) -> dict[str, Any]:
    raw = copy.deepcopy(BASE)
    change(raw)
    return raw


def _errors(raw: object) -> tuple[str, ...]:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(raw, path="")
    return caught.value.problems


ERRORS = [
    (
        "partition count as text",
        lambda s: s["topics"][0].update(partitions="3"),
        "topics[0].partitions: expected the partition count (an integer), got a string",
    ),
    (
        "partition count as boolean",
        lambda s: s["topics"][0].update(partitions=True),
        "topics[0].partitions: expected the partition count (an integer), got a boolean",
    ),
    (
        "topic name missing",
        lambda s: s["topics"][0].pop("name"),
        "topics[0].name: expected a string, got null",
    ),
    (
        "member topics as a string",
        lambda s: s["members"][1].update(topics="orders"),
        'members[1].topics: expected a list of topic names (or "*": every topic), got a string',
    ),
    (
        "rack as a number",
        lambda s: s["members"][0].update(rack=3),
        "members[0].rack: expected a string, got an integer",
    ),
    (
        "members not a list",
        lambda s: s.update(members={"a": []}),
        "members: expected a list of members, got an object",
    ),
    (
        "duplicate member ids",
        lambda s: s["members"].append({"member_id": "a", "topics": []}),
        'members[2].member_id: duplicate member "a" (also members[0])',
    ),
    (
        "duplicate topics",
        lambda s: s["topics"].append({"name": "orders", "partitions": 1}),
        'topics[1].name: duplicate topic "orders" (also topics[0])',
    ),
    (
        "negative end offset",
        lambda s: s["topics"][0].update(log_end_offsets=[100, -5, 50]),
        "topics[0].log_end_offsets[1]: offsets and lags are never negative, got -5",
    ),
    (
        "negative committed offset",
        lambda s: s["topics"][0].update(committed_offsets=[-1, None, 50]),
        "topics[0].committed_offsets[0]: offsets and lags are never negative, got -1",
    ),
    (
        "negative lag",
        lambda s: s["topics"][0].update(lags=[0, -2, 0]),
        "topics[0].lags[1]: offsets and lags are never negative, got -2",
    ),
    (
        "log start beyond log end",
        lambda s: s["topics"][0].update(log_start_offsets=[0, 300, 0]),
        "topics[0].log_start_offsets[1]: log-start offset 300 is beyond the log-end offset 200",
    ),
    (
        "array too short",
        lambda s: s["topics"][0].update(log_end_offsets=[100, 200]),
        "topics[0].log_end_offsets: expected 3 entries (one per partition, parallel to the"
        " partition numbers), got 2",
    ),
    (
        "array too long",
        lambda s: s["topics"][0].update(produce_rates=[1.0, 2.0, 3.0, 4.0]),
        "topics[0].produce_rates: expected 3 entries (one per partition, parallel to the"
        " partition numbers), got 4",
    ),
    (
        "rate negative",
        lambda s: s["topics"][0].update(produce_rates=[1.0, -2.0, 3.0]),
        "topics[0].produce_rates[1]: expected records/s (a number >= 0), got -2.0",
    ),
    (
        "consume rate as text",
        lambda s: s["members"][0].update(consume_rate="fast"),
        "members[0].consume_rate: expected records/s (a number >= 0), got 'fast'",
    ),
    (
        "replica racks not lists",
        lambda s: s["topics"][0].update(replica_racks=["a", ["b"], ["c"]]),
        "topics[0].replica_racks[0]: expected a list of rack names, got a string",
    ),
    (
        "owned pair malformed",
        lambda s: s["members"][0].update(owned_partitions=[["orders", 1.5]]),
        "members[0].owned_partitions[0]: expected a [topic, partition] pair, got ['orders', 1.5]",
    ),
    (
        "negative owned partition",
        lambda s: s["members"][0].update(owned_partitions=[["orders", -1]]),
        "members[0].owned_partitions[0]: partition -1 is not a valid partition number",
    ),
    (
        "priority beyond a Java int",
        lambda s: s["members"][0].update(priority=2**31),
        "members[0].priority: expected an integer from -2,147,483,648 to 2,147,483,647,"
        " got 2,147,483,648",
    ),
    (
        "unknown reset policy",
        lambda s: s.update(auto_offset_reset="smallest"),
        "auto_offset_reset: expected one of latest, earliest, none, got 'smallest'",
    ),
    (
        "huge partition count",
        lambda s: s["topics"][0].update(partitions=10**9),
        "topics[0].partitions: 1,000,000,000 partitions; expected 0 to 1,000,000 per topic",
    ),
    (
        "too many partitions in all",
        lambda s: s.update(topics=[{"name": f"t{i}", "partitions": 1_000_000} for i in range(6)]),
        "topics: 6,000,000 partitions in all; at most 5,000,000",
    ),
]


@pytest.mark.parametrize(("mistake", "apply", "message"), ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_input_gets_its_specific_message(mistake: str, apply: Any, message: str) -> None:
    problems = _errors(_with(apply))
    assert message in problems, f"{mistake}: got {problems}"


def test_every_problem_is_reported_at_once() -> None:
    raw = _with(lambda s: s["topics"][0].update(partitions="x") or s["members"][0].update(rack=1))
    problems = _errors(raw)
    assert any(p.startswith("topics[0].partitions") for p in problems)
    assert any(p.startswith("members[0].rack") for p in problems)


def test_not_an_object() -> None:
    assert _errors([1, 2]) == ("scenario: expected a JSON object, got a list",)


def test_a_streams_scenario_is_sent_to_the_task_parser() -> None:
    (problem,) = _errors({"tasks": [], "clients": []})
    assert "Kafka Streams task scenario" in problem


WARNINGS = [
    (
        "claim on a partition that does not exist",
        lambda s: (
            s["members"].append(
                {"member_id": "c", "topics": ["orders"], "owned_partitions": [["orders", 12]]}
            )
            or s["members"].append({"member_id": "d", "topics": ["orders"]})
        ),
        'members[2].owned_partitions[0]: partition 12 does not exist in topic "orders"'
        " (3 partitions); Kafka ignores this claim",
    ),
    (
        "claim on a topic that does not exist",
        lambda s: s["members"][0].update(owned_partitions=[["refunds", 0]]),
        'members[0].owned_partitions[0]: topic "refunds" does not exist; Kafka ignores this claim',
    ),
    (
        "committed offset below the log start",
        lambda s: s["topics"][0].update(committed_offsets=[40, 5, 50]),
        "topics[0].committed_offsets[1]: committed offset 5 is below the log-start offset 10:"
        " the records in between were deleted; lag counts from the committed offset, and on its"
        " next fetch the consumer resets by auto.offset.reset",
    ),
    (
        "committed offset beyond the log end",
        lambda s: s["topics"][0].update(committed_offsets=[40, None, 80]),
        "topics[0].committed_offsets[2]: committed offset 80 is beyond the log-end offset 50"
        " (the log was truncated); lag counts as 0, and on its next fetch the consumer resets"
        " by auto.offset.reset",
    ),
    (
        "a typo in a field name",
        lambda s: s["members"][0].update(rak="a"),
        "members[0].rak: unknown field, ignored (known fields: client_id, consume_rate,"
        " generation, group_instance_id, host, member_id, owned_partitions, priority, rack,"
        " topics)",
    ),
]


@pytest.mark.parametrize(("case", "apply", "message"), WARNINGS, ids=[w[0] for w in WARNINGS])
def test_questionable_input_loads_with_a_warning(case: str, apply: Any, message: str) -> None:
    _, warnings = parse_scenario(_with(apply), path="")
    assert message in warnings, f"{case}: got {warnings}"


def test_ignored_claim_is_kept_for_the_strategies_to_ignore() -> None:
    raw = _with(lambda s: s["members"][0].update(owned_partitions=[["orders", 12], ["orders", 1]]))
    scenario, _ = parse_scenario(raw, path="")
    assert scenario.members[0].owned_partitions == (
        TopicPartition("orders", 12),
        TopicPartition("orders", 1),
    )


@pytest.mark.parametrize(
    ("reset", "committed", "expected"),
    [
        ("latest", [40, None, 50], [60, 0, 0]),  # end - committed; no commit under latest: 0
        ("earliest", [40, None, 50], [60, 190, 0]),  # no commit under earliest: end - start
        ("latest", [40, 5, 80], [60, 195, 0]),  # below start counts from commit; beyond end: 0
    ],
)
def test_lag_rules_on_loaded_offsets(reset: str, committed: list[Any], expected: list[int]) -> None:
    raw = _with(lambda s: s["topics"][0].update(committed_offsets=committed))
    raw["auto_offset_reset"] = reset
    scenario, _ = parse_scenario(raw, path="")
    assert partition_lags(scenario.topics[0], scenario.auto_offset_reset) == expected


def test_invalid_json_text() -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario_text('{"topics": [}', source="upload.json")
    assert str(caught.value) == ("upload.json: not valid JSON: Expecting value at line 1 column 13")


def test_json_nested_too_deeply() -> None:
    with pytest.raises(ScenarioError, match="not valid JSON: nested deeper than 64 levels"):
        parse_scenario_text("[" * 100_000 + "]" * 100_000)


def test_a_300_mb_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.json"
    with path.open("wb") as file:
        file.truncate(300 * 1024 * 1024)  # sparse: 300 MiB on paper, nothing written
    with pytest.raises(ScenarioError) as caught:
        load_scenario_file(path)
    assert str(caught.value) == (
        f"{path}: 300.0 MiB of JSON; scenarios are limited to 256 MiB"
        " (a 100,000-partition snapshot is about 10 MiB; the compact form writes runs of"
        " partitions in far less: docs/scenario-format.md)"
    )
    assert MAX_SCENARIO_FILE_BYTES == 256 * 1024 * 1024
    assert MAX_FILE_BYTES == 32 * 1024 * 1024  # uploads and pastes: the dashboard's widget


def test_a_50_mb_upload_is_refused() -> None:
    with pytest.raises(ScenarioError, match=r"upload: 50\.0 MiB of JSON; scenarios are limited"):
        parse_scenario_text(b" " * (50 * 1024 * 1024), source="upload")


def test_the_limit_can_be_raised_for_one_call(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps(BASE) + " " * 2000)
    with pytest.raises(ScenarioError, match="limited to"):
        load_scenario_file(path, max_bytes=1000)
    scenario, _ = load_scenario_file(path, max_bytes=10_000)
    assert scenario.topics[0].name == "orders"


def test_missing_file_and_non_utf8(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="cannot read the file"):
        read_json_file(tmp_path / "nope.json")
    bad = tmp_path / "latin1.json"
    bad.write_bytes(b'{"name": "caf\xe9"}')
    with pytest.raises(ScenarioError, match="not UTF-8 text"):
        read_json_file(bad)


# --- properties ------------------------------------------------------------------------------

names = st.text(st.characters(min_codepoint=33, max_codepoint=0x2FF), min_size=1, max_size=8)
offsets = st.integers(min_value=0, max_value=2**40)


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    topic_names = draw(st.lists(names, min_size=0, max_size=4, unique=True))
    topics = []
    for name in topic_names:
        count = draw(st.integers(min_value=0, max_value=6))
        starts = draw(st.lists(offsets, min_size=count, max_size=count))
        ends = [start + draw(offsets) for start in starts]
        committed = [draw(st.none() | offsets) for _ in range(count)]
        topics.append(
            Topic(
                name=name,
                partitions=count,
                log_start_offsets=tuple(starts) if draw(st.booleans()) else None,
                log_end_offsets=tuple(ends),
                committed_offsets=tuple(committed) if draw(st.booleans()) else None,
                produce_rates=tuple(
                    draw(st.lists(st.floats(0, 1e6), min_size=count, max_size=count))
                ),
                replica_racks=tuple(tuple(draw(st.lists(names, max_size=3))) for _ in range(count)),
            )
        )
    member_ids = draw(st.lists(names, max_size=5, unique=True))
    members = tuple(
        Member(
            member_id=member_id,
            topics=tuple(draw(st.lists(st.sampled_from(topic_names or ["x"]), max_size=3))),
            rack=draw(st.none() | names),
            group_instance_id=draw(st.none() | names),
            owned_partitions=tuple(
                TopicPartition(t, p)
                for t, p in draw(st.lists(st.tuples(names, st.integers(0, 10)), max_size=3))
            ),
            generation=draw(st.none() | st.integers(-1, 100)),
            priority=draw(st.none() | st.integers(-(2**31), 2**31 - 1)),
            consume_rate=draw(st.none() | st.floats(0, 1e6)),
            client_id=draw(st.none() | names),
            host=draw(st.none() | names),
        )
        for member_id in member_ids
    )
    return Scenario(
        topics=tuple(topics),
        members=members,
        auto_offset_reset=draw(st.sampled_from(["latest", "earliest", "none"])),
        name=draw(st.none() | names),
        group_id=draw(st.none() | names),
    )


@settings(max_examples=150, deadline=None)
@given(scenarios())
def test_to_json_and_back_is_the_identity(scenario: Scenario) -> None:
    text = json.dumps(scenario_to_json(scenario))
    parsed, _ = parse_scenario_text(text)
    assert parsed == scenario


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(
    st.fixed_dictionaries(
        {},
        optional={
            "topics": st.lists(json_values, max_size=3)
            | st.lists(
                st.fixed_dictionaries(
                    {"name": json_values, "partitions": json_values},
                    optional={"log_end_offsets": json_values, "committed_offsets": json_values},
                ),
                max_size=3,
            ),
            "members": st.lists(
                st.fixed_dictionaries(
                    {"member_id": json_values, "topics": json_values},
                    optional={"owned_partitions": json_values, "priority": json_values},
                ),
                max_size=3,
            ),
            "walkthrough": json_values,
            "auto_offset_reset": json_values,
        },
    )
)
def test_arbitrary_json_gives_a_scenario_or_a_scenario_error(raw: dict[str, Any]) -> None:
    try:
        parse_scenario(raw, path="")
    except ScenarioError as error:
        assert error.problems and all(": " in problem for problem in error.problems)


def test_the_loader_leaves_the_walkthrough_to_the_walkthrough_module() -> None:
    broken = [{"text": "no title", "change": {"remove_members": ["zed"]}}, 7]
    scenario, warnings = parse_scenario({**BASE, "walkthrough": broken}, path="")
    assert scenario == parse_scenario(BASE, path="")[0]
    assert warnings == parse_scenario(BASE, path="")[1]

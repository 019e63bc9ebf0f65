"""The compact form of the scenario format, as a specification (``assignors/io/compact.py``).

* Worked examples: the partition-number notation (``"0-499"``, ``"3-98003/2000"``), claims as
  runs and blocks (``"*"``: every topic), per-partition values keyed by runs.
* Mistakes: each gets its JSON path and what to write instead, as every loader message does;
  the claim limits are counted in partitions, before a run's partitions are made.
* Properties (generated): any scenario written compact and loaded again is the same scenario;
  the one-by-one form and the compact form of a scenario load to the same scenario; numbers and
  values written compact expand to what they were.
"""

from __future__ import annotations

import json
from itertools import chain
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import assignors.io.scenario as scenario_module
from assignors.errors import ScenarioError
from assignors.io.compact import (
    claims_to_json,
    format_numbers,
    format_range,
    parse_numbers,
    progressions,
    values_to_json,
)
from assignors.io.scenario import parse_scenario, parse_scenario_text, scenario_to_json, schema
from assignors.limits import MAX_OWNED_PER_MEMBER
from assignors.model import Member, PartitionRuns, Scenario, Topic, TopicPartition


def _load(raw: dict[str, Any]) -> tuple[Scenario, tuple[str, ...]]:
    return parse_scenario(raw, path="")


def _errors(raw: dict[str, Any]) -> tuple[str, ...]:
    with pytest.raises(ScenarioError) as caught:
        _load(raw)
    return caught.value.problems


def _group(**member: Any) -> dict[str, Any]:
    return {
        "topics": [{"name": "orders", "partitions": 6}, {"name": "payments", "partitions": 4}],
        "members": [{"member_id": "a", "topics": ["orders", "payments"], **member}],
    }


# --- worked examples -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("7", [7]),
        ("0-4", [0, 1, 2, 3, 4]),
        ("0-8/4", [0, 4, 8]),
        ("0-9/4", [0, 4, 8]),  # as in a crontab: every 4th up to 9
        ("5, 2,0-1", [5, 2, 0, 1]),  # in the order written
    ],
)
def test_partition_numbers_read_as_written(text: str, numbers: list[int]) -> None:
    assert list(chain.from_iterable(parse_numbers(text))) == numbers


def test_numbers_are_written_as_the_shortest_runs() -> None:
    assert format_numbers([0, 1, 2, 5, 7, 8]) == "0-2,5,7-8"
    assert format_numbers([3, 2003, 4003, 6003]) == "3-6003/2000"
    assert format_numbers([9]) == 9  # one number: the pair form


def test_a_subscription_to_every_topic_and_a_block_of_every_topic() -> None:
    scenario, warnings = _load(
        _group(topics="*", owned_partitions=[{"topics": "*", "partitions": "1-2"}, ["orders", 5]])
    )
    member = scenario.members[0]
    assert member.topics == ("orders", "payments")
    assert member.owned_partitions == (
        TopicPartition("orders", 1),
        TopicPartition("orders", 2),
        TopicPartition("payments", 1),
        TopicPartition("payments", 2),
        TopicPartition("orders", 5),
    )
    assert warnings == ()


def test_per_partition_values_keyed_by_runs() -> None:
    raw = _group()
    raw["topics"][0]["lags"] = {"0-3": 0, "4": 12, "5": 7}
    raw["topics"][0]["committed_offsets"] = {"0-4/2": None, "1-5/2": 40}
    topic = _load(raw)[0].topics[0]
    assert topic.lags == (0, 0, 0, 0, 12, 7)
    assert topic.committed_offsets == (None, 40, None, 40, None, 40)


def test_a_run_past_the_topic_is_a_warning_as_a_pair_is() -> None:
    _, warnings = _load(_group(owned_partitions=[["payments", "2-9"], ["gone", "0-1"]]))
    assert warnings == (
        'members[0].owned_partitions[0]: 6 of these partitions do not exist in topic "payments"'
        " (4 partitions, the first missing: 4); Kafka ignores those claims",
        'members[0].owned_partitions[1]: topic "gone" does not exist; Kafka ignores this claim',
    )


def test_the_writer_uses_every_topic_and_runs() -> None:
    scenario, _ = _load(
        _group(
            owned_partitions=[["orders", n] for n in range(4)] + [["payments", n] for n in range(4)]
        )
    )
    written = scenario_to_json(scenario, compact=True)["members"][0]
    assert written["topics"] == "*"
    assert written["owned_partitions"] == [{"topics": "*", "partitions": "0-3"}]


def test_an_answer_held_as_runs_is_written_from_its_runs() -> None:
    runs = PartitionRuns([(("a", "b"), range(0, 10, 2)), (("c",), range(3, 4))])
    assert claims_to_json(runs, ("a", "b", "c")) == [
        {"topics": ["a", "b"], "partitions": "0-8/2"},
        ["c", 3],
    ]
    assert claims_to_json(runs, ("a", "b")) == claims_to_json(tuple(runs), ("a", "b"))


def test_a_block_of_every_topic_in_a_group_without_topics_claims_nothing() -> None:
    scenario, warnings = _load(
        {
            "topics": [],
            "members": [
                {
                    "member_id": "a",
                    "topics": "*",
                    "owned_partitions": [{"topics": "*", "partitions": "0"}],
                }
            ],
        }
    )
    assert scenario.members[0].owned_partitions == () and warnings == ()


# --- mistakes: the JSON path and what to write -----------------------------------------------

MISTAKES = [
    (
        _group(owned_partitions=[["orders", "0-x"]]),
        "members[0].owned_partitions[0]: '0-x' is not a partition number or run; write numbers"
        ' and runs such as "7", "0-499" or "0-98/2" (every 2nd), comma-separated',
    ),
    (
        _group(owned_partitions=[["orders", "5-2"]]),
        "members[0].owned_partitions[0]: '5-2' runs backwards or has step 0; write the smaller"
        " number first and a step of at least 1",
    ),
    (
        _group(owned_partitions=[{"topics": "all", "partitions": "1"}]),
        'members[0].owned_partitions[0].topics: expected "*" (every topic) or a non-empty list'
        " of topic names, got a string",
    ),
    (
        _group(owned_partitions=[["orders", "0-9999999999"]]),
        "members[0].owned_partitions[0]: '0-9999999999' names a partition beyond 2,147,483,647",
    ),
    (
        _group(owned_partitions=[{"topics": "*", "partitions": f"0-{MAX_OWNED_PER_MEMBER}"}]),
        f"members[0].owned_partitions: more than {MAX_OWNED_PER_MEMBER:,} claims for one member"
        " (a run counts each partition)",
    ),
]


@pytest.mark.parametrize(("raw", "message"), MISTAKES)
def test_each_mistake_gets_its_path_and_remedy(raw: dict[str, Any], message: str) -> None:
    assert message in _errors(raw)


@pytest.mark.parametrize(
    ("lags", "message"),
    [
        ({"0-4": 0}, "topics[0].lags: 1 partitions have no value (the first: 5);"),
        ({"0-5": 0, "3": 1}, "topics[0].lags.3: partition 3 is given a value twice"),
        ({"0-6": 0}, "topics[0].lags.0-6: partition 6 does not exist (partitions 0 to 5)"),
        ({"0-5": -1}, "topics[0].lags.0-5: offsets and lags are never negative, got -1"),
        ({"first": 0}, "topics[0].lags.first: expected partition numbers as the key:"),
    ],
)
def test_keyed_values_cover_every_partition_once(lags: dict[str, Any], message: str) -> None:
    raw = _group()
    raw["topics"][0]["lags"] = lags
    assert any(problem.startswith(message) for problem in _errors(raw)), _errors(raw)


def test_claims_are_limited_in_all_members_before_they_are_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(scenario_module, "MAX_TOTAL_OWNED", 12)
    raw = _group(owned_partitions=[{"topics": "*", "partitions": "0-3"}])
    raw["members"].append({**raw["members"][0], "member_id": "b"})
    assert "members[1].owned_partitions: more than 12 claims in all members" in (
        " ".join(_errors(raw))
    )


# --- properties ------------------------------------------------------------------------------

names = st.text(st.characters(min_codepoint=33, max_codepoint=0x2FF), min_size=1, max_size=6)


@st.composite
def claims(draw: st.DrawFn, topic_names: list[str]) -> tuple[TopicPartition, ...]:
    """Claims as groups write them: blocks of topics x runs, stray pairs, in any order."""
    pool = [*topic_names, "gone"]
    made: list[TopicPartition] = []
    for _ in range(draw(st.integers(0, 4))):
        topics = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4))
        start, length, step = (
            draw(st.integers(0, 9)),
            draw(st.integers(1, 5)),
            draw(st.integers(1, 3)),
        )
        made += [
            TopicPartition(t, n) for t in topics for n in range(start, start + length * step, step)
        ]
    return tuple(made)


def per_partition(draw: st.DrawFn, count: int, values: st.SearchStrategy[Any]) -> tuple[Any, ...]:
    """Values with repeats (so that runs form) or not."""
    few = draw(st.lists(values, min_size=1, max_size=3))
    return tuple(draw(st.lists(st.sampled_from(few), min_size=count, max_size=count)))


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    topic_names = draw(st.lists(names, max_size=4, unique=True))
    topics = []
    for name in topic_names:
        count = draw(st.integers(0, 12))
        lags = per_partition(draw, count, st.integers(0, 2**40))
        committed = per_partition(draw, count, st.none() | st.integers(0, 2**40))
        racks = per_partition(draw, count, st.lists(names, max_size=2).map(tuple))
        topics.append(
            Topic(
                name,
                count,
                lags=lags if draw(st.booleans()) else None,
                committed_offsets=committed if draw(st.booleans()) else None,
                replica_racks=racks if draw(st.booleans()) else None,
                produce_rates=per_partition(draw, count, st.floats(0, 1e6)),
            )
        )
    every = tuple(topic_names)
    members = tuple(
        Member(
            member_id,
            topics=every if draw(st.booleans()) else tuple(draw(st.lists(names, max_size=3))),
            owned_partitions=draw(claims(topic_names)),
            generation=draw(st.none() | st.integers(-1, 9)),
        )
        for member_id in draw(st.lists(names, max_size=4, unique=True))
    )
    return Scenario(tuple(topics), members)


@settings(max_examples=200, deadline=None)
@given(scenarios())
def test_compact_json_loads_back_to_the_same_scenario(scenario: Scenario) -> None:
    text = json.dumps(scenario_to_json(scenario, compact=True))
    assert parse_scenario_text(text)[0] == scenario


@settings(max_examples=100, deadline=None)
@given(scenarios())
def test_the_schema_accepts_what_the_writer_writes_in_either_form(scenario: Scenario) -> None:
    validator = jsonschema.Draft202012Validator(schema())
    for compact in (False, True):
        document = json.loads(json.dumps(scenario_to_json(scenario, compact=compact)))
        assert not list(validator.iter_errors(document)), document


@settings(max_examples=200, deadline=None)
@given(scenarios())
def test_both_forms_load_to_the_same_scenario(scenario: Scenario) -> None:
    verbose = parse_scenario_text(json.dumps(scenario_to_json(scenario)))[0]
    compact = parse_scenario_text(json.dumps(scenario_to_json(scenario, compact=True)))[0]
    assert verbose == compact


@given(st.lists(st.integers(0, 50), max_size=30))
def test_numbers_written_compact_expand_to_themselves(numbers: list[int]) -> None:
    assert list(chain.from_iterable(progressions(numbers))) == numbers
    if numbers:
        written = format_numbers(numbers)
        assert list(chain.from_iterable(parse_numbers(str(written)))) == numbers


def _plain_claims_writer(claims: tuple[TopicPartition, ...], every: tuple[str, ...]) -> list[Any]:
    """Rule 3 read plainly, one claim at a time: each topic's claims in a row written with
    :func:`progressions` (a lone number as the pair form), rows with equal numbers in a row
    joined into one block (``"*"`` when they are ``every``)."""
    rows: list[tuple[str, list[int]]] = []
    for topic, number in claims:
        if rows and rows[-1][0] == topic:
            rows[-1][1].append(number)
        else:
            rows.append((topic, [number]))
    written = [
        (t, n[0] if len(n) == 1 else ",".join(map(format_range, progressions(n)))) for t, n in rows
    ]
    entries: list[Any] = []
    start = 0
    while start < len(written):
        end = start + 1
        while end < len(written) and written[end][1] == written[start][1]:
            end += 1
        topics = [t for t, _ in written[start:end]]
        numbers = written[start][1]
        if len(topics) == 1:
            entries.append([topics[0], numbers])
        else:
            block = "*" if tuple(topics) == every else topics
            entries.append({"topics": block, "partitions": str(numbers)})
        start = end
    return entries


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_the_writer_writes_what_the_rule_read_plainly_writes(data: st.DataObject) -> None:
    """The writer finds topic rows and blocks in C; its entries are the plain reading's."""
    every = tuple(data.draw(st.lists(names, min_size=1, max_size=4, unique=True)))
    made = data.draw(claims(list(every)))
    shuffled = tuple(data.draw(st.permutations(made))) if data.draw(st.booleans()) else made
    assert claims_to_json(shuffled, every) == _plain_claims_writer(shuffled, every)


@given(st.lists(st.sampled_from([0, 5, None]), max_size=40))
def test_values_written_compact_expand_to_themselves(values: list[Any]) -> None:
    written = values_to_json(values)
    if isinstance(written, list):
        assert written == values
        return
    expanded: list[Any] = [object()] * len(values)
    for key, value in written.items():
        for numbers in parse_numbers(key):
            for number in numbers:
                expanded[number] = value
    assert expanded == values

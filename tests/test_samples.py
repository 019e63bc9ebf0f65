"""The shipped samples: catalog, schema, every strategy, and the claims their texts make.

Specification:

* There are at least eight samples; each has a title and a one-line description, loads without
  a single warning, and the default one loads with no argument.
* Every consumer-group sample validates against ``assignors/io/scenario.schema.json``, and the
  schema and the loader (the scenario loader plus the walkthrough reader) agree: both accept
  every sample, both reject structural mistakes.
* Every consumer-group sample, and every step of its walkthrough, is a valid input for every
  registered partition strategy (each partition assigned at most once, only to a subscriber).
* The worked examples say what the strategies do: the tests check each claim the texts make
  (every strategy they name is registered; a missing one fails, it is never skipped).
* ``large-group.json`` is exactly what ``make_large.py`` writes, and is large.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import jsonschema
import pytest

import sample_data
from assignors import registry
from assignors.errors import ScenarioError
from assignors.io.scenario import parse_scenario, read_json_file, schema
from assignors.io.walkthrough import parse_walkthrough
from assignors.model import Assignment, Scenario, TopicPartition
from assignors.simulate.lag import partition_lags
from assignors.streams.model import parse_streams_scenario
from sample_data import make_large

SAMPLES = sample_data.list_samples()
GROUP_SAMPLES = [info for info in SAMPLES if info.kind == "consumer-group"]
VALIDATOR = jsonschema.Draft202012Validator(schema())


def _strategy(name: str) -> Any:
    return registry.partition_strategies()[name]


def _owned(assignment: Assignment) -> dict[str, set[TopicPartition]]:
    return {member: set(tps) for member, tps in assignment.partitions.items()}


def _load(raw: object) -> None:
    """What :func:`sample_data.load_sample` does with a group sample: scenario, then walkthrough."""
    scenario, _ = parse_scenario(raw, path="")
    parse_walkthrough(raw, scenario)


#: Share groups (KIP-932) may give one partition to several members; no other strategy does.
SHARING_STRATEGIES = {"share-simple"}


def _check_valid(scenario: Scenario, assignment: Assignment, *, shared: bool = False) -> None:
    counts = scenario.partition_counts()
    subscriptions = {m.member_id: set(m.topics) for m in scenario.members}
    seen: set[TopicPartition] = set()
    for member, tps in assignment.partitions.items():
        if shared:
            seen = set()  # one member holds a partition at most once; members may share it
        for tp in tps:
            assert tp not in seen, f"{tp} assigned twice"
            seen.add(tp)
            assert tp.topic in subscriptions[member], f"{tp} given to non-subscriber {member}"
            assert 0 <= tp.partition < counts[tp.topic]


def test_catalog_has_the_samples_the_issue_asks_for() -> None:
    keys = {info.key for info in SAMPLES}
    assert len(SAMPLES) >= 8
    assert {
        "lag-aware-worked-example",
        "range-vs-roundrobin",
        "member-leaves-roundrobin-vs-sticky",
        "sticky-member-joins",
        "stream-join-impressions-clicks",
        "failover-priorities",
        "rack-aware-three-zones",
        "large-group",
        "streams-new-instance",
    } <= keys
    assert {info.kind for info in SAMPLES} == {"consumer-group", "streams"}


@pytest.mark.parametrize("info", SAMPLES, ids=lambda info: info.key)
def test_sample_has_title_description_and_loads_cleanly(info: sample_data.SampleInfo) -> None:
    assert info.name and info.name != info.key
    assert info.description and "\n" not in info.description and len(info.description) <= 200
    sample = sample_data.load_sample(info.key)
    assert sample.warnings == ()
    assert (sample.scenario is None) == (info.kind == "streams")
    assert sample_data.load_sample(info.name).info == info


def test_default_sample_loads_without_configuration() -> None:
    sample = sample_data.load_sample()
    assert sample.info.key == sample_data.DEFAULT_SAMPLE
    assert sample.scenario is not None and sample.scenario.members


def test_unknown_sample_names_the_known_ones() -> None:
    with pytest.raises(sample_data.UnknownSampleError, match="range-vs-roundrobin"):
        sample_data.load_sample("no-such-sample")


@pytest.mark.parametrize("info", GROUP_SAMPLES, ids=lambda info: info.key)
def test_schema_and_loader_both_accept_every_sample(info: sample_data.SampleInfo) -> None:
    raw = read_json_file(info.path)
    VALIDATOR.validate(raw)
    _load(raw)


@pytest.mark.parametrize(
    ("mistake", "apply"),
    [
        ("partitions as a string", lambda s: s["topics"][0].update(partitions="3")),
        ("negative offset", lambda s: s["topics"][0].update(log_end_offsets=[-1, 0, 0])),
        ("member without id", lambda s: s["members"][0].pop("member_id")),
        ("topics not a list", lambda s: s["members"][0].update(topics="t0")),
        ("bad owned pair", lambda s: s["members"][0].update(owned_partitions=[["t0"]])),
        ("bad reset policy", lambda s: s.update(auto_offset_reset="smallest")),
        ("step without text", lambda s: s["walkthrough"][0].pop("text")),
        ("change not an object", lambda s: s["walkthrough"][1].update(change=["roundrobin"])),
        (
            "removed ids not a list",
            lambda s: s["walkthrough"][1].update(change={"remove_members": "C0"}),
        ),
        ("negative rate", lambda s: s["members"][0].update(consume_rate=-1)),
        ("no members", lambda s: s.pop("members")),
    ],
)
def test_schema_and_loader_both_reject_structural_mistakes(mistake: str, apply: Any) -> None:
    raw = copy.deepcopy(read_json_file(sample_data.SAMPLE_DIRECTORY / "range-vs-roundrobin.json"))
    apply(raw)
    assert not VALIDATOR.is_valid(raw), mistake
    with pytest.raises(ScenarioError):
        _load(raw)


@pytest.mark.parametrize("info", GROUP_SAMPLES, ids=lambda info: info.key)
@pytest.mark.parametrize("strategy", sorted(registry.partition_strategies()))
def test_every_sample_and_step_is_valid_under_every_strategy(
    info: sample_data.SampleInfo, strategy: str
) -> None:
    sample = sample_data.load_sample(info.key)
    assert sample.scenario is not None
    shared = strategy in SHARING_STRATEGIES
    answer = registry.partition_strategies()[strategy].assign(sample.scenario)
    _check_valid(sample.scenario, answer, shared=shared)
    for state in sample_data.replay_walkthrough(sample.scenario, sample.walkthrough, strategy):
        _check_valid(state.scenario, state.assignment, shared=shared)


def _replay(key: str) -> list[sample_data.StepState]:
    sample = sample_data.load_sample(key)
    assert sample.scenario is not None
    for step in sample.walkthrough:
        if step.assignor is not None:
            _strategy(step.assignor)
    _strategy(sample.scenario.assignor or sample_data.DEFAULT_STRATEGY)
    return sample_data.replay_walkthrough(sample.scenario, sample.walkthrough)


def _tps(*pairs: tuple[str, int]) -> set[TopicPartition]:
    return {TopicPartition(topic, partition) for topic, partition in pairs}


def test_lag_aware_worked_example() -> None:
    states = _replay("lag-aware-worked-example")
    scenario = states[0].scenario
    assert partition_lags(scenario.topics[0], scenario.auto_offset_reset) == [
        100_000,
        60_000,
        50_000,
    ]
    assert _owned(states[1].assignment) == {"C0": _tps(("t0", 0)), "C1": _tps(("t0", 1), ("t0", 2))}
    assert states[2].strategy == "range"
    assert _owned(states[2].assignment) == {"C0": _tps(("t0", 0), ("t0", 1)), "C1": _tps(("t0", 2))}


def test_range_vs_roundrobin() -> None:
    states = _replay("range-vs-roundrobin")
    assert {m: len(t) for m, t in states[0].assignment.partitions.items()} == {"C0": 4, "C1": 2}
    assert _owned(states[1].assignment) == {
        "C0": _tps(("t0", 0), ("t0", 2), ("t1", 1)),
        "C1": _tps(("t0", 1), ("t1", 0), ("t1", 2)),
    }


def _moved(before: Assignment, after: Assignment) -> int:
    owner_after = after.owner_of()
    return sum(1 for tp, owner in before.owner_of().items() if owner_after.get(tp) != owner)


def test_member_leaving_moves_four_under_roundrobin_and_two_under_sticky() -> None:
    states = _replay("member-leaves-roundrobin-vs-sticky")
    assert _moved(states[0].assignment, states[1].assignment) == 4
    assert states[3].strategy == "sticky"
    assert _moved(states[2].assignment, states[3].assignment) == 0
    assert _moved(states[3].assignment, states[4].assignment) == 2


def test_sticky_newcomer_takes_three_and_nothing_else_moves() -> None:
    states = _replay("sticky-member-joins")
    owned = _owned(states[0].assignment)
    assert len(owned["C2"]) == 3
    assert owned["C0"] <= _tps(*(("t1", p) for p in range(5)))
    assert owned["C1"] <= _tps(*(("t1", p) for p in range(5, 10)))
    assert sorted(len(tps) for tps in owned.values()) == [3, 3, 4]


def test_stream_join_keeps_numbers_when_d_leaves() -> None:
    states = _replay("stream-join-impressions-clicks")
    before, after = _owned(states[0].assignment), _owned(states[1].assignment)
    for member in "ABC":
        assert before[member] <= after[member]
    for tps in after.values():
        numbers = {tp.partition for tp in tps}
        assert {tp for tp in tps if tp.topic == "impressions"} == _tps(
            *(("impressions", n) for n in numbers)
        )
        assert {tp for tp in tps if tp.topic == "clicks"} == _tps(*(("clicks", n) for n in numbers))


def test_failover_moves_everything_to_the_next_priority_and_back() -> None:
    states = _replay("failover-priorities")
    every = {tp for tps in states[0].assignment.partitions.values() for tp in tps}
    assert _owned(states[0].assignment)["primary"] == every
    assert _owned(states[1].assignment)["secondary"] == every
    assert _owned(states[2].assignment)["primary"] == every


def _cross_zone(state: sample_data.StepState) -> int:
    racks = {m.member_id: m.rack for m in state.scenario.members}
    replica = {
        TopicPartition(t.name, p): set(r)
        for t in state.scenario.topics
        for p, r in enumerate(t.replica_racks or ())
    }
    return sum(
        1
        for member, tps in state.assignment.partitions.items()
        for tp in tps
        if racks[member] not in replica[tp]
    )


def test_rack_aware_range_reads_in_zone_and_roundrobin_does_not() -> None:
    states = _replay("rack-aware-three-zones")
    assert [s.strategy for s in states] == ["range", "roundrobin", "range"]
    assert _cross_zone(states[1]) == 6
    assert _cross_zone(states[0]) <= 1
    assert _cross_zone(states[2]) <= 2
    assert {m.rack for m in states[2].scenario.members} == {"eu-west-1a", "eu-west-1b"}


def test_large_group_is_reproducible_and_large() -> None:
    path = sample_data.SAMPLE_DIRECTORY / "large-group.json"
    assert path.read_text(encoding="utf-8") == make_large.dumps(make_large.build())
    sample = sample_data.load_sample("large-group")
    assert sample.scenario is not None
    assert len(sample.scenario.members) >= 24
    assert len(sample.scenario.topics) >= 3
    assert all(64 <= topic.partitions <= 256 for topic in sample.scenario.topics)
    assert all(m.consume_rate is not None for m in sample.scenario.members)
    lags = sorted(lag for t in sample.scenario.topics for lag in partition_lags(t))
    assert lags[-1] > 100 * max(lags[len(lags) // 2], 1), "lag should be skewed"


def test_streams_sample_is_a_streams_ha_scenario() -> None:
    sample = sample_data.load_sample("streams-new-instance")
    assert sample.streams is not None
    raw = read_json_file(sample.info.path)
    assert parse_streams_scenario(raw) == sample.streams
    strategies = registry.task_strategies()
    answer = strategies["streams-ha"].to_json(strategies["streams-ha"].compute(sample.streams))
    active = [t for client in answer["clients"].values() for t in client["active"]]
    assert sorted(active) == sorted(task["id"] for task in raw["tasks"])  # type: ignore[index]
    assert json.dumps(answer)

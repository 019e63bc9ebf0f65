"""The Kafka version option: parsed from a scenario, and the strategies that answer by version.

The worked examples were answered by Kafka's own classes (the oracle, Kafka 3.9.2 and 4.4.0);
``tests/differential`` compares generated groups with both versions in every run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assignors.cli.batch import answer_line
from assignors.errors import ScenarioError
from assignors.io.scenario import parse_scenario, scenario_to_json
from assignors.kafka_versions import (
    KAFKA_VERSIONS,
    NEWEST_KAFKA_VERSION,
    at_least,
    parse_kafka_version,
)
from assignors.streams.model import parse_streams_scenario, streams_scenario_to_json


def answer(strategy: str, scenario: dict[str, Any], version: str | None = None) -> dict[str, Any]:
    if version is not None:
        scenario = {**scenario, "kafka_version": version}
    request = {"id": 1, "strategy": strategy, "scenario": scenario}
    return answer_line(json.dumps(request).encode(), 1)


def test_versions_are_release_lines_newest_last() -> None:
    assert KAFKA_VERSIONS[0] == "3.0" and NEWEST_KAFKA_VERSION == KAFKA_VERSIONS[-1] == "4.4"
    assert len(KAFKA_VERSIONS) == 15
    assert parse_kafka_version("3.9.2") == "3.9"
    assert parse_kafka_version("3.4.1") == "3.4"
    assert parse_kafka_version("4.4") == "4.4"
    assert at_least(None, "4.1") and at_least("4.4", "4.4") and not at_least("3.9", "4.0")
    assert at_least("3.10", "3.9")  # numbers, not text
    for wrong in ("2.8", "5.0", "4.5", 3.9, "", None):
        with pytest.raises(ScenarioError, match="kafka_version"):
            parse_kafka_version(wrong)


def test_scenario_field_round_trips_and_is_checked() -> None:
    raw = {"topics": [{"name": "t", "partitions": 1}], "members": [], "kafka_version": "3.9.2"}
    scenario, _ = parse_scenario(raw)
    assert scenario.kafka_version == "3.9"
    assert parse_scenario(scenario_to_json(scenario))[0] == scenario
    assert parse_scenario({**raw, "kafka_version": None})[0].kafka_version is None
    with pytest.raises(ScenarioError, match=r"kafka_version: Kafka version '2\.8'"):
        parse_scenario({**raw, "kafka_version": "2.8"})
    streams = {
        "tasks": [{"id": "0_0"}],
        "clients": [{"process_id": "00000000-0000-0000-0000-00000000000a", "capacity": 1}],
        "kafka_version": "3.9",
    }
    parsed = parse_streams_scenario(streams)
    assert parsed.kafka_version == "3.9" and not parsed.warnings
    assert parse_streams_scenario(streams_scenario_to_json(parsed)) == parsed
    with pytest.raises(ScenarioError, match="kafka_version"):
        parse_streams_scenario({**streams, "kafka_version": "4.9"})


HOMOGENEOUS = {
    "topics": [{"name": "t", "partitions": 3}],
    "members": [
        {"member_id": "A", "topics": ["t"]},
        {"member_id": "B", "topics": ["t"], "owned_partitions": [["t", 0], ["t", 1]]},
    ],
}


def test_uniform_even_split_extra_slot_by_version() -> None:
    """A (first in member-map order) holds nothing: Kafka 4.1+ lets B keep its two partitions;
    Kafka 3.9 gives the one extra slot to A, the first member, and B gives up t-1."""
    assert answer("uniform", HOMOGENEOUS)["assignment"] == {
        "A": [["t", 2]],
        "B": [["t", 0], ["t", 1]],
    }
    assert answer("uniform", HOMOGENEOUS, "3.9")["assignment"] == {
        "A": [["t", 1], ["t", 2]],
        "B": [["t", 0]],
    }


#: HOMOGENEOUS one rolling-restart step later (``deploy --strategy uniform``): A left, B took
#: all three partitions, and A rejoins owning nothing (after B in join order).
REJOINED = {
    "topics": [{"name": "t", "partitions": 3}],
    "members": [
        {"member_id": "B", "topics": ["t"], "owned_partitions": [["t", 0], ["t", 1], ["t", 2]]},
        {"member_id": "A", "topics": ["t"]},
    ],
}


def test_uniform_rejoined_member_by_version() -> None:
    """Three partitions, two members, B holds all: Kafka 4.1+ lets B keep the extra slot its
    partitions use; Kafka 3.9 gives it to the first member of the coordinator's member map (a
    HashMap: A before B), so B gives up two partitions instead of one."""
    assert answer("uniform", REJOINED)["assignment"] == {"B": [["t", 0], ["t", 1]], "A": [["t", 2]]}
    assert answer("uniform", REJOINED, "3.9")["assignment"] == {
        "B": [["t", 0]],
        "A": [["t", 1], ["t", 2]],
    }


HETEROGENEOUS = {
    "topics": [{"name": "payments", "partitions": 2, "id": "8V6XL0KvMoeCpzKt4TGi8g"}],
    "members": [
        {
            "member_id": "consumer-2-fdbfdacd-5151-159e-2138-97b5bacff964",
            "topics": ["payments", "ghost"],
        },
        {"member_id": "consumer-0-7d5c6991-b051-51dc-238f-43396f175bfa", "topics": ["payments"]},
    ],
}


def test_uniform_heterogeneous_builder_by_version() -> None:
    """The subscriptions differ by a missing topic: the two builders order the members apart."""
    first, second = (m["member_id"] for m in HETEROGENEOUS["members"])  # type: ignore[union-attr]
    assert answer("uniform", HETEROGENEOUS)["assignment"] == {
        first: [["payments", 0]],
        second: [["payments", 1]],
    }
    assert answer("uniform", HETEROGENEOUS, "3.9")["assignment"] == {
        first: [["payments", 1]],
        second: [["payments", 0]],
    }


THROWS_IN_39 = {
    "topics": [
        {"name": "B", "partitions": 10, "id": "t71MlyZynDSjv53wx9IFGg"},
        {"name": "orders", "partitions": 3},
    ],
    "members": [
        {
            "member_id": "m-AaAaBBAa",
            "topics": ["orders", "B"],
            "owned_partitions": [
                ["B", 7], ["B", 9], ["orders", 1], ["B", 2], ["orders", 0],
                ["B", 3], ["B", 5], ["B", 1], ["B", 8],
            ],
        },
        {"member_id": "m-AaAaBBBB", "topics": ["B"], "owned_partitions": [["B", 0], ["B", 4]]},
        {"member_id": "m-AaBBAaBB", "topics": ["orders"], "owned_partitions": [["orders", 2]]},
    ],
}  # fmt: skip


def test_uniform_39_fails_where_kafka_39_throws() -> None:
    """Kafka 3.9's movement record rejects a partition moved back (PartitionAssignorException)."""
    old = answer("uniform", THROWS_IN_39, "3.9")
    assert "Mismatch in partition movement record" in old["error"]
    new = answer("uniform", THROWS_IN_39)["assignment"]
    assert sorted(len(partitions) for partitions in new.values()) == [3, 5, 5]


STREAMS = {
    "tasks": [{"id": "0_0"}, {"id": "0_1"}],
    "clients": [
        {
            "process_id": "00000000-0000-0000-0000-00000000000a",
            "capacity": 1,
            "prev_active": ["0_0", "0_1"],
        },
        {"process_id": "00000000-0000-0000-0000-00000000000b", "capacity": 2},
    ],
}


def test_streams_sticky_quota_by_version() -> None:
    """Two tasks over three threads: Kafka 4.4's quota for the one-thread client that ran both
    is ceil(2 / 3) = 1 (it keeps one); Kafka 3.9's is 1 x (2 // 3) = 0, so both tasks are placed
    afresh and land the other way round."""
    a, b = (c["process_id"] for c in STREAMS["clients"])  # type: ignore[union-attr]

    def actives(version: str | None) -> dict[str, list[str]]:
        clients = answer("streams-sticky", STREAMS, version)["assignment"]["clients"]
        return {pid: tasks["active"] for pid, tasks in clients.items()}

    assert actives(None) == {a: ["0_1"], b: ["0_0"]}
    assert actives("4.4") == actives(None)
    assert actives("3.9") == {a: ["0_0"], b: ["0_1"]}


def test_strategies_without_version_changes_ignore_the_option() -> None:
    for strategy in ("range", "roundrobin", "sticky", "cooperative-sticky", "server-range"):
        assert answer(strategy, HOMOGENEOUS, "3.9") == answer(strategy, HOMOGENEOUS)


def test_cli_kafka_version_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from assignors.__main__ import main

    group = tmp_path / "group.json"
    group.write_text(json.dumps(HOMOGENEOUS), encoding="utf-8")
    for version, expected in (("4.4", {"A": 1, "B": 2}), ("3.9", {"A": 2, "B": 1})):
        assert (
            main(
                [
                    "assign",
                    str(group),
                    "--strategy",
                    "uniform",
                    "--json",
                    "--kafka-version",
                    version,
                ]
            )
            == 0
        )
        answer = json.loads(capsys.readouterr().out)["assignment"]
        assert {member: len(partitions) for member, partitions in answer.items()} == expected
    streams = tmp_path / "streams.json"
    streams.write_text(json.dumps(STREAMS), encoding="utf-8")
    assert (
        main(
            [
                "assign",
                str(streams),
                "--strategy",
                "streams-sticky",
                "--json",
                "--kafka-version",
                "3.9",
            ]
        )
        == 0
    )
    clients = json.loads(capsys.readouterr().out)["clients"]
    assert clients["00000000-0000-0000-0000-00000000000a"]["active"] == ["0_0"]
    with pytest.raises(SystemExit) as refused:
        main(["assign", str(group), "--strategy", "uniform", "--kafka-version", "2.8"])
    assert refused.value.code == 2
    assert "3.0 to 4.4" in capsys.readouterr().err
    assert main(["assign", str(group), "--strategy", "uniform", "--kafka-version", "3.2"]) == 2
    assert "the first release line that has it is 3.7" in capsys.readouterr().err
    for version, moved in (("4.4", 0), ("3.9", 1)):
        assert (
            main(
                [
                    "compare",
                    str(group),
                    "--strategy",
                    "uniform",
                    "--json",
                    "--kafka-version",
                    version,
                ]
            )
            == 0
        )
        entry = json.loads(capsys.readouterr().out)["strategies"][0]
        assert entry["moved"] == moved


def test_schema_accepts_what_the_loader_accepts() -> None:
    import jsonschema

    from assignors.io.scenario import schema

    validator = jsonschema.Draft202012Validator(schema())
    base = {"topics": [{"name": "t", "partitions": 1}], "members": []}
    for version in ("3.9", "3.9.2", "4.4", "4.4.0"):
        assert not list(validator.iter_errors({**base, "kafka_version": version}))
        parse_scenario({**base, "kafka_version": version})
    for version in ("3.0", "3.4.1", "4.3.1"):
        assert not list(validator.iter_errors({**base, "kafka_version": version}))
        parse_scenario({**base, "kafka_version": version})
    for wrong in ("2.8", "4.5", "4.40", "x", "3.9.2.1", " 3.9"):
        assert list(validator.iter_errors({**base, "kafka_version": wrong}))
        with pytest.raises(ScenarioError):
            parse_scenario({**base, "kafka_version": wrong})

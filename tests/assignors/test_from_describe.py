"""Reading ``kafka-consumer-groups.sh --describe`` output into a scenario (``from-describe``).

Worked examples on listings laid out as Kafka 3.9 and 4.x print them (``listings/``), the
assumptions each one states, errors that name their line, ``kcat -L -J`` metadata, the CLI through
a real subprocess, and a property: whatever text comes in, the answer is a scenario the loader
accepts or a :class:`ScenarioError`, never another exception.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assignors.errors import ScenarioError
from assignors.io.describe import merge_listings, parse_describe
from assignors.io.from_describe import scenario_from_listing
from assignors.io.kcat import parse_kcat_metadata
from assignors.io.scenario import parse_scenario

LISTINGS = Path(__file__).parent / "listings"
C1 = "consumer-1-0c1d7a1e-8f2b-4f7e-9c1a-2b3c4d5e6f70"
C2 = "consumer-2-6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d"
C3 = "consumer-3-11112222-3333-4444-5555-666677778888"


def _listing(*names: str):  # type: ignore[no-untyped-def]
    return merge_listings([parse_describe((LISTINGS / n).read_text(), n) for n in names])


def _owned(scenario: dict) -> dict[str, list[list[object]]]:  # type: ignore[type-arg]
    return {m["member_id"]: m["owned_partitions"] for m in scenario["members"]}


def test_offsets_table_gives_offsets_owners_and_clients() -> None:
    scenario, warnings = scenario_from_listing(_listing("kafka-offsets.txt"))
    orders, payments = scenario["topics"]
    assert orders == {
        "name": "orders",
        "partitions": 3,
        "log_end_offsets": [2000, 1800, 900],
        "committed_offsets": [1500, 1800, None],
    }
    assert payments["log_end_offsets"] == [100] and payments["committed_offsets"] == [40]
    assert _owned(scenario) == {
        C1: [["orders", 0], ["orders", 1]],
        C2: [["orders", 2], ["payments", 0]],
        C3: [],
    }
    member = scenario["members"][0]
    assert member["client_id"] == "consumer-1" and member["host"] == "/10.0.0.10"
    assert scenario["group_id"] == "billing"
    # Every assumption is said: counts from the listing, subscriptions not shown.
    assert any("'orders': 3 partition(s)" in w and "--partitions orders:N" in w for w in warnings)
    assert any("every member is taken to subscribe to every topic" in w for w in warnings)
    loaded, _ = parse_scenario(scenario)
    assert [m.member_id for m in loaded.members] == [C1, C2, C3]


def test_kafka_4_verbose_offsets_with_leader_epoch_read_the_same() -> None:
    plain, _ = scenario_from_listing(_listing("kafka-offsets.txt"))
    verbose, _ = scenario_from_listing(_listing("kafka-4-offsets-verbose.txt"))
    assert plain == verbose


def test_kafka_4_members_verbose_adds_static_ids_assignor_and_reconciliation() -> None:
    listing = _listing("kafka-offsets.txt", "kafka-4-members-verbose.txt", "kafka-4-state.txt")
    scenario, warnings = scenario_from_listing(listing)
    instance_ids = {m["member_id"]: m.get("group_instance_id") for m in scenario["members"]}
    assert instance_ids == {C1: "billing-a", C2: "billing-b", C3: "billing-c"}
    assert scenario["assignor"] == "uniform"
    # C1 owns orders-1 while its target no longer has it: said, and what it owns is kept.
    assert any(f"member {C1} is reconciling" in w for w in warnings)
    assert _owned(scenario)[C1] == [["orders", 0], ["orders", 1]]


def test_members_table_alone_gives_owners_from_the_4x_assignment() -> None:
    scenario, _ = scenario_from_listing(_listing("kafka-4-members-verbose.txt"))
    assert _owned(scenario) == {
        C1: [["orders", 0], ["orders", 1]],
        C2: [["orders", 2], ["payments", 0]],
        C3: [],
    }
    assert "log_end_offsets" not in scenario["topics"][0]


def test_kafka_3_9_assignment_without_topic_names_is_not_guessed() -> None:
    listing = _listing("kafka-3.9-members-verbose.txt")
    assert any("names no topics" in w for w in listing.warnings)
    with_offsets, _ = scenario_from_listing(
        _listing("kafka-offsets.txt", "kafka-3.9-members-verbose.txt")
    )
    assert _owned(with_offsets)[C2] == [["orders", 2], ["payments", 0]]


def test_documentation_layout_without_group_column() -> None:
    scenario, _ = scenario_from_listing(_listing("kafka-docs-no-group-column.txt"))
    assert "group_id" not in scenario
    assert scenario["topics"][0]["committed_offsets"] == [2, 2, 2]
    assert len(scenario["members"]) == 2


def test_classic_range_and_consumer_range_map_to_different_strategies() -> None:
    # Reformatted by hand (not aligned): read word by word.
    state = (
        "GROUP  COORDINATOR (ID)  ASSIGNMENT-STRATEGY  STATE  #MEMBERS\n"
        "billing  h:9092 (1)  range  Stable  3\n"
    )
    classic = merge_listings([_listing("kafka-offsets.txt"), parse_describe(state)])
    assert scenario_from_listing(classic)[0]["assignor"] == "range"
    consumer = merge_listings([_listing("kafka-4-members-verbose.txt"), parse_describe(state)])
    assert scenario_from_listing(consumer)[0]["assignor"] == "server-range"


def test_partition_counts_from_the_option_win_and_unlisted_partitions_get_lag_zero() -> None:
    scenario, warnings = scenario_from_listing(
        _listing("kafka-offsets.txt"), partitions={"orders": 5}
    )
    orders = scenario["topics"][0]
    assert orders["partitions"] == 5 and orders["lags"] == [500, 0, 0, 0, 0]
    assert any("no lag listed for partition(s) 2, 3, 4: taken as 0" in w for w in warnings)
    with pytest.raises(ScenarioError, match=r"shows partition 2 but the count given is 2"):
        scenario_from_listing(_listing("kafka-offsets.txt"), partitions={"orders": 2})


def test_a_gap_in_the_listing_asks_for_the_count() -> None:
    text = (
        (LISTINGS / "kafka-offsets.txt")
        .read_text()
        .replace("orders          1 ", "orders          3 ")
    )
    with pytest.raises(ScenarioError, match=r"no row for partition\(s\) 1.*--partitions orders:N"):
        scenario_from_listing(parse_describe(text))


def test_unreadable_lines_are_named_by_number() -> None:
    text = (LISTINGS / "kafka-offsets.txt").read_text()
    broken = text.replace("1500 ", "15x0 ") + "this is not a table row\n"
    with pytest.raises(ScenarioError) as raised:
        parse_describe(broken, "pasted")
    problems = raised.value.problems
    assert problems[0] == "pasted:3: CURRENT-OFFSET: expected a whole number or '-', got '15x0'"
    # A line right under the table is read as a row of it: it has too few columns.
    assert problems[1] == (
        "pasted:8: expected 9 columns (GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG"
        " CONSUMER-ID HOST CLIENT-ID)"
    )
    with pytest.raises(ScenarioError, match=r"pasted:1: not part of a kafka-consumer-groups\.sh"):
        parse_describe("hello\n" + text, "pasted")


def test_kafkas_notes_are_warnings_and_several_groups_need_a_choice() -> None:
    other = (LISTINGS / "kafka-offsets.txt").read_text().replace("billing ", "audit   ")
    text = (
        "Consumer group 'billing' has no active members.\n"
        + (LISTINGS / "kafka-offsets.txt").read_text()
        + other
    )
    listing = parse_describe(text)
    assert any("has no active members" in w for w in listing.warnings)
    with pytest.raises(ScenarioError, match=r"2 groups \(billing, audit\): pick one with --group"):
        scenario_from_listing(listing)
    assert scenario_from_listing(listing, group="audit")[0]["group_id"] == "audit"


def test_kcat_metadata_gives_counts_and_racks_where_every_replica_is_known() -> None:
    kcat = {
        "brokers": [{"id": 1, "name": "a:9092"}, {"id": 2, "name": "b:9092"}],
        "topics": [
            {
                "topic": "orders",
                "partitions": [
                    {"partition": p, "leader": 1, "replicas": [{"id": 1}, {"id": 2}]}
                    for p in range(4)
                ],
            },
            {"topic": "payments", "partitions": [{"partition": 0, "replicas": [{"id": 2}]}]},
        ],
    }
    metadata = parse_kcat_metadata(kcat, {1: "zone-a", 2: "zone-b"})
    scenario, _ = scenario_from_listing(_listing("kafka-offsets.txt"), metadata=metadata)
    orders = scenario["topics"][0]
    assert orders["partitions"] == 4 and orders["replica_racks"] == [["zone-a", "zone-b"]] * 4
    assert parse_kcat_metadata(kcat).topics["orders"].replica_racks is None
    with pytest.raises(ScenarioError, match=r"partition numbers are not 0\.\.1"):
        parse_kcat_metadata(
            {"topics": [{"topic": "t", "partitions": [{"partition": 0}, {"partition": 5}]}]}
        )


def _cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "assignors", "from-describe", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_cli_prints_a_scenario_the_other_commands_read(tmp_path: Path) -> None:
    done = _cli(str(LISTINGS / "kafka-offsets.txt"), "--partitions", "payments:2")
    assert done.returncode == 0, done.stderr
    assert "warning: the listing shows no subscriptions" in done.stderr
    scenario_file = tmp_path / "scenario.json"
    scenario_file.write_text(done.stdout)
    assert json.loads(done.stdout)["topics"][1]["partitions"] == 2
    assign = subprocess.run(
        [sys.executable, "-m", "assignors", "assign", str(scenario_file), "--strategy", "range"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert assign.returncode == 0 and C1 in assign.stdout


def test_cli_reads_stdin_and_reports_bad_lines_with_exit_2() -> None:
    ok = _cli("-", stdin=(LISTINGS / "kafka-docs-no-group-column.txt").read_text())
    assert ok.returncode == 0, ok.stderr
    bad = _cli(
        "-", stdin="GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG\ng t zero 1 2 1\n"
    )
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.strip() == "error: -:2: PARTITION: expected a whole number or '-', got 'zero'"


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("GROUPTOPIC-ARN 0123456789\n:;,()#orders-x")), max_size=400
    )
)
def test_any_text_gives_a_scenario_or_a_scenario_error(text: str) -> None:
    try:
        scenario, _ = scenario_from_listing(parse_describe(text))
    except ScenarioError:
        return
    parse_scenario(scenario)

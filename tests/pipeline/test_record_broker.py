"""``python -m cluster record`` against the real test broker, then the pipeline on its output."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from cluster.connection import ConnectionSettings
from cluster.reader import ClusterReader
from cluster.record import record
from pipeline import tables, whatif
from tests.cluster.groups import running_group
from tests.kafka_cluster.cluster import KafkaCluster

pytestmark = [pytest.mark.broker, pytest.mark.spark]

TOPICS = {"orders": 4}
RECORDS = {"orders": {0: 30, 1: 20, 2: 10, 3: 0}}
COMMITS = {("orders", 0): 10, ("orders", 1): 20}


def test_recorded_sample_is_the_group_and_feeds_the_pipeline(
    kafka_cluster: KafkaCluster, spark: Any, tmp_path: Path
) -> None:
    settings = ConnectionSettings(bootstrap_servers=kafka_cluster.bootstrap, timeout_s=10.0)
    with running_group(kafka_cluster, TOPICS, RECORDS, COMMITS, members=2) as group:
        with ClusterReader(settings) as reader:
            samples, written, skipped = record(
                reader, tmp_path, cluster="test", groups=[group.group_id], duration_s=0
            )
        broker_view = group.assignment()
    assert (samples, written, skipped) == (1, 1, 0)
    offsets = pd.read_parquet(tmp_path / "offsets").sort_values("partition")
    members = pd.read_parquet(tmp_path / "members")
    assert list(offsets["log_end"]) == [30, 20, 10, 0]
    assert offsets["committed"].tolist()[:2] == [10, 20] and offsets["committed"][2:].isna().all()
    owners = {(row.topic, row.partition): row.member_id for row in offsets.itertuples(index=False)}
    assert {tp: m for m, tps in broker_view.items() for tp in tps} == owners
    assert set(members["member_id"]) == set(broker_view)
    assert set(members["assignor"]) == {"range"}

    prepared = tables.prepare_offsets(
        tables.read_table(spark, str(tmp_path / "offsets"), "offsets")
    )
    people = tables.prepare_members(tables.read_table(spark, str(tmp_path / "members"), "members"))
    rows = whatif.fleet_whatif(prepared, people, strategies=["range"]).collect()
    assert [r["error"] for r in rows if r["error"]] == []
    current = next(r for r in rows if r["change"] == "current")
    assert current["error"] is None, current["error"]
    assert current["lag_total"] == 20 + 0  # orders-0: 30 - 10; no commit elsewhere: latest -> 0
    assert current["members"] == 2

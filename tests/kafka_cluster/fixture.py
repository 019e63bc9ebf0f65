"""The session fixture ``kafka_cluster``: Apache Kafka, started once, stopped at the end.

It fails (never skips) every test that uses it when the cluster cannot start, with the reason and
the tail of each node's log. The start-up time and the JVMs' resident memory (measured right
after start and again at the end of the session) are printed in the run's summary.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.kafka_cluster.cluster import (
    KAFKA_VERSION,
    ClusterStartError,
    KafkaCluster,
    start_cluster,
    stop_cluster,
)

#: What the summary prints: start-up seconds and RSS (bytes) after start and at the end.
MEASURED: dict[str, float] = {}


@pytest.fixture(scope="session")
def kafka_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafkaCluster]:
    """Three Apache Kafka brokers on 127.0.0.1 (KRaft, racks, SASL_SSL, ACLs)."""
    work_dir = tmp_path_factory.mktemp("kafka-cluster")
    try:
        cluster = start_cluster(work_dir)
    except ClusterStartError as error:
        pytest.fail(str(error), pytrace=False)
    MEASURED["start_s"] = cluster.started_in_s
    MEASURED["rss_after_start"] = cluster.rss_bytes()
    try:
        yield cluster
    finally:
        MEASURED["rss_at_end"] = cluster.rss_bytes()
        stop_cluster(cluster)


def summary_line() -> str | None:
    """One line for the terminal summary, or None when the cluster did not run."""
    if "start_s" not in MEASURED:
        return None
    mib = 2**20
    return (
        f"Apache Kafka {KAFKA_VERSION}, 3 brokers: started in {MEASURED['start_s']:.1f} s;"
        f" RSS of the three JVMs {MEASURED['rss_after_start'] / mib:.0f} MiB after start,"
        f" {MEASURED.get('rss_at_end', 0) / mib:.0f} MiB at the end of the session"
    )

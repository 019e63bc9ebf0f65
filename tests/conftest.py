"""Shared fixtures and the parity summary printed after every test run."""

from __future__ import annotations

import pytest

from tests.kafka_broker import kafka_broker  # noqa: F401
from tests.kafka_cluster.fixture import kafka_cluster  # noqa: F401


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    from tests.kafka_cluster.fixture import summary_line

    cluster_line = summary_line()
    if cluster_line is not None:
        terminalreporter.section("Apache Kafka cluster")
        terminalreporter.write_line(cluster_line)

    from tests.assignors.test_conformance import PARITY

    if not PARITY:
        return
    terminalreporter.section("parity with Kafka and the conformance rules")
    for strategy, results in sorted(PARITY.items()):
        terminalreporter.write_line(f"{strategy:22} {sum(results):4}/{len(results)} cases")

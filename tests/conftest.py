"""Shared fixtures and the parity summary printed after every test run."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings

from tests.kafka_broker import kafka_broker  # noqa: F401
from tests.kafka_cluster.fixture import kafka_cluster  # noqa: F401

# Tests check behaviour, never wall-clock time: no per-example deadline and no "too slow" health
# check, which fail a correct property on a loaded 2-core machine.
settings.register_profile(
    "behaviour-only", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("behaviour-only")


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

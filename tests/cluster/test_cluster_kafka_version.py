"""The reader reads the Kafka release a cluster runs, on real Apache Kafka 3.9 and 4.x.

What ran: the suite's own cluster (Apache Kafka 4.4.0, three KRaft nodes,
:mod:`tests.kafka_cluster.cluster`) and, started by this module only, one Apache Kafka 3.9.2
KRaft node (:mod:`tests.kafka_cluster.single_node`; its jars resolved once into ``~/.m2`` like
the suite's). Each is asked as the read-only reader asks (one ApiVersions for the feature
levels); the answer must name the release that runs, through ``metadata.version`` and, read on
their own, through the API version ranges too (the fallback for clusters without
``metadata.version``). A group read from either carries that release as its scenario's
``kafka_version`` (the nearest reproduced line) and, for a classic group, says that its client
library decides and asks for the client's version.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from assignors import KAFKA_VERSIONS, scenario_to_json
from assignors.kafka_versions import release_line
from cluster.connection import ConnectionSettings
from cluster.kafka_release import (
    FeatureLevels,
    api_version_reading,
    metadata_version_name,
    reproduced_line,
)
from cluster.reader import ClusterReader, feature_levels
from cluster.snapshot import snapshot_group
from dashboard.panels.cluster_version import CLASSIC_NOTE
from dashboard.views import pages
from tests.cluster.dashboard_live import dashboard_with_live_group
from tests.cluster.groups import running_group
from tests.dashboard.app_session import assert_no_exception, open_page
from tests.kafka_cluster.cluster import KAFKA_VERSION, ClusterStartError, KafkaCluster
from tests.kafka_cluster.single_node import SingleNode, start_single_node, stop_single_node

pytestmark = pytest.mark.broker

#: The other release started here: the newest 3.9.x on Maven Central.
OTHER_VERSION = "3.9.2"


@pytest.fixture(scope="module")
def kafka_39(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SingleNode]:
    """One Apache Kafka 3.9.2 node for this module (fails, never skips, when it cannot start)."""
    try:
        node = start_single_node(tmp_path_factory.mktemp("kafka-39"), OTHER_VERSION)
    except ClusterStartError as error:
        pytest.fail(str(error), pytrace=False)
    print(f"Apache Kafka {OTHER_VERSION}, one node: started in {node.started_in_s:.1f} s")
    try:
        yield node
    finally:
        stop_single_node(node)


def _settings(bootstrap: str) -> ConnectionSettings:
    return ConnectionSettings(bootstrap, timeout_s=10.0)


def _levels(running: SingleNode | KafkaCluster) -> FeatureLevels:
    """The feature levels as kafka-python's own admin client reads them."""
    admin = running.admin()
    try:
        return feature_levels(admin.describe_features())
    finally:
        admin.close()


@pytest.mark.parametrize("cluster", ["kafka_39", "kafka_cluster"])
def test_the_reader_reads_the_release_the_brokers_run(
    cluster: str, request: pytest.FixtureRequest
) -> None:
    running: SingleNode | KafkaCluster = request.getfixturevalue(cluster)
    version = running.version if isinstance(running, SingleNode) else KAFKA_VERSION
    line = release_line(version)
    with ClusterReader(_settings(running.bootstrap)) as reader:
        release = reader.kafka_release()
        ranges = reader.api_version_ranges()
    levels = _levels(running)
    assert (release.line, release.beyond) == (line, False), release
    assert release.kafka_version == reproduced_line(line)
    newest = levels.supported["metadata.version"][1]
    assert (metadata_version_name(newest) or "").startswith(f"{line}-IV")
    assert f"read from metadata.version: the broker supports up to {line}-IV" in release.sentence()
    # Read on their own, the API version ranges name the same release.
    assert ranges is not None
    reading = api_version_reading(ranges)
    assert reading is not None and reading.line == line


def test_the_suites_cluster_reports_the_features_it_was_formatted_with(
    kafka_cluster: KafkaCluster,
) -> None:
    with ClusterReader(kafka_cluster.secure_settings("reader")) as reader:
        release = reader.kafka_release()
    levels = _levels(kafka_cluster)
    assert release.line == release_line(KAFKA_VERSION)  # through SASL_SSL as the reader user
    assert levels.finalized["streams.version"] >= 1 and levels.finalized["share.version"] >= 1


def test_a_classic_group_carries_the_brokers_release_and_asks_for_the_clients(
    kafka_39: SingleNode,
) -> None:
    with (
        running_group(kafka_39, {"orders": 3}, {"orders": {0: 2, 2: 1}}, {}, members=2) as group,
        ClusterReader(_settings(kafka_39.bootstrap)) as reader,
    ):
        scenario, _ = snapshot_group(reader, group.group_id)
    line = release_line(OTHER_VERSION)
    assert scenario.kafka_version == reproduced_line(line)
    assert scenario_to_json(scenario)["kafka_version"] == reproduced_line(line)
    description = scenario.description or ""
    assert f"Cluster runs Kafka {line}, read from metadata.version" in description
    assert "set kafka_version to the client's Kafka version" in description


def test_the_live_page_shows_the_clusters_release_as_plain_text_and_lets_the_user_change_it(
    kafka_39: SingleNode,
) -> None:
    line = release_line(OTHER_VERSION)
    with running_group(kafka_39, {"orders": 2}, {"orders": {0: 3}}, {}, members=1) as group:
        app = dashboard_with_live_group(kafka_39.bootstrap, group.group_id, "classic")
        app = open_page(app, pages.LIVE)
    sentence = next(t.value for t in app.text if t.value.startswith("Cluster runs Kafka"))
    assert sentence.startswith(f"Cluster runs Kafka {line}, read from metadata.version")
    assert not any(sentence in str(m.value) for m in app.markdown)  # never drawn as Markdown
    assert CLASSIC_NOTE in [c.value for c in app.caption]
    picker = app.selectbox(key="live.kafka_version")
    assert picker.value == reproduced_line(line)  # opens at the cluster's release
    # The link opens at the same release: its scenario carries it, and a link parameter, when
    # there is one (an older line than the newest is kept in the link), names the same.
    assert str(app.query_params.get("kafka", picker.value)) == picker.value
    other = next(v for v in reversed(KAFKA_VERSIONS) if v != picker.value)
    picker.set_value(other).run()
    assert_no_exception(app)
    assert app.session_state["ae.kafka_version"] == other
    own = reproduced_line(line)
    assert f"Strategies answer as Kafka {other} (your pick); the cluster's own is {own}." in [
        c.value for c in app.caption
    ]
    assert app.query_params["kafka"] == other  # the share link keeps the user's choice
    app = open_page(app, pages.EXPLORER)
    assert app.session_state["ae.kafka_version"] == other

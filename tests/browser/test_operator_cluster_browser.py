"""A cluster offered by name serves its groups, and its password never reaches the browser
(issue 41, "Clusters by name").

The operator file names the test cluster's SASL_SSL listener ``staging`` (SCRAM-SHA-512 as
``reader``, the password in an environment variable of the server only). Chromium opens a link
that names the cluster (``/live?live_cluster=staging``), connects, picks a running group and
loads it. Every websocket message the browser received, every HTTP response body and the final
page are searched for the password (and for the cluster's address: pages name it, never point
at it). The reader stays read-only: the cluster's groups are the same before and after, and the
group keeps its members.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from dashboard.model.operator_file import CONFIG_ENV
from tests.browser.served_app import CHROMIUM, chromium, serve, wait_idle
from tests.cluster.groups import running_group
from tests.kafka_cluster.cluster import KafkaCluster

pytestmark = [pytest.mark.broker, pytest.mark.browser]

PASSWORD_ENV = "AE_TEST_STAGING_PASSWORD"


def operator_file(path: Path, cluster: KafkaCluster) -> Path:
    path.write_text(
        f"""
[clusters.staging]
bootstrap_servers = "{cluster.secure_bootstrap}"
security_protocol = "SASL_SSL"
sasl_mechanism = "SCRAM-SHA-512"
username = "reader"
password_env = "{PASSWORD_ENV}"
ca_file = "{cluster.ca_file}"

[dashboard]
typed_addresses = false
"""
    )
    return path


def group_ids(cluster: KafkaCluster) -> set[str]:
    """Every group on the cluster (read over its open listener)."""
    from cluster.connection import ConnectionSettings
    from cluster.reader import ClusterReader

    with ClusterReader(ConnectionSettings(bootstrap_servers=cluster.bootstrap)) as reader:
        return {group.group_id for group in reader.list_groups()}


def load_group(page: Any, group_id: str) -> None:
    """Connect to the cluster the link picked, choose ``group_id`` and load it."""
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_role("button", name="Connect (read-only)").click()
    picker = sidebar.locator('[data-testid="stSelectbox"]').filter(has_text="on the cluster")
    picker.wait_for(timeout=120_000)
    picker.click()
    page.get_by_role("option").filter(has_text=group_id).click()
    wait_idle(page)
    sidebar.get_by_role("button", name="Load group").click()
    page.get_by_text(f"group {group_id} on staging").first.wait_for(timeout=120_000)
    wait_idle(page)


def test_a_named_scram_cluster_is_read_and_its_password_never_reaches_the_browser(
    kafka_cluster: KafkaCluster, tmp_path: Path
) -> None:
    if not CHROMIUM.exists():
        pytest.skip(f"Chromium not found at {CHROMIUM}: apt-get install -y chromium")
    password = kafka_cluster.passwords["reader"]
    env = {CONFIG_ENV: str(operator_file(tmp_path / "explorer.toml", kafka_cluster))}
    env[PASSWORD_ENV] = password
    received: list[bytes] = []
    responses: list[Any] = []
    records = {"orders": {0: 7, 1: 3}}
    with running_group(kafka_cluster, {"orders": 2}, records, {("orders", 0): 2}, members=2) as g:
        before = group_ids(kafka_cluster)
        with serve(tmp_path / "streamlit.log", env=env) as served, chromium() as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(60_000)
            page.on(
                "websocket",
                lambda ws: ws.on(
                    "framereceived",
                    lambda frame: received.append(
                        frame if isinstance(frame, bytes) else frame.encode()
                    ),
                ),
            )
            page.on("response", lambda response: responses.append(response))
            page.goto(f"{served.url}/live?live_cluster=staging")
            page.get_by_text("Live group").first.wait_for()
            wait_idle(page)
            load_group(page, g.group_id)
            shots = Path(os.environ.get("AE_SCREENSHOT_DIR") or tmp_path)  # to look at
            for width in (1280, 1920):
                page.set_viewport_size({"width": width, "height": 900})
                wait_idle(page)
                page.screenshot(path=str(shots / f"operator-cluster-{width}.png"), full_page=True)
            html = page.content()
            bodies = [response.body() for response in responses if _has_body(response)]
        after = group_ids(kafka_cluster)
        described = kafka_cluster.describe_group(g.group_id)
    assert received, "the browser received no websocket message"
    assert any(g.group_id.encode() in message for message in received)  # the group did arrive
    for secret in (password, kafka_cluster.secure_bootstrap):
        assert not any(secret.encode() in message for message in received), secret
        assert not any(secret.encode() in body for body in bodies), secret
        assert secret not in html, secret
    assert after == before  # the reader joined no group of its own
    assert len(described["members"]) == 2, described


def _has_body(response: Any) -> bool:
    try:
        response.body()
    except Exception:  # a redirect or a websocket upgrade has none
        return False
    return True

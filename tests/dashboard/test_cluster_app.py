"""Reading a live group from the dashboard: a failed connection, and a real group on the broker."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.cluster.groups import running_group
from tests.dashboard import plotly_spec
from tests.dashboard.app_session import assert_no_exception, shown_text, start_app
from tests.kafka_cluster.cluster import KafkaCluster
from tests.ports import free_port


def _start() -> AppTest:
    app = start_app()
    app.radio(key="source.kind").set_value("Cluster").run()
    assert_no_exception(app)
    return app


def _lag_panel(app: AppTest, title: str) -> dict[str, float]:
    return plotly_spec.lag_panel(app, title)


def test_a_failed_connection_shows_why_and_keeps_the_scenario() -> None:
    app = _start()
    headline = app.markdown[0].value
    port = free_port()
    app.text_input(key="cluster.bootstrap").input(f"127.0.0.1:{port}")
    app.button(key="cluster.connect").click().run()
    assert not app.exception, [e.message for e in app.exception]
    errors = [shown_text(e.value) for e in app.error]
    assert (
        f"Could not connect: nothing listens at 127.0.0.1:{port} (connection refused); check the"
        " host and port in the bootstrap servers."
    ) in errors
    assert app.markdown[0].value == headline


def test_incomplete_settings_are_refused_before_connecting() -> None:
    app = _start()
    app.text_input(key="cluster.bootstrap").input("127.0.0.1:9")
    app.selectbox(key="cluster.security_protocol").set_value("SASL_PLAINTEXT")
    app.button(key="cluster.connect").click().run()
    errors = [shown_text(e.value) for e in app.error]
    assert any(e.startswith("Could not connect:") and "SASL" in e for e in errors), errors


@pytest.mark.broker
def test_a_live_group_shows_its_members_and_lag(kafka_cluster: KafkaCluster) -> None:
    records = {"orders": {0: 120, 1: 80, 2: 40, 3: 10}}
    commits = {("orders", 0): 20, ("orders", 1): 30, ("orders", 2): 40, ("orders", 3): 0}
    with running_group(kafka_cluster, {"orders": 4}, records, commits, members=2) as group:
        app = _start()
        app.text_input(key="cluster.bootstrap").input(kafka_cluster.bootstrap)
        app.button(key="cluster.connect").click().run()
        assert not app.error, [shown_text(e.value) for e in app.error]
        listing = app.selectbox(key="cluster.group")
        assert f"{group.group_id} — classic, Stable, 2 member(s)" in listing.options
        listing.set_value(group.group_id).run()
        app.button(key="cluster.load").click().run()
        assert not app.exception, [e.message for e in app.exception]
        assert not app.error, [shown_text(e.value) for e in app.error]
        assert group.group_id in app.markdown[0].value
        members = set(group.assignment())
        assert set(app.multiselect(key="shape.remove_ids").options) == members
        lag = _lag_panel(app, "current")
        assert set(lag) == members
        # Lag = end offset - committed offset: 100 + 50 + 0 + 10 records in all.
        assert sum(lag.values()) == 160
        # The member table, as kafka-consumer-groups.sh --describe --members shows it.
        table = plotly_spec.markdown_frame(app, "client id")  # a small group: Markdown
        assert table is not None, "the members table is on the page"
        assert set(table["member id"]) == members
        assert all(client != "—" for client in table["client id"])
        assert all(host != "—" for host in table["host"])
        assigned = group.assignment()
        for row in table.itertuples(index=False):
            assert int(row.partitions) == len(assigned[row[1]])
        assert sum(int(value.replace(",", "")) for value in table["lag"]) == 160


@pytest.mark.broker
def test_a_scram_login_over_tls_loads_a_group_and_the_password_stays_in_its_widget(
    kafka_cluster: KafkaCluster,
) -> None:
    password = kafka_cluster.passwords["reader"]
    records = {"orders": {0: 5, 1: 5}}
    with running_group(kafka_cluster, {"orders": 2}, records, {}, members=1) as group:
        app = _start()
        app.text_input(key="cluster.bootstrap").input(kafka_cluster.secure_bootstrap)
        app.selectbox(key="cluster.security_protocol").set_value("SASL_SSL")
        app.selectbox(key="cluster.sasl_mechanism").set_value("SCRAM-SHA-512")
        app.text_input(key="cluster.username").input("reader")
        app.text_input(key="cluster.password").input(password)
        app.text_input(key="cluster.ca_file").input(str(kafka_cluster.ca_file))
        app.button(key="cluster.connect").click().run()
        assert not app.error, [shown_text(e.value) for e in app.error]
        app.selectbox(key="cluster.group").set_value(group.group_id).run()
        app.button(key="cluster.load").click().run()
        assert not app.exception, [e.message for e in app.exception]
        assert not app.error, [shown_text(e.value) for e in app.error]
        assert group.group_id in app.markdown[0].value
        shown = [
            str(dict(app.query_params)),
            *(element.value for element in app.markdown),
            *(element.value for element in app.caption),
            *(element.value for element in app.info),
            *(element.value for element in app.success),
            *(repr(value) for key, value in app.session_state.items() if key != "cluster.password"),
        ]
        for text in shown:
            assert password not in str(text)

        app.text_input(key="cluster.password").input(password + "-wrong")
        app.button(key="cluster.connect").click().run()
        errors = [shown_text(e.value) for e in app.error]
        assert any("refused user 'reader' with SCRAM-SHA-512" in e for e in errors), errors
        assert all(password not in e for e in errors)

"""The real dashboard (Streamlit's AppTest) loading a live group from the test cluster."""

from __future__ import annotations

from typing import Any

from tests.dashboard import plotly_spec
from tests.dashboard.app_session import assert_no_exception, start_app


def streams_figure(app: Any) -> dict[str, Any]:
    """The Streams view's tasks figure (active, standby and warm-up bars per instance)."""
    for spec in plotly_spec.specs(app):
        if [trace.get("name") for trace in spec["data"]] == ["active", "standby", "warm-up"]:
            return spec
    raise AssertionError("no Streams tasks figure on the page")


def dashboard_with_live_group(bootstrap: str, group_id: str, kind: str) -> Any:
    """The real dashboard (AppTest): *Cluster* source, connect, pick ``group_id`` (listed with
    its ``kind``), load it."""
    app = start_app()
    app.radio(key="source.kind").set_value("Cluster").run()
    app.text_input(key="cluster.bootstrap").set_value(bootstrap)
    app.number_input(key="cluster.timeout").set_value(20.0)
    app.button(key="cluster.connect").click().run()
    assert_no_exception(app)
    app.selectbox(key="cluster.group").set_value(group_id).run()
    shown = app.selectbox(key="cluster.group").format_func(group_id)
    assert kind in shown, shown
    app.button(key="cluster.load").click().run()
    assert_no_exception(app)
    return app

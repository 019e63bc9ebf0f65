"""The share-group strategy appears in the dashboard's list and renders without error."""

from __future__ import annotations

from tests.dashboard.app_session import assert_no_exception, start_app


def test_share_simple_is_offered_and_shown() -> None:
    app = start_app()
    assert "share-simple" in app.multiselect(key="strategies.pick").options
    app.multiselect(key="strategies.pick").set_value(["uniform", "share-simple"]).run()
    assert_no_exception(app)
    assert [m.label for m in app.metric].count("moved") == 3
    assert app.radio(key="view.animate").options == ["uniform", "share-simple"]

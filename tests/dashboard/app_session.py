"""Open the real dashboard script under Streamlit's AppTest, as a user opening a link would."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from dashboard import shape_panel

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")


def start_app(**query: str) -> AppTest:
    """Run ``dashboard/app.py`` once with ``query`` as the URL's query parameters.

    Fails the test if the first run raised; the first run can be slow (strategies, simulation).
    """
    app = AppTest.from_file(APP, default_timeout=120)
    # The what-if panel is built only while open; tests use its controls, as a user opens it.
    app.session_state[shape_panel.PANEL] = True
    for name, value in query.items():
        app.query_params[name] = value
    app.run()
    assert_no_exception(app)
    return app


def assert_no_exception(app: AppTest) -> None:
    """Fail with the messages of every exception the last run showed."""
    assert not app.exception, [e.message for e in app.exception]


def open_panel(app: AppTest, key: str) -> AppTest:
    """Open the lazily built panel (expander) ``key`` as a click on its title does, and rerun."""
    app.session_state[key] = True
    app.run()
    assert_no_exception(app)
    return app

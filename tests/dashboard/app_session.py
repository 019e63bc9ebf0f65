"""Open the real dashboard script under Streamlit's AppTest, as a user opening a link would."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from streamlit.testing.v1 import AppTest

from dashboard.panels import shape_panel
from dashboard.views import pages

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


def open_page(app: AppTest, spec: pages.PageSpec) -> AppTest:
    """Open page ``spec`` as a click on its name in the menu does, and rerun."""
    app.switch_page(spec.script).run()
    assert_no_exception(app)
    return app


def page_title(app: AppTest) -> str:
    """The title of the page the last run showed (each page has one)."""
    return str(app.title[0].value)


def assert_no_exception(app: AppTest) -> None:
    """Fail with the messages of every exception the last run showed."""
    assert not app.exception, [e.message for e in app.exception]


def open_panel(app: AppTest, key: str) -> AppTest:
    """Open the lazily built panel (expander) ``key`` as a click on its title does, and rerun."""
    app.session_state[key] = True
    app.run()
    assert_no_exception(app)
    return app


def open_tab(app: AppTest, tab: str) -> AppTest:
    """Pick the what-if panel's tab ``tab`` (``"Members"``, ``"Topics"``, ``"Lag & rates"`` or
    ``"Edits"``) as a click on it does, and rerun: only the open tab's controls are built."""
    app.session_state[shape_panel.TABS] = tab
    app.run()
    assert_no_exception(app)
    return app


def add_form(app: AppTest, field: str) -> Any:
    """The *Add member* form's ``field`` (``add_id``, ``add_topics``, ``add_submit``, ...) as the
    last run drew it; its key carries the scenario it was drawn for
    (:func:`dashboard.panels.shape_panel.add_form_key`)."""
    prefix = f"shape.{field}@"
    for widgets in (app.text_input, app.multiselect, app.number_input, app.button):
        for widget in widgets:
            if widget.key and widget.key.startswith(prefix):
                return widget
    raise AssertionError(f"no {field!r} field of the Add member form on the page")


def has_add_form(app: AppTest) -> bool:
    """Whether the last run drew the *Add member* form (its panel is open)."""
    return any(box.key and box.key.startswith("shape.add_id@") for box in app.text_input)


def open_address(spec: pages.PageSpec, **query: str) -> AppTest:
    """A fresh session opening page ``spec``'s address with ``query``, as a new tab does.

    AppTest's first run is always the default page: it loads what the link names (as the
    browser's one run would); then the page opens with the address's parameters again (the
    default page's run wrote its own into the address bar).
    """
    app = start_app(**query)
    if spec.default:
        return app
    app.query_params.clear()
    for name, value in query.items():
        app.query_params[name] = value
    return open_page(app, spec)


def shown_text(markdown: str) -> str:
    """What Markdown text shows once its backslash escapes are read (user text reaches the page
    escaped: :func:`dashboard.model.plain.escape_markdown`; its invisible link breaks left out)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown).replace("\u2060", "")

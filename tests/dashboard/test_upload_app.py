"""A rejected upload: the page keeps the previous scenario, says why, and the upload widget no
longer shows the rejected file (issue 36: it kept showing it beside the older scenario)."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import FileUploader

from tests.dashboard.app_session import assert_no_exception, start_app

GOOD = {
    "name": "Uploaded group",
    "topics": [{"name": "orders", "partitions": 4}],
    "members": [{"member_id": "x", "topics": ["orders"]}, {"member_id": "y", "topics": ["orders"]}],
}
BROKEN = b'{"topics": [{"name": "t", "partitions": -1}], "members": 3}'


def _uploader(app: AppTest) -> FileUploader:
    """The one upload widget in the sidebar (its key may change: a rejection clears it)."""
    (uploader,) = app.get("file_uploader")
    assert isinstance(uploader, FileUploader)
    return uploader


def _upload(app: AppTest, name: str, data: bytes) -> AppTest:
    _uploader(app).upload(name, data, "application/json").run()
    assert_no_exception(app)
    return app


def test_a_rejected_upload_is_cleared_and_the_previous_scenario_and_the_error_stay() -> None:
    app = start_app()
    app.radio(key="source.kind").set_value("Upload").run()
    _upload(app, "mine.json", json.dumps(GOOD).encode())
    assert "Uploaded group" in app.markdown[0].value
    assert _uploader(app).value is not None

    _upload(app, "broken.json", BROKEN)
    errors = [e.value for e in app.error]
    assert any("broken.json was not loaded" in e and "members" in e for e in errors), errors
    assert "Uploaded group" in app.markdown[0].value  # the previous scenario stays
    assert _uploader(app).value is None  # no rejected file shown

    # The cleared widget takes the next file as the first one.
    again = dict(GOOD, name="Second upload")
    _upload(app, "again.json", json.dumps(again).encode())
    assert "Second upload" in app.markdown[0].value
    assert not app.error


def test_a_rejected_first_upload_keeps_the_sample() -> None:
    app = start_app()
    headline = app.markdown[0].value
    app.radio(key="source.kind").set_value("Upload").run()
    _upload(app, "broken.json", BROKEN)
    assert any("broken.json was not loaded" in e.value for e in app.error)
    assert app.markdown[0].value == headline
    assert _uploader(app).value is None


def test_a_file_name_that_starts_with_an_emoji_is_shown_whole() -> None:
    # A box takes a leading emoji of its text as its icon unless it names one: every box does.
    app = start_app()
    app.radio(key="source.kind").set_value("Upload").run()
    _upload(app, "©😀.json", BROKEN)
    (error,) = app.error
    assert error.value.startswith("©😀.json was not loaded"), error.value
    assert error.icon == ":material/error:"

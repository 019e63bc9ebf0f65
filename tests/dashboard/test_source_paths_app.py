"""Paths through the other sources that the generated UI runs (``test_generated_ui.py``) found
broken, each as a worked example: a group without members read from a file or a listing; a
sidebar action (a refused file, an unreachable cluster) taken on the Deploy page; a file's and a
scenario's names with Markdown in them."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from dashboard.views import pages
from tests.dashboard.app_session import assert_no_exception, open_page, shown_text, start_app
from tests.ports import free_port

EMPTY_GROUP = {"name": "Nobody yet", "topics": [{"name": "orders", "partitions": 3}], "members": []}
#: ``kafka-consumer-groups.sh --describe`` of a group whose consumers all left.
EMPTY_LISTING = """\
GROUP    TOPIC   PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG  CONSUMER-ID  HOST  CLIENT-ID
billing  orders  0          10              15              5    -            -     -
billing  orders  1          -               7               -    -            -     -
"""


def _upload(app: AppTest, name: str, data: bytes) -> AppTest:
    app.radio(key="source.kind").set_value("Upload").run()
    (uploader,) = app.get("file_uploader")
    uploader.set_value((name, data, "application/json")).run()  # type: ignore[attr-defined]
    return app


def test_a_group_without_members_from_a_file_shows_without_a_traceback() -> None:
    app = _upload(start_app(), "empty.json", json.dumps(EMPTY_GROUP).encode())
    assert_no_exception(app)
    assert not app.error, [shown_text(box.value) for box in app.error]
    assert app.session_state["ae.source"].scenario.name == "Nobody yet"
    assert any("The group has no members" in shown_text(box.value) for box in app.info)


def test_a_group_without_members_from_a_listing_shows_without_a_traceback() -> None:
    app = start_app()
    app.radio(key="source.kind").set_value("Describe").run()
    app.text_area(key="source.describe_text").input(EMPTY_LISTING)
    app.button(key="source.describe_read").click().run()
    assert_no_exception(app)
    assert not app.error, [shown_text(box.value) for box in app.error]
    assert app.session_state["ae.source"].scenario.group_id == "billing"


def test_the_deploy_page_says_why_a_file_was_refused() -> None:
    app = open_page(start_app(), pages.DEPLOY)
    _upload(app, "broken.json", b'{"topics": 3')
    assert_no_exception(app)
    assert [shown_text(box.value) for box in app.error] == [
        "broken.json was not loaded: broken.json: not valid JSON: Expecting ',' delimiter at"
        " line 1 column 13"
    ]
    open_page(app, pages.EXPLORER)  # said once, where it happened; not again on the next page
    assert not app.error


def test_the_deploy_page_says_why_nothing_answered() -> None:
    app = open_page(start_app(), pages.DEPLOY)
    app.radio(key="source.kind").set_value("Cluster").run()
    address = f"127.0.0.1:{free_port()}"
    app.text_input(key="cluster.bootstrap").input(address)
    app.button(key="cluster.connect").click().run()
    assert_no_exception(app)
    (message,) = [shown_text(box.value) for box in app.error]
    assert message.startswith(f"Could not connect: nothing listens at {address}"), message


def test_the_names_in_a_file_show_as_typed_not_as_markdown() -> None:
    """A scenario named like a link from a file named like bold text: the headline and the
    sidebar's note show both as typed (escaped), as a refused file's name in its message."""
    named = dict(EMPTY_GROUP, name="[a](http://x)")
    app = _upload(start_app(), "**bold**.json", json.dumps(named).encode())
    link_break = "\u2060"  # escape_markdown's: no autolink from http://
    assert app.markdown[0].value == (
        r"**\[a\](http" + link_break + r"\://x)** · upload \*\*bold\*\*.json"
    )
    assert [box.value for box in app.success] == [r"Loaded \*\*bold\*\*.json."]
    notes = [box.value for box in app.caption if box.value.startswith("**On the page:**")]
    assert [note.split(";")[0] for note in notes] == [r"**On the page:** upload \*\*bold\*\*.json"]
    _upload(app, "<b>x</b>.json", b"{")
    (message,) = [box.value for box in app.error]
    assert message.startswith(r"\<b\>x\</b\>.json was not loaded"), message
    assert shown_text(message).startswith("<b>x</b>.json was not loaded: <b>x</b>.json: not valid")

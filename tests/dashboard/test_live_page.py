"""The Live group page (``/live``) without a cluster: it says where to load a live group, and
keeps the source the other pages show. (With a cluster: tests/dashboard/test_watch_app.py.)"""

from __future__ import annotations

from dashboard.views import pages
from tests.dashboard.app_session import open_page, page_title, start_app


def test_without_a_live_group_the_page_says_how_to_load_one() -> None:
    app = open_page(start_app(sample="sticky-member-joins"), pages.LIVE)
    assert page_title(app) == "Assignment Explorer · Live group"
    assert "pick Cluster" in app.info[0].value
    assert not app.get("plotly_chart")  # nothing live to draw
    assert app.session_state["ae.source"].sample == "sticky-member-joins"
    app = open_page(app, pages.EXPLORER)
    assert app.session_state["ae.source"].sample == "sticky-member-joins"

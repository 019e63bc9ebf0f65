"""A link's edits that make a group big go to the stoppable workers, and an edit list adds at
most :data:`~dashboard.model.whatif.MAX_ADDED_MEMBERS` members (issue 41, part 5).

Found on ``main``: ``?sample=range-vs-roundrobin&strategies=range,roundrobin&edits=...`` adding
20,000 members to the 6-partition sample was shown with the per-partition views, because the
page judged the group's size before the edits: every strategy, the simulation and the member
colours ran in the server's script thread, beyond the reach of a closed tab, for minutes.
"""

from __future__ import annotations

from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard.model import share, whatif
from dashboard.runtime import sessions
from tests.dashboard.app_session import start_app

SAMPLE = "range-vs-roundrobin"


def link(count: int) -> dict[str, str]:
    """The query of a link adding ``count`` members to the sample's group."""
    edits = share.encode_edits([{"op": "add_members", "count": count}])
    return {"sample": SAMPLE, "strategies": "range,roundrobin", "edits": edits}


def test_a_link_that_adds_thousands_of_members_opens_the_big_group_page() -> None:
    app = start_app(**link(2_000))
    infos = " ".join(str(box.value) for box in app.info)
    assert "more than a browser can draw" in infos, infos
    assert "2,00" in infos  # the edited group's members, counted after the edits
    assert not app.error, [box.value for box in app.error]


def test_a_link_adding_more_than_the_limit_is_refused_and_says_the_limit() -> None:
    app = start_app(**link(whatif.MAX_ADDED_MEMBERS + 1))
    errors = " ".join(str(box.value) for box in app.error)
    assert f"at most {whatif.MAX_ADDED_MEMBERS:,}" in errors, errors


@settings(max_examples=30, deadline=None)
@given(counts=st.lists(st.integers(1, 12_000), min_size=1, max_size=6))
def test_restored_edits_never_add_more_than_the_limit(counts: list[int]) -> None:
    edits = [{"op": "add_members", "count": count} for count in counts]
    param = share.encode_edits(edits)
    if sum(counts) <= whatif.MAX_ADDED_MEMBERS:
        assert share.restore_edits(param) == edits
    else:
        with pytest.raises(share.ShareLinkError, match="at most 20,000"):
            share.restore_edits(param)


def test_a_closed_tabs_page_stops_before_its_next_piece_of_work() -> None:
    """The script thread's work (small groups) is cut at the next answer, figure or table once
    the tab has gone: nothing more is worked out or drawn (a fresh scenario, so no answer is
    cached yet)."""
    query = link(3)  # three members added: a scenario no other test asked for
    with mock.patch.object(sessions, "session_alive", lambda: False):
        closed = start_app(**query)
    assert not closed.get("plotly_chart"), "a closed tab's page went on drawing"
    assert start_app(**query).get("plotly_chart"), "an open tab's page draws its charts"

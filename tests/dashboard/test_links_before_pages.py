"""Links made before the app had pages open the same scenario now (issue 35).

``links_from_main_71d96a4.json`` was written by the dashboard of main at 71d96a4, the last
commit before ``st.navigation``: the address bar it showed for every sample, a share link per
consumer-group sample (six strategies, an added and a removed member, a walkthrough step, Kafka
3.9), and a link that carries an uploaded scenario whole; with each, what that app restored
(the source, the strategies, the edits, the Kafka version). Opened in today's app, every link
restores the same, on the page that shows its source.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assignors import NEWEST_KAFKA_VERSION
from tests.dashboard.app_session import page_title, start_app

SAVED = json.loads((Path(__file__).parent / "links_from_main_71d96a4.json").read_text("utf-8"))


def _restored(app: Any) -> dict[str, Any]:
    state = app.session_state
    source = state["ae.source"]
    return {
        "source_key": source.key,
        "streams": source.streams is not None,
        "strategies": list(state["ae.strategies"]) if "ae.strategies" in state else None,
        "edits": len(state["ae.edits"]) if "ae.edits" in state else 0,
        # None (no pick) is the newest release, as the app of then also answered
        "kafka_version": (
            state["ae.kafka_version"] if "ae.kafka_version" in state else None  # noqa: SIM401
        )
        or NEWEST_KAFKA_VERSION,
    }


@pytest.mark.parametrize(
    "link", SAVED["links"], ids=lambda link: f"{link['kind']}:{link['sample']}"
)
def test_a_link_from_before_the_pages_restores_the_same(link: dict[str, Any]) -> None:
    expected = {k: v for k, v in link["expected"].items() if k in _RESTORED_KEYS}
    expected["kafka_version"] = expected["kafka_version"] or NEWEST_KAFKA_VERSION
    app = start_app(**link["query"])
    assert _restored(app) == expected
    assert [box.value for box in app.error] == link["expected"]["errors"]
    wanted = "Assignment Explorer · Kafka Streams" if expected["streams"] else "Assignment Explorer"
    assert page_title(app) == wanted


_RESTORED_KEYS = ("source_key", "streams", "strategies", "edits", "kafka_version")


def test_the_saved_links_cover_every_kind() -> None:
    kinds = {link["kind"] for link in SAVED["links"]}
    assert kinds == {"address bar", "share link", "scenario link"}
    assert any(link["expected"]["streams"] for link in SAVED["links"])

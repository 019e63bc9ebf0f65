"""The dashboard's *Describe* source: paste or upload ``kafka-consumer-groups.sh`` output.

The real app under AppTest, the real core reader; the listings are the reader's own test files.
"""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.dashboard.app_session import assert_no_exception, shown_text, start_app

LISTINGS = Path(__file__).resolve().parents[1] / "assignors" / "listings"
OFFSETS = (LISTINGS / "kafka-offsets.txt").read_text(encoding="utf-8")


def _describe(app: AppTest) -> AppTest:
    app.radio(key="source.kind").set_value("Describe").run()
    assert_no_exception(app)
    return app


def _read(app: AppTest, text: str, partitions: str = "") -> AppTest:
    app.text_area(key="source.describe_text").input(text)
    app.text_input(key="source.describe_partitions").input(partitions)
    app.button(key="source.describe_read").click().run()
    assert_no_exception(app)
    return app


def test_a_pasted_listing_becomes_the_scenario() -> None:
    app = _read(_describe(start_app()), OFFSETS, "orders:4, payments:2")
    assert "kafka-consumer-groups.sh output, group “billing”" in app.markdown[0].value
    assert any("Read 3 member(s) from the listing." in shown_text(s.value) for s in app.success)
    members = app.multiselect(key="strategies.pick")
    assert members.value  # the group opens with strategies to compare


def test_an_unreadable_line_is_named_and_nothing_typed_is_lost() -> None:
    app = _describe(start_app())
    headline = app.markdown[0].value
    broken = OFFSETS + "billing orders 3 12 not-a-number 1 consumer-1 /10.0.0.10 consumer-1\n"
    _read(app, broken, "orders:4")
    errors = [shown_text(e.value) for e in app.error]
    line = len(OFFSETS.splitlines()) + 1
    wanted = f"The listing was not read: pasted text:{line}: LOG-END-OFFSET: expected a whole"
    assert any(wanted in e for e in errors), errors
    assert app.markdown[0].value == headline  # the scenario already loaded stays
    assert app.text_area(key="source.describe_text").value == broken
    # Another source and back: the text and the counts are still there.
    app.radio(key="source.kind").set_value("Sample").run()
    _describe(app)
    assert app.text_area(key="source.describe_text").value == broken
    assert app.text_input(key="source.describe_partitions").value == "orders:4"


def test_bad_partition_counts_are_reported() -> None:
    app = _read(_describe(start_app()), OFFSETS, "orders:many")
    errors = [shown_text(e.value) for e in app.error]
    assert any("partition counts: orders:many: N must be 1 to 1,000,000" in e for e in errors)

"""The cell animation of a group too big for one tile per partition draws a subset of its members:
the 30 the change touches most, or those a filter picks, and a filter stays put across edits."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.charts.animation_chart import UNASSIGNED_COLUMN
from dashboard.panels import member_picker, results_panel, shape_panel
from tests.dashboard.app_session import APP, add_form, assert_no_exception
from tests.dashboard.plotly_spec import specs, values

# Appended, not prepended: benchmarks/assignors.py must never hide the assignors package.
sys.path.append(str(Path(__file__).resolve().parents[2] / "benchmarks"))
import big_groups

MEMBERS = 60  # past member_picker.SUBSET_LIMIT: a filter, not a multiselect


def _cells_columns(app: AppTest) -> list[str]:
    """The member columns the cell animation draws, in order (not its "(unassigned)" column,
    where an eager rebalance's revoked partitions wait)."""
    for spec in specs(app):
        for trace in spec["data"]:
            if trace.get("name") == "partitions" and trace.get("mode") == "markers+text":
                columns = dict.fromkeys(str(x) for x in values(trace["x"]))
                return [column for column in columns if column != UNASSIGNED_COLUMN]
    raise AssertionError("no cell animation on the page")


def _filter_box(app: AppTest) -> Any:
    boxes = [box for box in app.text_input if (box.key or "").startswith("view.animate_members")]
    assert len(boxes) == 1, [box.key for box in app.text_input]
    return boxes[0]


@pytest.fixture()
def running_group() -> AppTest:
    """60 members owning 2 topics x 300 partitions round robin; cooperative-sticky compared."""
    assert MEMBERS > member_picker.SUBSET_LIMIT > results_panel.MAX_ANIMATED_MEMBERS
    document = big_groups.owned_group(2, 300, MEMBERS, "60 members")
    app = AppTest.from_file(APP, default_timeout=300)
    app.session_state[shape_panel.PANEL] = True
    app.run()
    app.radio(key="source.kind").set_value("Upload").run()
    text = json.dumps(document).encode()
    app.file_uploader(key="source.upload").upload("g.json", text, "application/json").run()
    app.multiselect(key="strategies.pick").set_value(["cooperative-sticky"]).run()
    assert_no_exception(app)
    return app


def test_by_default_the_members_the_change_touches_most_are_drawn(running_group: AppTest) -> None:
    app = running_group
    add_form(app, "add_id").input("c-new")
    add_form(app, "add_topics").set_value(["t00", "t01"])
    add_form(app, "add_submit").click().run()
    assert_no_exception(app)
    columns = _cells_columns(app)
    assert len(columns) == results_panel.MAX_ANIMATED_MEMBERS
    # cooperative-sticky gives the newcomer ~10 partitions, one from each of ~10 members: it is
    # the member the change touches most, so it is drawn (columns keep the group's order).
    assert "c-new" in columns
    # No widget lists the members one by one.
    assert all(len(widget.options) <= member_picker.SHOWN for widget in app.multiselect)


def test_a_filter_picks_the_members_drawn_and_stays_after_an_edit(running_group: AppTest) -> None:
    app = running_group
    _filter_box(app).input("c0*").run()
    mode = [r for r in app.radio if (r.key or "").startswith("view.animate_members")]
    mode[0].set_value(member_picker.MODES[1]).run()  # only the matching
    assert_no_exception(app)
    wanted = [f"c{index:02d}" for index in range(10)]
    assert _cells_columns(app) == wanted
    add_form(app, "add_id").input("c-new")
    add_form(app, "add_topics").set_value(["t00"])
    add_form(app, "add_submit").click().run()
    assert_no_exception(app)
    assert _filter_box(app).value == "c0*"
    assert _cells_columns(app) == wanted

"""A group past what a browser can draw: the page says so, shows aggregates worked out in worker
processes, and no control lists every member or topic."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.model import aggregates
from dashboard.panels import member_picker, shape_panel
from dashboard.runtime import jobs
from tests.dashboard.app_session import APP, assert_no_exception

# Appended, not prepended: benchmarks/assignors.py must never hide the assignors package.
sys.path.append(str(Path(__file__).resolve().parents[2] / "benchmarks"))
import big_groups


def _upload(document: dict[str, object]) -> AppTest:
    app = AppTest.from_file(APP, default_timeout=600)
    app.session_state[shape_panel.PANEL] = True  # its controls are built only while open
    app.run()
    app.radio(key="source.kind").set_value("Upload").run()
    text = json.dumps(document).encode()
    app.file_uploader(key="source.upload").upload("big.json", text, "application/json").run()
    assert_no_exception(app)
    return app


def _widest_option_list(app: AppTest) -> int:
    widths = [len(widget.options) for widget in [*app.multiselect, *app.selectbox]]
    return max(widths, default=0)


def _numbers(app: AppTest) -> pd.DataFrame:
    """The table of each assignment's numbers."""
    tables = [frame.value for frame in app.dataframe]
    found = [t for t in tables if "idle members" in t.columns]
    assert found, [list(t.columns) for t in tables]
    return found[0]


def _texts(app: AppTest) -> str:
    parts = [element.value for element in [*app.info, *app.markdown, *app.caption]]
    return "\n".join(str(part) for part in parts)


@pytest.fixture(scope="module")
def many_members() -> AppTest:
    """5,000 members sharing 200 partitions, with one strategy picked."""
    app = _upload(big_groups.fresh_group(1, 200, 5_000, "5,000 members"))
    app.multiselect(key="strategies.pick").set_value(["range"]).run()
    assert_no_exception(app)
    return app


def test_the_page_says_the_group_is_shown_as_aggregates(many_members: AppTest) -> None:
    assert "more than a browser can draw" in _texts(many_members)
    table = _numbers(many_members)
    assert list(table["assignment"]) == ["current", "range"]
    # 200 partitions over 5,000 members: most are idle, whatever the strategy.
    assert int(table.loc[table["assignment"] == "range", "idle members"].iloc[0]) == 4_800
    assert jobs.live_pids() == []


def test_no_control_lists_every_member(many_members: AppTest) -> None:
    many_members.expander[0]  # the shaping panel is on the page
    keys = {widget.key for widget in many_members.text_input}
    assert "shape.include_members.filter" in keys
    assert _widest_option_list(many_members) <= member_picker.LIMIT


def test_filtering_members_then_applying_keeps_the_matching_ones(many_members: AppTest) -> None:
    many_members.text_input(key="shape.include_members.filter").input("c000*").run()
    many_members.radio(key="shape.include_members.mode").set_value(member_picker.MODES[1]).run()
    many_members.button(key="shape.apply_members").click().run()
    assert_no_exception(many_members)
    table = _numbers(many_members)
    # c0000 ... c0009 remain: 10 members for 200 partitions, none idle.
    assert int(table.loc[table["assignment"] == "range", "idle members"].iloc[0]) == 0
    assert len(_numbers(many_members)) == 2


def test_big_group_thresholds() -> None:
    small = big_groups.fresh_group(4, 2_500, 200, "10k x 200")
    from assignors import parse_scenario_text

    scenario, _ = parse_scenario_text(json.dumps(small), source="small")
    assert not aggregates.is_big(scenario)
    huge, _ = parse_scenario_text(
        json.dumps(big_groups.fresh_group(10_001, 1, 2, "topics", width=5)), source="huge"
    )
    assert aggregates.is_big(huge)


def test_the_worker_sends_the_current_assignment_first_then_each_strategy_twice() -> None:
    from assignors import parse_scenario_text
    from dashboard.model import whatif

    group = big_groups.owned_group(2, 60, 7, "small owned group")
    scenario, _ = parse_scenario_text(json.dumps(group), source="small")
    edits: tuple[whatif.Edit, ...] = ({"op": "add_member", "member_id": "c-new"},)
    pieces = [(("current", "k"), "current"), (("strategy", "k", "range"), "range")]
    pieces.append((("strategy", "k", "cooperative-sticky"), "cooperative-sticky"))
    sent: list[tuple[tuple[str, ...], aggregates.Summary, bool]] = []
    aggregates.work_out(sent.append, scenario, edits, pieces)

    plan = whatif.plan(scenario, edits)
    expected = [
        aggregates.summarise_current(plan),
        aggregates.summarise_strategy(plan, "range"),
        aggregates.summarise_strategy(plan, "cooperative-sticky"),
    ]
    assert [(key, summary.name, final) for key, summary, final in sent] == [
        (("current", "k"), "current", True),
        (("strategy", "k", "range"), "range", False),
        (("strategy", "k", "range"), "range", True),
        (("strategy", "k", "cooperative-sticky"), "cooperative-sticky", False),
        (("strategy", "k", "cooperative-sticky"), "cooperative-sticky", True),
    ]
    finals = [summary for _, summary, final in sent if final]
    assert finals == expected
    # A partial summary is the final one before its rebalance is played.
    for (_, partial, final), (_, complete, _) in zip(sent[1::2], sent[2::2], strict=True):
        assert not final and partial.rounds is None and complete.rounds is not None
        assert partial.partitions_per_member == complete.partitions_per_member
        assert partial.moved == complete.moved and partial.busiest == complete.busiest

"""Projector mode's figures (:func:`dashboard.charts.projector_style.projected`): every text at
18 px or more and titles at 24 px or more, in every frame; titles wrapped to the chart's width
at 1280 px (no caption cut); the figure's own background and ink; the input left as it was.
And the switch's link parameter, and its page look (only the walkthrough's two buttons)."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assignors import TopicPartition
from dashboard.charts import animation_chart, projector_style
from dashboard.charts.figure_build import CHAR_PX
from dashboard.model import palette
from dashboard.panels import projector_panel
from dashboard.runtime import arrow_keys

LONG_CAPTION = (
    "revoke and rejoin: every member revokes all its partitions, then the group waits for the"
    " slowest member to rejoin before anyone reads again; 6 partitions unread."
)


def _animation(tiles: int = 6, members: int = 3) -> Any:
    universe = [TopicPartition("orders" if n % 2 else "payments", n) for n in range(tiles)]
    names = [f"C{n}" for n in range(members)]
    before = {name: universe[i::members] for i, name in enumerate(names)}
    after = {name: universe[i :: members - 1] for i, name in enumerate(names[:-1])}
    phases = [
        animation_chart.Phase("before", before, "Before the change."),
        animation_chart.Phase("revoke", {}, LONG_CAPTION),
        animation_chart.Phase("after", after, "After."),
    ]
    return animation_chart.assignment_animation(phases, partitions=universe, order=names)


def _fonts(node: Any, key: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """(where, font) for every font in a figure's JSON but Plotly's template."""
    if isinstance(node, dict):
        if key in projector_style.FONT_KEYS:
            yield key, node
        for child_key, child in node.items():
            if child_key != "template":
                yield from _fonts(child, child_key)
    elif isinstance(node, list):
        for item in node:
            yield from _fonts(item, key)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("tiles", [6, 40, 200])
def test_every_text_is_18_px_or_more_in_every_frame(theme: str, tiles: int) -> None:
    """Tiles (6, 40 partitions) and cells (200): every font has a size, none under 18 px."""
    spec = projector_style.projected(_animation(tiles), theme).to_plotly_json()  # type: ignore[arg-type]
    fonts = list(_fonts(spec))
    assert len(fonts) > 5
    for where, font in fonts:
        assert font.get("size", projector_style.TEXT_PX) >= projector_style.TEXT_PX, where
    assert spec["layout"]["font"]["size"] >= projector_style.TEXT_PX
    for part in [spec, *spec["frames"]]:
        title = part.get("layout", {}).get("title")
        if title:
            assert title["font"]["size"] >= projector_style.TITLE_PX
        # Each frame's labels as large as the first's: grown once, not once more per frame.
        font = part["data"][-1].get("textfont")
        assert font is None or font["size"] == spec["data"][-1]["textfont"]["size"]


def test_titles_wrap_within_the_width_at_1280_px() -> None:
    """The issue's caption, cut at 1280 px: now in lines that each fit the chart's width."""
    spec = projector_style.projected(_animation()).to_plotly_json()
    titles = [frame["layout"]["title"] for frame in spec["frames"]]
    wrapped = next(t for t in titles if "slowest" in t["text"])
    lines = wrapped["text"].split("<br>")
    assert len(lines) > 1
    px_per_char = CHAR_PX * wrapped["font"]["size"] / 12
    assert all(len(line) * px_per_char <= projector_style.MIN_WIDTH_PX for line in lines)
    assert " ".join(lines) == LONG_CAPTION
    grown = 100 * projector_style.MARGIN_SCALE["t"]
    assert spec["layout"]["margin"]["t"] >= grown + (len(lines) - 1) * 24


@given(st.lists(st.text("abcdefghij", min_size=1, max_size=30), min_size=1, max_size=60))
def test_wrap_keeps_every_word_and_breaks_only_between_words(words: list[str]) -> None:
    text = " ".join(words)
    lines = projector_style.wrap(text, 24).split("<br>")
    assert " ".join(lines).split() == words
    limit = int(projector_style.MIN_WIDTH_PX / (CHAR_PX * 24 / 12))
    assert all(len(line) <= limit or " " not in line for line in lines)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_figure_paints_its_page_and_writes_in_black_or_white(theme: str) -> None:
    figure = _animation()
    before = copy.deepcopy(figure.to_plotly_json())
    spec = projector_style.projected(figure, theme).to_plotly_json()  # type: ignore[arg-type]
    assert figure.to_plotly_json() == before  # the input is left as it was
    background = palette.PAGE_BACKGROUNDS[theme]
    ink = spec["layout"]["font"]["color"]
    assert spec["layout"]["paper_bgcolor"] == spec["layout"]["plot_bgcolor"] == background
    assert palette.contrast_ratio(ink, background) >= 15
    assert spec["layout"]["xaxis"]["tickfont"]["color"] == ink  # not the template's grey
    trail = spec["data"][0]
    assert trail["name"] == "trail" and trail["line"]["color"] == ink
    assert trail["line"]["width"] > before["data"][0]["line"]["width"]


def test_tiles_grow_with_their_labels_and_the_plot_with_them() -> None:
    figure = _animation()
    spec = projector_style.projected(figure).to_plotly_json()
    old = figure.to_plotly_json()
    assert spec["data"][1]["marker"]["size"] > old["data"][1]["marker"]["size"]
    assert spec["layout"]["height"] > old["layout"]["height"] * 0.9


def test_projector_page_keeps_only_the_walkthroughs_two_buttons() -> None:
    """The style sheet hides every button but ◀ Previous and Next ▶, and the sidebar; the keys
    press those two (by the classes Streamlit gives keyed widgets)."""
    css = projector_panel.page_css()
    assert '[data-testid="stSidebar"]' in css
    for key in (projector_panel.PREVIOUS, projector_panel.NEXT):
        assert f":not(.{arrow_keys.widget_class(key)})" in css
    sizes = [int(size) for size in re.findall(r"h[1-4][^{]*\{\s*font-size: (\d+)px", css)]
    assert sizes and min(sizes) >= 28
    script = arrow_keys.script({"ArrowRight": "teach.next"})
    assert '"ArrowRight": "st-key-teach-next"' in script
    assert arrow_keys.widget_class("view.animation.sticky v2") == "st-key-view-animation-sticky-v2"


def test_a_link_with_projector_1_opens_projector_mode_and_keeps_it_in_the_address() -> None:
    """``?projector=1`` turns the switch on, the walkthrough opens, and every link the page
    writes carries the parameter; the switch turned off drops it."""
    from dashboard.session import projector
    from tests.dashboard.app_session import assert_no_exception, start_app

    app = start_app(sample="member-leaves-roundrobin-vs-sticky", projector="1")
    assert app.toggle(key=projector.KEY).value is True
    assert app.query_params.get("projector") == "1"
    assert app.session_state[projector_panel.WALKTHROUGH] is True
    assert any("Step 1 of 5" in m.value for m in app.markdown)
    assert not any(b.key == "teach.start" for b in app.button)  # no offer: it is open
    app.toggle(key=projector.KEY).set_value(False).run()
    assert_no_exception(app)
    assert "projector" not in app.query_params
    assert app.query_params.get("sample") == "member-leaves-roundrobin-vs-sticky"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_axis_states_its_tick_labels_and_title_at_18_px_or_more(theme: str) -> None:
    """The Kafka Streams page's chart names no tick size of its own: Streamlit's theme then
    draws its ticks at 12 px whatever the layout's font says (seen in projector mode's
    screenshots). A projected figure states every axis's tick size."""
    from dashboard.charts import assignment_charts

    phases = [
        ("before", [assignment_charts.ClientTasks("client-a", ("0_0",), ("0_1",), ())]),
        ("rebalance", [assignment_charts.ClientTasks("client-a", ("0_0", "0_1"), (), ())]),
    ]
    figures = [assignment_charts.streams_tasks_figure(phases), _animation()]
    titled = 0
    for figure in figures:
        layout = projector_style.projected(figure, theme).to_plotly_json()["layout"]  # type: ignore[arg-type]
        axes = [value for key, value in layout.items() if key.startswith(("xaxis", "yaxis"))]
        assert axes
        for axis in axes:
            assert axis["tickfont"]["size"] >= projector_style.TEXT_PX
            if isinstance(axis.get("title"), dict) and axis["title"].get("text"):
                assert axis["title"]["font"]["size"] >= projector_style.TEXT_PX
                titled += 1
    assert titled  # the Streams chart's "tasks" axis is among them


def _rows_of_tiles(spec: dict[str, Any]) -> tuple[float, float]:
    """A projected animation's rows (its y range) and its tiles' size (pixels)."""
    low, high = spec["layout"]["yaxis"]["range"]
    (size,) = {t["marker"]["size"] for t in spec["data"] if "text" in str(t.get("mode", ""))}
    return abs(high - low), float(size)


def test_the_member_leaves_lesson_fits_a_1080_px_projector() -> None:
    """Issue 37: the "member leaves" lesson's 8 rows of tiles ran one tile past the bottom of a
    1920 x 1080 window (the rows were spaced for tiles grown twice: 129 px apart for 78 px
    tiles). Rows are now a tile and :data:`ROW_GAP_PX` apart, and the tiles grow a little less
    so that the chart and its slider fit."""
    spec = projector_style.projected(_animation(tiles=8, members=3)).to_plotly_json()
    margin = spec["layout"]["margin"]
    rows, size = _rows_of_tiles(spec)
    plot = spec["layout"]["height"] - margin["t"] - margin["b"]
    assert plot == pytest.approx(rows * (size + projector_style.ROW_GAP_PX), abs=rows / 2 + 1)
    assert spec["layout"]["height"] <= projector_style.FIT_HEIGHT_PX < 1080
    assert size > 54  # still larger than at a desk


@given(tiles=st.integers(1, 60), members=st.integers(2, 6))
def test_rows_of_tiles_fit_the_projector_whenever_tiles_need_not_shrink(
    tiles: int, members: int
) -> None:
    """The projected chart is at most :data:`FIT_HEIGHT_PX` tall unless even unprojected tiles
    would not fit; its tiles never shrink, and its rows are spaced for its tiles."""
    figure = _animation(tiles=tiles, members=members)
    before = figure.to_plotly_json()
    spec = projector_style.projected(figure).to_plotly_json()
    margin = spec["layout"]["margin"]
    rows, size = _rows_of_tiles(spec)
    (old,) = {t["marker"]["size"] for t in before["data"] if "text" in str(t.get("mode", ""))}
    assert size >= old
    plot = spec["layout"]["height"] - margin["t"] - margin["b"]
    # (a tile's size is rounded to a pixel: half a pixel per row)
    spaced = max(120, rows * (size + projector_style.ROW_GAP_PX))
    assert plot == pytest.approx(spaced, abs=rows / 2 + 1)
    smallest = rows * (old + projector_style.ROW_GAP_PX) + margin["t"] + margin["b"]
    if smallest <= projector_style.FIT_HEIGHT_PX:
        assert spec["layout"]["height"] <= projector_style.FIT_HEIGHT_PX


def test_the_streams_pages_tables_are_html_tables_in_projector_mode() -> None:
    """Issue 37: the Kafka Streams page's data grids stayed small on a projector (a grid draws
    its cells on a canvas no style sheet reaches). In projector mode the same tables are HTML
    tables, which the page's style sheet sets in :data:`projector_panel.TABLE_TEXT_PX` text;
    outside it they are grids."""
    from tests.dashboard.app_session import assert_no_exception, start_app

    projected = start_app(sample="streams-new-instance", projector="1")
    assert_no_exception(projected)
    assert not projected.dataframe and len(projected.table) == 3
    plain = start_app(sample="streams-new-instance")
    assert len(plain.dataframe) == 3 and not plain.table
    grids = [frame.value for frame in plain.dataframe]
    tables = [table.value for table in projected.table]
    for grid, table in zip(grids, tables, strict=True):
        assert table.shape == grid.shape
        assert list(table.iloc[0]) == [str(cell) for cell in projector_panel.as_text(grid).iloc[0]]
    assert f"font-size: {projector_panel.TABLE_TEXT_PX}px" in projector_panel.page_css()
    assert projector_panel.TABLE_TEXT_PX >= projector_style.TEXT_PX


@given(st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=4, unique=True))
def test_a_projected_tables_cells_read_as_typed(names: list[str]) -> None:
    """A client or task id from a user's file is shown as typed, never as Markdown."""
    import pandas as pd

    from dashboard.model.plain import escape_markdown

    frame = pd.DataFrame({name: [name, 1] for name in names})
    shown = projector_panel.as_text(frame)
    assert list(shown.columns) == [escape_markdown(name) for name in names]
    assert list(shown.iloc[0]) == [escape_markdown(name) for name in names]
    assert list(shown.iloc[1]) == ["1"] * len(names)

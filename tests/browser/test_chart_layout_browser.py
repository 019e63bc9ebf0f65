"""Charts that read at 1280 and 1920 px (issue 36), on every page of ``pages.PAGES``, in
Chromium: no two text boxes of one chart overlap (titles, axis titles, tick labels, legends,
annotations, Play and the slider), and every table shows every column (nothing scrolled out of
sight, in a ``st.table`` or a data grid).

The pages, each opened once and measured at 1280 px, then at 1920 px (the window widened, as a
user does; every chart is laid out again):

* Explorer: six strategies and a member added, then its Lag drain, Assignment matrix and
  Protocols views; and the large group (its big-group views).
* Kafka Streams: the Streams sample.
* Live group: without a cluster, the page's note and the sidebar's connection form.
* Deploy: the large group.
* History and Fleet: the pipeline's tables for the sample lag history (``sample_data/history``),
  made once per module by a local Spark session (lag, what-if, replay); skipped without the
  ``spark`` extra.

A text box is measured as the rectangle its text occupies on screen, turned with the text (a
tick label rotated 45 degrees is a turned rectangle, not the larger upright box around it):
two boxes overlap when they share more than :data:`TOLERANCE_PX` across every separating
direction. One app is served for the module and one Chromium runs every page. Screenshots go
to the test's tmp folder, or ``AE_LAYOUT_SCREENSHOTS`` when set, to look at.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser import served_app, ui, visual
from tests.browser.served_app import CHROMIUM, serve

pytestmark = pytest.mark.browser

#: Pixels two boxes may share (anti-aliasing, a glyph's overhang).
TOLERANCE_PX = 2
WIDTHS = (1280, 1920)
HEIGHT = 2600
HISTORY = Path(__file__).resolve().parents[2] / "sample_data" / "history"

#: Per chart, its text boxes: (kind, text, corners), the corners in page pixels, turned with
#: the text (an SVG node's own box mapped through its transform to the screen).
TEXT_BOXES_JS = """
() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(plot => {
  const kinds = {
    'title': '.gtitle', 'axis title': '.g-xtitle text, .g-ytitle text, [class*="xtitle"],'
      + ' [class*="ytitle"]',
    'tick': '.xaxislayer-above text, .yaxislayer-above text',
    'legend': '.legend', 'menu': '.updatemenu-container', 'slider': '.slider-container',
    'annotation': '.annotation'};
  const corners = node => {
    const matrix = node.getScreenCTM && node.getScreenCTM();
    const box = node.getBBox && node.getBBox();
    if (matrix && box && box.width >= 1 && box.height >= 1) {
      return [[box.x, box.y], [box.x + box.width, box.y],
              [box.x + box.width, box.y + box.height], [box.x, box.y + box.height]]
        .map(([x, y]) => [matrix.a * x + matrix.c * y + matrix.e,
                          matrix.b * x + matrix.d * y + matrix.f]);
    }
    const r = node.getBoundingClientRect();
    return [[r.left, r.top], [r.right, r.top], [r.right, r.bottom], [r.left, r.bottom]];
  };
  const seen = new Set();
  const boxes = [];
  for (const [kind, selector] of Object.entries(kinds)) {
    for (const node of plot.querySelectorAll(selector)) {
      if (seen.has(node)) continue;
      seen.add(node);
      const box = node.getBoundingClientRect();
      const style = getComputedStyle(node);
      if (box.width < 1 || box.height < 1 || style.visibility === 'hidden'
          || style.display === 'none' || style.opacity === '0') continue;
      boxes.push([kind, (node.textContent || '').slice(0, 40), corners(node)]);
    }
  }
  const title = plot._fullLayout && plot._fullLayout.title && plot._fullLayout.title.text;
  return {title: (title || '').replace(/<[^>]*>/g, '').slice(0, 60), boxes: boxes};
})
"""

#: Tables whose content is wider than their box (columns scrolled out of sight): a
#: ``st.table`` or a data grid (``st.dataframe``, drawn on a canvas inside a scroller).
CUT_TABLES_JS = """
() => {
  const cut = [];
  for (const table of document.querySelectorAll('[data-testid="stTable"]')) {
    if (table.scrollWidth > table.clientWidth + 2) {
      cut.push('table ' + table.innerText.slice(0, 60).replace(/\\s+/g, ' '));
    }
  }
  for (const frame of document.querySelectorAll('[data-testid="stDataFrame"]')) {
    const scroller = frame.querySelector('.dvn-scroller');
    if (scroller && scroller.scrollWidth > scroller.clientWidth + 2) {
      const label = frame.getAttribute('aria-label') || '';
      cut.push(`data grid ${label} ${scroller.scrollWidth} px wide in ${scroller.clientWidth}`);
    }
  }
  return cut;
}
"""

Corners = list[list[float]]


def _hull(corners: Corners) -> tuple[float, float, float, float]:
    xs, ys = [x for x, _ in corners], [y for _, y in corners]
    return min(xs), min(ys), max(xs), max(ys)


def _nested(a: Corners, b: Corners) -> bool:
    """One box inside the other: a legend's own entries, a slider's own labels."""
    (al, at, ar, ab), (bl, bt, br, bb) = _hull(a), _hull(b)
    inside = al <= bl and at <= bt and ar >= br and ab >= bb
    return inside or (bl <= al and bt <= at and br >= ar and bb >= ab)


def shared_depth(a: Corners, b: Corners) -> float:
    """How deep two convex boxes overlap: the least overlap of their shadows over every edge's
    normal (separating axes); zero or less when a line separates them. For two upright
    rectangles it is the smaller of their shared width and height."""
    depth = math.inf
    for polygon in (a, b):
        for (x1, y1), (x2, y2) in zip(polygon, polygon[1:] + polygon[:1], strict=True):
            length = math.hypot(x2 - x1, y2 - y1)
            if length == 0:
                continue
            nx, ny = (y1 - y2) / length, (x2 - x1) / length
            on_a = [x * nx + y * ny for x, y in a]
            on_b = [x * nx + y * ny for x, y in b]
            depth = min(depth, min(max(on_a), max(on_b)) - max(min(on_a), min(on_b)))
    return depth


def overlaps(page: Any) -> list[str]:
    """Every pair of text boxes of one chart that overlap, as sentences."""
    found = []
    for chart in page.evaluate(TEXT_BOXES_JS):
        boxes = chart["boxes"]
        for i, (kind_a, text_a, a) in enumerate(boxes):
            for kind_b, text_b, b in boxes[i + 1 :]:
                depth = shared_depth(a, b)
                if depth > TOLERANCE_PX and not _nested(a, b):
                    found.append(
                        f"{chart['title']!r}: {kind_a} {text_a!r} overlaps {kind_b} {text_b!r}"
                        f" by {depth:.0f} px"
                    )
    return found


@pytest.fixture(scope="module")
def pipeline_output(tmp_path_factory: pytest.TempPathFactory) -> Path | None:
    """The pipeline's lag, what-if and replay tables of the sample history (``None`` without
    the ``spark`` extra: History and Fleet are then skipped)."""
    try:
        from tests.pipeline.sample_outputs import sample_tables
    except ImportError:
        return None
    root = tmp_path_factory.mktemp("pipeline-output")
    return sample_tables(root, "chart-layout-browser-test", replay=True)


@pytest.fixture(scope="module")
def app_url(
    pipeline_output: Path | None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """The dashboard, reading the pipeline's tables made above (or none)."""
    if not CHROMIUM.exists():
        pytest.skip(f"Chromium not found at {CHROMIUM}: apt-get install -y chromium")
    output = pipeline_output or tmp_path_factory.mktemp("no-pipeline-output")
    env = {"AE_PIPELINE_OUTPUT": str(output), "AE_PIPELINE_INPUT": str(HISTORY)}
    log = tmp_path_factory.mktemp("streamlit") / "streamlit.log"
    try:
        with serve(log, env) as served:
            yield served.url
    except RuntimeError as error:
        pytest.fail(str(error))


@pytest.fixture(scope="module")
def browser(app_url: str) -> Iterator[Any]:
    with served_app.chromium() as browser:
        yield browser


@pytest.fixture()
def tab(browser: Any) -> Iterator[Any]:
    """A fresh browser context's page, :data:`WIDTHS` [0] wide."""
    context = browser.new_context(viewport={"width": WIDTHS[0], "height": HEIGHT})
    try:
        page = context.new_page()
        page.set_default_timeout(60_000)
        yield page
    finally:
        context.close()


def _open(page: Any, app_url: str, address: str) -> None:
    page.goto(app_url + address)
    page.get_by_text("Assignment Explorer").first.wait_for()
    ui.settle(page)


def _settled(page: Any, charts: int) -> None:
    """At least ``charts`` Plotly charts, every one drawn, and Plotly's text laid out."""
    count = "() => document.querySelectorAll('.js-plotly-plot .main-svg').length"
    assert ui.eventually(page, lambda: page.evaluate(count) >= charts, 120), (
        f"fewer than {charts} charts drawn"
    )
    page.wait_for_function(visual.PLOTS_DRAWN_JS, timeout=60_000)
    page.wait_for_timeout(1000)  # Plotly lays out text after the first draw


def _shot(page: Any, name: str, tmp_path: Path) -> None:
    folder = Path(os.environ.get("AE_LAYOUT_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / name), full_page=True)


def measure(
    page: Any,
    name: str,
    charts: int,
    tmp_path: Path,
    before_each: Callable[[], None] | None = None,
) -> list[str]:
    """The page at each of :data:`WIDTHS`: no exception or error box, at least ``charts``
    charts; returns every overlap and cut table found, named by the width."""
    problems: list[str] = []
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": HEIGHT})
        if before_each is not None:
            before_each()
        ui.settle(page)
        _settled(page, charts)
        ui.check_page(page, f"{name} at {width} px")
        _shot(page, f"{name}-{width}.png", tmp_path)
        problems += [f"{width} px: {found}" for found in overlaps(page)]
        problems += [f"{width} px: {cut}" for cut in page.evaluate(CUT_TABLES_JS)]
    return problems


def test_the_overlap_measure_turns_with_the_text() -> None:
    """Worked examples: upright boxes overlap by their shared width or height; two labels
    rotated 45 degrees side by side do not, though their upright hulls do."""
    square = [[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]]
    moved = [[x + 6, y + 3] for x, y in square]
    assert shared_depth(square, moved) == pytest.approx(4)
    assert shared_depth(square, [[x + 11, y] for x, y in square]) < 0

    def label(left: float) -> Corners:  # 60 x 10 px of text turned 45 degrees
        c = math.cos(math.radians(-45))
        s = math.sin(math.radians(-45))
        corners = [[0.0, 0.0], [60.0, 0.0], [60.0, 10.0], [0.0, 10.0]]
        return [[left + x * c - y * s, 100 + x * s + y * c] for x, y in corners]

    first, second = label(0), label(20)
    (_, _, right, _), (left, _, _, _) = _hull(first), _hull(second)
    assert right - left > 20  # the upright hulls share 30 px
    assert shared_depth(first, second) <= 0  # the turned labels are ~7 px apart
    assert shared_depth(label(0), label(8)) > TOLERANCE_PX


#: The pages measured below, by their addresses: every page of the menu.
MEASURED = ("explorer", "streams", "live", "deploy", "history", "fleet", "classroom")


def test_every_page_is_measured() -> None:
    from dashboard.views import pages

    assert sorted(MEASURED) == sorted(spec.url_path for spec in pages.PAGES), (
        "a new page: measure it here too"
    )


def test_explorer_with_six_strategies_a_member_added_and_its_views(
    tab: Any, app_url: str, tmp_path: Path
) -> None:
    _open(tab, app_url, "/?sample=member-leaves-roundrobin-vs-sticky")
    for name in ("range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "lag-aware"):
        if name not in ui.strategies_shown(tab):
            ui.add_strategy(tab, name)
    ui.add_member(tab, "consumer-new-1")
    problems = measure(tab, "explorer", 2, tmp_path)
    for view in ("Lag drain", "Assignment matrix", "Protocols"):
        tab.set_viewport_size({"width": WIDTHS[0], "height": HEIGHT})
        ui.more_view(tab, view)
        problems += measure(tab, f"explorer-{view.lower().replace(' ', '-')}", 2, tmp_path)
    assert problems == []


def test_explorer_on_the_large_group(tab: Any, app_url: str, tmp_path: Path) -> None:
    _open(tab, app_url, "/?sample=large-group")
    assert measure(tab, "explorer-large-group", 2, tmp_path) == []


def test_kafka_streams_page(tab: Any, app_url: str, tmp_path: Path) -> None:
    _open(tab, app_url, "/streams?sample=streams-new-instance")
    assert measure(tab, "streams", 2, tmp_path) == []


def test_live_group_page_without_a_cluster_shows_its_note_and_the_connection_form(
    tab: Any, app_url: str, tmp_path: Path
) -> None:
    _open(tab, app_url, "/live")
    main = tab.locator(ui.MAIN)
    assert "pick Cluster, connect, choose a group" in main.inner_text()
    source = tab.locator(ui.SIDEBAR).locator('[data-testid="stRadio"]').first
    source.locator("label").filter(has_text="Cluster").click()
    ui.settle(tab)
    sidebar = tab.locator(ui.SIDEBAR)
    button = sidebar.get_by_role("button", name="Connect (read-only)")
    assert ui.eventually(tab, lambda: button.count() == 1), sidebar.inner_text()
    assert measure(tab, "live", 0, tmp_path) == []
    # Every field of the form in the sidebar's width, none cut at its right edge.
    cut = sidebar.evaluate(
        """sidebar => { const edge = sidebar.getBoundingClientRect().right;
        return Array.from(sidebar.querySelectorAll('input, label, button'))
          .filter(node => node.getBoundingClientRect().right > edge + 1)
          .map(node => node.outerHTML.slice(0, 80)); }"""
    )
    assert cut == []


def test_classroom_page(tab: Any, app_url: str, tmp_path: Path) -> None:
    """The Classroom lists lessons, no chart: its tables and text boxes are measured."""
    _open(tab, app_url, "/classroom")
    assert "Question for the class" in tab.locator(ui.MAIN).inner_text()
    assert measure(tab, "classroom", 0, tmp_path) == []


def test_deploy_page_on_the_large_group(tab: Any, app_url: str, tmp_path: Path) -> None:
    _open(tab, app_url, "/deploy?sample=large-group")
    main = tab.locator(ui.MAIN)
    assert ui.eventually(tab, lambda: "ranked on every cost" in main.inner_text(), 180)
    assert measure(tab, "deploy", 3, tmp_path) == []


def test_history_page_on_the_sample_lag_history(
    tab: Any, app_url: str, pipeline_output: Path | None, tmp_path: Path
) -> None:
    if pipeline_output is None:
        pytest.skip("the History page's tables need the spark extra")
    _open(tab, app_url, "/history")
    assert "Replay: which strategy" in tab.locator(ui.MAIN).inner_text()
    assert measure(tab, "history", 4, tmp_path) == []


def test_fleet_page_on_the_sample_lag_history(
    tab: Any, app_url: str, pipeline_output: Path | None, tmp_path: Path
) -> None:
    if pipeline_output is None:
        pytest.skip("the Fleet page's table needs the spark extra")
    _open(tab, app_url, "/fleet")
    assert "6 groups" in tab.locator(ui.MAIN).inner_text()
    assert "Every figure of" in tab.locator(ui.MAIN).inner_text()  # the picked group's details
    # Every column of the what-if grid and of the group's details in sight at both widths.
    assert measure(tab, "fleet", 1, tmp_path) == []

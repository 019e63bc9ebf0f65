"""The dashboard in a real browser: Debian's Chromium driven by Playwright against the app served
on localhost (fixtures in ``conftest.py``). Saves ``docs/screenshot.png`` for the README.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dashboard.model import share
from dashboard.runtime import page_head
from tests.browser import ui
from tests.browser.conftest import SCREENSHOT_VIEWPORT
from tests.browser.served_app import ROOT, RUNNING

pytestmark = pytest.mark.browser

LAG_MEMBERS_JS = """
() => {
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    const bars = (plot.data || []).filter(t => t.type === 'bar' && t.hovertemplate);
    if (bars.length) return bars.map(t => [t.name, Array.from(t.orientation === 'h' ? t.y : t.x)]);
  }
  return null;
}
"""


def _lag_members(page: Any) -> dict[str, list[str]]:
    panels = page.evaluate(LAG_MEMBERS_JS)
    assert panels, "the lag chart is on the page"
    return {name: members for name, members in panels}


def _idle(page: Any) -> None:
    """Wait until no script runs: a control used during a rerun may be redrawn under the click."""
    page.locator(RUNNING).wait_for(state="detached", timeout=60_000)


def _add_member(page: Any, member_id: str) -> None:
    """Add a member through the what-if form (as every browser test does: it waits for the
    panel's rerun before filling the form) and wait until the lag chart shows it."""
    _idle(page)
    ui.add_member(page, member_id)
    page.wait_for_function(
        LAG_MEMBERS_JS.replace(
            "return bars.map",
            f"return bars.some(t => Array.from(t.y).includes('{member_id}')) && bars.map",
        ),
    )
    # Fold the form away again so the charts move back up.
    page.get_by_text("Shape the what-if").click()


def test_loads_adds_a_member_and_the_lag_chart_changes(page: Any) -> None:
    page.locator(".js-plotly-plot").nth(1).wait_for()
    _idle(page)
    before = _lag_members(page)
    assert all("browser-new" not in members for members in before.values())
    _add_member(page, "browser-new")
    after = _lag_members(page)
    strategies = [name for name in after if name != "current"]
    assert strategies and all("browser-new" in after[name] for name in strategies)
    assert "browser-new" not in after["current"]


PLOTLY_FETCHES_JS = """
(chunk) => performance.getEntriesByType('resource')
  .filter(entry => entry.name.endsWith('/static/js/' + chunk)).length
"""


HEAD_IMPORTS_JS = """
(call) => [...document.head.querySelectorAll('script')]
  .filter(script => script.textContent.includes(call)).length
"""


def test_the_page_head_fetches_plotly_and_the_chart_uses_it(page: Any) -> None:
    """``dashboard/runtime/page_head.py``: the head preloads Streamlit's Plotly chunk; the chart
    drawn is Streamlit's, with that same module (fetched once)."""
    chunks = page_head.first_page_chunks(page_head.streamlit_static_dir())
    chunk = next(chunk for chunk in chunks if chunk.startswith("PlotlyChart."))
    href = f"./static/js/{chunk}"
    assert page.locator(f'head link[rel="modulepreload"][href="{href}"]').count() == 1
    # Imported once the websocket opens: the same module Streamlit's chart then uses.
    assert page.evaluate(HEAD_IMPORTS_JS, f"import('{href}')") == 1
    assert page.evaluate(PLOTLY_FETCHES_JS, chunk) == 1
    assert page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot').count() >= 1


def test_the_animation_plays(page: Any, tmp_path: Path) -> None:
    plot = page.locator(".js-plotly-plot").first
    plot.scroll_into_view_if_needed()
    frames = page.evaluate(
        "() => document.querySelector('.js-plotly-plot')._transitionData._frames.length"
    )
    assert frames >= 2
    plot.locator(".updatemenu-button").first.click()
    page.wait_for_function(
        "() => document.querySelector('.js-plotly-plot')._fullLayout.sliders[0].active > 0",
        timeout=30_000,
    )
    page.screenshot(path=str(tmp_path / "animation.png"))
    assert (tmp_path / "animation.png").stat().st_size > 0


ANIMATION_AT_END_JS = """
() => {
  const plot = document.querySelector('.js-plotly-plot');
  const slider = plot && plot._fullLayout.sliders && plot._fullLayout.sliders[0];
  return Boolean(slider) && slider.active === slider.steps.length - 1;
}
"""


#: The README's view: three zones, a hot spot of lag, and a seventh member joining.
SCREENSHOT_QUERY = share.share_query(
    "rack-aware-three-zones",
    ["range", "cooperative-sticky"],
    [{"op": "skew_lag"}, {"op": "add_member", "member_id": "consumer-new"}],
)


@pytest.mark.parametrize("page", [SCREENSHOT_VIEWPORT], indirect=True)
def _play_to_the_end(page: Any) -> None:
    """Press Play once the page is idle; a rerun still in flight redraws the chart at its first
    frame, so a press it swallowed is pressed again (three times at most)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for attempt in range(3):
        _idle(page)
        page.locator(".js-plotly-plot").first.locator(".updatemenu-button").first.click()
        try:
            page.wait_for_function(ANIMATION_AT_END_JS, timeout=30_000)
            return
        except PlaywrightTimeout:
            if attempt == 2:
                raise


def test_screenshot_for_the_readme(page: Any, app_url: str) -> None:
    """docs/screenshot.png: a member joins a skewed group; the animation has played; the lag
    chart below it; opened from a share link (so the link works in a browser too)."""
    page.goto(app_url + SCREENSHOT_QUERY)
    # The link's two edits applied: the sentence at the top names the member joining.
    page.get_by_text("consumer-new").first.wait_for(state="attached")
    page.wait_for_function(
        LAG_MEMBERS_JS.replace(
            "return bars.map",
            "return bars.some(t => Array.from(t.y).includes('consumer-new')) && bars.map",
        ),
    )
    # Animate the cooperative strategy: its rounds are the interesting part.
    animate = page.locator('[data-testid="stRadio"]').filter(has_text="Animate")
    animate.locator("label").filter(has_text="cooperative-sticky").first.click()
    page.wait_for_function(
        "() => (document.querySelector('.js-plotly-plot')._transitionData._frames || [])"
        ".some(f => f.name.startsWith('revoke'))"
    )
    _play_to_the_end(page)
    page.wait_for_timeout(1_500)  # let the last transition settle
    page.get_by_text("Assignment Explorer").first.scroll_into_view_if_needed()
    animation, lag_chart = (page.locator(".js-plotly-plot").nth(i).bounding_box() for i in (0, 1))
    assert animation is not None and lag_chart is not None
    assert animation["y"] >= 0, "the animation is in the screenshot"
    assert lag_chart["y"] + lag_chart["height"] <= SCREENSHOT_VIEWPORT["height"], (
        "the lag chart is in the screenshot"
    )
    (ROOT / "docs").mkdir(exist_ok=True)
    page.screenshot(path=str(ROOT / "docs" / "screenshot.png"), full_page=False)
    assert (ROOT / "docs" / "screenshot.png").stat().st_size > 50_000


OVERLAPS_JS = """
() => {
  const shown = e => e.checkVisibility({visibilityProperty: true, opacityProperty: true})
    && !e.closest('details:not([open])') && e.innerText.trim() !== '';
  const els = Array.from(document.querySelectorAll(
    '[data-testid="stMain"] [data-testid="stElementContainer"]')).filter(shown);
  let overlaps = 0;
  for (let i = 0; i < els.length; i++) for (let j = i + 1; j < els.length; j++) {
    if (els[i].contains(els[j]) || els[j].contains(els[i])) continue;
    const a = els[i].getBoundingClientRect(), b = els[j].getBoundingClientRect();
    const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
    const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
    if (w > 2 && h > 2) overlaps++;
  }
  const main = document.querySelector('[data-testid="stMain"]');
  return {overlaps, wide: main.scrollWidth > main.clientWidth + 1};
}
"""


@pytest.mark.parametrize(
    ("page", "sample", "shot"),
    [
        ({"width": 1280, "height": 1800, "color_scheme": "light"}, "rack-aware-three-zones", ""),
        ({"width": 1920, "height": 1500, "color_scheme": "dark"}, "large-group", "large"),
    ],
    indirect=["page"],
    ids=["1280-light-small", "1920-dark-large"],
)
def test_nothing_overlaps_at_both_widths_and_themes(
    page: Any, app_url: str, sample: str, shot: str
) -> None:
    """Small and large groups at 1280 and 1920 px, light and dark: no element overlaps another,
    nothing scrolls sideways. The large one is the README's second screenshot."""
    page.goto(f"{app_url}/?sample={sample}")
    page.locator(".js-plotly-plot").nth(1).wait_for()
    page.wait_for_timeout(2_000)
    if shot:
        page.screenshot(path=str(ROOT / "docs" / f"screenshot-{shot}.png"), full_page=False)
    assert page.evaluate(OVERLAPS_JS) == {"overlaps": 0, "wide": False}


#: Each chart's margins as asked for (the figure's) and as drawn (Plotly's layout), in pixels.
MARGINS_JS = """
() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(plot => {
  const asked = plot.layout.margin || {}, drawn = plot._fullLayout._size;
  return ['l', 'r', 't', 'b'].map(side => [side, asked[side], Math.round(drawn[side])]);
})
"""


@pytest.mark.parametrize(
    ("page", "sample"),
    [
        ({"width": 1280, "height": 1000}, "sticky-member-joins"),
        ({"width": 1920, "height": 1000}, "large-group"),
    ],
    indirect=["page"],
    ids=["1280-small", "1920-large"],
)
def test_the_charts_margins_hold_their_labels(page: Any, app_url: str, sample: str) -> None:
    """The animation and the lag chart ask for margins wide enough for their labels, slider and
    buttons: Plotly draws them as asked. (A margin too narrow, Plotly widens it by drawing the
    whole chart again: twice the cost of each chart on every what-if edit.)"""
    page.goto(f"{app_url}/?sample={sample}")
    page.locator(".js-plotly-plot").nth(1).wait_for()
    _idle(page)
    charts = page.evaluate(MARGINS_JS)
    assert len(charts) >= 2
    for sides in charts[:2]:
        assert all(asked == drawn for _, asked, drawn in sides), sides

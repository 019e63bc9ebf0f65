"""Plotly itself draws an escaped name (:func:`dashboard.charts.plotly_text.plain`) as typed:
in tick labels, panel titles and the hover, whose template refers to the name in the data
(``%{customdata}``, ``%{fullData.name}``) and must not fill in a ``%{x}`` the name holds.

The figure is the lag chart, written as a standalone page (Plotly's bundled JavaScript, no
server) and hovered through ``Plotly.Fx.hover``. The model of Plotly's reader the generated
tests use (``tests/dashboard/named_figures.py``) stands or falls with this. Skipped, with the
reason, when Chromium is not installed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dashboard.charts import assignment_charts, figure_files
from tests.browser import served_app

pytestmark = pytest.mark.browser

#: Names with everything Plotly's reader acts on: tags, entities (its own table lacks
#: ``&quot;``), quotes, ``$`` and a template placeholder.
NAMES = ("<a href=x>q</a>", "<b>z</b>&amp;", 'it\'s "$x$"', "consumer-1", "%{x} &quot;")
TITLE = "<i>panel</i> %{y}"
DRAWN_JS = """
() => {
  const plot = document.querySelector('.js-plotly-plot');
  const texts = node => Array.from(node.querySelectorAll('text')).map(t => t.textContent);
  Plotly.Fx.hover(plot, [{curveNumber: 0, pointNumber: 0}]);
  return {
    ticks: texts(plot.querySelector('.yaxislayer-above') || plot),
    all: texts(plot),
    hover: texts(plot.querySelector('.hoverlayer')),
    elements: plot.querySelectorAll('svg a, svg tspan[style*="italic"]').length,
  };
}
"""


def test_plotly_draws_escaped_names_as_typed(tmp_path: Path) -> None:
    if not served_app.CHROMIUM.exists():
        pytest.skip(f"Chromium not found at {served_app.CHROMIUM}: apt-get install -y chromium")
    lags = {name: 1_000.0 * (index + 1) for index, name in enumerate(NAMES)}
    figure = assignment_charts.lag_by_member_figure([(TITLE, lags)])
    page_file = tmp_path / "lag.html"
    page_file.write_text(figure_files.standalone_html(figure), encoding="utf-8")
    with served_app.chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(page_file.as_uri())
        page.locator(".js-plotly-plot .hoverlayer").wait_for(state="attached")
        drawn = page.evaluate(DRAWN_JS)
        page.screenshot(path=str(tmp_path / "lag.png"))
    busiest = NAMES[-1]  # the most lag: the first bar
    assert set(NAMES) <= set(drawn["ticks"]), drawn["ticks"]
    assert any(TITLE in text for text in drawn["all"]), drawn["all"]  # the panel's title
    assert f"{busiest}: 5,000 messages" in drawn["hover"], drawn["hover"]
    assert TITLE in drawn["hover"], drawn["hover"]  # the trace's name, in the hover's side box
    assert drawn["elements"] == 0

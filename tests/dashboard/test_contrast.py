"""Contrast (WCAG 2): every text the charts draw reads at level AA (4.5:1) on what it is drawn
on, in the light and the dark theme and in projector mode; every mark that carries a member's or
a role's colour (a tile's border, a swatch, a bar, a trail) stands out at 3:1 on both pages.

Pairs are taken from built figures, not listed by hand: tile labels over their fills, labels
over member-coloured bars, and every explicit text colour over both page backgrounds.
"""

from __future__ import annotations

import itertools
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import sample_data
from assignors import TopicPartition
from dashboard.charts import animation_chart, projector_style
from dashboard.model import palette

ROOT = Path(__file__).resolve().parents[2]
THEMES = ("light", "dark")
colours = st.integers(0, 0xFFFFFF).map(lambda value: f"#{value:06X}")


def test_contrast_ratio_worked_examples() -> None:
    """WCAG's own extremes and a grey it names as just failing AA on white."""
    assert palette.contrast_ratio("#000000", "#FFFFFF") == pytest.approx(21.0)
    assert palette.contrast_ratio("#FFFFFF", "#FFFFFF") == pytest.approx(1.0)
    assert palette.contrast_ratio("#777777", "#FFFFFF") == pytest.approx(4.48, abs=0.01)
    assert palette.contrast_ratio("#767676", "#FFFFFF") == pytest.approx(4.54, abs=0.01)


@given(colours, colours)
def test_contrast_ratio_is_symmetric_and_between_1_and_21(first: str, second: str) -> None:
    ratio = palette.contrast_ratio(first, second)
    assert ratio == pytest.approx(palette.contrast_ratio(second, first))
    assert 1.0 <= ratio <= 21.0 + 1e-9


@given(colours)
def test_a_label_on_any_fill_reads_at_aa(fill: str) -> None:
    """Black or white, whichever is better, is always at least 4.58:1 (sqrt 21)."""
    ink = palette.text_colour(fill)
    assert palette.contrast_ratio(ink, fill) >= palette.LEAST_TEXT_CONTRAST
    other = "#FFFFFF" if ink == "#000000" else "#000000"
    assert palette.contrast_ratio(ink, fill) >= palette.contrast_ratio(other, fill)


def test_the_page_backgrounds_are_the_themes() -> None:
    """The backgrounds the contrast is computed on are the ones the app's themes paint."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    for theme in THEMES:
        wanted = config["theme"][theme]["backgroundColor"].upper()
        assert palette.PAGE_BACKGROUNDS[theme] == wanted
        text = config["theme"][theme]["textColor"]
        assert palette.contrast_ratio(text, wanted) >= palette.LEAST_TEXT_CONTRAST


def test_member_role_and_trail_marks_stand_out_on_both_pages() -> None:
    """The first member colours (a lesson's), the roles' and the trail's: 3:1 on either page
    (the indigo active role, 1.5:1 on the dark page, had all but vanished)."""
    marks = [
        *palette.MEMBER_PALETTE[: palette.BOTH_THEMES_COUNT],
        *palette.ROLE_COLOURS.values(),
        palette.TRAIL_COLOUR,
        palette.POINT_COLOUR,
    ]
    for mark, theme in itertools.product(marks, THEMES):
        ratio = palette.contrast_ratio(mark, palette.PAGE_BACKGROUNDS[theme])
        assert ratio >= palette.LEAST_MARK_CONTRAST, (mark, theme, ratio)


def test_a_members_border_stands_out_from_a_topics_tile() -> None:
    members = palette.MEMBER_PALETTE[: palette.BOTH_THEMES_COUNT]
    topics = palette.TOPIC_PALETTE
    closest = min(palette.delta_e(m, t) for m in members for t in topics)
    assert closest >= palette.LEAST_TOPIC_DELTA_E
    assert min(palette.delta_e(a, b) for a, b in itertools.combinations(topics, 2)) >= (
        palette.LEAST_TOPIC_DELTA_E
    )


def _walk(node: Any, key: str = "") -> Iterator[tuple[str, Any]]:
    """Every (key, value) pair in a figure's JSON, depth first; not Plotly's template (the page
    draws a figure in its own theme's)."""
    if isinstance(node, dict):
        for child_key, child in node.items():
            if child_key == "template":
                continue
            yield child_key, child
            yield from _walk(child, child_key)
    elif isinstance(node, list | tuple):
        for item in node:
            yield from _walk(item, key)


def _text_pairs(spec: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(label colour, fill) for every labelled marker of a figure and of its frames."""
    for part in [spec, *spec.get("frames", [])]:
        for trace in part.get("data", []):
            if "text" not in str(trace.get("mode", "")):
                continue
            inks = trace.get("textfont", {}).get("color")
            fills = trace.get("marker", {}).get("color")
            if isinstance(inks, list | tuple) and isinstance(fills, list | tuple):
                yield from zip(inks, fills, strict=True)


def _sample_animations() -> Iterator[Any]:
    """The animation of every sample with a group, before -> after, by topic and by lag."""
    for info in sample_data.list_samples():
        sample = sample_data.load_sample(info.key)
        if sample.scenario is None:
            continue
        scenario = sample.scenario
        owners = {m.member_id: m.owned_partitions for m in scenario.members}
        universe = [
            TopicPartition(topic.name, number)
            for topic in scenario.topics
            for number in range(topic.partitions)
        ]
        everyone = [m.member_id for m in scenario.members]
        dealt = {m: universe[i :: len(everyone)] for i, m in enumerate(everyone)}
        phases = [animation_chart.Phase("before", owners), animation_chart.Phase("after", dealt)]
        for colour_by in ("topic", "lag"):
            yield animation_chart.strategy_animation(
                phases, scenario, everyone, whole_group=True, colour_by=colour_by
            )


@pytest.mark.parametrize("theme", THEMES)
def test_every_tile_label_reads_on_its_tile_in_every_sample(theme: str) -> None:
    """Tiles and cells of every sample's animation, by topic and by lag, plain and projected."""
    checked = 0
    for figure in _sample_animations():
        for shown in (figure, projector_style.projected(figure, theme)):  # type: ignore[arg-type]
            for ink, fill in _text_pairs(shown.to_plotly_json()):
                assert palette.contrast_ratio(ink, fill) >= palette.LEAST_TEXT_CONTRAST
                checked += 1
    assert checked > 100


def test_labels_on_member_coloured_bars_read() -> None:
    """The reconciliation chart writes counts on bars in each member's colour."""
    for fill in [*palette.MEMBER_PALETTE, *palette.distinct_colours(60, palette.MEMBER_PALETTE)]:
        ink = palette.text_colour(fill)
        assert palette.contrast_ratio(ink, fill) >= palette.LEAST_TEXT_CONTRAST, fill


@pytest.mark.parametrize("theme", THEMES)
def test_projected_text_reads_on_the_projected_background(theme: str) -> None:
    """In projector mode the figure paints its own background and every text colour it sets
    (the layout's, every annotation's and axis's) reads on it at AA; outside it, every explicit
    text colour of the animations reads on both pages."""
    for figure in _sample_animations():
        projected = projector_style.projected(figure, theme).to_plotly_json()  # type: ignore[arg-type]
        background = projected["layout"]["paper_bgcolor"]
        assert background == palette.PAGE_BACKGROUNDS[theme]
        assert palette.contrast_ratio(projected["layout"]["font"]["color"], background) >= 15
        for key, value in _walk(projected["layout"]):
            if key == "font" and isinstance(value, dict) and isinstance(value.get("color"), str):
                assert palette.contrast_ratio(value["color"], background) >= 4.5
        for key, value in _walk(figure.to_plotly_json()["layout"]):
            if key == "font" and isinstance(value, dict) and isinstance(value.get("color"), str):
                for page in palette.PAGE_BACKGROUNDS.values():
                    assert palette.contrast_ratio(value["color"], page) >= 4.5


def _timelines() -> Iterator[Any]:
    """The protocol timeline of every sample with a group whose first member leaves (every state
    but restarting and warming up occurs), and of a group a member joins."""
    from assignors import AddMember, RemoveMember
    from assignors.simulate.rebalance import Timings
    from dashboard.charts import protocol_timeline_chart
    from dashboard.model import protocol_timeline
    from tests.dashboard.test_protocol_timeline import _runs

    for info in sample_data.list_samples():
        scenario = sample_data.load_sample(info.key).scenario
        if scenario is None or len(scenario.members) < 2 or info.key == "large-group":
            continue
        for change in ([RemoveMember(scenario.members[0].member_id)], [AddMember("joins")]):
            runs = _runs(scenario, change, "cooperative-sticky", Timings(rejoin_delay_s=2.0))
            yield protocol_timeline_chart.protocol_timeline_figure(
                protocol_timeline.protocol_timelines(runs)
            )


@pytest.mark.parametrize("theme", THEMES)
def test_the_protocol_timeline_reads_on_both_pages(theme: str) -> None:
    """Issue 37 (the dark theme's timeline): each state's mark (its fill or its pattern's ink;
    idle's outline) stands out at 3:1 on the page, plain and projected (reading's near-black
    fill was 1.2:1 on the dark page); a duration written on a bar reads at 4.5:1 on its fill
    and its pattern's ink; every text colour the figure sets reads on the page at 4.5:1."""
    page = palette.PAGE_BACKGROUNDS[theme]
    bars = 0
    for figure in _timelines():
        for shown in (figure, projector_style.projected(figure, theme)):
            spec = shown.to_plotly_json()
            for trace in spec["data"]:
                if trace.get("type") != "bar":
                    continue
                marker = trace["marker"]
                see_through = marker["color"] == "rgba(0,0,0,0)"
                marks = [marker["line"]["color"]] if see_through else [marker["color"]]
                if marker["pattern"]["shape"]:
                    marks.append(marker["pattern"]["fgcolor"])
                best = max(palette.contrast_ratio(mark, page) for mark in marks)
                assert best >= palette.LEAST_MARK_CONTRAST, (trace["name"], marks, best)
                if any(trace.get("text") or ()):
                    ink = trace["textfont"]["color"]
                    for under in (marker["color"], marker["pattern"]["fgcolor"]):
                        ratio = palette.contrast_ratio(ink, page if see_through else under)
                        assert ratio >= palette.LEAST_TEXT_CONTRAST, (trace["name"], under, ratio)
                    bars += 1
            for key, value in _walk(spec["layout"]):
                if (
                    key == "font"
                    and isinstance(value, dict)
                    and isinstance(value.get("color"), str)
                ):
                    ratio = palette.contrast_ratio(value["color"], page)
                    assert ratio >= palette.LEAST_TEXT_CONTRAST, (key, value, ratio)
    assert bars > 10

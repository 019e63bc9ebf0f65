"""Generated: Markdown and HTML from outside never becomes an element, link or image on a page
(issue 41, part 2).

Hypothesis builds hostile text (an image and a link to a loopback address, raw ``<img>``,
``<script>`` and ``<a>`` tags, backticks, ``$`` math, entities, emphasis, Streamlit's colour and
icon directives, mixed with arbitrary active characters) and sends it through every way the
outside reaches a page: each query parameter a link may carry, an uploaded file's name, and the
names inside a group (member ids, topics) carried by a link's edits, a link's scenario and an
upload. The page is then read as the browser receives it (every element's Markdown text, label,
help and option) and must not hold the text as typed anywhere Markdown would turn it into
markup: only escaped (``\\[``, ``\\<``, ``\\$``, ...) or as plain text (tables, code). Charts:
:func:`test_no_builder_draws_a_name_as_markup` runs every chart builder (found by looking: see
:mod:`tests.dashboard.named_figures`) on generated names, and
:func:`test_no_chart_draws_a_name_as_markup` is the worked example through the app. The test
that no request leaves the page is the browser's (``tests/browser/test_no_markup_browser.py``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from google.protobuf.json_format import MessageToDict
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from assignors import Member, Scenario, Topic, scenario_to_json
from dashboard.model import share
from dashboard.model.plain import ACTIVE, escape_markdown
from dashboard.panels import shape_panel
from tests.dashboard import named_figures
from tests.dashboard.app_session import APP

#: Where a fetch would go (nothing listens under AppTest; the browser test listens).
HOST = "127.0.0.1:9"
TEMPLATES = (
    f"![x](http://{HOST}/image)",
    f"[click](http://{HOST}/link)",
    f"<img src=http://{HOST}/tag>",
    f'<a href="http://{HOST}/anchor">t</a>',
    "<script>alert(1)</script>",
    "`tick` $x^2$ &amp; &#60;b&#62;",
    "**b** _i_ ~~s~~ :red[c] :material/home:",
)
PAYLOADS = st.builds(
    lambda head, template, tail: head + template + tail,
    st.text(alphabet=st.sampled_from([*ACTIVE, "a", " ", "é"]), max_size=6),
    st.sampled_from(TEMPLATES),
    st.text(alphabet=st.sampled_from([*ACTIVE, "b", "-"]), max_size=6),
)
#: Element fields Streamlit renders as Markdown; fields of elements that show plain text
#: (code, text, tables) are not read.
MARKDOWN_FIELDS = ("body", "label", "help", "placeholder")
PLAIN_ELEMENTS = ("code", "text", "arrow_data_frame", "json", "plotly_chart")
MARKDOWN_OPTIONS = ("radio", "pills", "segmented_control", "button_group")


def _scenario(name: str) -> Scenario:
    """A small group whose member ids and a topic are ``name`` (and a plain one beside)."""
    return Scenario(
        (Topic(name, 3), Topic("orders", 2)),
        (Member(name, (name, "orders")), Member("plain-member", ("orders",))),
        name=name,
    )


def _routes(payload: str) -> list[tuple[str, dict[str, str]]]:
    """Every link that carries ``payload``, by what it names."""
    encoded = share.encode_scenario(_scenario(payload)) or ""
    member = share.encode_edits([{"op": "add_member", "member_id": payload}])
    topic = share.encode_edits([{"op": "add_member", "member_id": "n", "topics": [payload]}])
    return [
        ("sample", {"sample": payload}),
        ("kafka", {"kafka": payload}),
        ("strategies", {"strategies": f"range,{payload}"}),
        ("step", {"sample": "range-vs-roundrobin", "step": payload}),
        ("edits: member id", {"edits": member}),
        ("edits: topic", {"edits": topic}),
        ("edits: damaged", {"edits": payload}),
        ("scenario", {"scenario": encoded}),
        ("scenario: damaged", {"scenario": payload}),
        ("group", {"group": payload, "cluster": payload}),
        ("pipeline", {"pipeline_input": payload, "group": payload}),
        ("page picks", {"weights": payload, "history_group": payload, "projector": payload}),
    ]  # fmt: skip


def _strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _texts(node: Any) -> Iterator[tuple[str, str]]:
    """``(where, text)`` of every Markdown text and every chart spec of the page under ``node``."""
    proto = getattr(node, "proto", None)
    kind = getattr(node, "type", "")
    if proto is not None and hasattr(proto, "DESCRIPTOR"):
        fields = MessageToDict(proto, preserving_proto_field_name=True)
        if kind == "plotly_chart":  # its JSON writes "<" as \u003c: read it back first
            yield from (("chart", text) for text in _strings(json.loads(fields.get("spec", "{}"))))
        elif kind not in PLAIN_ELEMENTS:
            yield from ((f"{kind}.{f}", str(fields[f])) for f in MARKDOWN_FIELDS if f in fields)
            if kind in MARKDOWN_OPTIONS:
                yield from ((f"{kind}.option", str(o)) for o in fields.get("options", []))
    for child in (getattr(node, "children", None) or {}).values():
        yield from _texts(child)


def raw_markup(app: AppTest, payload: str) -> list[str]:
    """Where the page's Markdown holds ``payload`` as typed (it would draw its markup)."""
    return [
        f"{where}: {text[:160]!r}"
        for root in (app.main, app.sidebar)
        for where, text in _texts(root)
        if where != "chart" and payload in text
    ]


def raw_chart_tags(app: AppTest, payload: str) -> list[str]:
    """Where a chart holds a ``<a``, ``<img`` or ``<script`` of ``payload`` as typed: Plotly
    draws ``<a href>`` (and ``<b>``, ``<i>``, ``<span style>``) in its texts."""
    tags = [tag for tag in ("<a ", "<img", "<script") if tag in payload]
    return [
        f"chart: {text[:160]!r}"
        for root in (app.main, app.sidebar)
        for where, text in _texts(root)
        if where == "chart" and any(tag in text for tag in tags)
    ]


def _run(query: dict[str, str]) -> AppTest:
    app = AppTest.from_file(APP, default_timeout=120)
    app.session_state[shape_panel.PANEL] = True
    for name, value in query.items():
        app.query_params[name] = value
    return app.run()


@settings(max_examples=24, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(payload=PAYLOADS, data=st.data())
def test_no_link_parameter_becomes_markup(payload: str, data: st.DataObject) -> None:
    route, query = data.draw(st.sampled_from(_routes(payload)), label="route")
    app = _run(query)
    assert not app.exception, [e.message for e in app.exception]
    assert not raw_markup(app, payload), (route, raw_markup(app, payload))


def test_an_unknown_sample_is_named_escaped() -> None:
    """Worked example (the issue's): the refused name is shown, as typed, never drawn."""
    payload = f"![x](http://{HOST}/x)"
    app = _run({"sample": payload})
    errors = [str(box.value) for box in app.error]
    assert any(escape_markdown(payload) in error for error in errors), errors
    assert not raw_markup(app, payload)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(payload=PAYLOADS, valid=st.booleans())
def test_no_uploaded_name_becomes_markup(payload: str, valid: bool) -> None:
    """A file named with the payload, holding a group whose ids and topic are the payload (or
    damaged JSON): its name and its names reach the page escaped."""
    app = AppTest.from_file(APP, default_timeout=120)
    app.session_state[shape_panel.PANEL] = True
    app.run()
    app.radio(key="source.kind").set_value("Upload").run()
    document = json.dumps(scenario_to_json(_scenario(payload))) if valid else "{" + payload
    app.file_uploader(key="source.upload").upload(
        f"{payload}.json", document.encode(), "application/json"
    ).run()
    assert not app.exception, [e.message for e in app.exception]
    assert not raw_markup(app, payload), raw_markup(app, payload)


def test_no_chart_draws_a_name_as_markup() -> None:
    """Worked example, through the app: a group whose member id and topic are a Plotly link
    (from a link's scenario): no chart of the page holds it as a tag."""
    payload = f'<a href="http://{HOST}/anchor">t</a>'
    app = _run({"scenario": share.encode_scenario(_scenario(payload)) or ""})
    assert not app.exception, [e.message for e in app.exception]
    assert not raw_chart_tags(app, payload), raw_chart_tags(app, payload)


# -- every chart builder, generated names ---------------------------------------------------------

#: What a user may type into a name, as pieces: Plotly's tags (a link, bold, a break, a styled
#: span), entities, a template placeholder, MathJax's ``$``, quotes, and ordinary words.
FRAGMENTS = (
    "<a href=x>y</a>", f'<a href="http://{HOST}/a">', "<b>", "</b>", "<br>", "<i>", "<sup>",
    '<span style="font-size:60px">', "&amp;", "&lt;b&gt;", "&#60;", "&quot;", "%{x}",
    "%{y:,.0f}", "%{customdata}", "$x^2$", "'", '"', "orders", "consumer-1", "é", " ",
)  # fmt: skip
NAME = st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=3).map("".join)
NAMES = st.builds(
    named_figures.Names,
    members=st.lists(NAME, min_size=2, max_size=5, unique=True).map(tuple),
    topics=st.lists(NAME, min_size=1, max_size=3, unique=True).map(tuple),
    label=NAME,
)
BUILDERS = named_figures.builders()


def test_the_builders_are_found() -> None:
    """The discovery finds the builders of every chart module that draws from data (a module
    renamed or a builder's annotation changed would silently drop it from the test below)."""
    modules = {builder.module for builder in BUILDERS}
    assert modules >= {
        "aggregate_charts", "animation_chart", "assignment_charts", "deploy_charts",
        "lesson_file", "pipeline_charts", "protocol_timeline_chart", "reconciliation_charts",
    }, modules  # fmt: skip
    assert not {"projected", "static_figure", "trusted_figure"} & {b.name for b in BUILDERS}


@pytest.mark.parametrize("builder", BUILDERS, ids=str)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names=NAMES)
def test_no_builder_draws_a_name_as_markup(builder: named_figures.Builder, names: Any) -> None:
    """Every figure a builder draws for a group of hostile names makes exactly the elements
    and template placeholders it makes for the same group named plainly (names that sort the
    same way, so the core assigns the same): a name adds no ``<a>``, ``<b>``, ``<br>``, ... and
    no ``%{...}`` Plotly would fill. And no figure sets ``meta`` (which turns names and titles
    into templates)."""
    hostile, plainly = builder.figures(names), builder.figures(names.twins())
    assert len(hostile) == len(plainly)
    for figure, twin in zip(hostile, plainly, strict=True):
        assert named_figures.tag_counts(figure) == named_figures.tag_counts(twin)
        assert named_figures.placeholders(figure) == named_figures.placeholders(twin)
        assert not named_figures.has_meta(figure)


def test_a_builder_without_a_maker_is_named() -> None:
    """A builder whose parameter no maker knows fails with what to add, not silently."""

    def new_builder(window: complex) -> Any:
        raise AssertionError("never called")

    with pytest.raises(LookupError, match="no maker for parameter window"):
        named_figures.Builder("new_charts", "new_builder", new_builder).figures(
            named_figures.Names(("a", "b"), ("t",), "l")
        )

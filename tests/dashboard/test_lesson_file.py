"""Lesson files: a walkthrough as one self-contained HTML file (issue 37.5).

The file is read back with the standard library's HTML parser, as a browser's tokenizer reads
it: every step's title and narration come back as the text given (nothing a user typed becomes
markup), every step's figures come back as the JSON Plotly made, Plotly's JavaScript is there
once and nothing names an address outside the file. The figures of a sample's lesson are checked
against the core's answers for the same steps.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from html.parser import HTMLParser

import plotly.graph_objects as go
import plotly.io
import plotly.offline
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sample_data
from assignors import Member, Scenario, Topic
from dashboard.charts import lesson_file
from dashboard.charts.lesson_file import Lesson, LessonStep
from dashboard.model import whatif
from dashboard.panels import lesson_export, teach_panel
from dashboard.session import samples

#: Consumer-group samples with a walkthrough (a Kafka Streams lesson is not exported yet: the
#: export panel offers no lesson file for it).
WALKTHROUGHS = [
    info.key
    for info in sample_data.list_samples()
    if info.kind == "consumer-group" and sample_data.load_sample(info.key).walkthrough
]
#: What a hostile or careless author might type: markup, script ends, Markdown, entities.
HOSTILE = st.sampled_from(
    [
        "<script>alert(1)</script>",
        "</script><script>window.pwned=1</script>",
        "<img src=x onerror=alert(1)>",
        "</section></main><h2>fake</h2>",
        '"><b onclick="x">',
        "**bold** _it_ `code` [link](http://example.com)",
        "&amp; &lt; &#x3c; &",
        "<!-- -->",
        "]]>",
        "C2 → C1 ✓ 日本語 🙂",
        "\u2028\u2029",
    ]
)
TEXTS = st.lists(st.one_of(HOSTILE, st.text(max_size=30)), max_size=5).map("".join)


@dataclass
class Section:
    """What the parser read of one step's section."""

    title: str = ""
    where: str = ""
    paragraphs: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    figure_slots: int = 0
    figure_json: str = ""


class LessonReader(HTMLParser):
    """Reads a lesson file as a browser's tokenizer would: tags, attributes, text, scripts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self.sections: list[Section] = []
        self.h1 = ""
        self.description = ""
        self._open: list[str] = []
        self._into: str | None = None
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.tags.append((tag, found))
        classes = (found.get("class") or "").split()
        if tag == "section":
            self.sections.append(Section())
        elif tag == "script":
            self.scripts.append((found, ""))
            self._in_script = True
        elif tag == "div" and "figure" in classes:
            self.sections[-1].figure_slots += 1
        elif tag == "br" and self._into == "paragraph":
            self.sections[-1].paragraphs[-1] += "\n"
        self._start_text(tag, classes)

    def _start_text(self, tag: str, classes: list[str]) -> None:
        if tag == "h1":
            self._into = "h1"
        elif tag == "p" and "description" in classes:
            self._into = "description"
        elif tag == "p" and "where" in classes:
            self._into = "where"
        elif tag == "h2":
            self._into = "title"
        elif tag == "p" and self._open[-1:] == ["narration"]:
            self.sections[-1].paragraphs.append("")
            self._into = "paragraph"
        elif tag == "li":
            self.sections[-1].notes.append("")
            self._into = "note"
        if tag == "div" and "narration" in classes:
            self._open.append("narration")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False
        if tag in ("h1", "h2", "p", "li"):
            self._into = None
        if tag == "div" and self._open:
            self._open.pop()

    def handle_data(self, data: str) -> None:
        if self._in_script:
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)
            if "figure-data" in (attrs.get("class") or ""):
                self.sections[-1].figure_json += data
            return
        self._text(data)

    def _text(self, data: str) -> None:
        if self._into == "h1":
            self.h1 += data
        elif self._into == "description":
            self.description += data
        elif self._into in ("where", "title"):
            section = self.sections[-1]
            setattr(section, self._into, getattr(section, self._into) + data)
        elif self._into == "paragraph":
            self.sections[-1].paragraphs[-1] += data
        elif self._into == "note":
            self.sections[-1].notes[-1] += data


def read(text: str) -> LessonReader:
    reader = LessonReader()
    reader.feed(text)
    reader.close()
    return reader


def _figure(title: str) -> go.Figure:
    return go.Figure(go.Bar(x=["C1", "C2"], y=[1, 2], name=title), layout={"title": title})


def expected_paragraphs(text: str) -> list[str]:
    """A narration as the file shows it: a blank line starts a paragraph, each trimmed."""
    blocks = [block.strip() for block in text.replace("\r\n", "\n").split("\n\n")]
    return [block for block in blocks if block]


@settings(max_examples=60, deadline=None)
@given(
    title=TEXTS,
    description=TEXTS,
    steps=st.lists(
        st.tuples(
            TEXTS.filter(str.strip),
            TEXTS,
            st.lists(TEXTS, max_size=2),
            st.integers(0, 2),
        ),
        min_size=1,
        max_size=4,
    ),
)
def test_every_step_is_in_the_file_and_no_text_becomes_markup(
    title: str, description: str, steps: list[tuple[str, str, list[str], int]]
) -> None:
    lesson = Lesson(
        title,
        description,
        tuple(
            LessonStep(step_title, text, tuple(_figure(step_title) for _ in range(n)), tuple(notes))
            for step_title, text, notes, n in steps
        ),
    )
    reader = read(lesson_file.lesson_html(lesson))
    assert reader.h1 == title and reader.description == description
    assert len(reader.sections) == len(steps)
    for number, (section, step) in enumerate(zip(reader.sections, lesson.steps, strict=True), 1):
        assert section.where == f"Step {number} of {len(steps)}"
        assert section.title == step.title
        assert section.paragraphs == expected_paragraphs(step.text)
        assert section.notes == list(step.notes)
        assert section.figure_slots == len(step.figures)
        # The JSON survives the trip through the <script> element unchanged.
        assert json.loads(section.figure_json) == [
            json.loads(plotly.io.to_json(figure)) for figure in step.figures
        ]
    # Only the page's own elements: no tag, attribute or script came from the text.
    allowed = {
        "html",
        "head",
        "meta",
        "title",
        "style",
        "script",
        "body",
        "header",
        "div",
        "h1",
        "p",
        "nav",
        "button",
        "span",
        "main",
        "section",
        "h2",
        "ul",
        "li",
        "br",
    }
    assert {tag for tag, _ in reader.tags} <= allowed
    assert not [attrs for _, attrs in reader.tags if any(a.startswith("on") for a in attrs)]
    assert len(reader.scripts) == 2 + len(steps)  # Plotly, each step's figures, navigation


def test_a_worked_example_of_the_escaping() -> None:
    lesson = Lesson(
        "Rebalancing <101>",
        "a & b",
        (LessonStep("</script><b>C2</b> leaves", "**C2** leaves.\n\n<i>Then</i>\nback", (), ()),),
    )
    text = lesson_file.lesson_html(lesson)
    assert "<title>Rebalancing &lt;101&gt;</title>" in text
    assert "&lt;/script&gt;&lt;b&gt;C2&lt;/b&gt; leaves</h2>" in text
    assert (
        '<div class="narration"><p>**C2** leaves.</p><p>&lt;i&gt;Then&lt;/i&gt;<br>back</p></div>'
        in text
    )


def test_figure_json_cannot_end_its_script_element() -> None:
    figure = _figure("</script><script>alert(1)</script> & <!--")
    text = lesson_file.figure_json([figure])
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == [json.loads(plotly.io.to_json(figure))]


def test_plotly_is_inside_once_and_nothing_is_loaded_from_elsewhere() -> None:
    lesson = Lesson("t", "d", tuple(LessonStep(f"s{i}", "x", (_figure("f"),)) for i in range(3)))
    text = lesson_file.lesson_html(lesson)
    bundle = plotly.offline.get_plotlyjs()
    assert text.count(bundle[:300]) == 1 and bundle in text
    reader = read(text)
    # No element names an address: no src, href, srcset, action, or CSS url().
    named = [
        (tag, name)
        for tag, attrs in reader.tags
        for name in attrs
        if name in ("src", "href", "srcset", "action", "data", "poster")
    ]
    assert named == []
    style = text[text.index("<style>") : text.index("</style>")]
    assert "url(" not in style and "@import" not in style
    # The figures are JSON data, not script: only Plotly and the navigation run.
    runs = [attrs for attrs, _ in reader.scripts if attrs.get("type") != "application/json"]
    assert len(runs) == 2


def test_a_lesson_needs_a_step() -> None:
    with pytest.raises(ValueError, match="at least one step"):
        lesson_file.lesson_html(Lesson("t", "d", ()))


def test_paragraphs_worked_example() -> None:
    assert lesson_file.paragraphs("a\n\nb\nc\r\n\r\n\n\n d ") == "<p>a</p><p>b<br>c</p><p>d</p>"
    assert lesson_file.paragraphs("  \n\n ") == ""


def _scenario(members: list[str]) -> Scenario:
    return Scenario(
        topics=(Topic("t", 4),),
        members=tuple(Member(m, ("t",)) for m in members),
    )


def test_a_strategy_that_is_not_a_group_strategy_gets_a_sentence_not_a_figure() -> None:
    plan = whatif.plan(_scenario(["C1", "C2"]), [])
    figures, notes = lesson_file.step_views(plan, "no-such-strategy", ["C1", "C2"], {})
    assert figures == () and "no-such-strategy" in notes[0]


def _colours_of(figure: go.Figure) -> dict[str, str]:
    """Member label -> the colour of its swatch over the animation's columns."""
    ticks = figure.layout.xaxis.ticktext or ()
    found = {}
    for tick in ticks:
        match = re.fullmatch(r"<span style='color:(#\w+)'>■</span> (.+)", tick)
        assert match is not None, tick
        found[match.group(2)] = match.group(1)
    return found


@pytest.fixture(scope="module", params=WALKTHROUGHS)
def sample_lesson(request: pytest.FixtureRequest) -> tuple[str, Lesson]:
    return request.param, lesson_export.sample_lesson(request.param)


def test_every_sample_lesson_has_its_walkthrough_and_a_figure_per_step(
    sample_lesson: tuple[str, Lesson],
) -> None:
    key, lesson = sample_lesson
    sample = sample_data.load_sample(key)
    assert sample.scenario is not None
    assert lesson.title == sample.scenario.name
    # The narration as the panel shows it: a lesson's {placeholders} filled from the core.
    narrated = sample_data.narrate_sample(sample)
    assert [(s.title, s.text) for s in lesson.steps] == [
        (s.title, text) for s, text in zip(sample.walkthrough, narrated, strict=True)
    ]
    assert not any("{" in s.text for s in lesson.steps if "{" not in s.title)
    for step in lesson.steps:
        assert step.figures, step.notes
        assert step.figures[0].frames, "the first figure is the before/after animation"


def test_a_member_keeps_its_colour_through_every_step(sample_lesson: tuple[str, Lesson]) -> None:
    _, lesson = sample_lesson
    colours: dict[str, set[str]] = defaultdict(set)
    for step in lesson.steps:
        for member, colour in _colours_of(step.figures[0]).items():
            colours[member].add(colour)
    assert {member: seen for member, seen in colours.items() if len(seen) > 1} == {}


def test_each_step_animates_the_rebalance_the_core_works_out(
    sample_lesson: tuple[str, Lesson],
) -> None:
    """Step N's frames are the core's phases of that step's change, from the group as the
    steps before it leave it, under the strategy in force; the lag chart's panels are the
    core's lag per member before and after."""
    key, lesson = sample_lesson
    steps = sample_data.load_sample(key).walkthrough
    default = samples.sample_source(key).scenario.assignor or sample_data.DEFAULT_STRATEGY
    for index, (step, shown) in enumerate(zip(steps, lesson.steps, strict=True)):
        plan = whatif.plan(samples.sample_source(key, index).scenario, teach_panel.step_edits(step))
        strategy = teach_panel.step_strategy(steps, index, default) or default
        simulation = plan.evaluation.strategy(strategy).simulation
        names = [frame.name for frame in shown.figures[0].frames]
        assert names[0] == "before" and names[-1] == f"after ({strategy})"
        assert set(names[1:-1]) <= {phase.name for phase in simulation.phases} | {
            f"{phase.name} ({n})" for phase in simulation.phases for n in range(2, 9)
        }
        assert f"{simulation.rounds} round(s)" in shown.notes[0]
        lagged = plan.evaluation.current_metrics.lag_total > 0
        assert len(shown.figures) == 1 + lagged

"""A lesson as one HTML file: a walkthrough's steps, each with its title, its narration and the
figures the dashboard shows for it, that a teacher opens from disk with no server and no network.

How a step's figures are made (:func:`step_views`), from the step's what-if (the group as the
steps before leave it, and the step's own change, :func:`dashboard.model.whatif.plan`):

1. The before/after animation of the step's strategy, the same figure the Explorer draws
   (:func:`~dashboard.charts.animation_chart.strategy_animation` of
   :func:`~dashboard.charts.animation_chart.rebalance_phases`), every member in its column.
2. Lag per consumer, before and after, when the group carries any lag.
3. The sentences the Explorer writes under the animation: the protocol and its rounds, and the
   simulator's notes. A strategy that cannot run, or a group too big to draw per partition,
   gets one sentence saying so instead of figures.

How the file is laid out (:func:`lesson_html`):

1. The head holds Plotly's JavaScript once, from the installed ``plotly`` package (never a CDN).
2. A bar at the top: the lesson's title, *Previous* and *Next* buttons and the step counter
   ("Step 2 of 5").
3. One section per step: its title and narration on the left, its figures on the right (stacked
   on a narrow screen). Each step's figures are JSON in the section, drawn by Plotly the first
   time the step is shown.
4. Keyboard: Left/Right arrows (and PageUp/PageDown, what a presenter's remote sends) move one
   step, Home/End to the first/last; the address's ``#step-N`` opens step N and follows the
   step shown (no element has that id, so the browser does not scroll to one; each step
   shows from the top).

Invariants: every title, narration and note is escaped (:func:`.plotly_text.plain`; a narration
is plain text, its blank lines start paragraphs: nothing a user typed becomes markup); figure
JSON cannot close its ``<script>`` element (``<``, ``>`` and ``&`` are written as JSON escapes);
no element or style of the page names an address (no ``src``, ``href`` or ``url()``), and the
figures drawn here (tiles, bars) make Plotly fetch nothing, so the file loads nothing from the
network.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache

import plotly.graph_objects as go
import plotly.io
import plotly.offline

from assignors import AssignmentExplorerError
from dashboard.charts import animation_chart, assignment_charts
from dashboard.charts.plotly_text import plain
from dashboard.model import aggregates, whatif

#: How Plotly draws every figure of the file: fits its box, no Plotly logo, no link out.
PLOTLY_CONFIG: Mapping[str, object] = {
    "responsive": True,
    "displaylogo": False,
    "showLink": False,
}


@dataclass(frozen=True, slots=True)
class LessonStep:
    """One step of a lesson: its title, its narration (plain text), its figures and notes.

    ``notes`` are plain sentences shown under the narration (how to read the figure, or why a
    step has none).
    """

    title: str
    text: str
    figures: tuple[go.Figure, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Lesson:
    """A lesson: a title, a one-line description and its steps, in order."""

    title: str
    description: str
    steps: tuple[LessonStep, ...]


def step_views(
    plan: whatif.WhatIf, strategy: str, order: Sequence[str], colours: Mapping[str, str]
) -> tuple[tuple[go.Figure, ...], tuple[str, ...]]:
    """The figures and notes of one step (steps 1-3 of the module docstring).

    ``order`` is the lesson's member order and ``colours`` its member colours, the same for
    every step, so a member keeps its colour and place from step to step; members in neither
    the step's before nor its after are left out.
    """
    if aggregates.is_big(plan.before) or aggregates.is_big(plan.after):
        return (), (
            "This group is too big to draw partition by partition; open the sample in the "
            "dashboard to see this step's aggregates.",
        )
    evaluation = plan.evaluation
    answer = evaluation.strategy(strategy) if strategy in _requested(plan) else None
    if answer is None or answer.strategy is None:
        return (), (f"{strategy} is not a consumer-group strategy: nothing to draw.",)
    try:
        simulation = answer.simulation
        measured = answer.metrics
    except AssignmentExplorerError as error:
        return (), (f"{strategy} cannot run on this step: {error}",)
    present = {m.member_id for m in plan.before.members} | {m.member_id for m in plan.after.members}
    members = [member for member in order if member in present]
    phases = animation_chart.rebalance_phases(evaluation.current.partitions, simulation, strategy)
    figures = [
        animation_chart.strategy_animation(
            phases,
            plan.after,
            members,
            whole_group=True,
            unassigned=measured.unassigned_partitions,
            colours=colours,
        )
    ]
    if evaluation.current_metrics.lag_total > 0:
        columns = [
            ("current", {k: float(v) for k, v in evaluation.current_metrics.lag_by_member.items()}),
            (strategy, {k: float(v) for k, v in measured.lag_by_member.items()}),
        ]
        figures.append(
            assignment_charts.lag_by_member_figure(columns, order=members, colours=colours)
        )
    notes = (
        f"{answer.strategy.protocol} protocol, {simulation.rounds} round(s). Press ▶ Play or "
        "drag the slider under the chart: one frame per phase, its caption above the chart.",
        *simulation.notes,
    )
    return tuple(figures), notes


def _requested(plan: whatif.WhatIf) -> set[str]:
    return {item.name for item in plan.evaluation.strategies}


@cache
def plotly_script() -> str:
    """Plotly's JavaScript as the installed ``plotly`` package bundles it (~4.8 MB)."""
    script: str = plotly.offline.get_plotlyjs()
    if "</script" in script.lower():
        # It would end the <script> element early; Plotly's bundle has never contained it.
        raise ValueError("the bundled plotly.js contains '</script'; cannot inline it safely")
    return script


def figure_json(figures: Sequence[go.Figure]) -> str:
    """``figures`` as one JSON array that is safe inside a ``<script>`` element: ``<``, ``>``
    and ``&`` (possible only inside JSON strings) are written as ``\\u`` escapes."""
    text = "[" + ",".join(plotly.io.to_json(figure, validate=False) for figure in figures) + "]"
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def paragraphs(text: str) -> str:
    """Plain text as HTML paragraphs: escaped, a blank line starts a paragraph, a single line
    break stays one."""
    blocks = [block.strip() for block in text.replace("\r\n", "\n").split("\n\n")]
    return "".join(
        "<p>" + "<br>".join(plain(line) for line in block.split("\n")) + "</p>"
        for block in blocks
        if block
    )


def _step_section(index: int, step: LessonStep, count: int) -> str:
    """Step 3 of the module docstring: one step's section (``index`` 0-based)."""
    number = index + 1
    notes = "".join(f"<li>{plain(note)}</li>" for note in step.notes)
    slots = "".join(
        f'<div class="figure" role="img" aria-label="figure {i + 1} of step {number}"></div>'
        for i in range(len(step.figures))
    )
    return (
        f'<section class="step" id="lesson-step-{number}" aria-labelledby="step-{number}-title">'
        '<div class="words">'
        f'<p class="where">Step {number} of {count}</p>'
        f'<h2 id="step-{number}-title">{plain(step.title)}</h2>'
        f'<div class="narration">{paragraphs(step.text)}</div>'
        + (f'<ul class="notes">{notes}</ul>' if notes else "")
        + "</div>"
        f'<div class="figures">{slots}</div>'
        f'<script type="application/json" class="figure-data">{figure_json(step.figures)}'
        "</script></section>"
    )


def lesson_html(lesson: Lesson) -> str:
    """The whole lesson as one self-contained HTML file (module docstring, steps 1-4).

    Raises ``ValueError`` for a lesson without steps.
    """
    if not lesson.steps:
        raise ValueError("a lesson needs at least one step")
    count = len(lesson.steps)
    title = plain(lesson.title)
    sections = "".join(_step_section(i, step, count) for i, step in enumerate(lesson.steps))
    config = json.dumps(PLOTLY_CONFIG)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{title}</title><style>{_STYLE}</style>"
        f'<script charset="utf-8">{plotly_script()}</script></head><body>'
        '<header><div class="lesson">'
        f"<h1>{title}</h1>"
        f'<p class="description">{plain(lesson.description)}</p></div>'
        '<nav aria-label="steps">'
        '<button type="button" id="previous">◀ Previous</button>'
        f'<span id="counter" aria-live="polite">Step 1 of {count}</span>'
        '<button type="button" id="next">Next ▶</button></nav>'
        '<p class="keys">← → move · Home / End: first / last</p></header>'
        f"<main>{sections}</main>"
        f"<script>var LESSON_PLOTLY_CONFIG = {config};{_NAVIGATION}</script>"
        "</body></html>\n"
    )


#: The page's look: large type for a projector, the figures as wide as the screen allows.
_STYLE = """
:root { color-scheme: light; --ink: #1b1b1b; --muted: #454545; --accent: #1c4f9c;
  --rule: #cfcfcf; }
* { box-sizing: border-box; }
body { margin: 0; background: #fff; color: var(--ink);
  font: 20px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; }
header { position: sticky; top: 0; z-index: 10; background: #fff; display: flex;
  flex-wrap: wrap; align-items: center; gap: 0.25rem 1.25rem; padding: 0.5rem 1.25rem;
  border-bottom: 1px solid var(--rule); }
header .lesson { flex: 1 1 24rem; min-width: 0; }
header h1 { font-size: 1.4rem; line-height: 1.2; margin: 0; }
header .description { margin: 0; color: var(--muted); font-size: 0.85rem;
  white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
nav { display: flex; align-items: center; gap: 0.75rem; }
button { font: inherit; font-weight: 600; padding: 0.35rem 1.1rem; border-radius: 0.4rem;
  border: 2px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
button:disabled { background: #ececec; border-color: #bdbdbd; color: #5c5c5c; cursor: default; }
button:focus-visible { outline: 3px solid #e69f00; outline-offset: 2px; }
#counter { font-weight: 700; min-width: 8.5ch; text-align: center;
  font-variant-numeric: tabular-nums; }
.keys { margin: 0; font-size: 0.8rem; color: var(--muted); }
main { padding: 1rem 1.25rem 2rem; }
section.step { display: grid; grid-template-columns: minmax(18rem, 1fr) 2.6fr; gap: 1.5rem;
  align-items: start; }
html.js section.step:not(.shown) { display: none; }
section.step + section.step { margin-top: 2rem; }
html.js section.step + section.step { margin-top: 0; }
.where { margin: 0; color: var(--muted); font-size: 0.9rem; }
h2 { font-size: 1.6rem; line-height: 1.2; margin: 0.1rem 0 0.8rem; }
.narration p { margin: 0 0 0.8rem; }
.notes { margin: 0.5rem 0 0; padding-left: 1.1rem; color: var(--muted); font-size: 0.85rem; }
.figures { min-width: 0; }
.figure { width: 100%; min-height: 24rem; }
.figure + .figure { margin-top: 1.5rem; }
.figure .failed { color: #a00; }
@media (max-width: 1100px) { section.step { grid-template-columns: 1fr; } }
"""

#: Steps 3-4 of the module docstring: show one step at a time, draw its figures once.
_NAVIGATION = """
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  var steps = Array.prototype.slice.call(document.querySelectorAll("section.step"));
  var counter = document.getElementById("counter");
  var previous = document.getElementById("previous");
  var next = document.getElementById("next");
  var drawn = [];
  var current = 0;
  function fail(slot, message) {
    var text = document.createElement("p");
    text.className = "failed";
    text.textContent = message;
    slot.appendChild(text);
  }
  function draw(section) {
    var slots = section.querySelectorAll("div.figure");
    var figures = JSON.parse(section.querySelector("script.figure-data").textContent);
    figures.forEach(function (figure, index) {
      var slot = slots[index];
      if (typeof Plotly === "undefined") { fail(slot, "Plotly did not load."); return; }
      try {
        Plotly.newPlot(slot, {data: figure.data || [], layout: figure.layout || {},
          frames: figure.frames || [], config: LESSON_PLOTLY_CONFIG})
          .catch(function (error) { fail(slot, "This figure could not be drawn: " + error); });
      } catch (error) { fail(slot, "This figure could not be drawn: " + error); }
    });
  }
  function show(index) {
    current = Math.max(0, Math.min(steps.length - 1, index));
    steps.forEach(function (section, i) { section.classList.toggle("shown", i === current); });
    counter.textContent = "Step " + (current + 1) + " of " + steps.length;
    previous.disabled = current === 0;
    next.disabled = current === steps.length - 1;
    if (!drawn[current]) { drawn[current] = true; draw(steps[current]); }
    else if (typeof Plotly !== "undefined") {
      steps[current].querySelectorAll(".js-plotly-plot").forEach(function (plot) {
        Plotly.Plots.resize(plot);
      });
    }
    window.scrollTo(0, 0);
    if (location.hash !== "#step-" + (current + 1)) {
      try { history.replaceState(null, "", "#step-" + (current + 1)); } catch (error) {}
    }
  }
  function fromAddress() {
    var found = /^#step-(\\d+)$/.exec(location.hash);
    return found ? parseInt(found[1], 10) - 1 : 0;
  }
  var moves = {ArrowLeft: -1, PageUp: -1, ArrowRight: 1, PageDown: 1};
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) { return; }
    if (event.key in moves) { show(current + moves[event.key]); }
    else if (event.key === "Home") { show(0); }
    else if (event.key === "End") { show(steps.length - 1); }
    else { return; }
    event.preventDefault();
  });
  previous.addEventListener("click", function () { show(current - 1); });
  next.addEventListener("click", function () { show(current + 1); });
  window.addEventListener("hashchange", function () { show(fromAddress()); });
  show(fromAddress());
})();
"""

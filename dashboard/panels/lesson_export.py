"""A sample's walkthrough as a lesson file (:mod:`dashboard.charts.lesson_file`), built from the
same data the walkthrough panel shows, for the export panel's button and
``scripts/export_lesson.py``.

How a sample's lesson is made (:func:`sample_lesson`):

1. Step N's "before" is the sample as its walkthrough leaves it after the steps before it
   (:func:`dashboard.session.samples.sample_source` with ``step``), and its change is the
   what-if edits the walkthrough panel makes (:func:`dashboard.panels.teach_panel.step_edits`),
   so the file shows what *Next* shows in the dashboard.
2. The strategy of a step is the last one a step switched to so far, else the sample's own,
   else Kafka's default (:data:`sample_data.DEFAULT_STRATEGY`).
3. One member order and one colour per member for the whole lesson
   (:func:`dashboard.panels.layout.colour_roster`, as every view of the walkthrough): a member
   keeps its colour and column from the first step to the last.
4. A step that cannot be shown (its change no longer fits) keeps its title and narration and
   says why in place of its figures.
5. A Kafka Streams sample's steps change nothing: each shows the Kafka Streams page's *Tasks per
   client* chart (what the clients held, then rebalance after rebalance until the warm-ups
   caught up) and its sentence, at the restore speed its narration states
   (:data:`sample_data.narration.RESTORE_SPEED`, the page's default).
"""

from __future__ import annotations

from collections.abc import Sequence

import sample_data
from assignors import (
    AssignmentExplorerError,
    StreamsScenario,
    WalkthroughStep,
    simulate_convergence,
)
from dashboard.charts import assignment_charts, lesson_file
from dashboard.charts.figure_build import Figure
from dashboard.model import palette, whatif
from dashboard.panels import layout, streams_panel, teach_panel
from dashboard.session import samples
from sample_data import narration


def _plans(key: str) -> list[whatif.WhatIf | str]:
    """Step 1 of the module docstring: each step's what-if, or why it cannot be shown."""
    source = samples.sample_source(key)
    plans: list[whatif.WhatIf | str] = []
    for index, step in enumerate(source.walkthrough):
        try:
            before = samples.sample_source(key, index).scenario
            plans.append(whatif.plan(before, teach_panel.step_edits(step)))
        except AssignmentExplorerError as error:
            plans.append(f"Step {index + 1} cannot be shown: {error}")
    return plans


def sample_lesson(key: str) -> lesson_file.Lesson:
    """Sample ``key``'s walkthrough as a lesson (module docstring, steps 1-4).

    Raises the core's errors for an unknown sample, and
    :class:`~assignors.AssignmentExplorerError` for a sample without a walkthrough.
    """
    source = samples.sample_source(key)
    steps = source.walkthrough
    if not steps:
        raise AssignmentExplorerError(f"sample {key!r} has no walkthrough to export")
    if source.streams is not None:
        return _streams_lesson(key, source.streams, steps)
    plans = _plans(key)
    order = layout.colour_roster(source) or [m.member_id for m in source.scenario.members]
    colours = palette.member_colours(order)
    default = source.scenario.assignor or sample_data.DEFAULT_STRATEGY
    texts = samples.narration(key)
    lesson_steps = []
    for index, (step, plan) in enumerate(zip(steps, plans, strict=True)):
        figures: tuple[Figure, ...] = ()
        notes: tuple[str, ...] = ()
        if isinstance(plan, str):
            notes = (plan,)
        else:
            strategy = teach_panel.step_strategy(steps, index, default) or default
            figures, notes = lesson_file.step_views(plan, strategy, order, colours)
        text = texts[index]  # the narration with its figures filled, as the panel shows it
        lesson_steps.append(lesson_file.LessonStep(step.title, text, figures, notes))
    title = source.scenario.name or key
    return lesson_file.Lesson(title, source.scenario.description or "", tuple(lesson_steps))


def _streams_lesson(
    key: str, streams: StreamsScenario, steps: Sequence[WalkthroughStep]
) -> lesson_file.Lesson:
    """Step 5 of the module docstring: every step with the Kafka Streams page's chart and its
    sentence, worked out once at the restore speed the narration states."""
    result = simulate_convergence(streams, narration.RESTORE_SPEED)
    figure = assignment_charts.streams_tasks_figure(streams_panel.phases(streams, result))
    sentence = streams_panel.summary(result, narration.RESTORE_SPEED, 0.0)
    texts = samples.narration(key)
    lesson_steps = tuple(
        lesson_file.LessonStep(step.title, text, (figure,), (sentence,))
        for step, text in zip(steps, texts, strict=True)
    )
    return lesson_file.Lesson(streams.name or key, streams.description or "", lesson_steps)


def sample_lesson_html(key: str) -> str:
    """Sample ``key``'s walkthrough as one self-contained HTML file."""
    return lesson_file.lesson_html(sample_lesson(key))


def file_name(key: str) -> str:
    """The lesson file's name: ``lesson-<sample key>.html``."""
    return f"lesson-{key}.html"

"""The bundled lessons as a specification (``sample_data/lessons/`` and the Streams sample).

* Shape: at least eight lessons, on the topics issue 37 names; each has 4 to 8 steps, exactly one
  question, and names the view that answers it.
* No number typed by hand: every walkthrough's (every lesson's and every older sample's) titles
  and texts state no digit outside placeholders,
  the scenario's names (members, topics, racks, static ids, Streams clients and tasks) and
  proposal numbers; a digit typed into any lesson text is caught.
* Figures from the core: every placeholder of every step fills, and the figures a lesson states
  most (partitions moved and kept, members, partitions, and per protocol the rounds, members
  stopped, partition pauses and seconds) equal the answers of ``evaluate`` asked directly for
  that step, from the group the dashboard shows before it; a Streams lesson's equal
  ``simulate_convergence``'s.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

import sample_data
from assignors import (
    PROTOCOLS,
    Scenario,
    StrategyEvaluation,
    evaluate,
    simulate_convergence,
)
from assignors.io.narration import fill, placeholders, stray_digits
from sample_data import narration

LESSONS = sample_data.list_lessons()
#: Every sample with a walkthrough (the lessons and the older samples): none states a number by
#: hand, and every figure it states is the core's.
WALKED = [
    sample
    for sample in (sample_data.load_sample(info.key) for info in sample_data.list_samples())
    if sample.walkthrough
]
GROUP_STEPS = [
    (sample.info.key, index)
    for sample in WALKED
    if sample.scenario is not None
    for index in range(len(sample.walkthrough))
]


def _names(lesson: sample_data.Sample) -> set[str]:
    """Every name a lesson's scenario (and its steps) holds: these may contain digits."""
    if lesson.streams is not None:
        tasks = {str(task.id) for task in lesson.streams.tasks}
        return tasks | {client.process_id for client in lesson.streams.clients}
    assert lesson.scenario is not None
    found: set[str] = set()
    for state in sample_data.replay_walkthrough(lesson.scenario, lesson.walkthrough):
        for scenario in (lesson.scenario, state.scenario):
            found |= {topic.name for topic in scenario.topics}
            for member in scenario.members:
                found |= {member.member_id, member.rack or "", member.group_instance_id or ""}
            found |= {
                rack for t in scenario.topics for racks in t.replica_racks or () for rack in racks
            }
    return found - {""}


def test_the_lessons_issue_37_asks_for_are_bundled() -> None:
    keys = {lesson.info.key for lesson in LESSONS}
    assert len(LESSONS) >= 8
    for topic in ("eager", "kip848", "static", "three-strategies", "racks", "share", "lag-aware"):
        assert any(topic in key for key in keys), topic
    assert "streams-new-instance" in keys  # the Streams sample is the Streams lesson


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.info.key)
def test_a_lesson_has_four_to_eight_steps_one_question_and_its_view(
    lesson: sample_data.Sample,
) -> None:
    assert 4 <= len(lesson.walkthrough) <= 8
    asked = [step for step in lesson.walkthrough if step.question is not None]
    assert len(asked) == 1
    assert asked[0].question and asked[0].question.endswith("?")
    assert asked[0].view is not None
    assert all(step.view is not None for step in lesson.walkthrough)
    assert lesson.warnings == ()


@pytest.mark.parametrize("lesson", WALKED, ids=lambda lesson: lesson.info.key)
def test_a_walkthrough_states_no_number_by_hand(lesson: sample_data.Sample) -> None:
    names = _names(lesson)
    for step in lesson.walkthrough:
        for text in (step.title, step.text, step.question or ""):
            assert stray_digits(text, names) == [], (step.title, text)
    if sample_data.question(lesson) is not None:
        assert all(placeholders(step.text) for step in lesson.walkthrough[1:]), "a step, no figure"


@given(st.data())
def test_a_digit_typed_into_a_lesson_is_caught(data: st.DataObject) -> None:
    lesson = data.draw(st.sampled_from(WALKED))
    step = data.draw(st.sampled_from(lesson.walkthrough))
    words = step.text.split(" ")
    at = data.draw(st.integers(0, len(words)))
    number = data.draw(st.integers(0, 99_999))
    typed = " ".join([*words[:at], str(number), *words[at:]])
    assert str(number) in stray_digits(typed, _names(lesson))


@pytest.mark.parametrize("lesson", WALKED, ids=lambda lesson: lesson.info.key)
def test_every_placeholder_fills(lesson: sample_data.Sample) -> None:
    texts = sample_data.narrate_sample(lesson)
    assert len(texts) == len(lesson.walkthrough)
    for text in texts:
        assert placeholders(text) == ()


def _before(lesson: sample_data.Sample, index: int) -> tuple[Scenario, str]:
    """The group the dashboard shows before step ``index`` and the strategy in force."""
    assert lesson.scenario is not None
    states = sample_data.replay_walkthrough(lesson.scenario, lesson.walkthrough[: index + 1])
    before = sample_data.step_before(lesson.scenario, lesson.walkthrough, index)
    return before, states[-1].strategy


Core = Callable[[StrategyEvaluation], object]
#: What each figure is, read straight off the core's answers.
CORE: dict[str, Core] = {
    "moved": lambda s: s.movement.moved_count + s.movement.dropped_count,
    "kept": lambda s: s.movement.kept_count,
    "members": lambda s: len(s.evaluation.after.members),
    "partitions": lambda s: sum(s.evaluation.after.partition_counts().values()),
    "idle": lambda s: len(s.metrics.idle_members),
    "cross_rack": lambda s: s.metrics.cross_rack_assignments,
    "rounds": lambda s: s.simulation.rounds,
    "stopped": lambda s: len(s.simulation.stopped_members),
}
for _protocol in PROTOCOLS:
    CORE[f"{_protocol}_rounds"] = lambda s, p=_protocol: s.protocol_run(p).rounds
    CORE[f"{_protocol}_stopped"] = lambda s, p=_protocol: len(s.protocol_run(p).stopped_members)
    CORE[f"{_protocol}_pauses"] = lambda s, p=_protocol: s.protocol_run(p).partition_pauses
    for _seconds in ("group_stop_s", "duration_s", "pause_s"):
        CORE[f"{_protocol}_{_seconds}"] = lambda s, p=_protocol, f=_seconds: getattr(
            s.protocol_run(p), f
        )


def _stated(value: object) -> str:
    if isinstance(value, float):
        return narration.seconds(value)
    assert isinstance(value, int)
    return narration.count(value)


@pytest.mark.parametrize(("key", "index"), GROUP_STEPS)
def test_a_group_lesson_states_the_core_answers_for_its_step(key: str, index: int) -> None:
    lesson = sample_data.load_sample(key)
    step = lesson.walkthrough[index]
    before, strategy = _before(lesson, index)
    named = [s for _, s in placeholders(step.text) if s is not None]
    evaluation = evaluate(before, step.changes, [strategy, *named])

    def core(name: str, qualifier: str | None) -> str:
        item = evaluation.strategy(qualifier or strategy)
        return _stated(CORE[name](item)) if name in CORE else narration.GROUP_FIGURES[name](item)

    assert sample_data.narrate_sample(lesson)[index] == fill(step.text, core)


def test_most_stated_figures_are_checked_against_the_core_directly() -> None:
    stated = [
        name
        for lesson in LESSONS
        for step in lesson.walkthrough
        for name, _ in placeholders(step.text)
    ]
    group = [name for name in stated if name in narration.GROUP_FIGURES]
    assert sum(name in CORE for name in group) >= len(group) / 2


def test_lag_and_rack_figures_read_the_metrics() -> None:
    lesson = sample_data.load_sample("lesson-lag-aware")
    assert lesson.scenario is not None
    item = evaluate(lesson.scenario, [], ["range"]).strategy("range")
    lags = [member.lag for member in item.metrics.members]
    assert narration.GROUP_FIGURES["lag_max"](item) == narration.count(max(lags))
    assert narration.GROUP_FIGURES["lag_min"](item) == narration.count(min(lags))
    racks = sample_data.load_sample("lesson-racks-cross-zone")
    assert racks.scenario is not None
    rack_item = evaluate(racks.scenario, [], ["roundrobin"]).strategy("roundrobin")
    share = rack_item.metrics.cross_rack_share
    assert share is not None and narration.GROUP_FIGURES["cross_rack_share"](rack_item) == (
        f"{share:.0%}"
    )


def test_the_streams_lesson_states_the_convergence() -> None:
    lesson = sample_data.load_sample("streams-new-instance")
    assert lesson.streams is not None
    run = simulate_convergence(lesson.streams, narration.RESTORE_SPEED)
    texts = sample_data.narrate_sample(lesson)
    figures = narration.streams_figures(lesson.streams)
    assert figures["probing_rebalances"] == narration.count(run.probing_rebalances)
    assert figures["warmups"] == narration.count(run.steps[0].assignment.warmup_count)
    assert any(f"{run.probing_rebalances:,} probing rebalances" in text for text in texts)


def _figures(key: str, index: int, *names: str) -> list[str]:
    """Figures ``names`` of sample ``key``'s step ``index`` as its narration fills them."""
    lesson = sample_data.load_sample(key)
    assert lesson.scenario is not None
    step = narration.group_steps(lesson.scenario, lesson.walkthrough)[index]
    return [step.figure(name) for name in names]


@pytest.mark.parametrize(
    ("key", "index", "names", "stated"),
    [
        ("failover-priorities", 0, ("holder", "holder_priority"), ["primary", "10"]),
        ("failover-priorities", 1, ("holder", "holder_priority"), ["secondary", "5"]),
        (
            "lag-aware-worked-example",
            0,
            ("partition_lags",),
            ["t0-0 (100,000), t0-1 (60,000) and t0-2 (50,000)"],
        ),
        ("lag-aware-worked-example", 1, ("member_lags",), ["C0 100,000 and C1 110,000"]),
        ("lag-aware-worked-example", 2, ("member_lags",), ["C0 160,000 and C1 50,000"]),
        (
            "new-group-earliest",
            0,
            ("uncommitted", "committed"),
            [
                "audit-events-0, audit-events-1, audit-events-3 and audit-events-4",
                "audit-events-2 and audit-events-5",
            ],
        ),
        ("sticky-member-joins", 0, ("partitions_each",), ["3 to 4 each"]),
        (
            "sticky-member-joins",
            1,
            ("kept_by_member",),
            ["C0 keeps 4 of its 5 and C1 keeps 3 of its 5"],
        ),
        ("sticky-member-joins", 2, ("kept", "moved"), ["7", "3"]),
        ("member-leaves-roundrobin-vs-sticky", 1, ("moved", "departed_partitions"), ["4", "2"]),
        (
            "range-vs-roundrobin",
            0,
            ("member_partitions",),
            ["C0: t0-0, t0-1, t1-0 and t1-1; C1: t0-2 and t1-2"],
        ),
    ],
)
def test_the_older_samples_state_what_their_worked_examples_say(
    key: str, index: int, names: tuple[str, ...], stated: list[str]
) -> None:
    """Worked examples: the figures the older samples' texts once typed by hand, now computed
    (range-vs-roundrobin and the lag-aware example as their texts worked them out; the sticky
    join as Kafka's sticky assignor does it: C0 keeps four of its five, C2 gets three)."""
    assert _figures(key, index, *names) == stated


def test_a_narrating_step_keeps_the_rebalance_of_the_step_before_on_screen() -> None:
    """sticky-member-joins narrates one rebalance over three steps (quotas, what members keep,
    what the newcomer gets): each shows the same change, so each states the same moves, and the
    page shows it at each (the shipped group: C2 owns nothing)."""
    sample = sample_data.load_sample("sticky-member-joins")
    assert sample.scenario is not None
    befores = [sample_data.step_before(sample.scenario, sample.walkthrough, i) for i in range(3)]
    assert befores == [sample.scenario] * 3
    moved = [_figures("sticky-member-joins", index, "moved") for index in range(3)]
    assert moved == [["3"]] * 3

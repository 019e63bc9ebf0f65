"""The sample scenarios shipped with the tool, and a small catalog to list and load them.

Each ``*.json`` file beside this module, or in its ``lessons/`` folder, is one sample: a
consumer-group scenario (the format of ``docs/scenario-format.md``, loaded by
:mod:`assignors.io.scenario`) or a Kafka Streams application in the ``streams-ha`` shape (loaded
by :mod:`assignors.streams.model`). Every sample has a ``name`` (a title) and a one-line
``description``, and may carry a ``walkthrough`` of teaching steps (a Streams sample's steps
change nothing: they narrate). A sample whose walkthrough asks a ``question`` is a *lesson*
(:func:`list_lessons`); its narration's figures are computed by :mod:`sample_data.narration`.

A sample's *key* is its file name without ``.json`` (``range-vs-roundrobin``);
:func:`load_sample` accepts the key or the title. :data:`DEFAULT_SAMPLE` is what the dashboard
opens with no configuration.

How a sample is loaded:

1. Find the file by key (or title); an unknown name raises :class:`UnknownSampleError` listing
   the known keys.
2. Read it with the project's one JSON reader (size-limited, every failure a ScenarioError).
3. A Streams sample (``tasks`` / ``clients``) goes through ``parse_streams_scenario`` and its
   walkthrough is read against an empty group (a step that changes something is an error);
   anything else through ``parse_scenario`` and then
   :func:`assignors.io.walkthrough.parse_walkthrough` (the sample's warnings are both's).

May import: :mod:`assignors`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from assignors import registry
from assignors.errors import AssignmentExplorerError, ScenarioError, StrategyNotApplicableError
from assignors.io.scenario import parse_scenario, read_json_file
from assignors.io.walkthrough import WalkthroughStep, apply_step, parse_walkthrough
from assignors.model import Assignment, Scenario
from assignors.simulate.changes import with_current_ownership
from assignors.simulate.rebalance import rebalance_rounds
from assignors.strategy import PartitionStrategy
from assignors.streams.model import StreamsScenario, parse_streams_scenario

SampleKind = Literal["consumer-group", "streams"]

#: The sample the dashboard opens when nothing else is chosen.
DEFAULT_SAMPLE = "range-vs-roundrobin"
#: The strategy a walkthrough starts with when the scenario names none (Kafka's default).
DEFAULT_STRATEGY = "range"
SAMPLE_DIRECTORY = Path(__file__).resolve().parent
#: The folder of the lessons written for the Classroom (samples like any other).
LESSON_DIRECTORY = SAMPLE_DIRECTORY / "lessons"


class UnknownSampleError(AssignmentExplorerError, KeyError):
    """A sample name that is neither a sample key nor a sample title."""

    def __init__(self, name: str, known: Sequence[str]) -> None:
        self.name = name
        self.known = tuple(known)
        super().__init__(name)

    def __str__(self) -> str:
        return f"no sample named {self.name!r}; samples: {', '.join(self.known)}"


@dataclass(frozen=True, slots=True)
class SampleInfo:
    """What a catalog listing shows: key, title, one-line description, kind, file."""

    key: str
    name: str
    description: str
    kind: SampleKind
    path: Path


@dataclass(frozen=True, slots=True)
class Sample:
    """A loaded sample: exactly one of ``scenario`` / ``streams`` is set, by ``info.kind``."""

    info: SampleInfo
    scenario: Scenario | None
    streams: StreamsScenario | None
    warnings: tuple[str, ...]
    walkthrough: tuple[WalkthroughStep, ...]


def _info(path: Path, raw: object) -> SampleInfo:
    fields = raw if isinstance(raw, dict) else {}
    kind: SampleKind = "streams" if "tasks" in fields or "clients" in fields else "consumer-group"
    return SampleInfo(
        key=path.stem,
        name=str(fields.get("name") or path.stem),
        description=str(fields.get("description") or ""),
        kind=kind,
        path=path,
    )


def sample_paths() -> list[Path]:
    """Every sample file (beside this module and in ``lessons/``), sorted by key."""
    paths = [*SAMPLE_DIRECTORY.glob("*.json"), *LESSON_DIRECTORY.glob("*.json")]
    return sorted(paths, key=lambda path: path.stem)


def list_samples() -> list[SampleInfo]:
    """Every sample's key, title, description and kind, sorted by key."""
    return [_info(path, read_json_file(path)) for path in sample_paths()]


def _find(name: str) -> Path:
    paths = sample_paths()
    for path in paths:
        if path.stem == name:
            return path
    for info in list_samples():
        if info.name == name:
            return info.path
    raise UnknownSampleError(name, [path.stem for path in paths])


def load_sample(name: str = DEFAULT_SAMPLE) -> Sample:
    """Load a sample by key or title (steps 1-3 of the module docstring).

    Raises :class:`UnknownSampleError` for an unknown name and
    :class:`~assignors.errors.ScenarioError` for a sample that does not validate.
    """
    path = _find(name)
    raw = read_json_file(path)
    info = _info(path, raw)
    if info.kind == "streams":
        streams = parse_streams_scenario(raw, path="")
        steps, step_warnings = parse_walkthrough(raw, Scenario(topics=(), members=()))
        changing = [i for i, step in enumerate(steps) if step.rebalances]
        if changing:
            raise ScenarioError(
                [
                    f"walkthrough[{changing[0]}].change: a Kafka Streams walkthrough step narrates;"
                    " it cannot change the application"
                ]
            )
        return Sample(info, None, streams, (*streams.warnings, *step_warnings), steps)
    scenario, warnings = parse_scenario(raw, path="")
    steps, step_warnings = parse_walkthrough(raw, scenario)
    return Sample(info, scenario, None, (*warnings, *step_warnings), steps)


def question(sample: Sample) -> tuple[int, str] | None:
    """``(step index, question)`` of a lesson's question; ``None`` for a sample without one."""
    for index, step in enumerate(sample.walkthrough):
        if step.question is not None:
            return index, step.question
    return None


def list_lessons() -> list[Sample]:
    """Every lesson (a sample whose walkthrough asks a question), loaded, sorted by key."""
    loaded = [load_sample(info.key) for info in list_samples()]
    return [sample for sample in loaded if question(sample) is not None]


def narrate_sample(sample: Sample) -> tuple[str, ...]:
    """Each walkthrough step's text with its figures filled (:mod:`sample_data.narration`)."""
    from sample_data.narration import narrate

    return narrate(sample.walkthrough, sample.scenario, sample.streams)


@dataclass(frozen=True, slots=True)
class StepState:
    """A walkthrough step as shown: the scenario after its change, the strategy, its answer."""

    step: WalkthroughStep
    scenario: Scenario
    strategy: str
    assignment: Assignment


def _partition_strategy(name: str) -> PartitionStrategy:
    strategy = registry.get(name)
    if not isinstance(strategy, PartitionStrategy):
        raise StrategyNotApplicableError(
            f"{name} assigns Kafka Streams tasks; a consumer-group walkthrough needs a partition"
            " strategy"
        )
    return strategy


def _settled(name: str, scenario: Scenario) -> Assignment:
    """Where one rebalance of ``scenario`` under strategy ``name`` leaves the group: the
    strategy's answer, or a cooperative strategy's last round (round 1 withholds the partitions
    that change owner; the follow-up round hands them over)."""
    return rebalance_rounds(_partition_strategy(name), scenario)[-1]


def replay_walkthrough(
    scenario: Scenario,
    steps: Sequence[WalkthroughStep],
    strategy: str | None = None,
) -> list[StepState]:
    """Run a walkthrough: one :class:`StepState` per step, in order.

    The strategy of a step is ``strategy`` when given (the same one throughout, ignoring the
    steps' ``assignor`` switches), else the scenario's ``assignor`` as the steps change it, else
    :data:`DEFAULT_STRATEGY`. A step's answer is where its rebalance settles
    (:func:`_settled`): for a cooperative strategy the last of its rounds, not round 1. Before
    each change the current answer is the "previous assignment" that
    :func:`~assignors.io.walkthrough.apply_step` carries into owned partitions; a step that does
    not rebalance keeps the scenario and the answer of the step before.
    """
    current = scenario

    def chosen() -> str:
        return strategy or current.assignor or DEFAULT_STRATEGY

    assignment = _settled(chosen(), current)
    states: list[StepState] = []
    for step in steps:
        if step.rebalances:
            current = apply_step(current, step, assignment)
            assignment = _settled(chosen(), current)
        states.append(StepState(step, current, chosen(), assignment))
    return states


def step_before(scenario: Scenario, steps: Sequence[WalkthroughStep], index: int) -> Scenario:
    """The group a walkthrough shows before step ``index`` (0-based), whose change the step
    then applies: what the dashboard, the narration and a lesson file show for that step.

    1. A step that does not rebalance (it narrates) shows what the step before it showed: its
       "before" is that step's, so the rebalance being narrated stays on screen.
    2. Step 0: the sample as shipped.
    3. Any other step: the group as the steps before it leave it (:func:`replay_walkthrough`),
       every member owning what the last of them settled on.
    """
    while index > 0 and not steps[index].rebalances:
        index -= 1
    if index == 0:
        return scenario
    state = replay_walkthrough(scenario, steps[:index])[-1]
    return with_current_ownership(state.scenario, state.assignment)


__all__ = [
    "DEFAULT_SAMPLE",
    "DEFAULT_STRATEGY",
    "Sample",
    "SampleInfo",
    "StepState",
    "UnknownSampleError",
    "list_lessons",
    "list_samples",
    "load_sample",
    "narrate_sample",
    "question",
    "replay_walkthrough",
    "sample_paths",
    "step_before",
]

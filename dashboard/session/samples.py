"""The bundled samples, loaded once per server and cached: the catalogue, a sample as a
:class:`~dashboard.model.sources.Source` (at any walkthrough step), and loading one into the
session.

May import: :mod:`dashboard.model`, :mod:`dashboard.session.state`, :mod:`sample_data`,
:mod:`assignors` and Streamlit's public API.
"""

from __future__ import annotations

import dataclasses

import streamlit as st

import sample_data
from assignors import AssignmentExplorerError, Scenario, WalkthroughStep
from dashboard.model.sources import Source, streams_source
from dashboard.session import state


@st.cache_data(show_spinner=False)
def sample_catalogue() -> list[tuple[str, str, str, str]]:
    """``(key, title, description, kind)`` of every shipped sample."""
    return [
        (info.key, info.name, info.description, info.kind) for info in sample_data.list_samples()
    ]


@st.cache_resource(show_spinner=False)
def _load_sample(key: str) -> sample_data.Sample:
    return sample_data.load_sample(key)


@st.cache_resource(show_spinner=False)
def _walkthrough_before(key: str, step: int) -> Scenario:
    """Sample ``key`` as its walkthrough shows it before step ``step`` (0-based): after the
    steps before it, owning their answer (:func:`sample_data.step_before`)."""
    sample = _load_sample(key)
    if sample.scenario is None or not 0 < step < len(sample.walkthrough):
        raise AssignmentExplorerError(
            f"sample {key!r} has no walkthrough step {step} (it has {len(sample.walkthrough)})"
        )
    return sample_data.step_before(sample.scenario, sample.walkthrough, step)


def walkthrough(key: str) -> tuple[WalkthroughStep, ...]:
    """Sample ``key``'s walkthrough steps (a Streams sample's too)."""
    return _load_sample(key).walkthrough


@st.cache_resource(show_spinner=False)
def narration(key: str) -> tuple[str, ...]:
    """Sample ``key``'s walkthrough texts with their figures filled from the scenario."""
    return sample_data.narrate_sample(_load_sample(key))


@st.cache_data(show_spinner=False)
def lesson_catalogue() -> list[tuple[str, str, str, str, int, str | None, str]]:
    """``(key, title, description, question, question step, view, kind)`` of every lesson."""
    rows: list[tuple[str, str, str, str, int, str | None, str]] = []
    for lesson in sample_data.list_lessons():
        asked = sample_data.question(lesson)
        assert asked is not None  # list_lessons lists samples that ask one
        index, question = asked
        view = lesson.walkthrough[index].view
        info = lesson.info
        rows.append((info.key, info.name, info.description, question, index, view, info.kind))
    return rows


def sample_source(key: str, step: int = 0) -> Source:
    """A sample as a :class:`~dashboard.session.Source` (raises the core's errors).

    ``step`` > 0: the group as the sample's walkthrough leaves it after that many steps (each
    step's change applied and rebalanced with the step's strategy), so that the next step's
    change is one rebalance from there. A Streams sample's steps narrate and change nothing:
    its application is the same at every step, the source only names the step.
    """
    sample = _load_sample(key)
    if sample.streams is not None:
        return _streams_sample(sample, step)
    if sample.scenario is None:
        raise AssignmentExplorerError(f"sample {key!r} is neither a group nor a Streams scenario")
    scenario = sample.scenario if step == 0 else _walkthrough_before(key, step)
    return Source(
        kind="sample",
        label=f"sample “{sample.info.name}”"
        + (f", walkthrough step {step + 1} of {len(sample.walkthrough)}" if step else ""),
        key=f"sample:{key}" + (f"@{step}" if step else ""),
        scenario=scenario,
        sample=key,
        warnings=sample.warnings,
        walkthrough=sample.walkthrough,
        walkthrough_step=step,
    )


def _streams_sample(sample: sample_data.Sample, step: int) -> Source:
    """A Streams sample at walkthrough step ``step`` (0-based; its steps change nothing)."""
    assert sample.streams is not None
    steps = sample.walkthrough
    if step and not 0 < step < len(steps):
        raise AssignmentExplorerError(
            f"sample {sample.info.key!r} has no walkthrough step {step + 1} (it has {len(steps)})"
        )
    source = streams_source(
        sample.streams,
        kind="sample",
        label=f"sample “{sample.info.name}”"
        + (f", walkthrough step {step + 1} of {len(steps)}" if step else ""),
        key=f"sample:{sample.info.key}" + (f"@{step}" if step else ""),
        sample=sample.info.key,
    )
    return dataclasses.replace(source, walkthrough=steps, walkthrough_step=step)


def load_sample_into_state(key: str) -> bool:
    """Make sample ``key`` the source; on failure report why and keep the current one."""
    try:
        state.set_source(sample_source(key))
    except (AssignmentExplorerError, KeyError) as error:
        state.report_error(f"Could not load sample {key!r}: {error}")
        return False
    return True

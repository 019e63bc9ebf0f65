"""Where a scenario came from, as data: the :class:`Source` every view shows, and the pure
builders that make one from a Streams document, an uploaded text or a group read live.

Invariants: a builder raises only the core's errors (:class:`~assignors.AssignmentExplorerError`)
and never touches session state; a Source is frozen, and its ``key`` names its content, so cached
answers are looked up without hashing the scenario.

May import: the standard library and :mod:`assignors`. No Streamlit, no Plotly.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Literal

from assignors import (
    AssignmentExplorerError,
    Scenario,
    StreamsScenario,
    WalkthroughStep,
    decode_scenario_text,
    parse_scenario,
    registry,
)

SourceKind = Literal["sample", "upload", "cluster"]
#: The registry's Kafka Streams task strategy: it parses and assigns Streams scenarios.
STREAMS_STRATEGY = "streams-ha"


@dataclass(frozen=True, slots=True)
class Source:
    """Where the scenario came from, and the scenario as loaded (before any edit).

    A Kafka Streams application (a Streams sample or upload) carries ``streams`` and is shown by
    :mod:`dashboard.panels.streams_panel` instead of the consumer-group views.
    ``key`` identifies the content (sample name, upload digest, cluster group and time) so that
    cached results can be looked up without hashing the whole scenario.
    """

    kind: SourceKind
    label: str
    key: str
    scenario: Scenario
    sample: str | None = None
    warnings: tuple[str, ...] = ()
    walkthrough: tuple[WalkthroughStep, ...] = ()
    streams: StreamsScenario | None = None
    """Set for a Kafka Streams application (then ``scenario`` is an empty consumer group)."""
    walkthrough_step: int = 0
    """How many walkthrough steps ``scenario`` has behind it (0: the sample as shipped)."""
    link: tuple[tuple[str, str], ...] = ()
    """The query parameters that load this source again when it is not a sample (a pipeline
    group's Fleet link); empty: a link names the sample or carries the scenario itself."""


def content_key(text: str) -> str:
    """A short digest naming some content (an upload, a snapshot)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def streams_source(
    streams: StreamsScenario,
    *,
    kind: SourceKind,
    label: str,
    key: str,
    sample: str | None = None,
) -> Source:
    """A Kafka Streams application as a source (its consumer-group ``scenario`` is empty)."""
    return Source(
        kind=kind,
        label=f"{label} · Kafka Streams",
        key=key,
        scenario=Scenario(
            topics=(), members=(), name=streams.name, description=streams.description
        ),
        sample=sample,
        warnings=streams.warnings,
        streams=streams,
    )


def parse_streams(raw: object) -> StreamsScenario:
    """A Streams scenario object parsed by the registry's task strategy (``streams-ha``)."""
    strategy = registry.task_strategies()[STREAMS_STRATEGY]
    parsed = strategy.parse(raw)
    if not isinstance(parsed, StreamsScenario):  # pragma: no cover - the strategy's contract
        raise AssignmentExplorerError(f"{STREAMS_STRATEGY} did not return a Streams scenario")
    return parsed


def is_streams_document(raw: object) -> bool:
    """Whether a JSON object describes a Kafka Streams application (``tasks`` / ``clients``)."""
    return isinstance(raw, dict) and ("tasks" in raw or "clients" in raw)


def upload_source(name: str, data: bytes | str) -> Source:
    """An uploaded or pasted scenario as a source; raises the core's errors only.

    The text passes the core's JSON gate (:func:`assignors.decode_scenario_text`: size, a
    byte-order mark, UTF-8, numbers, nesting), then the loader that fits it: the Streams task
    strategy for a Kafka Streams document, the scenario loader for a consumer group.
    """
    document = decode_scenario_text(data, source=name)
    text = data if isinstance(data, str) else data.decode("utf-8-sig")
    key = f"upload:{content_key(text)}"
    label = f"upload {name}"
    if is_streams_document(document):
        return streams_source(parse_streams(document), kind="upload", label=label, key=key)
    scenario, warnings = parse_scenario(document, path="", json_checked=True)
    if scenario.assignor is not None and scenario.assignor not in registry.strategies():
        # The page plays the group's own assignor for "current": refused here, whole, so the
        # page keeps what it showed rather than open a scenario it cannot show.
        registry.get(scenario.assignor)  # raises UnknownStrategyError, naming the known ones
    return Source(kind="upload", label=label, key=key, scenario=scenario, warnings=warnings)


def source_for(
    scenario: Scenario | StreamsScenario,
    warnings: tuple[str, ...],
    group_id: str,
    where: str,
    key: str,
) -> Source:
    """A group read from the cluster as a source (a Streams group as a Streams source);
    ``where``: the cluster's name in the operator file, or the address the user typed."""
    label = f"group {group_id} on {where} at {time.strftime('%H:%M:%S')} (read-only)"
    if isinstance(scenario, StreamsScenario):
        return streams_source(scenario, kind="cluster", label=label, key=key)
    return Source(kind="cluster", label=label, key=key, scenario=scenario, warnings=warnings)

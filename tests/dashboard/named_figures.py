"""Every figure builder of :mod:`dashboard.charts`, found by looking, and the inputs to call it
with so that the names in a group (member ids, topics, a label: group id, strategy or phase
label, caption, title) reach its figure.

A builder is a public function of a ``dashboard.charts`` module that returns figures (its
return annotation names ``Figure``) from data (no parameter is a figure). Its inputs come from
its parameters' annotations (:data:`MAKERS`; where one annotation means different things, the
parameter's name decides): a new builder whose parameter no maker knows fails the tests that
use this module with a message naming what to add, so no builder is left unchecked by omission.

Plotly's text reader as Plotly draws it (:func:`plotly_tags`, :func:`plotly_shows`) is modelled
on ``convertToTspans`` of plotly.js: ``<tag ...>`` pieces whose tag Plotly knows become elements,
every other piece is text with its entities decoded.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import pandas as pd
import plotly.graph_objects as go

import dashboard.charts
from assignors import (
    AddMember,
    DeployPlan,
    Evaluation,
    Member,
    MemberProgress,
    Scenario,
    Topic,
    TopicPartition,
    evaluate,
)
from dashboard.charts import animation_chart, assignment_charts, figure_build
from dashboard.model import deploy_model, palette, protocol_timeline, whatif

#: Functions that return a figure but draw no names of their own: what they are given is
#: drawn as given, and the builders that call them are checked.
PLUMBING = {figure_build.trusted_figure: "draws the dicts a builder hands it"}
#: The strategy every input is computed under (a real one: names are what varies).
STRATEGY = "range"


@dataclass(frozen=True)
class Names:
    """The names a group carries: ``members`` (at least two, distinct; the last joins in the
    change), ``topics`` (at least one, distinct) and ``label`` (a group id, a strategy's or a
    phase's label, a caption, a title)."""

    members: tuple[str, ...]
    topics: tuple[str, ...]
    label: str

    def twins(self) -> Names:
        """Names without markup that sort as these do (so the core assigns the same way): the
        same group, as ``member-0007``, ``topic-0002`` and ``label``."""
        return Names(_ranked("member", self.members), _ranked("topic", self.topics), "label")

    def all(self) -> tuple[str, ...]:
        return (*self.members, *self.topics, self.label)

    @cached_property
    def scenario(self) -> Scenario:
        """Every member but the last reads every topic (3 partitions each, some lag), owning
        what a round robin gives it."""
        partitions = [TopicPartition(t, p) for t in self.topics for p in range(3)]
        readers = self.members[:-1]
        owned = {m: tuple(partitions[i :: len(readers)]) for i, m in enumerate(readers)}
        return Scenario(
            tuple(Topic(t, 3, lags=(100, 2_000, 30_000)) for t in self.topics),
            tuple(Member(m, self.topics, owned_partitions=owned[m]) for m in readers),
            name=self.label,
        )

    @cached_property
    def evaluation(self) -> Evaluation:
        """The scenario as the last member joins, under :data:`STRATEGY`."""
        return evaluate(self.scenario, [AddMember(self.members[-1])], [STRATEGY])


def _ranked(stem: str, names: Sequence[str]) -> tuple[str, ...]:
    rank = {name: index for index, name in enumerate(sorted(names))}
    return tuple(f"{stem}-{rank[name]:04d}" for name in names)


def _owners(names: Names) -> dict[str, tuple[TopicPartition, ...]]:
    return {m.member_id: m.owned_partitions for m in names.scenario.members}


def _lags(names: Names) -> dict[str, float]:
    return {m: float(1_000 * (i + 1)) for i, m in enumerate(names.members)}


def _phases(names: Names) -> list[animation_chart.Phase]:
    simulation = names.evaluation.strategy(STRATEGY).simulation
    return animation_chart.rebalance_phases(_owners(names), simulation, names.label)


def _progress(names: Names) -> list[MemberProgress]:
    """Each member keeps a partition, gives one up and waits for another."""
    tps = [TopicPartition(t, p) for t in names.topics for p in range(3)]
    return [
        MemberProgress(m, None, (tps[0], tps[1]), (tps[0], tps[2]), (tps[1],), (tps[2],), False)
        for m in names.members
    ]


def _frames(names: Names, column: str) -> pd.DataFrame:
    """A pipeline table: two readings per member of one group (``label``)."""
    rows = [
        {
            "time": pd.Timestamp("2026-01-01") + pd.Timedelta(minutes=minute),
            "member_id": member,
            "group_id": names.label,
            "strategy": member,
            "lag": 10 * minute + index,
            "lag_total": 100 + minute,
            "worst_member_lag": 50 + minute,
            "lag_cv": 0.5,
            "error": None,
            "status": "OK",
        }
        for index, member in enumerate(names.members)
        for minute in (0, 1)
    ]
    return pd.DataFrame(rows)


#: How to make an argument: by (parameter name, annotation), else by annotation alone. The
#: annotation is as the builder writes it, module prefixes dropped (``Sequence[Phase]``).
MAKERS: dict[str, Callable[[Names], Any]] = {
    "Owners": _owners,
    "Scenario": lambda n: n.scenario,
    "after: Scenario": lambda n: n.evaluation.after,
    "Sequence[str]": lambda n: list(n.members),
    "groups: Sequence[str]": lambda n: [n.label],
    "Sequence[str] | None": lambda n: list(n.members),
    "topics: Sequence[str] | None": lambda n: list(n.topics),
    "Mapping[str, str]": lambda n: palette.member_colours(list(n.members)),
    "Mapping[str, str] | None": lambda n: palette.member_colours(list(n.members)),
    "names: Mapping[str, str] | None": lambda n: {m: m for m in n.members},
    "labels: Mapping[str, str] | None": lambda n: {p: n.label for p in ("classic", "consumer")},
    "str": lambda n: n.label,
    "strategy: str": lambda n: STRATEGY,
    "str | None": lambda n: n.label,
    "bool": lambda n: True,
    "Sequence[Phase]": _phases,
    "Sequence[TopicPartition]": lambda n: [],
    "Sequence[tuple[str, Mapping[str, float]]]": lambda n: [(n.label, _lags(n))],
    "Sequence[tuple[str, Sequence[float]]]": lambda n: [(n.label, sorted(_lags(n).values()))],
    "Sequence[tuple[str, Sequence[float], Sequence[float]]]": lambda n: [
        (n.label, [0.0, 5.0, 10.0], [900.0, 400.0, 0.0])
    ],
    "Sequence[tuple[str, float, float]]": lambda n: [(f"{n.label} pause", 0.0, 3.0)],
    "Sequence[tuple[str, Sequence[ClientTasks]]]": lambda n: [
        (
            n.label,
            [
                assignment_charts.ClientTasks(m, (f"0_{i}",), (f"1_{i}",), ())
                for i, m in enumerate(n.members)
            ],
        )
    ],
    "DeployPicture": lambda n: deploy_model.picture(n.scenario, STRATEGY, DeployPlan()),
    "WhatIf": lambda n: whatif.plan(n.scenario, [{"op": "add_member", "member_id": n.members[-1]}]),
    "Sequence[RunTimeline]": lambda n: protocol_timeline.protocol_timelines(
        n.evaluation.strategy(STRATEGY).protocol_runs(), n.members
    ),
    "Sequence[MemberProgress]": _progress,
    "DataFrame": lambda n: _frames(n, ""),
}


@dataclass(frozen=True)
class Builder:
    """A figure builder and where it lives."""

    module: str
    name: str
    function: Callable[..., Any]

    def __str__(self) -> str:
        return f"{self.module}.{self.name}"

    def figures(self, names: Names) -> list[go.Figure]:
        """Every figure the builder draws for ``names`` (its own parameters' defaults kept
        where no maker knows them)."""
        arguments = {}
        for parameter in inspect.signature(self.function).parameters.values():
            maker = _maker(parameter)
            if maker is not None:
                arguments[parameter.name] = maker(names)
            elif parameter.default is inspect.Parameter.empty:
                raise LookupError(
                    f"{self}: no maker for parameter {parameter.name}: {parameter.annotation};"
                    f" add one to MAKERS in {__name__} that puts the names into it"
                )
        return list(_figures_in(self.function(**arguments)))


def _bare(annotation: str) -> str:
    return re.sub(r"\b[a-z_]+\.", "", str(annotation))


def _maker(parameter: inspect.Parameter) -> Callable[[Names], Any] | None:
    bare = _bare(parameter.annotation)
    return MAKERS.get(f"{parameter.name}: {bare}", MAKERS.get(bare))


def _figures_in(value: Any) -> Iterator[go.Figure]:
    if isinstance(value, go.Figure):
        yield value
    elif isinstance(value, tuple | list):
        for item in value:
            yield from _figures_in(item)


def builders() -> list[Builder]:
    """Every figure builder in :mod:`dashboard.charts` (see the module docstring)."""
    found = []
    for info in pkgutil.iter_modules(dashboard.charts.__path__):
        module = importlib.import_module(f"dashboard.charts.{info.name}")
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if function.__module__ != module.__name__ or name.startswith("_"):
                continue
            if function in PLUMBING:
                continue
            signature = inspect.signature(function)
            takes_figures = any(
                "Figure" in str(p.annotation) for p in signature.parameters.values()
            )
            if "Figure" in str(signature.return_annotation) and not takes_figures:
                found.append(Builder(info.name, name, function))
    return found


# -- Plotly's text reader ------------------------------------------------------------------------

#: The tags Plotly's reader turns into elements (plotly.js ``svg_text_utils``: TAG_STYLES, br).
PLOTLY_TAGS = frozenset({"br", "sup", "sub", "s", "u", "b", "i", "em", "span", "a"})
_PIECES = re.compile(r"(<[^<>]*>)")
_TAG = re.compile(r"<(/?)([^ >]*)(\s+(.*))?>", re.IGNORECASE)
_ENTITY = re.compile(r"&(#\d+|#x[\da-fA-F]+|[a-z]+);")
_NAMED = {"mu": "μ", "amp": "&", "lt": "<", "gt": ">", "nbsp": "\xa0", "times": "×",
          "plusmn": "±", "deg": "°"}  # fmt: skip


def _decoded(text: str) -> str:
    def one(found: re.Match[str]) -> str:
        code = found.group(1)
        if code.startswith("#x"):
            return chr(int(code[2:], 16))
        if code.startswith("#"):
            return chr(int(code[1:]))
        return _NAMED.get(code, found.group(0))

    return _ENTITY.sub(one, text)


def _read(text: str) -> Iterator[tuple[str | None, str]]:
    """``(tag, piece)`` per piece of ``text`` as Plotly reads it: ``tag`` the element Plotly
    makes (``"b"``, ``"/b"``, ``"br"``), ``None`` for text (``piece`` decoded)."""
    for piece in _PIECES.split(re.sub(r"\r\n?|\n", " ", text)):
        found = _TAG.match(piece)
        name = found.group(2).lower() if found else ""
        if found and name in PLOTLY_TAGS:
            yield (("/" if found.group(1) else "") + name, piece)
        elif piece:
            yield None, _decoded(piece)


def plotly_tags(text: str) -> list[str]:
    """The elements Plotly makes of ``text``, in order."""
    return [tag for tag, _ in _read(text) if tag is not None]


def plotly_shows(text: str) -> str:
    """The text Plotly draws for ``text`` (a line break as ``\\n``)."""
    return "".join(
        "\n" if tag == "br" else piece if tag is None else "" for tag, piece in _read(text)
    )


# -- What a figure draws -------------------------------------------------------------------------

#: Keys whose strings Plotly never draws: the slider's and buttons' frame names, trace kinds.
#: (A point's ``ids`` are not drawn either, but they hold names: they are read, escaped.)
NOT_DRAWN = frozenset({"uid", "args", "type", "mode"})
TEMPLATE_KEYS = ("hovertemplate", "texttemplate")


def texts(figure: go.Figure) -> Iterator[tuple[str, str]]:
    """``(key, text)`` of every string Plotly may draw in ``figure`` (frames' names apart)."""
    spec = figure.to_plotly_json()
    frames = [{k: v for k, v in f.items() if k != "name"} for f in spec.get("frames", [])]
    yield from _strings({"data": spec.get("data"), "layout": spec.get("layout"), "f": frames})


def _strings(value: Any, key: str = "") -> Iterator[tuple[str, str]]:
    if key in NOT_DRAWN:
        return
    if isinstance(value, str):
        yield key, value
    elif isinstance(value, dict):
        for child_key, child in value.items():
            yield from _strings(child, child_key)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item, key)
    elif hasattr(value, "tolist"):  # NumPy arrays
        yield from _strings(value.tolist(), key)


def tag_counts(figure: go.Figure) -> Counter[str]:
    """How many of each element Plotly makes over every text of ``figure``."""
    return Counter(tag for _, text in texts(figure) for tag in plotly_tags(text))


def placeholders(figure: go.Figure) -> Counter[str]:
    """How many ``%{...}`` placeholders the templates of ``figure`` hold (what Plotly fills)."""
    return Counter(
        found
        for key, text in texts(figure)
        if key.endswith(TEMPLATE_KEYS)
        for found in re.findall(r"%\{[^}]*\}", text)
    )


def has_meta(figure: go.Figure) -> bool:
    """Whether ``figure`` sets ``meta`` anywhere (Plotly then reads names and titles as
    templates)."""
    spec = figure.to_plotly_json()
    layouts = [spec.get("layout", {}), *(f.get("layout", {}) for f in spec.get("frames", []))]
    traces = [
        *spec.get("data", []),
        *(t for f in spec.get("frames", []) for t in f.get("data", [])),
    ]
    return any("meta" in part for part in [*layouts, *traces])

"""Colours and labels every figure shares: one colour per member, never repeated in a view;
topics with their own palette; black or white text for any fill; short member labels, and
member names as a live group's tables show them (:func:`member_names`).

Invariants: :func:`member_colours` and :func:`topic_colours` give distinct colours for any
number of names (palette first, then generated), never grey (grey means "nobody"), and a
topic's colour is never a member palette colour.
"""

from __future__ import annotations

import colorsys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assignors import Scenario

#: Paul Tol's "muted" qualitative palette (colour-blind safe), then Okabe-Ito without black.
MEMBER_PALETTE: tuple[str, ...] = (
    "#332288",
    "#88CCEE",
    "#44AA99",
    "#117733",
    "#999933",
    "#DDCC77",
    "#CC6677",
    "#882255",
    "#AA4499",
    "#E69F00",
    "#56B4E9",
    "#009E73",
    "#F0E442",
    "#0072B2",
    "#D55E00",
    "#CC79A7",
)
#: Topics' own palette (Paul Tol's "bright"), disjoint from the members'.
TOPIC_PALETTE: tuple[str, ...] = (
    "#4477AA",
    "#EE6677",
    "#228833",
    "#CCBB44",
    "#66CCEE",
    "#AA3377",
    "#1B5E20",
    "#7E57C2",
)
#: Tiles nobody owns (before a fresh group's first assignment, or revoked mid-rebalance).
NOBODY_COLOUR = "#BBBBBB"
MOVED_OUTLINE = "#000000"
#: Colours never handed to a member or topic: grey means "nobody".
RESERVED_COLOURS = frozenset({"#BBBBBB", "#000000", "#FFFFFF"})


def _generated_colour(index: int) -> str:
    """Colour number ``index`` past the palettes: golden-angle hues at three lightness levels,
    so that neighbours differ in hue and every index gets its own colour."""
    hue = (index * 0.618033988749895) % 1.0
    lightness = (0.38, 0.55, 0.70)[index % 3]
    red, green, blue = colorsys.hls_to_rgb(hue, lightness, 0.62)
    return f"#{round(red * 255):02X}{round(green * 255):02X}{round(blue * 255):02X}"


def distinct_colours(count: int, palette: Sequence[str]) -> list[str]:
    """``count`` colours, no two alike: ``palette`` first, then generated ones."""
    chosen: list[str] = []
    seen: set[str] = set()
    index = 0
    while len(chosen) < count:
        colour = palette[index] if index < len(palette) else _generated_colour(index)
        index += 1
        if colour.upper() not in seen and colour.upper() not in RESERVED_COLOURS:
            seen.add(colour.upper())
            chosen.append(colour)
    return chosen


def member_colours(member_ids: Sequence[str]) -> dict[str, str]:
    """One colour per member, by position in ``member_ids``; no colour repeats in one view
    (the palette first, then generated colours), and none is a topic's or grey."""
    return dict(zip(member_ids, distinct_colours(len(member_ids), MEMBER_PALETTE), strict=True))


def topic_colours(topics: Sequence[str]) -> dict[str, str]:
    """One colour per topic from its own palette (never a member's palette colour)."""
    return dict(zip(topics, distinct_colours(len(topics), TOPIC_PALETTE), strict=True))


def text_colour(background: str) -> str:
    """Black or white, whichever reads better on ``background`` (``#RRGGBB``)."""
    red, green, blue = (int(background[i : i + 2], 16) / 255 for i in (1, 3, 5))
    luminance = 0.2126 * red + 0.7152 * green + 0.0722 * blue
    return "#000000" if luminance > 0.5 else "#FFFFFF"


def short_label(text: str, limit: int = 18) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis (the full text goes in the hover)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


_SEPARATORS = "-_./:"


def short_labels(names: Sequence[str], limit: int = 16) -> dict[str, str]:
    """A short, distinct label per name, for axes (the full name goes in the hover).

    Names that all fit stay whole. Otherwise drops the prefix every name shares (up to a
    separator: ``order-service-``), then keeps names up to ``limit`` characters and cuts longer
    ones in the middle (``22-b65a7…e208f``); where two labels would still be equal, both keep
    the whole name.
    """
    if all(len(name) <= limit for name in names):
        return {name: name for name in names}
    common = _common_prefix(names) if len(names) > 1 else ""
    cut = max((common.rfind(sep) for sep in _SEPARATORS), default=-1) + 1
    labels: dict[str, str] = {}
    for name in names:
        rest = name[cut:] or name
        if len(rest) > limit:
            tail = max(4, limit // 3)
            rest = rest[: limit - tail - 1] + "…" + rest[-tail:]
        labels[name] = rest
    counts: dict[str, int] = {}
    for label in labels.values():
        counts[label] = counts.get(label, 0) + 1
    return {name: name if counts[label] > 1 else label for name, label in labels.items()}


def _common_prefix(names: Sequence[str]) -> str:
    """The characters every name starts with."""
    shortest, longest = min(names), max(names)
    length = 0
    while length < len(shortest) and shortest[length] == longest[length]:
        length += 1
    return shortest[:length]


def member_names(scenario: Scenario) -> dict[str, str]:
    """A short name per member: its client id when every member has a distinct one (KIP-848
    member ids are random), else a short form of its member id."""
    clients = [m.client_id for m in scenario.members]
    if all(clients) and len(set(clients)) == len(clients):
        return {m.member_id: str(m.client_id) for m in scenario.members}
    return short_labels([m.member_id for m in scenario.members], 18)

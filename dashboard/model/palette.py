"""Colours and labels every figure shares: one colour per member, never repeated in a view;
topics with their own palette; black or white text for any fill; short member labels, and
member names as a live group's tables show them (:func:`member_names`).

Invariants: :func:`member_colours` and :func:`topic_colours` give distinct colours for any
number of names (palette first, then generated), never grey (grey means "nobody"), and a
topic's colour is never a member palette colour. Among up to 30 members no two colours are
closer than :data:`LEAST_DELTA_E` (CIEDE2000, :func:`delta_e`), nor any to a task role's
(:data:`ROLE_COLOURS`). Every id is shortened one way: :func:`short_labels`.
"""

from __future__ import annotations

import colorsys
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assignors import Scenario

#: Member colours: no two of the first 30 closer than :data:`LEAST_DELTA_E` (CIEDE2000), none
#: that close to a task role's colour, to grey, black or white. Paul Tol's "muted" and the
#: Okabe-Ito colours that keep that distance first (colour-blind safe), then the sRGB colours
#: (lightness 35-82, chroma 30 and up: they read on a light and a dark page, and are no grey)
#: farthest from every colour already taken, one at a time.
MEMBER_PALETTE: tuple[str, ...] = (
    "#44AA99",
    "#117733",
    "#999933",
    "#CC6677",
    "#882255",
    "#AA4499",
    "#E69F00",
    "#0072B2",
    "#D55E00",
    "#FF99FF",
    "#665500",
    "#00DD44",
    "#AA0011",
    "#FFAA88",
    "#8877FF",
    "#7722FF",
    "#884400",
    "#BBBBFF",
    "#FFAABB",
    "#666699",
    "#EE22FF",
    "#008899",
    "#FF0022",
    "#99BB88",
    "#997744",
    "#AA88BB",
    "#4499FF",
    "#449900",
    "#44DDAA",
    "#55DDDD",
)
#: The least colour difference (CIEDE2000) between two member colours on one screen, and
#: between a member's colour and a task role's.
LEAST_DELTA_E = 15.0
#: A Kafka Streams task's role: one scheme everywhere, no member colour near any of them.
ROLE_COLOURS: dict[str, str] = {"active": "#332288", "standby": "#88CCEE", "warm-up": "#DDCC77"}
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
#: Colours never handed to a member or topic: grey means "nobody"; the roles keep theirs.
RESERVED_COLOURS = frozenset({"#BBBBBB", "#000000", "#FFFFFF", *ROLE_COLOURS.values()})


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


def _linear(channel: float) -> float:
    return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4


def _lab(colour: str) -> tuple[float, float, float]:
    """``#RRGGBB`` (sRGB, D65) in CIELAB."""
    red, green, blue = (_linear(int(colour[i : i + 2], 16) / 255) for i in (1, 3, 5))
    x = (0.4124564 * red + 0.3575761 * green + 0.1804375 * blue) / 0.95047
    y = 0.2126729 * red + 0.7151522 * green + 0.0721750 * blue
    z = (0.0193339 * red + 0.1191920 * green + 0.9503041 * blue) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def delta_e(first: str, second: str) -> float:
    """How different two ``#RRGGBB`` colours look: CIEDE2000 (about 1: just noticeable)."""
    return delta_e_lab(_lab(first), _lab(second))


def delta_e_lab(first: tuple[float, float, float], second: tuple[float, float, float]) -> float:
    """CIEDE2000 between two CIELAB colours (Sharma, Wu and Dalal's formulation)."""
    (l1, a1, b1), (l2, a2, b2) = first, second
    mean_c = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(mean_c**7 / (mean_c**7 + 25**7)))
    a1, a2 = (1 + g) * a1, (1 + g) * a2
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    h1 = math.degrees(math.atan2(b1, a1)) % 360
    h2 = math.degrees(math.atan2(b2, a2)) % 360
    turn = h2 - h1 if abs(h2 - h1) <= 180 else h2 - h1 - math.copysign(360, h2 - h1)
    turn = 0.0 if c1 * c2 == 0 else turn
    d_h = 2 * math.sqrt(c1 * c2) * math.sin(math.radians(turn / 2))
    mean_l, mean_cp = (l1 + l2) / 2, (c1 + c2) / 2
    mean_h = h1 + h2 if c1 * c2 == 0 else (h1 + h2) / 2
    if c1 * c2 != 0 and abs(h1 - h2) > 180:
        mean_h += 180 if h1 + h2 < 360 else -180
    t = (
        1
        - 0.17 * math.cos(math.radians(mean_h - 30))
        + 0.24 * math.cos(math.radians(2 * mean_h))
        + 0.32 * math.cos(math.radians(3 * mean_h + 6))
        - 0.20 * math.cos(math.radians(4 * mean_h - 63))
    )
    rotation = 30 * math.exp(-(((mean_h - 275) / 25) ** 2))
    r_c = 2 * math.sqrt(mean_cp**7 / (mean_cp**7 + 25**7))
    s_l = 1 + 0.015 * (mean_l - 50) ** 2 / math.sqrt(20 + (mean_l - 50) ** 2)
    s_c, s_h = 1 + 0.045 * mean_cp, 1 + 0.015 * mean_cp * t
    r_t = -math.sin(math.radians(2 * rotation)) * r_c
    dl, dc, dh = (l2 - l1) / s_l, (c2 - c1) / s_c, d_h / s_h
    return math.sqrt(dl**2 + dc**2 + dh**2 + r_t * dc * dh)


def text_colour(background: str) -> str:
    """Black or white, whichever reads better on ``background`` (``#RRGGBB``)."""
    red, green, blue = (int(background[i : i + 2], 16) / 255 for i in (1, 3, 5))
    luminance = 0.2126 * red + 0.7152 * green + 0.0722 * blue
    return "#000000" if luminance > 0.5 else "#FFFFFF"


def short_label(text: str, limit: int = 18) -> str:
    """``text`` shortened as :func:`short_labels` shortens any one name (the full text goes in
    the hover)."""
    return short_labels([text], limit)[text]


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

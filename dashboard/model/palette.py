"""Colours and labels every figure shares: one colour per member, never repeated in a view;
topics with their own palette; black or white text for any fill; short member labels, and
member names as a live group's tables show them (:func:`member_names`).

Invariants: :func:`member_colours` and :func:`topic_colours` give distinct colours for any
number of names (palette first, then generated), never grey (grey means "nobody"), and a
topic's colour is never a member palette colour. Among up to 30 members no two colours are
closer than :data:`LEAST_DELTA_E` (CIEDE2000, :func:`delta_e`), nor any to a task role's
(:data:`ROLE_COLOURS`). Contrast (WCAG 2, :func:`contrast_ratio`): a label on any fill
(:func:`text_colour`) reads at :data:`LEAST_TEXT_CONTRAST` or more; the first
:data:`BOTH_THEMES_COUNT` member colours, the roles' and the trail's stand out at
:data:`LEAST_MARK_CONTRAST` on both page backgrounds (:data:`PAGE_BACKGROUNDS`). A lesson's
member keeps its colour at every step: colours are dealt over its :func:`walkthrough_roster`.
Every id is shortened one way: :func:`short_labels`.
"""

from __future__ import annotations

import colorsys
import math
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from assignors import AddMember

if TYPE_CHECKING:
    from assignors import Scenario, WalkthroughStep

#: Member colours: no two of the first 30 closer than :data:`LEAST_DELTA_E` (CIEDE2000), none
#: that close to a task role's colour, to grey, black or white. The first
#: :data:`BOTH_THEMES_COUNT` stand out on either page (contrast at least
#: :data:`LEAST_MARK_CONTRAST` against the light and the dark background: a tile's border, a
#: swatch, a bar never fades into the page): Paul Tol's "muted" colours that do, then the sRGB
#: colours that do, farthest from every colour already taken, one at a time. Then the rest of
#: Tol's and the Okabe-Ito colours that keep the distance, then colours picked the same way
#: (lightness 35-82, chroma 30 and up). A lesson's members (a handful) all get colours of the
#: first kind.
MEMBER_PALETTE: tuple[str, ...] = (
    "#117733",
    "#999933",
    "#CC6677",
    "#AA4499",
    "#7722FF",
    "#EE22FF",
    "#FF0022",
    "#AA88BB",
    "#449900",
    "#885533",
    "#666600",
    "#559988",
    "#556655",
    "#886677",
    "#0088EE",
    "#BB2244",
    "#BB8877",
    "#007777",
    "#882255",
    "#FF99FF",
    "#00DD44",
    "#BBBBFF",
    "#FFAABB",
    "#99BB88",
    "#44DDAA",
    "#55DDDD",
    "#FFBB00",
    "#77CCFF",
    "#FFBB88",
    "#AA1100",
)
#: How many of :data:`MEMBER_PALETTE`'s colours, from the first, read on both pages.
BOTH_THEMES_COUNT = 18
#: The least colour difference (CIEDE2000) between two member colours on one screen, and
#: between a member's colour and a task role's.
LEAST_DELTA_E = 15.0
#: A Kafka Streams task's role: one scheme everywhere, no member colour near any of them.
#: Each reads on either page (contrast at least :data:`LEAST_MARK_CONTRAST` against both
#: backgrounds; the indigo active tasks had once all but vanished on the dark one).
ROLE_COLOURS: dict[str, str] = {"active": "#5566CC", "standby": "#0099BB", "warm-up": "#CC7711"}
#: Topics' own palette, disjoint from the members': light colours (black labels read on each at
#: 11:1 or more) that a member's border around a tile stands out from (CIEDE2000 at least
#: :data:`LEAST_TOPIC_DELTA_E` from the first :data:`BOTH_THEMES_COUNT` member colours, and
#: between topics).
TOPIC_PALETTE: tuple[str, ...] = (
    "#99DDFF",
    "#EEDD88",
    "#FFAACC",
    "#BBCC33",
    "#CCBBFF",
    "#EEBB99",
    "#77DDCC",
    "#88FF99",
)
#: The least colour difference between two topics' colours, and between a topic's colour and
#: one of the first :data:`BOTH_THEMES_COUNT` member colours (a tile's fill and its border).
LEAST_TOPIC_DELTA_E = 12.0
#: Tiles nobody owns (before a fresh group's first assignment, or revoked mid-rebalance).
NOBODY_COLOUR = "#BBBBBB"
MOVED_OUTLINE = "#000000"
#: The dashed trail from where a moved tile was to where it is: mid grey, which keeps
#: :data:`LEAST_MARK_CONTRAST` against both page backgrounds.
TRAIL_COLOUR = "#808080"
#: Points that stand for no member (a group of the fleet, say): Paul Tol's bright blue, which
#: keeps :data:`LEAST_MARK_CONTRAST` on both pages (the indigo it replaced was 1.5:1 on dark).
POINT_COLOUR = "#4477AA"
#: The page backgrounds of the light and the dark theme (``.streamlit/config.toml``; a test
#: keeps the two in step): every figure draws on one of them.
PAGE_BACKGROUNDS: dict[str, str] = {"light": "#FFFFFF", "dark": "#0F1319"}
#: WCAG 2 level AA: the least contrast of text with its background, and of a mark (a border,
#: a swatch, a line) with what it is drawn on.
LEAST_TEXT_CONTRAST = 4.5
LEAST_MARK_CONTRAST = 3.0
#: Colours never handed to a member or topic: grey means "nobody"; the roles keep theirs.
RESERVED_COLOURS = frozenset({"#BBBBBB", "#000000", "#FFFFFF", *ROLE_COLOURS.values()})


def _generated_colour(index: int) -> str:
    """Colour number ``index`` past the palettes: golden-angle hues at three lightness levels,
    so that neighbours differ in hue and every index gets its own colour."""
    hue = (index * 0.618033988749895) % 1.0
    lightness = (0.38, 0.55, 0.70)[index % 3]
    red, green, blue = colorsys.hls_to_rgb(hue, lightness, 0.62)
    return f"#{round(red * 255):02X}{round(green * 255):02X}{round(blue * 255):02X}"


#: Palette indices past which the golden-angle colours (:func:`_generated_colour`) are no longer
#: tried: their 8-bit roundings give about 2,100 colours in all (the last new one at index
#: 5,749), and looking further for a new one never ended (4,000 members hung the page).
GOLDEN_END = 6_000
#: An odd step: ``k * SPREAD`` modulo 2**24 meets every 24-bit colour once as ``k`` counts up,
#: neighbours far apart.
SPREAD = 0x9E3779
_RGB_COLOURS = 1 << 24


def colour_candidates(palette: Sequence[str]) -> Iterator[str]:
    """The colours :func:`distinct_colours` tries, in order: ``palette``, golden-angle colours up
    to :data:`GOLDEN_END`, then every 24-bit colour once (spread by :data:`SPREAD`)."""
    yield from palette
    for index in range(len(palette), GOLDEN_END):
        yield _generated_colour(index)
    for step in range(_RGB_COLOURS):
        yield f"#{step * SPREAD % _RGB_COLOURS:06X}"


def distinct_colours(count: int, palette: Sequence[str]) -> list[str]:
    """``count`` colours, no two alike: ``palette`` first, then generated ones.

    Linear in ``count``: each candidate is tried once, and past the first :data:`GOLDEN_END`
    candidates each is a colour not tried before, so at most ``count`` plus the colours already
    taken (and the reserved ones) are passed over. ``ValueError`` past the 24-bit colours.
    """
    chosen: list[str] = []
    seen: set[str] = set()
    candidates = colour_candidates(palette)
    while len(chosen) < count:
        colour = next(candidates, None)
        if colour is None:
            raise ValueError(f"{count:,} colours asked for; there are not that many")
        if colour.upper() not in seen and colour.upper() not in RESERVED_COLOURS:
            seen.add(colour.upper())
            chosen.append(colour)
    return chosen


def member_colours(member_ids: Sequence[str]) -> dict[str, str]:
    """One colour per member, by position in ``member_ids``; no colour repeats in one view
    (the palette first, then generated colours), and none is a topic's or grey. Pass a
    :func:`roster` (a lesson's: :func:`walkthrough_roster`) rather than the members on screen
    to keep a member's colour when others join or leave."""
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


def relative_luminance(colour: str) -> float:
    """WCAG 2's relative luminance of ``#RRGGBB`` (0: black, 1: white)."""
    red, green, blue = (_linear(int(colour[i : i + 2], 16) / 255) for i in (1, 3, 5))
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast_ratio(first: str, second: str) -> float:
    """WCAG 2's contrast ratio of two ``#RRGGBB`` colours, from 1 (the same) to 21."""
    lighter, darker = sorted((relative_luminance(first), relative_luminance(second)))[::-1]
    return (lighter + 0.05) / (darker + 0.05)


def text_colour(background: str) -> str:
    """Black or white, whichever contrasts more with ``background`` (``#RRGGBB``): at least
    4.58:1 on any colour (the two ratios multiply to 21), so above :data:`LEAST_TEXT_CONTRAST`."""
    on_black = contrast_ratio(background, "#000000")
    return "#000000" if on_black >= contrast_ratio(background, "#FFFFFF") else "#FFFFFF"


def roster(*groups: Iterable[str]) -> list[str]:
    """Every member id of ``groups``, once, in the order first met: the list colours are dealt
    over, so that adding a later group never changes an earlier id's colour."""
    return list(dict.fromkeys(member for group in groups for member in group))


def walkthrough_roster(members: Sequence[str], steps: Sequence[WalkthroughStep]) -> list[str]:
    """Every member a walkthrough (a lesson) ever shows: the group's ``members`` as shipped,
    then each member a step adds, in step order.

    Colours dealt over it (:func:`member_colours`) are the same at every step, in every view
    and export of the walkthrough, whoever leaves or comes back: a member's colour depends on
    where it first appears in the lesson, never on the members on screen.
    """
    joining = (
        change.member_id
        for step in steps
        for change in step.changes
        if isinstance(change, AddMember)
    )
    return roster(members, joining)


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

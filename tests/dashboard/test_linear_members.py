"""Work on a group's members grows linearly with the members (issue 41, part 5).

Found by a link whose edits add 20,000 members to a 6-partition sample: dealing the member
colours never ended past about 2,160 members (the golden-angle colours round to ~2,100 distinct
8-bit colours, and the search for another one went on for ever), and adding the members one at a
time copied the member tuple each time (20,000 members took ~4 s of the server's thread, 100,000
about a minute and a half). The colours are checked by counting the candidates tried, without a
clock; adding members by CPU time of n against 4n with a bound a quadratic step cannot meet.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from assignors import AddMembers, apply_in_order
from dashboard.model import palette
from dashboard.session import samples

PALETTES = st.sampled_from([palette.MEMBER_PALETTE, palette.TOPIC_PALETTE, ()])


@settings(max_examples=25, deadline=None)
@given(count=st.integers(0, 30_000), colours=PALETTES)
def test_colours_are_distinct_and_each_candidate_is_tried_once_at_most(
    count: int, colours: Sequence[str]
) -> None:
    tried = [0]
    original = palette.colour_candidates

    def counted(given_palette: Sequence[str]) -> Iterator[str]:
        for colour in original(given_palette):
            tried[0] += 1
            yield colour

    with mock.patch.object(palette, "colour_candidates", counted):
        dealt = palette.distinct_colours(count, colours)
    assert len(dealt) == count
    assert len({colour.upper() for colour in dealt}) == count
    assert not {colour.upper() for colour in dealt} & palette.RESERVED_COLOURS
    # Linear: a fixed head (palette and golden-angle colours), then each colour passed over is
    # one taken already or reserved.
    head = max(palette.GOLDEN_END, len(colours))
    assert tried[0] <= head + 2 * count + len(palette.RESERVED_COLOURS)


def test_the_first_colours_are_those_dealt_before() -> None:
    """The palette and golden-angle colours come first, unchanged (lessons keep their colours)."""
    dealt = palette.distinct_colours(40, palette.MEMBER_PALETTE)
    assert dealt[: len(palette.MEMBER_PALETTE)] == list(palette.MEMBER_PALETTE)
    assert dealt[len(palette.MEMBER_PALETTE)] == palette._generated_colour(
        len(palette.MEMBER_PALETTE)
    )


def test_a_hundred_thousand_members_get_a_colour_each() -> None:
    ids = [f"member-{number}" for number in range(100_000)]
    colours = palette.member_colours(ids)
    assert len(set(colours.values())) == len(ids)


def _cpu_to_add(count: int) -> float:
    scenario = samples.sample_source("range-vs-roundrobin").scenario
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        grown = apply_in_order(scenario, [AddMembers(count)])
        best = min(best, time.process_time() - started)
        assert len(grown.members) == len(scenario.members) + count
    return best


def test_adding_members_grows_linearly() -> None:
    """4x the members costs well under the 16x of a quadratic step (the best of three runs each,
    with room for a loaded machine)."""
    small, large = _cpu_to_add(5_000), _cpu_to_add(20_000)
    assert large < 9 * small + 0.05, (small, large)

"""A lesson's member keeps its colour through every step (issue 37: C2 was light blue in step 2
and teal in step 5, colours being dealt by position among the members on screen): colours are
dealt over the walkthrough's roster, every member it ever shows in the order first met."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

import sample_data
from assignors import AddMember, RemoveMember, WalkthroughStep
from dashboard.model import palette, whatif
from dashboard.panels import layout, teach_panel
from dashboard.session import samples

POOL = [f"C{number}" for number in range(40)]


@st.composite
def lessons(draw: st.DrawFn) -> tuple[list[str], list[WalkthroughStep], list[list[str]]]:
    """A group and 1-12 steps, each some members leaving and some (new or back) joining; with
    the members on screen at each step (at most 30)."""
    first = draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=12, unique=True))
    present = list(first)
    steps: list[WalkthroughStep] = []
    screens = [list(present)]
    for _ in range(draw(st.integers(1, 12))):
        leaving = draw(st.lists(st.sampled_from(present), unique=True, max_size=len(present) - 1))
        absent = [m for m in POOL if m not in present]
        room = 30 - len(present) + len(leaving)
        joining = draw(st.lists(st.sampled_from(absent), unique=True, max_size=min(room, 5)))
        changes = [RemoveMember(m) for m in leaving] + [AddMember(m, ("t",)) for m in joining]
        steps.append(WalkthroughStep("step", "text", tuple(changes)))
        present = [m for m in present if m not in leaving] + joining
        screens.append(list(present))
    return first, steps, screens


@settings(max_examples=150, deadline=None)
@given(lessons())
def test_a_members_colour_never_changes_and_members_on_screen_stay_distinct(
    lesson: tuple[list[str], list[WalkthroughStep], list[list[str]]],
) -> None:
    first, steps, screens = lesson
    roster = palette.walkthrough_roster(first, steps)
    seen: dict[str, str] = {}
    for screen in screens:
        # What the page deals on each step: the roster first, then the members on screen.
        colours = palette.member_colours(palette.roster(roster, screen))
        on_screen = [colours[member] for member in screen]
        assert len(set(on_screen)) == len(on_screen)
        for a, b in itertools.combinations(on_screen, 2):
            assert palette.delta_e(a, b) >= palette.LEAST_DELTA_E or len(roster) > 30
        for member in screen:
            assert seen.setdefault(member, colours[member]) == colours[member], member
            assert colours[member] not in palette.ROLE_COLOURS.values()


def test_c2_keeps_its_colour_when_it_leaves_and_comes_back() -> None:
    """The issue's own case, through the page's member layout at each step of the sample."""
    key = "member-leaves-roundrobin-vs-sticky"
    steps = sample_data.load_sample(key).walkthrough
    colour_of: dict[str, set[str]] = {}
    for index, step in enumerate(steps):
        source = samples.sample_source(key, index)
        plan = whatif.plan(source.scenario, teach_panel.step_edits(step))
        order, colours = layout.member_layout(source.scenario, plan, layout.colour_roster(source))
        for member in order:
            colour_of.setdefault(member, set()).add(colours[member])
    assert set(colour_of) == {"C1", "C2", "C3"}
    assert all(len(used) == 1 for used in colour_of.values()), colour_of
    assert len({next(iter(used)) for used in colour_of.values()}) == 3


def test_the_roster_is_the_group_then_the_joiners_in_order() -> None:
    steps = [
        WalkthroughStep("a", "", (RemoveMember("B"), AddMember("D", ("t",)))),
        WalkthroughStep("b", "", (AddMember("B", ("t",)), AddMember("E", ("t",)))),
    ]
    assert palette.walkthrough_roster(["A", "B", "C"], steps) == ["A", "B", "C", "D", "E"]
    assert palette.roster(["A", "B"], ["C", "A"], ["D"]) == ["A", "B", "C", "D"]

"""A scenario's subscribed topics: every name some member lists, whatever the listing order."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from assignors.model import Member, Scenario, Topic

_NAMES = st.sampled_from(["a", "b", "c", "gone"])


@given(st.lists(st.lists(_NAMES, max_size=4), max_size=6))
def test_subscribed_topics_is_the_union_of_every_members_topics(
    subscriptions: list[list[str]],
) -> None:
    """Runs of equal subscriptions (skipped after the first) and missing topics included."""
    members = tuple(
        Member(member_id=f"m{index}", topics=tuple(topics))
        for index, topics in enumerate(subscriptions + subscriptions[-1:])
    )
    scenario = Scenario(topics=(Topic("a", 2), Topic("b", 1), Topic("c", 3)), members=members)
    assert scenario.subscribed_topics() == {name for m in members for name in m.topics}

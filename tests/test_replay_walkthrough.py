"""What :func:`sample_data.replay_walkthrough` carries from one walkthrough step to the next.

Specification: a step shows the group *after* the step's rebalance, so its answer is where the
group settles, and that answer is what the members own when the next step's change applies.
For an eager or consumer-protocol strategy that is the strategy's one answer. For a cooperative
strategy (KIP-429) one rebalance is played round after round: round 1 withholds every partition
that moves to a new owner while its old owner revokes it, and the follow-up round hands it over.
The group settles on the last round, which assigns every partition of a subscribed topic, so a
step's answer is that last round, never round 1.

Checked as:

* a worked example: a fourth member joins three under ``cooperative-sticky``; it holds its
  share at the step that adds it, and the next step starts from that;
* a property over generated groups and walkthroughs of joins and leaves, for every partition
  strategy: each step's answer is the target :func:`assignors.evaluate` gives for the same change
  from the step before (the answer the dashboard shows for that change), and every partition of a
  subscribed topic has exactly one owner (share groups: at least one).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

import sample_data
from assignors import evaluate, registry
from assignors.io.walkthrough import WalkthroughStep
from assignors.model import Assignment, Member, Scenario, Topic, TopicPartition
from assignors.simulate.changes import AddMember, RemoveMember, with_current_ownership

#: Share groups (KIP-932) may give one partition to several members.
SHARING = {"share-simple"}
PARTITION_STRATEGIES = sorted(registry.partition_strategies())


def _group(members: int, partitions: int) -> Scenario:
    return Scenario(
        topics=(Topic("orders", partitions),),
        members=tuple(Member(f"C{index}", ("orders",)) for index in range(1, members + 1)),
    )


def _owners(scenario: Scenario, assignment: Assignment) -> Counter[TopicPartition]:
    """How many members own each partition of a topic some member subscribes to."""
    subscribed = {topic for member in scenario.members for topic in member.topics}
    counts: Counter[TopicPartition] = Counter(
        {
            TopicPartition(topic.name, index): 0
            for topic in scenario.topics
            if topic.name in subscribed
            for index in range(topic.partitions)
        }
    )
    for partitions in assignment.partitions.values():
        counts.update(partitions)
    return counts


def test_a_member_joining_under_cooperative_sticky_holds_its_share_at_its_step() -> None:
    group = _group(members=3, partitions=6)
    steps = [
        WalkthroughStep("C4 joins", "", changes=(AddMember("C4", ("orders",)),)),
        WalkthroughStep("C5 joins", "", changes=(AddMember("C5", ("orders",)),)),
    ]
    states = sample_data.replay_walkthrough(group, steps, "cooperative-sticky")
    joined = states[0].assignment.partitions
    assert sorted(len(partitions) for partitions in joined.values()) == [1, 1, 2, 2]
    assert len(joined["C4"]) >= 1
    # The next step starts from C4 owning its share: it is not handed out again.
    owned_before = with_current_ownership(states[0].scenario, states[0].assignment)
    c4 = next(member for member in owned_before.members if member.member_id == "C4")
    assert set(c4.owned_partitions) == set(joined["C4"])
    assert set(_owners(states[1].scenario, states[1].assignment).values()) == {1}


GROUPS = st.builds(
    lambda members, partitions: _group(members, partitions),
    st.integers(1, 6),
    st.integers(1, 12),
)


@st.composite
def walkthroughs(draw: st.DrawFn) -> tuple[Scenario, list[WalkthroughStep]]:
    """A group and 1-4 steps, each one member joining or leaving (never the last one)."""
    group = draw(GROUPS)
    present = [member.member_id for member in group.members]
    steps: list[WalkthroughStep] = []
    for number in range(draw(st.integers(1, 4))):
        if len(present) > 1 and draw(st.booleans()):
            leaving = draw(st.sampled_from(present))
            present.remove(leaving)
            steps.append(WalkthroughStep(f"{leaving} leaves", "", (RemoveMember(leaving),)))
        else:
            joining = f"N{number}"
            present.append(joining)
            joins = (AddMember(joining, ("orders",)),)
            steps.append(WalkthroughStep(f"{joining} joins", "", joins))
    return group, steps


@settings(max_examples=60, deadline=None)
@given(walkthrough=walkthroughs(), strategy=st.sampled_from(PARTITION_STRATEGIES))
def test_every_step_shows_where_the_group_settles(
    walkthrough: tuple[Scenario, list[WalkthroughStep]], strategy: str
) -> None:
    group, steps = walkthrough
    group = replace(group, assignor=strategy)  # the first "before": the group under ``strategy``
    states = sample_data.replay_walkthrough(group, steps, strategy)
    before, previous = group, None
    for step, state in zip(steps, states, strict=True):
        evaluation = evaluate(before, step.changes, [strategy], previous=previous)
        settled = evaluation.strategy(strategy).target
        assert state.assignment.partitions == settled.partitions, step.title
        owners = set(_owners(state.scenario, state.assignment).values())
        assert 0 not in owners, f"{step.title}: a partition has no owner"
        assert strategy in SHARING or owners == {1}, f"{step.title}: a partition owned twice"
        before, previous = state.scenario, state.assignment


@settings(max_examples=40, deadline=None)
@given(walkthrough=walkthroughs(), narrating=st.lists(st.integers(0, 4), max_size=3))
def test_a_step_starts_from_the_group_the_steps_before_leave(
    walkthrough: tuple[Scenario, list[WalkthroughStep]], narrating: list[int]
) -> None:
    """:func:`sample_data.step_before`: step 0 starts from the group as shipped; a step that
    rebalances from the group the steps before it leave, owning what they settled on; a step
    that only narrates (inserted at generated places) from where the step before it started."""
    group, changing = walkthrough
    steps = list(changing)
    for at in sorted(narrating, reverse=True):
        steps.insert(min(at, len(steps)), WalkthroughStep("narrates", ""))
    states = sample_data.replay_walkthrough(group, steps)
    befores = [sample_data.step_before(group, steps, i) for i in range(len(steps))]
    assert befores[0] == group
    for index in range(1, len(steps)):
        if steps[index].rebalances:
            settled = states[index - 1]
            owning = with_current_ownership(settled.scenario, settled.assignment)
            assert befores[index] == owning
        else:
            assert befores[index] == befores[index - 1]

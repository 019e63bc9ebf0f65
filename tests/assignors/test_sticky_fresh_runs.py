"""The sticky strategies on a fresh group answer with runs.

When every subscription is the same and no member keeps a claim (a fresh group, or every claim
void), without racks and where Java's topic order is Python's, step 2b deals round-robin round
all ``n`` members in Java order: the ``j``-th gets every ``n``-th partition from the ``j``-th on.
Per topic that is a range of step ``n``, so the answer is held as :class:`PartitionRuns` (when
they are compact: at least ``_PARTITIONS_PER_RUN`` partitions per run on average). Worked
examples, then a property: on generated fresh groups, the runs answer equals the answer step 2b
deals partition by partition (the tuple path, forced), and so does what round 1 of
cooperative-sticky hands out and what is transferring.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st

from assignors.client import sticky
from assignors.client.cooperative_sticky import assign_with_target
from assignors.client.sticky import COOPERATIVE_RULES, STICKY_RULES, sticky_assign
from assignors.model import Member, PartitionRuns, Scenario, Topic, TopicPartition
from assignors.trace import DecisionTrace

TP = TopicPartition
#: Java orders this member id or topic name (a surrogate pair, 0xD83D...) before ``"\uffff"``;
#: Python orders it after (code point 0x1F600).
ASTRAL = "\U0001f600"


@contextmanager
def runs_when_fresh(partitions_per_run: int) -> Iterator[None]:
    """0: every fresh group answers with runs; a huge number: none does (the tuple path)."""
    with patch.object(sticky, "_PARTITIONS_PER_RUN", partitions_per_run):
        yield


ALWAYS, NEVER = 0, 10**12


def group(counts: dict[str, int], member_ids: list[str], **claims: Any) -> Scenario:
    topics = tuple(Topic(name, count) for name, count in counts.items())
    names = tuple(counts)
    return Scenario(topics, tuple(Member(m, names, **claims.get(m, {})) for m in member_ids))


# --- worked examples ----------------------------------------------------------------------------


def test_counts_that_are_multiples_of_the_members_give_one_run_each() -> None:
    """3 topics x 128 partitions, 2 members: the first gets the even partitions of every topic,
    the second the odd ones; 192 partitions in a run, so runs."""
    answer = sticky_assign(group({"a": 128, "b": 128, "c": 128}, ["m1", "m0"])).assignment
    assert isinstance(answer["m0"], PartitionRuns) and isinstance(answer["m1"], PartitionRuns)
    assert answer["m0"].runs == ((("a", "b", "c"), range(0, 128, 2)),)
    assert answer["m1"].runs == ((("a", "b", "c"), range(1, 128, 2)),)
    assert answer["m1"][:3] == (TP("a", 1), TP("a", 3), TP("a", 5))
    assert answer["m1"][-1] == TP("c", 127) and len(answer["m1"]) == 192


def test_the_benchmark_shape_is_one_run_of_every_topic_per_member() -> None:
    """500 topics x 2,000 partitions over 2,000 members (versus_java's large fresh group):
    each member one partition of every topic, one run, no partition made."""
    counts = {f"topic-{t:03d}": 2_000 for t in range(500)}
    member_ids = [f"consumer-{m:04d}" for m in range(2_000)]
    answer = sticky_assign(group(counts, member_ids)).assignment
    runs = answer["consumer-0007"]
    assert isinstance(runs, PartitionRuns) and runs.runs == ((tuple(counts), range(7, 8)),)
    assert len(runs) == 500 and sum(map(len, answer.values())) == 1_000_000


def test_uneven_counts_deal_on_across_topics() -> None:
    """a: 3, b: 2 over 2 members: the deal runs a0 a1 a2 b0 b1, so b starts at the second
    member. Five partitions in four runs: too few per run, tuples unless runs are forced."""
    scenario = group({"a": 3, "b": 2}, ["m0", "m1"])
    assert type(sticky_assign(scenario).assignment["m0"]) is not PartitionRuns
    with runs_when_fresh(ALWAYS):
        answer = sticky_assign(scenario).assignment
    assert answer["m0"].runs == ((("a",), range(0, 3, 2)), (("b",), range(1, 2)))  # type: ignore[attr-defined]
    assert answer["m1"].runs == ((("a",), range(1, 2)), (("b",), range(0, 1)))  # type: ignore[attr-defined]
    assert answer["m0"] == (TP("a", 0), TP("a", 2), TP("b", 1))


def test_more_members_than_partitions_leaves_the_last_ones_empty() -> None:
    with runs_when_fresh(ALWAYS):
        answer = sticky_assign(group({"a": 2}, ["m2", "m0", "m1"])).assignment
    assert answer == {"m0": (TP("a", 0),), "m1": (TP("a", 1),), "m2": ()}
    assert all(isinstance(runs, PartitionRuns) for runs in answer.values())


def test_members_are_dealt_in_javas_order() -> None:
    """Java puts the astral member id first; the deal follows it."""
    with runs_when_fresh(ALWAYS):
        answer = sticky_assign(group({"a": 4}, ["\uffff", ASTRAL])).assignment
    assert answer[ASTRAL] == (TP("a", 0), TP("a", 2)) and answer["\uffff"] == (
        TP("a", 1),
        TP("a", 3),
    )


def test_topics_in_another_order_in_java_and_traces_take_the_tuple_path() -> None:
    with runs_when_fresh(ALWAYS):
        scenario = group({"\uffff": 2, ASTRAL: 2}, ["m0", "m1"])
        answer = sticky_assign(scenario).assignment
        assert not isinstance(answer["m0"], PartitionRuns)
        assert tuple(answer["m0"]) == (TP(ASTRAL, 0), TP("\uffff", 0))  # Java's order: astral first
        traced = sticky_assign(group({"a": 4}, ["m0", "m1"]), trace=DecisionTrace()).assignment
        assert not isinstance(traced["m0"], PartitionRuns)
        assert traced["m0"] == (TP("a", 0), TP("a", 2))


def test_a_claim_both_members_void_is_dealt_and_withheld_for_a_round() -> None:
    """m0 and m1 both claim a-1 in the same generation: nobody keeps it, the deal gives it to
    m1, and cooperative-sticky withholds it from m1 for one round."""
    both = {"owned_partitions": (TP("a", 1),), "generation": 3}
    scenario = group({"a": 4, "b": 4}, ["m0", "m1"], m0=both, m1=both)
    with runs_when_fresh(ALWAYS):
        outcome = sticky_assign(scenario, COOPERATIVE_RULES)
        round1, target = assign_with_target(scenario)
    assert isinstance(outcome.assignment["m1"], PartitionRuns)
    assert outcome.transferring == {TP("a", 1): "m1"}
    assert target["m1"] == (TP("a", 1), TP("a", 3), TP("b", 1), TP("b", 3))
    assert round1["m1"] == [TP("a", 3), TP("b", 1), TP("b", 3)] and round1["m0"] is target["m0"]


# --- properties ---------------------------------------------------------------------------------

NAMES = ("a", "b", "c", "d", "e", "f", "\uffff", ASTRAL)


@st.composite
def fresh_groups(draw: st.DrawFn) -> Scenario:
    """Everyone subscribed to the same topics; no claims, or only claims two members void."""
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=6, unique=True))
    counts = {name: draw(st.sampled_from((1, 2, 3, 4, 5, 6, 8, 9, 12))) for name in names}
    member_ids = draw(
        st.lists(st.text(alphabet=f"ab01\uffff{ASTRAL}", min_size=1, max_size=3),
                 min_size=1, max_size=9, unique=True)
    )  # fmt: skip
    partitions = [TP(name, p) for name, count in counts.items() for p in range(count)]
    void = tuple(sorted(draw(st.sets(st.sampled_from(partitions), max_size=4))))
    # Without a generation, the claims meet at the same generation under both rules (the eager
    # assignor voids only those): nobody keeps them.
    claims = {m: {"owned_partitions": void} for m in member_ids[:2]} if len(member_ids) > 1 else {}
    return group(counts, member_ids, **claims)


def as_tuples(answer: Any) -> dict[str, tuple[TopicPartition, ...]]:
    return {member_id: tuple(tps) for member_id, tps in answer.items()}


def java_order_is_pythons(names: list[str]) -> bool:
    return ASTRAL not in names or "\uffff" not in names


@settings(max_examples=300, deadline=None)
@given(fresh_groups())
def test_the_runs_answer_is_the_one_dealt_partition_by_partition(scenario: Scenario) -> None:
    topics = [topic.name for topic in scenario.topics]
    for rules in (STICKY_RULES, COOPERATIVE_RULES):
        with runs_when_fresh(NEVER):
            dealt = sticky_assign(scenario, rules)
        with runs_when_fresh(ALWAYS):
            runs = sticky_assign(scenario, rules)
        assert all(type(tps) is not PartitionRuns for tps in dealt.assignment.values())
        assert as_tuples(runs.assignment) == as_tuples(dealt.assignment)
        assert runs.transferring == dealt.transferring
        held_as_runs = [isinstance(tps, PartitionRuns) for tps in runs.assignment.values()]
        assert all(held_as_runs) if java_order_is_pythons(topics) else not any(held_as_runs)
        assert as_tuples(sticky_assign(scenario, rules).assignment) == as_tuples(dealt.assignment)
    with runs_when_fresh(NEVER):
        dealt_rounds = assign_with_target(scenario)
    with runs_when_fresh(ALWAYS):
        runs_rounds = assign_with_target(scenario)
    assert [as_tuples(answer) for answer in runs_rounds] == [
        as_tuples(answer) for answer in dealt_rounds
    ]

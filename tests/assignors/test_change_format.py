"""The one change format (assignors/io/changes.py): JSON and text forms, limits, one message."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

import assignors
from assignors import (
    MAX_MEMBERS,
    MAX_NAME_LENGTH,
    MAX_PARTITIONS_PER_TOPIC,
    MAX_TOTAL_PARTITIONS,
    AddMember,
    AddMembers,
    ChangeError,
    ChangeFormatError,
    Member,
    RemoveMember,
    Scenario,
    SetLags,
    SetPartitions,
    SetProduceRates,
    SkewLag,
    Subscribe,
    Topic,
    apply_one,
    change_from_text,
    change_to_json,
    parse_change,
    parse_change_text,
    parse_changes,
)
from assignors.cli import compare

GROUP = Scenario((Topic("orders", 4), Topic("pay", 2)), (Member("C1", ("orders",)),))
TOO_MANY = "expected an integer from 1 to 1,000,000, got 50,000,000"


@pytest.mark.parametrize(
    ("text", "change"),
    [
        ("add:2", AddMembers(2)),
        ("add:C9", AddMember("C9")),
        ("add:C9:orders,pay", AddMember("C9", ("orders", "pay"))),
        ("remove:C1", RemoveMember("C1")),
        ("restart:C1", RemoveMember("C1", static_restart=True)),
        ("subscribe:C1:orders,pay", Subscribe("C1", ("orders", "pay"))),
        ("partitions:orders=12", SetPartitions("orders", 12)),
        ("lag:orders:0=100,3=5", SetLags("orders", ((0, 100), (3, 5)))),
        ("rates:orders:1=2.5", SetProduceRates("orders", ((1, 2.5),))),
        ("skew", SkewLag()),
    ],
)
def test_every_text_form_maps_onto_one_json_change(text: str, change: object) -> None:
    assert change_from_text(text) == change
    assert parse_change(parse_change_text(text)) == change
    assert parse_change(change_to_json(change)) == change  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("explode", "unknown change 'explode'"),
        ("add:", "expected add:N"),
        ("subscribe:C1", "subscribe:ID:topic,topic"),
        ("partitions:orders", "partitions:topic=N"),
        ("lag:orders:0", "lag:topic:P=VALUE"),
        ("remove:", "remove:MEMBER_ID"),
    ],
)
def test_a_bad_text_says_which_forms_exist(text: str, message: str) -> None:
    with pytest.raises(ChangeFormatError, match=message):
        change_from_text(text)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("add", "expected a change object"),
        ({"op": "grow"}, "unknown operation 'grow'"),
        ({"op": "remove_member"}, "member_id: missing"),
        ({"op": "remove_member", "member_id": "C1", "x": 1}, "x: unknown field"),
        ({"op": "add_member", "member_id": "C" * (MAX_NAME_LENGTH + 1)}, "at most 4,096"),
        ({"op": "add_members", "count": MAX_MEMBERS + 1}, "count: expected an integer"),
        ({"op": "set_partitions", "topic": "orders", "partitions": 50_000_000}, TOO_MANY),
        ({"op": "set_lags", "topic": "orders", "lags": {"0": -1}}, ">= 0"),
        ({"op": "add_member", "member_id": "C9", "consume_rate": "fast"}, "records/s"),
    ],
)
def test_a_malformed_change_names_the_field(raw: object, message: str) -> None:
    with pytest.raises(ChangeFormatError, match=message):
        parse_change(raw, "edit 1")


def test_a_list_is_bounded() -> None:
    with pytest.raises(ChangeFormatError, match="at most 1,000"):
        parse_changes([{"op": "skew_lag"}] * (assignors.MAX_CHANGES + 1))
    assert parse_changes([{"op": "skew_lag"}]) == (SkewLag(),)


def test_limits_hold_after_every_change_whatever_built_it() -> None:
    with pytest.raises(ChangeError, match="at most 1,000,000 per topic"):
        apply_one(GROUP, SetPartitions("orders", MAX_PARTITIONS_PER_TOPIC + 1))
    # 4,999,999 + 1 partitions: at the limit; one more is refused before any array grows.
    full = Scenario(
        (
            *(Topic(f"t{i}", MAX_PARTITIONS_PER_TOPIC) for i in range(4)),
            Topic("t4", MAX_PARTITIONS_PER_TOPIC - 1),
            Topic("t5", 1),
        ),
        (Member("a", ("t5",)),),
    )
    assert sum(t.partitions for t in full.topics) == MAX_TOTAL_PARTITIONS
    with pytest.raises(ChangeError, match="5,000,001 partitions in all; at most 5,000,000"):
        apply_one(full, SetPartitions("t5", 2))
    with pytest.raises(ChangeError, match="at most 4,096"):
        apply_one(GROUP, AddMember("C" * (MAX_NAME_LENGTH + 1)))
    with pytest.raises(ChangeError, match="at most 100,000"):
        apply_one(GROUP, AddMembers(MAX_MEMBERS))


def test_add_members_takes_fresh_names_like_the_first_member() -> None:
    taken = dataclasses.replace(GROUP, members=(*GROUP.members, Member("new-1", ("pay",))))
    after = apply_one(taken, AddMembers(2, consume_rate=50.0))
    added = after.members[2:]
    assert [m.member_id for m in added] == ["new-2", "new-3"]
    assert all(m.topics == ("orders",) and m.consume_rate == 50.0 for m in added)


def test_the_cli_refuses_a_huge_topic_with_the_same_message(
    tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = "sample_data/range-vs-roundrobin.json"
    for flags in (["--partitions", "t0:50000000"], ["--change", "partitions:t0=50000000"]):
        assert compare.main([sample, "--strategy", "range", *flags]) == 2
        err = capsys.readouterr().err
        assert TOO_MANY in err and err.count("\n") == 1


_names = st.text(st.characters(min_codepoint=48, max_codepoint=122), min_size=1, max_size=8)
_changes = st.one_of(
    st.builds(
        AddMember,
        _names,
        st.none() | st.lists(_names, min_size=1, max_size=3).map(tuple),
        rack=st.none() | _names,
        consume_rate=st.none() | st.floats(0, 1e6),
        priority=st.none() | st.integers(-5, 5),
    ),
    st.builds(AddMembers, st.integers(1, 50), st.none() | st.floats(0, 1e6)),
    st.builds(RemoveMember, _names, st.booleans()),
    st.builds(Subscribe, _names, st.lists(_names, min_size=1, max_size=3).map(tuple)),
    st.builds(SetPartitions, _names, st.integers(1, MAX_PARTITIONS_PER_TOPIC)),
    st.builds(
        SetLags,
        _names,
        st.dictionaries(st.integers(0, 99), st.integers(0, 10**9), min_size=1).map(
            lambda d: tuple(d.items())
        ),
    ),
    st.builds(SkewLag, st.integers(1, 100), st.integers(0, 10**6), st.floats(0.01, 1)),
)


@given(_changes)
def test_json_round_trips(change: object) -> None:
    assert parse_change(change_to_json(change)) == change  # type: ignore[arg-type]

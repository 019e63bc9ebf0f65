"""A classic group caught forming between DescribeGroups and ListGroups.

DescribeGroups can answer "not found" (or a Dead group) for a classic group whose first member is
joining, and ListGroups, asked a moment later, lists it with members. The reader must describe it
again, not call it a KIP-848 group. A real broker shows this race only now and then (it was seen
in the mixed-group tests on the real cluster), so the admin client here is a scripted stand-in
that answers in kafka-python's dict form, in the order the race produces.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from cluster.connection import ConnectionSettings
from cluster.errors import ConsumerProtocolGroupError, GroupNotFoundError, StreamsGroupError
from cluster.reader import ClusterReader

NOT_FOUND = {"error": "GroupIdNotFoundError", "group_state": "Dead", "members": []}
FORMED = {"error": None, "group_state": "CompletingRebalance", "protocol_type": "consumer",
          "protocol_data": "range", "members": []}  # fmt: skip


class ScriptedAdmin:
    """Answers DescribeGroups from ``describes`` in turn and ListGroups with ``listed``."""

    def __init__(self, describes: list[dict[str, Any]], listed: list[dict[str, Any]]) -> None:
        self._describes: Iterator[dict[str, Any]] = iter(describes)
        self.listed = listed
        self.calls: list[str] = []

    def describe_groups(self, group_ids: list[str]) -> dict[str, Any]:
        self.calls.append("describe")
        return {group_ids[0]: next(self._describes)}

    def list_groups(self) -> list[dict[str, Any]]:
        self.calls.append("list")
        return self.listed

    def close(self) -> None:
        pass


def _listing(state: str, group_type: str | None) -> list[dict[str, Any]]:
    return [{"group_id": "g", "group_state": state, "protocol_type": "consumer",
             "group_type": group_type}]  # fmt: skip


def _reader(admin: ScriptedAdmin) -> ClusterReader:
    return ClusterReader(ConnectionSettings("127.0.0.1:9"), admin=admin)


def test_a_classic_group_that_formed_between_the_reads_is_described_again() -> None:
    admin = ScriptedAdmin([NOT_FOUND, FORMED], _listing("PreparingRebalance", "classic"))
    group = _reader(admin).describe_group("g")
    assert admin.calls == ["describe", "list", "describe"]
    assert (group.state, group.protocol) == ("CompletingRebalance", "range")


def test_a_dead_answer_for_a_listed_classic_group_is_read_again_too() -> None:
    dead = {"error": None, "group_state": "Dead", "members": []}
    admin = ScriptedAdmin([dead, FORMED], _listing("Stable", "classic"))
    assert _reader(admin).describe_group("g").state == "CompletingRebalance"


def test_an_empty_classic_group_is_described_as_empty_at_once() -> None:
    admin = ScriptedAdmin([NOT_FOUND], _listing("Empty", "classic"))
    group = _reader(admin).describe_group("g")
    assert admin.calls == ["describe", "list"] and group.members == ()


@pytest.mark.parametrize(
    ("group_type", "state", "raised"),
    [("consumer", "Stable", ConsumerProtocolGroupError),
     (None, "Stable", ConsumerProtocolGroupError),  # a broker before group types
     ("streams", "Stable", StreamsGroupError)],
)  # fmt: skip
def test_groups_describe_groups_cannot_read_are_named(
    group_type: str | None, state: str, raised: type[Exception]
) -> None:
    admin = ScriptedAdmin([NOT_FOUND], _listing(state, group_type))
    with pytest.raises(raised):
        _reader(admin).describe_group("g")


def test_a_group_nobody_lists_is_not_found() -> None:
    admin = ScriptedAdmin([NOT_FOUND], [])
    with pytest.raises(GroupNotFoundError):
        _reader(admin).describe_group("g")

"""Work in a worker process: its answer comes back, its errors come back, and a cancelled job's
process is gone."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from types import MappingProxyType

import pytest

from dashboard import jobs


def _square_map(count: int) -> MappingProxyType[int, int]:
    return MappingProxyType({index: index * index for index in range(count)})


def _fails() -> None:
    raise ValueError("no such topic 'orders'")


def _spins(seconds: float) -> int:
    end = time.monotonic() + seconds
    spins = 0
    while time.monotonic() < end:
        spins += 1
    return spins


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_the_answer_comes_back_read_only_mappings_included() -> None:
    answer = jobs.run(_square_map, 1_000)
    assert isinstance(answer, MappingProxyType)
    assert answer[999] == 998_001
    assert jobs.live_pids() == []


def test_the_childs_exception_comes_back() -> None:
    with pytest.raises(jobs.JobFailed, match="no such topic") as raised:
        jobs.run(_fails)
    assert isinstance(raised.value.original, ValueError)


def test_a_job_nobody_wants_is_killed() -> None:
    seen: list[int] = []
    started = time.monotonic()

    def wanted() -> bool:
        seen.extend(jobs.live_pids())
        return time.monotonic() - started < 0.5

    with pytest.raises(jobs.JobCancelled):
        jobs.run(_spins, 600.0, still_wanted=wanted)
    assert seen, "the job ran in a child process"
    assert all(_gone(pid) for pid in set(seen))
    assert jobs.live_pids() == []


class StopScript(BaseException):
    """Stands in for Streamlit's StopException: raised where the script redraws its progress."""


def test_a_stopped_script_kills_its_job() -> None:
    seen: list[int] = []

    def progress(elapsed: float) -> None:
        seen.extend(jobs.live_pids())
        if elapsed > 0.3:
            raise StopScript

    with pytest.raises(StopScript):
        jobs.run(_spins, 600.0, on_wait=progress)
    assert seen and all(_gone(pid) for pid in set(seen))


def test_a_deadline_ends_the_job() -> None:
    with pytest.raises(jobs.JobCancelled, match="not done after"):
        jobs.run(_spins, 600.0, deadline_s=0.3)
    assert jobs.live_pids() == []


def _counts_then_spins(emit: Callable[[int], None], count: int, spin_s: float) -> None:
    for index in range(count):
        emit(index * index)
    _spins(spin_s)


def _emits_then_fails(emit: Callable[[str], None]) -> None:
    emit("first")
    _fails()


def test_streamed_items_arrive_in_order_while_the_child_still_works() -> None:
    arrived: list[tuple[int, list[int]]] = []

    def on_item(item: int) -> None:
        arrived.append((item, jobs.live_pids()))

    jobs.stream(_counts_then_spins, 5, 0.5, on_item=on_item)
    assert [item for item, _ in arrived] == [0, 1, 4, 9, 16]
    # Each item was handed over while its child was still alive (it spins after emitting).
    assert all(pids for _, pids in arrived)
    assert jobs.live_pids() == []


def test_a_streaming_childs_exception_comes_back_after_its_items() -> None:
    arrived: list[str] = []
    with pytest.raises(jobs.JobFailed, match="no such topic"):
        jobs.stream(_emits_then_fails, on_item=arrived.append)
    assert arrived == ["first"]
    assert jobs.live_pids() == []


def test_a_stopped_stream_kills_its_child() -> None:
    seen: list[int] = []

    def on_item(item: int) -> None:
        seen.extend(jobs.live_pids())
        raise StopScript

    with pytest.raises(StopScript):
        jobs.stream(_counts_then_spins, 1, 600.0, on_item=on_item)
    assert seen and all(_gone(pid) for pid in set(seen))
    assert jobs.live_pids() == []

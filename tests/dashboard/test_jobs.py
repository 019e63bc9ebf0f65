"""Work in a worker process: its answer comes back, its errors come back, and a cancelled job's
process is gone."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from types import MappingProxyType

import pytest

from dashboard.runtime import jobs


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


def test_past_the_worker_limit_a_job_waits_its_turn_and_says_how_many_are_ahead(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(jobs, "_turns", jobs._Turns(1))
    first_started = threading.Event()
    answers: list[int] = []

    def first() -> None:
        answers.append(jobs.run(_spins, 1.0, on_wait=lambda _s: first_started.set()))

    thread = threading.Thread(target=first)
    thread.start()
    assert first_started.wait(10)
    queued: list[int] = []
    children_while_queued: list[int] = []

    def on_queued(ahead: int, _elapsed: float) -> None:
        queued.append(ahead)
        children_while_queued.append(len(jobs.live_pids()))

    assert jobs.run(_square_map, 3, on_queued=on_queued)[2] == 4
    thread.join()
    assert queued and set(queued) == {1}, "it waited behind the one running job"
    assert set(children_while_queued) == {1}, "only the running job had a child meanwhile"
    assert answers and answers[0] > 0
    assert jobs.live_pids() == []


def test_a_waiting_job_nobody_wants_leaves_the_line_without_starting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    turns = jobs._Turns(1)
    monkeypatch.setattr(jobs, "_turns", turns)
    holder = object()
    assert turns.wait_turn(holder, 0) == 0  # another session's job holds the only turn
    started = time.monotonic()
    with pytest.raises(jobs.JobCancelled):
        jobs.run(_square_map, 3, still_wanted=lambda: time.monotonic() - started < 0.5)
    assert jobs.live_pids() == []
    turns.leave(holder, True)
    assert turns.wait_turn(object(), 0) == 0, "the cancelled job left the line"


def test_queued_jobs_take_their_turns_in_arrival_order() -> None:
    turns = jobs._Turns(1)
    running, second, third = object(), object(), object()
    assert turns.wait_turn(running, 0) == 0
    assert turns.wait_turn(second, 0) == 1
    assert turns.wait_turn(third, 0) == 2
    turns.leave(running, True)
    assert turns.wait_turn(third, 0) == 1, "the second came first"
    assert turns.wait_turn(second, 0) == 0


def test_over_the_memory_limit_a_job_waits_for_the_running_one_but_a_lone_job_starts() -> None:
    memory_ok = [False]
    turns = jobs._Turns(4, lambda: memory_ok[0])
    alone, second = object(), object()
    assert turns.wait_turn(alone, 0) == 0, "with nothing running, a job always starts"
    assert turns.wait_turn(second, 0) == 1, "a free place, but the memory is over the limit"
    memory_ok[0] = True
    assert turns.wait_turn(second, 0) == 0


def test_memory_in_use_counts_the_server_and_its_running_workers() -> None:
    mb = 2**20
    server = jobs.pss_bytes(os.getpid())
    assert server > 10 * mb
    # Measured twice a moment apart: equal but for pages touched in between.
    assert abs(jobs.memory_in_use() - server) < 4 * mb, "no worker runs: the server alone"
    with_worker: list[int] = []

    def measure(_elapsed: float) -> None:
        with_worker.append(jobs.memory_in_use() - jobs.pss_bytes(os.getpid()))

    jobs.run(_spins, 0.6, on_wait=measure)
    assert with_worker and max(with_worker) > 4 * mb, "a running worker's share is counted"
    assert jobs.pss_bytes(2**22 + 12345) == 0, "a process that is not there uses nothing"

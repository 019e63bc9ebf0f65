"""Work in a worker process: its answer comes back, its errors come back, and a cancelled job's
process is gone."""

from __future__ import annotations

import os
import time
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

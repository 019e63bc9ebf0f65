"""Pausing the cyclic collector around bulk work (assignors.gc_pause)."""

from __future__ import annotations

import gc

import pytest

from assignors import gc_pause
from assignors.gc_pause import paused_gc


def test_the_collector_is_off_inside_the_block_and_back_on_after() -> None:
    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()  # an inner block leaves the outer one's pause alone
    assert gc.isenabled()


def test_a_collector_the_host_disabled_stays_disabled() -> None:
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_what_the_host_froze_stays_frozen_and_is_counted_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counted = []
    count = gc.get_freeze_count

    def counting() -> int:
        counted.append(1)
        return count()

    monkeypatch.setattr(gc_pause, "_host_froze", False)
    monkeypatch.setattr(gc, "get_freeze_count", counting)
    already = count()
    gc.freeze()
    try:
        frozen = count()
        for _ in range(3):
            with paused_gc():
                kept = [(index,) for index in range(1_000)]
        assert count() == frozen > already  # not unfrozen by a block's hand-over
        assert len(counted) == 1  # walking ~150,000 frozen objects once, not per block
        assert len(kept) == 1_000
    finally:
        gc.unfreeze()
        if already:
            gc.freeze()  # the process had frozen objects before: keep them frozen


def test_without_a_host_freeze_blocks_leave_nothing_frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    if gc.get_freeze_count():
        pytest.skip("this process froze objects already")
    monkeypatch.setattr(gc_pause, "_host_froze", False)
    with paused_gc():
        made = [(index,) for index in range(1_000)]
    assert gc.get_freeze_count() == 0  # handed to the oldest generation, not left frozen
    assert gc.is_tracked(made[0])

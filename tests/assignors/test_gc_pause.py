"""Pausing the cyclic collector around bulk work (assignors.gc_pause)."""

from __future__ import annotations

import gc
import weakref

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


class _Node:
    """A reference cycle (the node refers to itself), freed only by the cyclic collector."""

    def __init__(self) -> None:
        self.me = self


def test_cycles_made_in_a_loop_of_blocks_are_freed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks hand their objects straight to the oldest generation, which CPython's own rule
    never counts toward a full collection: without one every few blocks, a loop of blocks (the
    pipeline's per-group what-if) kept its cyclic garbage for good."""
    if gc.get_freeze_count():
        pytest.skip("this process froze objects already: blocks leave collecting to the host")
    monkeypatch.setattr(gc_pause, "_host_froze", False)
    monkeypatch.setattr(gc_pause, "FULL_EVERY", 5)
    monkeypatch.setattr(gc_pause, "_blocks", 0)
    monkeypatch.setattr(gc_pause, "_moved", 0)
    gc.collect()
    made: list[weakref.ref[_Node]] = []
    for _ in range(gc_pause.FULL_EVERY):
        with paused_gc():
            made.append(weakref.ref(_Node()))  # garbage as the block ends, but in a cycle
    assert all(ref() is None for ref in made)


def test_one_large_block_does_not_pay_for_a_full_collection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if gc.get_freeze_count():
        pytest.skip("this process froze objects already")
    monkeypatch.setattr(gc_pause, "_host_froze", False)
    monkeypatch.setattr(gc_pause, "_blocks", 0)
    monkeypatch.setattr(gc_pause, "_moved", 0)
    full = gc.get_stats()[2]["collections"]
    with paused_gc():
        answer = [(index,) for index in range(1_000_000)]  # a 1M-partition answer's tuples
    assert gc.get_stats()[2]["collections"] == full
    assert len(answer) == 1_000_000

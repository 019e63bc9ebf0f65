"""Pausing Python's cyclic garbage collector around bulk work.

A strategy on a large group builds millions of tuples (partitions, per-member lists) and no
reference cycles; the collector would still walk them again and again as they are created, which
at 1,000,000 partitions costs as much as the assignment itself. Reference counting frees
everything as usual while the collector is paused.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

#: Set once the host is seen to have frozen objects of its own (``gc.freeze()``, as the
#: dashboard does at start-up). Counting them walks the whole permanent generation (~17 ms for
#: the dashboard's 150,000 objects, on every block's exit); a host freezes once and for good, so
#: the count is not taken again. Were it ever unfrozen, blocks would only skip the hand-over.
_host_froze = False


def _host_has_frozen() -> bool:
    """Whether the host froze objects (counted until it first has, then remembered)."""
    global _host_froze
    if not _host_froze:
        _host_froze = gc.get_freeze_count() > 0
    return _host_froze


@contextmanager
def paused_gc() -> Iterator[None]:
    """Disable the cyclic collector inside the block; restore its previous state after.

    On leaving the outermost block, what the block allocated is handed straight to the oldest
    generation (``gc.freeze()`` then ``gc.unfreeze()``: two list splices) instead of waiting in
    the youngest one. Otherwise the first allocation after the block runs one young collection
    over everything the block made (a million tuples cost as much as the whole assignment) only
    to promote it. Objects that die by reference counting, as a strategy's working data and
    most answers do, are then never traversed; one that lives on is traversed by the next full
    collection, as it would have been anyway. Skipped once the host has frozen objects itself
    (:func:`_host_has_frozen`), whose freeze ``unfreeze`` would undo.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if not _host_has_frozen():
                gc.freeze()
                gc.unfreeze()
            gc.enable()

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


@contextmanager
def paused_gc() -> Iterator[None]:
    """Disable the cyclic collector inside the block; restore its previous state after.

    On leaving the outermost block, what the block allocated is handed straight to the oldest
    generation (``gc.freeze()`` then ``gc.unfreeze()``: two list splices) instead of waiting in
    the youngest one. Otherwise the first allocation after the block runs one young collection
    over everything the block made (a million tuples cost as much as the whole assignment) only
    to promote it. Objects that die by reference counting, as a strategy's working data and
    most answers do, are then never traversed; one that lives on is traversed by the next full
    collection, as it would have been anyway. Skipped while the host has frozen objects itself
    (``gc.get_freeze_count()``), whose freeze ``unfreeze`` would undo.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()
            gc.enable()

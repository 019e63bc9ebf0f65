"""Pausing Python's cyclic garbage collector around bulk work.

A strategy on a large group builds millions of tuples (partitions, per-member lists) and no
reference cycles; the collector would still walk them again and again as they are created, which
at 1,000,000 partitions costs as much as the assignment itself. Reference counting frees
everything as usual while the collector is paused.

Invariant: cyclic garbage made inside blocks is still freed, in a process that runs blocks in a
loop as much as in one that runs one. CPython starts a full collection once enough objects have
been *promoted* into the oldest generation since the last one; objects a block hands straight to
that generation are not counted, so a loop of blocks never saw a full collection: the pipeline's
per-group what-if kept ~1 MB of cyclic garbage per group (the evaluations' memo graphs), and a
Spark worker ran out of memory at 100,000 groups. The hand-overs are therefore counted, in O(1)
(counting the objects themselves walks them), and every :data:`FULL_EVERY` hand-overs, or once
they moved about :data:`FULL_AFTER` young objects, one runs a full collection. (Leaving small
blocks to the young collections instead cost ~15% of the pipeline's per-group time.) Left: the
garbage itself, an :class:`~assignors.simulate.evaluate.Evaluation` and its strategies' memo
refer to each other; without that cycle most of it would die by reference counting.
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
#: A full collection after this many hand-overs (in the pipeline, every ~1,100 groups: its garbage,
#: ~1 MB a group, stays under ~1.1 GB a process; every 1,000 hand-overs cost a Spark worker, whose
#: heap each collection walks, ~20% more CPU per group, every 5,000 about a fifth of that)...
FULL_EVERY = 5_000
#: ... or once they moved this many young objects (a 1,000,000-partition assignment leaves about
#: 1,000,000: a single large call never pays for one). The young count is net of what died, so
#: it is a floor of what was moved.
FULL_AFTER = 3_000_000
#: Hand-overs and young objects moved since the last full collection.
_blocks = 0
_moved = 0


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
                _hand_over()
            gc.enable()


def _hand_over() -> None:
    """Move the block's young objects to the oldest generation; now and then a full collection
    (see the module's invariant)."""
    global _blocks, _moved
    _blocks += 1
    _moved += gc.get_count()[0]  # young objects the block leaves (freeze resets the count)
    gc.freeze()
    gc.unfreeze()
    if _blocks >= FULL_EVERY or _moved >= FULL_AFTER:
        _blocks = _moved = 0
        gc.collect()

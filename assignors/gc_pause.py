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
    """Disable the cyclic collector inside the block; restore its previous state after."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()

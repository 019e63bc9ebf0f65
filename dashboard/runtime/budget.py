"""A result cache bounded by bytes and by age, shared by every session of the server.

Streamlit's own caches are bounded by entry count only and keep entries forever; a few
1M-partition results then hold gigabytes long after their sessions have gone. This cache:

1. Holds each entry with its estimated size in bytes (:func:`estimate_bytes`, or a size the
   caller measured). The sum never exceeds the budget: putting an entry evicts the least recently
   used ones until it fits; an entry larger than the whole budget is returned but not kept.
2. Drops an entry not used for ``ttl_s`` seconds (checked on every access and by :meth:`sweep`).
3. After evicting, asks the C allocator to give freed memory back to the system
   (``malloc_trim``), so that the server's resident memory falls when results go.

Defaults suit a 2-core, 24 GB machine shared by a team: 1 GiB and 20 minutes, changed with
``AE_CACHE_BYTES`` (bytes, suffixes K/M/G allowed) and ``AE_CACHE_TTL_S``.

Invariants: ``used_bytes <= budget_bytes`` at every return; a key maps to at most one entry;
every method is thread-safe (Streamlit runs each session's script in its own thread).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, TypeVar

import plotly.graph_objects as go

from dashboard.runtime import internals, sessions

T = TypeVar("T")

DEFAULT_BUDGET_BYTES = 1 << 30
DEFAULT_TTL_S = 20 * 60.0
#: Containers longer than this are sized from a sample of their items...
_SAMPLE = 48
#: ... of this many (sampling 48 at every level of a 10,000-partition answer cost ~40 ms each,
#: 16 costs ~7 ms and estimates within a few per cent of it).
_SAMPLED = 16
_SUFFIXES = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def parse_bytes(text: str) -> int:
    """``"512M"`` -> 536870912; plain digits are bytes. Raises ``ValueError`` on anything else."""
    cleaned = text.strip().upper().removesuffix("B").removesuffix("I")
    factor = _SUFFIXES.get(cleaned[-1:], 1)
    number = cleaned[:-1] if cleaned[-1:] in _SUFFIXES else cleaned
    value = int(float(number) * factor)
    if value <= 0:
        raise ValueError(f"a byte budget must be positive, got {text!r}")
    return value


def configured_budget() -> int:
    """The byte budget from ``AE_CACHE_BYTES`` (default 1 GiB)."""
    raw = os.environ.get("AE_CACHE_BYTES")
    return parse_bytes(raw) if raw else DEFAULT_BUDGET_BYTES


def configured_ttl() -> float:
    """Seconds an unused entry lives, from ``AE_CACHE_TTL_S`` (default 20 minutes)."""
    raw = os.environ.get("AE_CACHE_TTL_S")
    return float(raw) if raw else DEFAULT_TTL_S


def _children(value: Any) -> list[Any] | None:
    """The objects ``value`` refers to that a size estimate should count (None: a leaf)."""
    if isinstance(value, str | bytes | int | float | bool | type(None)):
        return None
    if isinstance(value, go.Figure) and internals.applies("budget.figure_parts"):
        # A Plotly figure's content is its plain dicts and arrays. Its wrapper objects (one per
        # trace, axis, frame, marker, ...) are not counted: walking them cost ~10 ms for the
        # 200-member animation, on every *Add member*, for about a third more bytes. (Plotly's
        # private parts: the entry ``budget.figure_parts``; off, the figure is walked below.)
        return [value._data, value._layout, [frame._props for frame in value._frame_objs]]
    if isinstance(value, Mapping | MappingProxyType):
        return [item for pair in value.items() for item in pair]
    if isinstance(value, list | tuple | set | frozenset):
        return list(value)
    slots = getattr(type(value), "__slots__", None)
    if slots is not None:
        names = (slots,) if isinstance(slots, str) else slots
        return [getattr(value, name) for name in names if hasattr(value, name)]
    if hasattr(value, "__dict__"):
        return list(vars(value).values())
    return None


def estimate_bytes(value: Any) -> int:
    """Approximate bytes held by ``value`` and what it refers to.

    Exact for small objects; a container of more than a few dozen items is sized from an even
    sample of them and scaled, so sizing a 1M-partition result costs microseconds, not seconds.
    Each object is counted once: a figure's traces point back to their figure, and a cycle or a
    shared object counted at every reference made a 14 KB Plotly figure "weigh" 200 MB, which
    evicted everything else and made every rerun recompute.
    """
    return _estimate(value, 0, set())


def _estimate(value: Any, depth: int, seen: set[int]) -> int:
    if id(value) in seen:
        return 0
    seen.add(id(value))
    size = sys.getsizeof(value, 64)
    if depth > 12:
        return size
    children = _children(value)
    if not children:
        return size
    count = len(children)
    if count <= _SAMPLE:
        return size + sum(_estimate(child, depth + 1, seen) for child in children)
    stride = count / _SAMPLED
    sample = [children[int(index * stride)] for index in range(_SAMPLED)]
    sampled = sum(_estimate(child, depth + 1, seen) for child in sample)
    return size + int(sampled * count / _SAMPLED)


def _load_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    try:
        trim = ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        return None
    return trim


_malloc_trim = _load_trim()


def release_free_memory() -> None:
    """Return the allocator's free pages to the system (glibc only; a no-op elsewhere)."""
    if _malloc_trim is not None:
        _malloc_trim(0)


@dataclass(slots=True)
class _Entry:
    value: Any
    nbytes: int
    used_at: float


class ByteBudgetCache:
    """Least-recently-used entries under a byte budget, each expiring ``ttl_s`` after last use."""

    def __init__(
        self,
        budget_bytes: int,
        ttl_s: float,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.budget_bytes = budget_bytes
        self.ttl_s = ttl_s
        self._clock = clock
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()
        self._used = 0
        self._lock = threading.RLock()

    @property
    def used_bytes(self) -> int:
        """Bytes of every entry held now."""
        return self._used

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            self._expire(self._clock())
            return key in self._entries

    def get(self, key: Hashable) -> Any | None:
        """The value under ``key`` (refreshing its age), or ``None``."""
        with self._lock:
            now = self._clock()
            self._expire(now)
            entry = self._entries.get(key)
            if entry is None:
                return None
            entry.used_at = now
            self._entries.move_to_end(key)
            return entry.value

    def put(self, key: Hashable, value: Any, nbytes: int | None = None) -> None:
        """Keep ``value`` under ``key``, evicting older entries to stay within the budget."""
        size = estimate_bytes(value) if nbytes is None else nbytes
        with self._lock:
            self._drop(key)
            if size > self.budget_bytes:
                self._trim_after(True)
                return
            freed = False
            while self._used + size > self.budget_bytes and self._entries:
                self._drop(next(iter(self._entries)))
                freed = True
            self._entries[key] = _Entry(value, size, self._clock())
            self._used += size
            self._trim_after(freed)

    def resize(self, key: Hashable) -> None:
        """Re-estimate the entry under ``key`` (a value that keeps answers it computed grows);
        evict others, or it, to stay within the budget."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return
            value = entry.value
        self.put(key, value, estimate_bytes(value))

    def grow(self, key: Hashable, nbytes: int) -> None:
        """Count ``nbytes`` more for the entry under ``key`` (a value that kept an answer of that
        size), without re-walking it; evict others, or it, to stay within the budget."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return
            value, size = entry.value, entry.nbytes + max(0, nbytes)
        self.put(key, value, size)

    def get_or_build(
        self, key: Hashable, build: Callable[[], T], nbytes: Callable[[T], int] | None = None
    ) -> T:
        """The value under ``key``, built (outside the lock) and kept when absent."""
        found = self.get(key)
        if found is not None:
            value: T = found
            return value
        built = build()
        self.put(key, built, None if nbytes is None else nbytes(built))
        return built

    def sweep(self) -> None:
        """Drop every expired entry now."""
        with self._lock:
            self._expire(self._clock())

    def clear(self) -> None:
        """Drop everything."""
        with self._lock:
            had = bool(self._entries)
            self._entries.clear()
            self._used = 0
            self._trim_after(had)

    def _drop(self, key: Hashable) -> None:
        entry = self._entries.pop(key, None)
        if entry is not None:
            self._used -= entry.nbytes

    def _expire(self, now: float) -> None:
        freed = False
        while self._entries:
            key, entry = next(iter(self._entries.items()))
            if now - entry.used_at < self.ttl_s:
                break
            self._drop(key)
            freed = True
        self._trim_after(freed)

    @staticmethod
    def _trim_after(freed: bool) -> None:
        if freed:
            release_free_memory()


#: The longest pause between two sweeps.
SWEEP_MAX_S = 10.0
_shared: ByteBudgetCache | None = None
_shared_lock = threading.Lock()


def shared() -> ByteBudgetCache:
    """The server's one result cache (configured from the environment on first use).

    A daemon thread sweeps it every quarter of its time to live (at least every
    :data:`SWEEP_MAX_S`), so that entries expire, closed tabs' sessions are freed
    (:mod:`dashboard.runtime.sessions`) and their memory goes back to the system even when no
    session comes back to look.
    """
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = ByteBudgetCache(configured_budget(), configured_ttl())
            _start_sweeper(_shared)
        return _shared


def _start_sweeper(cache: ByteBudgetCache) -> None:
    # At least every 10 s: closed tabs' sessions are freed on this beat too.
    interval = max(1.0, min(cache.ttl_s / 4, SWEEP_MAX_S))

    def sweep_forever() -> None:
        while True:
            time.sleep(interval)
            cache.sweep()
            # Closed tabs' sessions hold their scenarios and uploads outside this cache: free
            # those whose reconnect time ran out, then give that memory back too.
            try:
                if sessions.free_expired_sessions():
                    gc.collect()
            except Exception:  # the sweeper goes on; what failed is said, once per failure
                internals.logger.exception("freeing closed tabs' sessions failed")
            release_free_memory()

    threading.Thread(target=sweep_forever, name="ae-cache-sweeper", daemon=True).start()

"""Guarded uses of libraries' private parts: the shape of one entry (:class:`Internal`) and the
registry that decides, once per process, whether each still applies (:class:`Uses`).

The dashboard (:mod:`dashboard.runtime.internals`), the pipeline (:mod:`pipeline.internals`) and
the cluster reader (:mod:`cluster.internals`) each list their own entries, with their probes, in
a :class:`Uses`; ``dashboard.runtime.internals.REGISTRY`` lists them all for the start-up check
and the sidebar's notice.

Invariants of a :class:`Uses`: an entry's probe runs at most once per process while it
applies; the first reason an entry is off for is kept for the rest of the process and logged
exactly once, on the ``assignment_explorer`` logger, as :meth:`Internal.off_line`; a probe that
raises counts as off, with the exception as its reason.

May import: nothing but the standard library (so every layer may import it).
"""

from __future__ import annotations

import importlib.metadata
import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass

logger = logging.getLogger("assignment_explorer")


@dataclass(frozen=True, slots=True)
class Internal:
    """One private use: ``name`` (``module.feature``), ``where`` (``module:function``, comma
    separated), ``what`` (what it does and why), ``library`` (its distribution name),
    ``checked`` (the version range it was checked on), ``loses`` (what the user loses when it
    is off) and ``probe`` (None while it applies, else why not, in one line)."""

    name: str
    where: str
    what: str
    library: str
    checked: str
    loses: str
    probe: Callable[[], str | None]

    def off_line(self, reason: str) -> str:
        """The one line logged (and shown) when this use is off."""
        return (
            f"{self.library} {installed_version(self.library)}: {self.name} is off ({reason}); "
            f"{self.loses}"
        )


def installed_version(distribution: str) -> str:
    """The installed version of ``distribution``, or ``(not installed)``."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "(not installed)"


class Uses:
    """A layer's private uses, by name, with what each probe answered (thread-safe)."""

    def __init__(self, entries: Iterable[Internal]) -> None:
        self.entries = tuple(entries)
        self._by_name = {entry.name: entry for entry in self.entries}
        self._lock = threading.Lock()
        self._reasons: dict[str, str | None] = {}

    def entry(self, name: str) -> Internal:
        """The entry called ``name`` (KeyError for a name no entry has)."""
        return self._by_name[name]

    def reason_off(self, name: str) -> str | None:
        """Why the use ``name`` is off (None: it applies). Probes once per process and logs one
        line the first time it finds the use off."""
        with self._lock:
            if name in self._reasons:
                return self._reasons[name]
        entry = self._by_name[name]
        try:
            reason = entry.probe()
        except Exception as error:  # a probe that cannot even look: the use is off, and said so
            reason = f"{type(error).__name__}: {error}"
        if reason is None:
            with self._lock:
                self._reasons.setdefault(name, None)
                return self._reasons[name]
        return self.switch_off(name, reason)

    def applies(self, name: str) -> bool:
        """Whether the use ``name`` may go ahead (see :meth:`reason_off`)."""
        return self.reason_off(name) is None

    def switch_off(self, name: str, reason: str) -> str:
        """Turn the use ``name`` off for the rest of the process and log why (once); the reason
        kept is the first one given."""
        with self._lock:
            kept = self._reasons.get(name)
            if kept is not None:
                return kept
            self._reasons[name] = reason
        logger.warning(self._by_name[name].off_line(reason))
        return reason

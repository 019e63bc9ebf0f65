"""Pick members or topics out of any number of them, at a cost that grows with the count only.

A Streamlit multiselect sends every option to the browser and, with a default of every option,
checks each default against the options: at 100,000 members that costs minutes per rerun. Up to
:data:`LIMIT` options the pickers here are the usual multiselect and selectbox; past it they are
a filter box (a substring, or a glob such as ``consumer-1*``), a choice of what to do with the
matches, and a short list of the first matches: a handful of widgets whatever the count.

Invariants: past :data:`LIMIT` (:data:`SUBSET_LIMIT` for a subset), no widget holds more than
:data:`SHOWN` options; the answer of :func:`pick_subset` is always a subset of ``options`` in
their order; an empty filter matches nothing for "only matching" and everything is kept for
"as now".
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence

import streamlit as st

from dashboard.model.plain import escape_markdown

#: Above this many options the pickers filter instead of listing.
LIMIT = 200
#: Above this many options a subset is filtered too: a multiselect draws one chip per chosen
#: option, and "every member" as 200 chips cost Chromium about as much on each rerun as the rest
#: of the page (an added member's redraw at 200 members went from ~2-4 s to ~1.5 s at load 15).
SUBSET_LIMIT = 50
#: How many matches a filtered picker lists.
SHOWN = 50
MODES = ("as now", "only the matching", "all but the matching")


def matching(options: Sequence[str], pattern: str) -> list[str]:
    """The options that match ``pattern``: a glob when it has ``*?[``, else a substring; case
    ignored. An empty pattern matches nothing."""
    wanted = pattern.strip().lower()
    if not wanted:
        return []
    if any(mark in wanted for mark in "*?["):
        return [option for option in options if fnmatch.fnmatchcase(option.lower(), wanted)]
    return [option for option in options if wanted in option.lower()]


def choose(
    options: Sequence[str], current: Sequence[str], matches: Sequence[str], mode: str
) -> list[str]:
    """The selection that ``mode`` makes of ``options`` given the ``matches`` and ``current``."""
    if mode == MODES[1]:
        return list(matches)
    if mode == MODES[2]:
        dropped = set(matches)
        return [option for option in options if option not in dropped]
    return list(current)


def pick_subset(label: str, options: Sequence[str], current: Sequence[str], key: str) -> list[str]:
    """A subset of ``options`` (starting from ``current``), picked at any size."""
    if len(options) <= SUBSET_LIMIT:
        # A value the page put in the session (dashboard.session.state.scope_widgets) wins over
        # ``current``: Streamlit refuses a default beside a session value.
        default = None if key in st.session_state else list(current)
        picked: list[str] = st.multiselect(
            escape_markdown(label), list(options), default=default, key=key
        )
        return picked
    pattern = st.text_input(
        f"{escape_markdown(label)}: filter",
        key=f"{key}.filter",
        placeholder="part of a name, or a glob such as consumer-1*",
        help=f"{len(options):,} to choose from: too many to list, so filter them.",
    )
    mode = st.radio("Then", MODES, horizontal=True, key=f"{key}.mode", label_visibility="collapsed")
    matches = matching(options, pattern)
    st.caption(escape_markdown(_summary(len(options), len(current), matches)))  # names ids
    return choose(options, current, matches, mode)


def _summary(total: int, current: int, matches: Sequence[str]) -> str:
    shown = ", ".join(matches[:SHOWN])
    more = f" and {len(matches) - SHOWN:,} more" if len(matches) > SHOWN else ""
    head = f"{len(matches):,} of {total:,} match"
    return f"{head} ({current:,} selected now)" + (f": {shown}{more}" if matches else "")


def pick_one(label: str, options: Sequence[str], key: str) -> str | None:
    """One of ``options``; past :data:`LIMIT`, found with a filter (the first match by default)."""
    if len(options) <= LIMIT:
        value: str | None = st.selectbox(escape_markdown(label), list(options), key=key)
        return value
    pattern = st.text_input(
        f"{escape_markdown(label)}: filter",
        key=f"{key}.filter",
        placeholder="part of a name, or a glob",
        help=f"{len(options):,} to choose from: filter, then pick among the first {SHOWN}.",
    )
    found = matching(options, pattern) if pattern.strip() else list(options[:SHOWN])
    if not found:
        st.caption(f"Nothing of {len(options):,} matches.")
        return None
    shown: str | None = st.selectbox(
        escape_markdown(label), found[:SHOWN], key=f"{key}.{pattern.strip()}"
    )
    return shown

"""The page for a group too big to draw per partition: worked out in stoppable worker processes,
kept once per scenario, and shown as aggregates.

Past :func:`dashboard.model.aggregates.is_big` (more partitions, members or topics than a
browser can show one mark each), the explorer swaps its per-partition views for this page:

1. The server's thread only applies the edits (:func:`dashboard.model.whatif.outline`: the shaping
   controls' lists); no assignment is worked out there.
2. Whatever is not cached yet is worked out in one worker process (:mod:`dashboard.runtime.jobs`),
   which makes the what-if plan once and sends each answer as a small
   :class:`~dashboard.model.aggregates.Summary` (numbers and per-member counts, no per-partition
   data) as soon as it has it: the current assignment first, then per strategy its measured target
   and then its played rebalance. The page draws each as it arrives, with a progress line; a closed
   tab or a new action stops the worker. Final summaries are kept under the scenario's key, so a
   rerun that changes nothing recomputes nothing and the server never holds a per-partition
   structure of its own for the group.
3. The page says why it shows aggregates, and shows: a table of each assignment's numbers, the
   partitions and the lag per member as sorted curves (:mod:`dashboard.charts.aggregate_charts`),
   and the busiest members.

Invariants: the server holds no per-partition structure for the group besides the source and
the edited scenarios; the figures' size does not grow with the group; the shaping controls are
the same panel as for small groups; an answer is worked out at most once per scenario and edits.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import pandas as pd
import streamlit as st

from assignors import (
    AssignmentExplorerError,
    Scenario,
    registry,
)
from dashboard.charts import aggregate_charts
from dashboard.model import aggregates, whatif
from dashboard.model.plain import ERROR_ICON, INFO_ICON, WARNING_ICON, escape_markdown
from dashboard.panels import layout, shape_panel
from dashboard.runtime import budget, jobs, sessions
from dashboard.session import state


def _outline(source: Scenario) -> tuple[Scenario, Scenario] | None:
    """The shaped before and the after's membership (:func:`dashboard.model.whatif.outline`), once
    per scenario and edits; an edit that does not fit is undone. No strategy runs here: the
    server's thread only applies the edits."""
    cache = budget.shared()

    def build() -> tuple[Scenario, Scenario]:
        found: tuple[Scenario, Scenario] = cache.get_or_build(
            ("outline", state.scenario_key()), lambda: whatif.outline(source, state.edits())
        )
        return found

    return layout.undoing_misfits(build)


def is_big_after_edits(source: Scenario) -> bool:
    """Whether ``source``, as loaded or once the edits apply, is past what the per-partition
    views draw (:func:`dashboard.model.aggregates.is_big`). The edits are applied once per
    scenario and edits (shared with :func:`_outline`); edits that do not fit count as not big
    (the page that applies them undoes them and says why)."""
    if aggregates.is_big(source):
        return True
    try:
        _, after = budget.shared().get_or_build(
            ("outline", state.scenario_key()), lambda: whatif.outline(source, state.edits())
        )
    except AssignmentExplorerError:
        return False
    return aggregates.is_big(after)


def summaries(
    key: str,
    current_key: str,
    source: Scenario,
    names: Sequence[str],
    draw: Callable[[Sequence[aggregates.Summary], bool], None],
    size: tuple[int, int],
) -> list[aggregates.Summary]:
    """The current assignment's summary, then each strategy's: cached ones at once, the others
    worked out in one worker process and drawn (``draw(rows, final)``) as each arrives, with a
    progress line. Only final summaries are cached."""
    cache = budget.shared()
    # "big-current", not "current": that entry holds the per-partition page's Current, and one
    # shaped scenario can now be shown both ways (small as loaded, big once members are added).
    wanted: list[tuple[tuple[str, ...], str]] = [(("big-current", current_key), "current")]
    wanted += [(("strategy", key, n), n) for n in names]
    missing = [(k, n) for k, n in wanted if k not in cache]
    if not missing:
        return [found for found in (cache.get(k) for k, _ in wanted) if found is not None]
    partitions, members = size
    shown: dict[tuple[str, ...], aggregates.Summary] = {}
    with st.status(
        f"Working out {len(missing)} assignment(s) of {partitions:,} partitions over "
        f"{members:,} members…",
        expanded=True,
    ) as box:
        line = st.empty()
        started = time.monotonic()
        finished: list[str] = []

        def rows() -> list[aggregates.Summary]:
            return [
                row for row in (shown.get(k) or cache.get(k) for k, _ in wanted) if row is not None
            ]

        def arrived(item: tuple[tuple[str, ...], aggregates.Summary, bool]) -> None:
            cache_key, summary, final = item
            shown[cache_key] = summary
            if final:
                cache.put(cache_key, summary)
                finished.append(summary.name)
            progress(time.monotonic() - started)
            draw(rows(), False)

        def progress(elapsed: float) -> None:
            busy = next((n for k, n in missing if n not in finished), None)
            line.text(
                f"{len(finished)} of {len(missing)} done"
                + (f"; now {busy}" if busy else "")
                + f" ({elapsed:.0f} s)"
            )

        jobs.stream(
            aggregates.work_out,
            source,
            tuple(state.edits()),
            missing,
            on_item=arrived,
            on_wait=progress,
            still_wanted=sessions.session_alive,
            on_queued=lambda ahead, elapsed: line.text(jobs.queued_text(ahead, elapsed)),
        )
        box.update(label=f"Worked out in {time.monotonic() - started:.1f} s", state="complete")
    return rows()


def render(source: Scenario, picked: Sequence[str]) -> None:
    """The big-group page below the title: note, shaping controls, numbers, aggregate charts.

    The server's thread applies the edits (:func:`_outline`) and draws; every assignment is
    worked out in a worker process (:func:`dashboard.model.aggregates.work_out`), the current one
    first, and drawn as it arrives.
    """
    shaped = _outline(source)
    if shaped is None:
        return
    before, after = shaped
    key = state.plan_key()  # the outline may have undone an edit that no longer fits
    partitions = sum(topic.partitions for topic in after.topics)
    st.info(
        f"This group has {partitions:,} partitions, {len(after.members):,} members and "
        f"{len(after.topics):,} topics: more than a browser can draw one mark each "
        f"(the per-partition views stop at {aggregates.MAX_DRAWN_PARTITIONS:,} partitions, "
        f"{aggregates.MAX_DRAWN_MEMBERS:,} members or {aggregates.MAX_DRAWN_TOPICS:,} topics). "
        "Shown here: each assignment's numbers and how the members share the partitions and "
        "the lag.",
        icon=INFO_ICON,
    )
    shape_panel.panel(source, before, after)
    known = [name for name in picked if name in registry.partition_strategies()]
    area = st.empty()
    drawn = [0]

    def draw(rows: Sequence[aggregates.Summary], final: bool) -> None:
        drawn[0] += 1
        with area.container():
            _results(key, rows, "" if final else f".{drawn[0]}")

    try:
        rows = summaries(
            key,
            state.scenario_key(whatif.is_shaping),
            source,
            known,
            draw,
            (partitions, len(after.members)),
        )
    except jobs.JobCancelled:
        st.stop()
    except jobs.JobFailed as error:
        area.empty()
        st.error(f"The computation failed: {escape_markdown(str(error))}", icon=ERROR_ICON)
        return
    draw(rows, True)


def _results(key: str, rows: Sequence[aggregates.Summary], suffix: str) -> None:
    """Warnings, the numbers table and the figures for ``rows``; ``suffix`` keeps the element
    keys of the drawings made while the work goes on distinct from the final one's."""
    for row in rows:
        if row.error is not None:
            st.warning(
                f"{escape_markdown(row.name)} cannot run on this scenario:"
                f" {escape_markdown(row.error)}",
                icon=WARNING_ICON,
            )
    ran = [row for row in rows if row.error is None]
    st.dataframe(aggregates.summary_table(ran), hide_index=True, width="stretch")
    _figures(key, ran, suffix)


def _figures(key: str, rows: Sequence[aggregates.Summary], suffix: str = "") -> None:
    left, right = st.columns(2)
    names = ",".join(row.name for row in rows)  # a partial summary draws as its final one
    cache = budget.shared()
    partitions = cache.get_or_build(
        ("figure", key, "partitions", names),
        lambda: aggregate_charts.sorted_values_figure(
            [(row.name, row.partitions_per_member) for row in rows],
            title="Partitions per member",
            value_label="partitions",
        ),
    )
    lag = cache.get_or_build(
        ("figure", key, "lag", names),
        lambda: aggregate_charts.sorted_values_figure(
            [(row.name, row.lag_per_member) for row in rows],
            title="Lag per member",
            value_label="lag (records)",
        ),
    )
    left.plotly_chart(partitions, width="stretch", key=f"big.partitions{suffix}")
    right.plotly_chart(lag, width="stretch", key=f"big.lag{suffix}")
    st.markdown("**Busiest members** (most lag) per assignment")
    st.dataframe(
        pd.DataFrame(
            [
                {"assignment": row.name, "member": member, "partitions": count, "lag": lag_value}
                for row in rows
                for member, count, lag_value in row.busiest
            ]
        ),
        hide_index=True,
        width="stretch",
        height=300,
    )

"""A live KIP-848 consumer group's reconciliation: who holds its target, who is still moving.

Shown above the what-if when the source is a live consumer group whose scenario carries a
``reconciliation`` (:func:`assignors.reconciliation_progress` does the work; this module lays it
out):

1. The epochs as three badges (group epoch, target assignment epoch, members still reconciling)
   and one sentence saying what they mean.
2. A chart (:func:`dashboard.charts.reconciliation_charts.reconciliation_figure`): per member
   one bar split in three, *kept* (owned now and in the target), *pending revocation* (owned
   now, not in the target: the member still has to give it up) and *pending assignment* (in the
   target, not owned yet: it arrives once its holder lets it go).
3. A table (:func:`reconciliation_frame`): per member its epoch, state, what it owns now, its
   target and the pending partitions, with who still holds each pending one.
4. While some member reconciles, the move from now to the target as the dashboard's rebalance
   animation (:func:`dashboard.charts.reconciliation_charts.target_animation`).

:func:`streams_tasks_frame` is the Streams view's counterpart (each member's tasks now and its
target). Pure functions take the core's data and return tables; the figures come from
:mod:`dashboard.charts.reconciliation_charts`; only :func:`render` and :func:`render_streams`
touch Streamlit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd
import streamlit as st

from assignors import (
    TASK_KINDS,
    MemberProgress,
    Reconciliation,
    Scenario,
    StreamsReconciliation,
    StreamsScenario,
    TopicPartition,
    reconciliation_progress,
    streams_reconciliation_progress,
)
from dashboard.charts.reconciliation_charts import reconciliation_figure, target_animation
from dashboard.model import palette
from dashboard.model.members_table import compress
from dashboard.model.palette import member_names, short_labels
from dashboard.model.plain import SUCCESS_ICON, WARNING_ICON, escape_markdown
from dashboard.panels import projector_panel


def state_of(progress: MemberProgress) -> str:
    """A member's state in a few words, as a newcomer reads it."""
    if progress.pending_revocation:
        return "revoking"
    if progress.pending_assignment and progress.released_by:
        return "waiting for partitions"
    if progress.pending_assignment:
        return "being assigned"
    if progress.epoch_behind:
        return "catching up its epoch"
    return "at target"


def headline(reconciliation: Reconciliation, progress: Sequence[MemberProgress]) -> str:
    """One sentence: where the group stands."""
    moving = sum(1 for p in progress if p.reconciling)
    revoking = sum(len(p.pending_revocation) for p in progress)
    arriving = sum(len(p.pending_assignment) for p in progress)
    if not moving:
        return (
            f"Every member holds its target (target assignment epoch"
            f" {reconciliation.assignment_epoch}): the group is not rebalancing."
        )
    return (
        f"{moving} of {len(progress)} member(s) still reconciling toward the target computed at"
        f" epoch {reconciliation.assignment_epoch}: {revoking} partition(s) still to be given up,"
        f" {arriving} still to be handed over."
    )


def _epoch_text(progress: MemberProgress, assignment_epoch: int) -> str:
    if progress.member_epoch is None:
        return "—"
    if progress.epoch_behind:
        return f"{progress.member_epoch} (behind {assignment_epoch})"
    return str(progress.member_epoch)


def _pending_assignment_text(progress: MemberProgress, labels: Mapping[str, str]) -> str:
    if not progress.pending_assignment:
        return "—"
    free = [tp for tp in progress.pending_assignment if tp not in progress.released_by]
    parts = []
    by_holder: dict[str, list[TopicPartition]] = {}
    for tp, holder in progress.released_by.items():
        by_holder.setdefault(holder, []).append(tp)
    for holder, tps in by_holder.items():
        parts.append(f"{compress(tps)} (held by {labels.get(holder, holder)})")
    if free:
        parts.append(compress(free))
    return "; ".join(parts)


def reconciliation_frame(scenario: Scenario) -> pd.DataFrame:
    """One row per member (scenario order): epoch, state, owned now, target, pending ones."""
    assert scenario.reconciliation is not None
    epoch = scenario.reconciliation.assignment_epoch
    progress = reconciliation_progress(scenario)
    labels = member_names(scenario)
    clients = {m.member_id: m.client_id for m in scenario.members}
    rows = [
        {
            "member": labels[p.member_id],
            "client id": clients.get(p.member_id) or "—",
            "member epoch": _epoch_text(p, epoch),
            "state": state_of(p),
            "owns now": f"{len(p.current):,}",
            "target": f"{len(p.target):,}",
            "pending revocation": compress(p.pending_revocation) or "—",
            "pending assignment": _pending_assignment_text(p, labels),
            "member id": p.member_id,
        }
        for p in progress
    ]
    return pd.DataFrame(rows)


def render(
    scenario: Scenario,
    order: Sequence[str],
    colours: Mapping[str, str],
    *,
    animate: bool = True,
) -> None:
    """Steps 1-4 of the module docstring, for a scenario that carries a reconciliation (step 4
    only with ``animate``)."""
    reconciliation = scenario.reconciliation
    if reconciliation is None:
        return
    progress = reconciliation_progress(scenario)
    st.subheader("Reconciliation, as the cluster reported it")
    group, target, moving = st.columns(3)
    group.metric(
        "Group epoch",
        reconciliation.group_epoch,
        help="Bumped by every change to the group: a member joins or leaves, a subscription or"
        " a topic changes.",
    )
    target.metric(
        "Target assignment epoch",
        reconciliation.assignment_epoch,
        help="The group epoch the targets were computed at. Below the group epoch: the assignor"
        " has not run on the latest change yet.",
    )
    moving.metric(
        "Members reconciling",
        f"{sum(1 for p in progress if p.reconciling)} of {len(progress)}",
        help="Members whose current assignment or epoch is not yet their target's.",
    )
    sentence = headline(reconciliation, progress)
    if any(p.reconciling for p in progress):
        st.warning(escape_markdown(sentence), icon=WARNING_ICON)
    else:
        st.success(escape_markdown(sentence), icon=SUCCESS_ICON)
    st.caption(
        "A KIP-848 group moves one heartbeat at a time: each member first gives up what its"
        " target no longer holds (pending revocation), and gets a partition the target moves to"
        " it (pending assignment) once the member holding it has let it go."
    )
    projector_panel.plotly_chart(
        reconciliation_figure(progress, colours, member_names(scenario)),
        width="stretch",
        key="reconcile.figure",
    )
    table = reconciliation_frame(scenario)
    if list(table["member"]) == list(table["client id"]):
        table = table.drop(columns=["client id"])  # the members are named by their client ids
    st.dataframe(
        table,
        hide_index=True,
        width="stretch",
        column_config={
            "pending revocation": st.column_config.TextColumn(width="medium"),
            "pending assignment": st.column_config.TextColumn(width="large"),
        },
    )
    if animate and any(p.pending_revocation or p.pending_assignment for p in progress):
        with st.expander("Now → target, tile by tile", expanded=False):
            projector_panel.plotly_chart(
                target_animation(scenario, order, colours), width="stretch", key="reconcile.moves"
            )
            st.caption("Press ▶ Play or drag the slider: each tile moves to its target member.")


def _tasks_text(tasks: Sequence[object]) -> str:
    return ", ".join(str(task) for task in tasks) or "—"


def streams_tasks_frame(reconciliation: StreamsReconciliation) -> pd.DataFrame:
    """One row per Streams member (stream thread): instance, epoch, state, the tasks it runs
    now per kind and, where they differ, its target's."""
    progress = streams_reconciliation_progress(
        StreamsScenario(tasks=(), clients=(), reconciliation=reconciliation)
    )
    labels = short_labels([p.member_id for p in progress], 18)
    rows = []
    for p in progress:
        row: dict[str, str] = {
            "member": labels[p.member_id],
            "instance": palette.short_label(p.process_id, 14),
            "member epoch": (
                f"{p.member_epoch} (behind {reconciliation.assignment_epoch})"
                if p.epoch_behind
                else str(p.member_epoch)
            ),
            "state": "reconciling" if p.reconciling else "at target",
        }
        for kind in TASK_KINDS:
            row[f"{kind} now"] = _tasks_text(getattr(p.current, kind))
        for kind in TASK_KINDS:
            row[f"{kind} target"] = (
                _tasks_text(getattr(p.target, kind)) if p.current != p.target else "same"
            )
        row["member id"] = p.member_id
        rows.append(row)
    return pd.DataFrame(rows)


def render_streams(streams: StreamsScenario) -> None:
    """The live Streams group's tasks per member, with its epochs (when read from a cluster)."""
    reconciliation = streams.reconciliation
    if reconciliation is None:
        return
    progress = streams_reconciliation_progress(streams)
    moving = sum(1 for p in progress if p.reconciling)
    st.subheader("Tasks each member runs now (live)")
    st.markdown(
        f"Group epoch **{reconciliation.group_epoch:d}** · target assignment epoch"
        f" **{reconciliation.assignment_epoch:d}** · **{moving:,} of {len(progress)}** member(s)"
        " still reconciling."
    )
    st.dataframe(streams_tasks_frame(reconciliation), hide_index=True, width="stretch")

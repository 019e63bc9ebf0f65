"""Why this partition? Click a row of a strategy's assignment to read the decisions behind it.

The table lists every partition of the strategy's target with its member; selecting a row asks
the core for the strategy's explanation (:attr:`assignors.StrategyEvaluation.explanation`, the
strategy run once more with its recorder, cached per scenario and strategy) and shows that
partition's trace: the notes that decided it (member order, the split's arithmetic, quotas) and
each decision with its step and reason. Nothing here decides anything: the words are the
strategy's own record.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from assignors import Assignment, Explanation, PartitionTrace, TopicPartition
from dashboard.model import whatif
from dashboard.model.markup import literal
from dashboard.session import compute

COLUMNS = ["topic", "partition", "member"]


def partitions_frame(target: Assignment) -> pd.DataFrame:
    """One row per (partition, member) of ``target``, sorted by topic, partition, member."""
    rows = sorted(
        (tp.topic, tp.partition, member)
        for member, partitions in target.partitions.items()
        for tp in partitions
    )
    return pd.DataFrame(rows, columns=COLUMNS)


def trace_markdown(trace: PartitionTrace) -> str:
    """A partition's trace as Markdown: the notes as bullets, the decisions as numbered steps."""
    lines = [f"**Why {literal(str(trace.partition))}?** {literal(trace.outcome())}.", ""]
    lines.extend(f"- {literal(note)}" for note in trace.notes)
    if trace.notes:
        lines.append("")
    for number, decision in enumerate(trace.decisions, start=1):
        if decision.member is not None and decision.released_by is not None:
            action = f"{decision.released_by} → {decision.member}"
        elif decision.member is not None:
            action = f"→ {decision.member}"
        else:
            action = f"not {decision.released_by}"
        lines.append(
            f"{number}. *step {literal(decision.step)}*, {literal(action)}: "
            f"{literal(decision.reason)}"
        )
    return "\n".join(lines)


def explanation(key: str, plan: whatif.WhatIf, name: str) -> Explanation:
    """The strategy's explanation of the what-if's target, computed once per scenario."""
    evaluated = plan.evaluation.strategy(name)
    result: Explanation = compute.memo(key, f"explain:{name}", lambda: evaluated.explanation)
    return result


def render(key: str, plan: whatif.WhatIf, name: str, target: Assignment) -> None:
    """The partition table of ``target`` and, for the selected row, why it is there."""
    st.markdown("**Why this partition?** Click a row to see the decisions that placed it.")
    table = compute.memo(key, f"why-table:{name}", lambda: partitions_frame(target))
    selection = st.dataframe(
        table,
        hide_index=True,
        width="stretch",
        height=min(320, 38 + 35 * len(table)),
        on_select="rerun",
        selection_mode="single-row",
        key=f"view.why.{name}",
    )
    rows = selection.selection.rows if selection is not None else []
    if not rows:
        return
    row = table.iloc[rows[0]]
    partition = TopicPartition(str(row["topic"]), int(row["partition"]))
    trace = explanation(key, plan, name).partition(partition)
    with st.container(border=True, key="view.why.trace"):
        st.markdown(trace_markdown(trace))

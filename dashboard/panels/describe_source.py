"""Start from what engineers already have: ``kafka-consumer-groups.sh --describe`` output.

Paste the text (``--describe --group G``, and ``--describe --members --verbose`` too if you have
it) or upload the files, optionally name the group and partition counts the listing cannot show,
and press *Read the listing*. The core reads it (:func:`assignors.scenario_from_describe`, the same
reader as ``python -m assignors from-describe``) and the loader checks the scenario; the
assumptions it made are the scenario's warnings. A line that cannot be read is reported with its
source and line number ("pasted text:12: ..."), and the scenario already loaded stays.

Nothing typed is lost: the pasted text and the fields are kept in the session apart from their
widgets, so a failed read, another source picked and picked back, or a rerun shows them again.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from assignors import (
    AssignmentExplorerError,
    ScenarioError,
    parse_partition_counts,
    parse_scenario,
    scenario_from_describe,
)
from dashboard.model import sources
from dashboard.session import state

PASTED = "pasted text"
#: Widget key -> the session key that keeps its value when the widget is not drawn.
KEPT = {
    "source.describe_text": "ae.describe_text",
    "source.describe_group": "ae.describe_group",
    "source.describe_partitions": "ae.describe_partitions",
}

#: The listing's text fields (what a page switch must keep; the files cannot be kept).
FORM_VALUES = ("source.describe_text", "source.describe_group", "source.describe_partitions")


def _keep(widget: str) -> None:
    st.session_state[KEPT[widget]] = st.session_state.get(widget, "")


def _restore() -> None:
    """Give each widget its kept value when it is about to be drawn afresh."""
    for widget, kept in KEPT.items():
        if widget not in st.session_state:
            st.session_state[widget] = st.session_state.get(kept, "")


def render() -> None:
    """The paste box, the upload and the optional fields (drawn in the sidebar)."""
    _restore()
    st.text_area(
        "kafka-consumer-groups.sh output",
        key="source.describe_text",
        height=180,
        placeholder="GROUP  TOPIC  PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG  CONSUMER-ID ...",
        help="Paste the output of `kafka-consumer-groups.sh --describe --group G`, and of "
        "`--describe --members --verbose` below it if you have it (Kafka 3.x or 4.x).",
        on_change=_keep,
        args=("source.describe_text",),
    )
    files = st.file_uploader(
        "or upload the output files",
        accept_multiple_files=True,
        key="source.describe_files",
    )
    st.text_input(
        "Group (when the listing holds several)",
        key="source.describe_group",
        on_change=_keep,
        args=("source.describe_group",),
    )
    st.text_input(
        "Partition counts (topic:N, comma separated)",
        key="source.describe_partitions",
        help="For topics whose partitions the listing does not all show (--partitions).",
        on_change=_keep,
        args=("source.describe_partitions",),
    )
    if st.button("Read the listing", key="source.describe_read", type="primary"):
        texts = [(PASTED, str(st.session_state.get("source.describe_text", "")))]
        texts = [(name, text) for name, text in texts if text.strip()]
        texts += [(f.name, f.getvalue().decode("utf-8-sig", "replace")) for f in files or ()]
        read_listing(
            texts,
            str(st.session_state.get("source.describe_group", "")),
            str(st.session_state.get("source.describe_partitions", "")),
        )


def describe_source(
    texts: Sequence[tuple[str, str]], group: str = "", partitions: str = ""
) -> sources.Source:
    """The listings as a source; raises the core's errors only (each names its line)."""
    counts = parse_partition_counts(
        [part.strip() for part in partitions.split(",") if part.strip()], "partition counts"
    )
    document, warnings = scenario_from_describe(
        texts, group=group.strip() or None, partitions=counts
    )
    scenario, load_warnings = parse_scenario(document, path="")
    key = "describe:" + sources.content_key(
        "\0".join(text for _, text in texts) + group + partitions
    )
    label = f"kafka-consumer-groups.sh output, group “{scenario.group_id or scenario.name}”"
    return sources.Source(
        kind="upload",
        label=label,
        key=key,
        scenario=scenario,
        warnings=(*warnings, *load_warnings),
    )


def read_listing(texts: Sequence[tuple[str, str]], group: str, partitions: str) -> bool:
    """Make the listings the source; on failure report every unreadable line and keep the
    scenario already loaded (and everything typed)."""
    try:
        source = describe_source(texts, group, partitions)
    except ScenarioError as error:
        state.report_error("The listing was not read: " + "; ".join(error.problems))
        return False
    except AssignmentExplorerError as error:
        state.report_error(f"The listing was not read: {error}")
        return False
    state.set_source(source)
    state.report_notice(f"Read {len(source.scenario.members)} member(s) from the listing.")
    return True

"""The members of the group as ``kafka-consumer-groups.sh --describe --members --verbose``
shows them: member, client id, host, rack, partitions (count and list), lag. A pure function
(no Streamlit): scenario and assignment in, a table out.

Invariants: one row per member of the scenario, in the scenario's order; the member column is a
short distinct label (:func:`dashboard.model.palette.short_labels`) and the full id is its own
column; numbers are formatted with thousands separators; partition lists are compressed per topic
(``orders[0-3,7]``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from assignors import Scenario, TopicPartition, partition_lags
from dashboard.model.palette import member_names


def compress(partitions: Sequence[TopicPartition]) -> str:
    """``orders[0-3,7] payments[1]``: partitions grouped by topic, runs as ranges."""
    by_topic: dict[str, list[int]] = {}
    for tp in sorted(partitions):
        by_topic.setdefault(tp.topic, []).append(tp.partition)
    parts = []
    for topic, numbers in by_topic.items():
        runs: list[str] = []
        start = previous = numbers[0]
        for number in [*numbers[1:], None]:
            if number is not None and number == previous + 1:
                previous = number
                continue
            runs.append(str(start) if start == previous else f"{start}-{previous}")
            if number is not None:
                start = previous = number
        parts.append(f"{topic}[{','.join(runs)}]")
    return " ".join(parts)


def members_frame(
    scenario: Scenario, assignment: Mapping[str, Sequence[TopicPartition]]
) -> pd.DataFrame:
    """One row per member: member, member id, client id, host, rack, partitions, lag."""
    lag = {
        TopicPartition(topic.name, number): value
        for topic in scenario.topics
        for number, value in enumerate(partition_lags(topic, scenario.auto_offset_reset))
    }
    labels = member_names(scenario)
    rows = []
    for member in scenario.members:
        held = list(assignment.get(member.member_id, ()))
        rows.append(
            {
                "member": labels[member.member_id],
                "member id": member.member_id,
                "client id": member.client_id or "—",
                "host": member.host or "—",
                "rack": member.rack or "—",
                "partitions": f"{len(held):,}",
                "assignment": compress(held) or "—",
                "lag": f"{sum(lag.get(tp, 0) for tp in held):,}",
            }
        )
    columns = ["member", "member id", "client id", "host", "rack", "partitions", "assignment"]
    return pd.DataFrame(rows, columns=[*columns, "lag"])


#: The columns of :func:`members_frame` that hold words (the others hold numbers).
TEXT_COLUMNS = ("member", "member id", "client id", "host", "rack", "assignment")

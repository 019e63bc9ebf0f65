"""The dashboard's "Why this partition?" table and trace text (pure functions, no Streamlit)."""

from __future__ import annotations

from assignors import Member, PartitionStrategy, Scenario, Topic, TopicPartition, registry
from dashboard.panels.explain_panel import partitions_frame, trace_markdown


def test_the_table_lists_every_partition_with_its_member_and_the_trace_reads_as_steps() -> None:
    scenario = Scenario(
        (Topic("orders", 3),), (Member("b_1", ("orders",)), Member("a*", ("orders",)))
    )
    strategy = registry.get("range")
    assert isinstance(strategy, PartitionStrategy)
    explanation = strategy.explain(scenario)
    table = partitions_frame(explanation.assignment)
    assert table.values.tolist() == [["orders", 0, "a*"], ["orders", 1, "a*"], ["orders", 2, "b_1"]]
    text = trace_markdown(explanation.partition(TopicPartition("orders", 2)))
    assert text.splitlines()[0] == "**Why orders-2?** orders-2 goes to b\\_1."
    assert "- 3 partitions over 2 consumers\\: 3 // 2 = 1 each" in text  # ":" too: no :icons:
    assert "1. *step 1 range split*, → b\\_1: consumer #2 of 2" in text
    assert "a\\*" in text  # member ids are escaped, never Markdown

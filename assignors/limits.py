"""Size limits that keep memory bounded: the scenario loader refuses larger input, and every
change (:mod:`assignors.simulate.changes`) is checked against them after it applies.

A realistic 100,000-partition snapshot is far below every limit; a scenario at the limits still
fits in a few GB. Larger input is refused with a message naming the limit.
"""

#: Partitions in one topic.
MAX_PARTITIONS_PER_TOPIC = 1_000_000
#: Partitions in all topics together.
MAX_TOTAL_PARTITIONS = 5_000_000
#: Members of one group.
MAX_MEMBERS = 100_000
#: Topics of one scenario.
MAX_TOPICS = 100_000
#: Owned partitions of one member.
MAX_OWNED_PER_MEMBER = 5_000_000
#: Characters in a member id, topic name, rack or other name.
MAX_NAME_LENGTH = 4_096

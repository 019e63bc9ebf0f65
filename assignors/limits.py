"""Size limits that keep memory bounded: the scenario loader refuses larger input, and every
change (:mod:`assignors.simulate.changes`) is checked against them after it applies.

The limits are counts of partitions, members and topics, not bytes: the compact form of the
scenario format (:mod:`assignors.io.compact`) writes a million owned partitions in a few hundred
KiB, so bytes say little about the memory a scenario takes. A run of partitions counts as the
partitions it names, checked before they are made. The byte limits only stop a file too large to
decode before it is read. A realistic 100,000-partition snapshot is far below every limit; a
scenario at the limits still fits in a few GB. Larger input is refused with a message naming the
limit.
"""

#: Partitions in one topic.
MAX_PARTITIONS_PER_TOPIC = 1_000_000
#: Partitions in all topics together.
MAX_TOTAL_PARTITIONS = 5_000_000
#: Members of one group.
MAX_MEMBERS = 100_000
#: Topics of one scenario.
MAX_TOPICS = 100_000
#: Owned partitions of one member (each partition of a run counted).
MAX_OWNED_PER_MEMBER = 5_000_000
#: Owned partitions of all members together (each partition of a run counted): twice the
#: partition limit, room for every partition claimed by its owner and a previous one.
MAX_TOTAL_OWNED = 2 * MAX_TOTAL_PARTITIONS
#: Bytes of a scenario file the command line reads: generous, since the partition limits above
#: bound the memory (a one-by-one 1,000,000-partition rebalance is about 30 MB, its compact form
#: well under 1 MB).
MAX_SCENARIO_FILE_BYTES = 256 * 1024 * 1024
#: Characters in a member id, topic name, rack or other name.
MAX_NAME_LENGTH = 4_096

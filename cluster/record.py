"""``python -m cluster record``: sample a live cluster's groups into the pipeline's tables.

    python -m cluster record --bootstrap-servers host:9092 --output history/ \\
        --interval 30 --duration 3600 [--group orders --group payments]

Every ``interval`` seconds for ``duration`` seconds (one sample when ``duration`` is 0):

1. The groups: those named with ``--group``, else every consumer group the cluster lists.
2. Per group, through :class:`~cluster.reader.ClusterReader` (read-only requests only):
   DescribeGroups (members, subscriptions, assignment, the chosen assignor), OffsetFetch (the
   committed offsets), Metadata (partition counts) and ListOffsets (log start and end).
3. Rows in the pipeline's format (``docs/pipeline.md``): one offsets row per (time, cluster,
   group, topic, partition) of every topic a member subscribes to or is assigned or that the
   group has commits for, with the owner from the assignment; one members row per member.
4. Each sample is appended as one Parquet file per table (``offsets/part-<time>.parquet``,
   ``members/part-<time>.parquet``), so an interrupted recording keeps what it took.

A group that cannot be read (gone, not authorised, a Kafka Streams or share group: they have no
single owner and committed offset per partition) is reported on stderr and the
sample goes on; the summary counts groups sampled and skipped.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cluster.errors import ClusterError, UnsupportedGroupError
from cluster.reader import ClusterReader, TopicPartitionKey
from cluster.share_group import ShareGroupDescription
from cluster.snapshot import describe_any_group, topics_of

#: Shortest interval accepted between samples (seconds).
MIN_INTERVAL_S = 1.0


def sample_group(
    reader: ClusterReader, group_id: str, cluster: str, now: datetime
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Steps 2-3 for one group: (offsets rows, members rows)."""
    group, described = describe_any_group(reader, group_id)  # a KIP-848 member owns its target
    if isinstance(described, ShareGroupDescription):
        raise UnsupportedGroupError(
            f"group {group_id!r} is a share group (KIP-932): the pipeline's tables hold one owner"
            " and one committed offset per partition, which a share group does not have; read it"
            " with python -m cluster snapshot instead."
        )
    committed = reader.committed_offsets(group_id)
    wanted = topics_of(group.members) | {topic for topic, _ in committed}
    metadata = reader.topics(wanted)
    keys: list[TopicPartitionKey] = [
        (name, p) for name, topic in sorted(metadata.items()) for p in range(topic.partitions)
    ]
    starts, ends = reader.log_offsets(keys)
    owner = {tp: m for m in group.members for tp in m.assignment}
    offsets = []
    for key in keys:
        member = owner.get(key)
        offsets.append(
            {
                "time": now,
                "cluster": cluster,
                "group_id": group_id,
                "topic": key[0],
                "partition": key[1],
                "log_start": starts.get(key),
                "log_end": ends.get(key),
                "committed": committed.get(key),
                "member_id": None if member is None else member.member_id,
                "client_id": None if member is None else member.client_id,
                "host": None if member is None else member.host,
            }
        )
    members = [
        {
            "time": now,
            "cluster": cluster,
            "group_id": group_id,
            "member_id": m.member_id,
            "client_id": m.client_id,
            "host": m.host,
            "rack": m.rack,
            "group_instance_id": m.group_instance_id,
            "topics": sorted(set(m.topics)),
            "assignor": group.protocol or None,
        }
        for m in group.members
    ]
    return offsets, members


def write_sample(
    output: Path, offsets: list[dict[str, Any]], members: list[dict[str, Any]], now: datetime
) -> None:
    """Step 4: one Parquet file per table for this sample."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    stamp = now.strftime("%Y%m%dT%H%M%S%fZ")
    schemas = {
        "offsets": pa.schema(
            [
                ("time", pa.timestamp("us", tz="UTC")),
                ("cluster", pa.string()),
                ("group_id", pa.string()),
                ("topic", pa.string()),
                ("partition", pa.int32()),
                ("log_start", pa.int64()),
                ("log_end", pa.int64()),
                ("committed", pa.int64()),
                ("member_id", pa.string()),
                ("client_id", pa.string()),
                ("host", pa.string()),
            ]
        ),
        "members": pa.schema(
            [
                ("time", pa.timestamp("us", tz="UTC")),
                ("cluster", pa.string()),
                ("group_id", pa.string()),
                ("member_id", pa.string()),
                ("client_id", pa.string()),
                ("host", pa.string()),
                ("rack", pa.string()),
                ("group_instance_id", pa.string()),
                ("topics", pa.list_(pa.string())),
                ("assignor", pa.string()),
            ]
        ),
    }
    for table, rows in (("offsets", offsets), ("members", members)):
        folder = output / table
        folder.mkdir(parents=True, exist_ok=True)
        frame = pa.Table.from_pylist(rows, schema=schemas[table])
        pq.write_table(frame, folder / f"part-{stamp}.parquet")


def record(
    reader: ClusterReader,
    output: Path,
    *,
    cluster: str,
    groups: Iterable[str] = (),
    interval_s: float = 30.0,
    duration_s: float = 0.0,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    log: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True),
) -> tuple[int, int, int]:
    """Steps 1-4 repeated; returns (samples, group samples written, group samples skipped)."""
    if interval_s < MIN_INTERVAL_S:
        raise ClusterError(f"the interval must be at least {MIN_INTERVAL_S:g} s")
    if duration_s < 0:
        raise ClusterError("the duration must be >= 0 seconds")
    named = sorted(set(groups))
    started = clock()
    samples = written = skipped = 0
    while True:
        due = clock()
        now = datetime.now(UTC)
        group_ids = named or [
            g.group_id for g in reader.list_groups() if g.protocol_type in ("consumer", "")
        ]
        offsets: list[dict[str, Any]] = []
        members: list[dict[str, Any]] = []
        for group_id in group_ids:
            try:
                group_offsets, group_members = sample_group(reader, group_id, cluster, now)
            except ClusterError as error:
                skipped += 1
                log(f"skipped {group_id}: {error}")
                continue
            offsets += group_offsets
            members += group_members
            written += 1
        write_sample(output, offsets, members, now)
        samples += 1
        log(f"sample {samples} at {now:%H:%M:%S}: {len(group_ids)} group(s), {len(offsets)} rows")
        if clock() - started + interval_s > duration_s:
            return samples, written, skipped
        sleep(max(0.0, due + interval_s - clock()))


def add_record_parser(commands: Any, common: Any) -> None:
    """The ``record`` subcommand's options (``common``: the connection options)."""
    parser = commands.add_parser(
        "record", parents=[common], help="sample groups' offsets into the pipeline's tables"
    )
    parser.add_argument("--output", required=True, help="directory for offsets/ and members/")
    parser.add_argument("--group", action="append", default=[], help="only these groups")
    parser.add_argument("--interval", type=float, default=30.0, help="seconds between samples")
    parser.add_argument(
        "--duration", type=float, default=0.0, help="seconds to record (0: one sample)"
    )
    parser.add_argument(
        "--cluster-name", help="the cluster column (default: the bootstrap servers)"
    )


def run_record(settings: Any, options: Any) -> None:
    """``python -m cluster record``: steps 1-4 with the parsed options; summary on stdout."""
    with ClusterReader(settings) as reader:
        samples, written, skipped = record(
            reader,
            Path(options.output),
            cluster=options.cluster_name or settings.bootstrap_servers,
            groups=options.group,
            interval_s=options.interval,
            duration_s=options.duration,
        )
    print(
        f"recorded {samples} sample(s) to {options.output}: {written} group sample(s),"
        f" {skipped} skipped"
    )

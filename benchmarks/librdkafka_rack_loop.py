"""Does a rack-aware cooperative-sticky group settle? librdkafka's leader against ours.

Not part of the test suite (a looping group takes the whole wait). Run from the repository root:

    .venv/bin/python benchmarks/librdkafka_rack_loop.py                 # starts a cluster
    .venv/bin/python benchmarks/librdkafka_rack_loop.py --runs 3 --bootstrap HOST:PORT,...

The set-up of ``docs/mixed-client-groups.md``: one topic of six partitions with one replica each,
placed on the suite's brokers 1, 2, 3 (racks zone-a, zone-b, zone-c) as 0, 4, 5 in zone-b, 2, 3
in zone-a and 1 in zone-c (``--bootstrap`` must point at such a cluster). Members join one at a
time, then the first one leaves:

* ``librdkafka``: librdkafka ``ra`` (zone-a, joins first and leads), ``rb`` (no rack), ``rd1``
  (zone-b), ``rd2`` (no rack);
* ``ours leads``: our adapter's ``p0`` joins first and leads, then the same four librdkafka
  members; ``ra`` leaves;
* ``no client.rack``: like ``librdkafka`` with no member setting a rack.

A phase settles when the reader (DescribeGroups) reports the group Stable with every partition
assigned and nothing changes for 5 s. Printed per variant and run: whether each phase settled
within ``--wait`` seconds and how many rebalances the members led meanwhile (librdkafka's
elections plus our adapter's assignments).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


from cluster.errors import ClusterError
from cluster.reader import ClusterReader
from tests.kafka_broker import unique_name
from tests.kafka_cluster.cluster import KafkaCluster, start_cluster, stop_cluster
from tests.kafka_cluster.mixed_group import MixedGroup

PLACEMENT = {0: [2], 1: [3], 2: [1], 3: [1], 4: [2], 5: [2]}  # broker ids; 2 is zone-b
QUIET_S = 5.0
VARIANTS = {
    "librdkafka": (["ra", "rb", "rd1", "rd2"], {"ra": "zone-a", "rd1": "zone-b"}),
    "ours leads": (["p0", "ra", "rb", "rd1", "rd2"], {"ra": "zone-a", "rd1": "zone-b"}),
    "no client.rack": (["ra", "rb", "rd1", "rd2"], {}),
}


def settles(reader: ClusterReader, group_id: str, members: int, wait_s: float) -> bool:
    deadline = time.monotonic() + wait_s
    last: object = None
    since = time.monotonic()
    while time.monotonic() < deadline:
        try:
            group = reader.describe_group(group_id)
        except ClusterError:  # not formed yet
            time.sleep(0.5)
            continue
        state = sorted((m.client_id or "", sorted(m.assignment)) for m in group.members)
        done = (
            group.state == "Stable"
            and len(group.members) == members
            and sum(len(m.assignment) for m in group.members) == len(PLACEMENT)
        )
        if not done or state != last:
            last, since = state, time.monotonic()
        elif time.monotonic() - since >= QUIET_S:
            return True
        time.sleep(0.3)
    return False


def run(cluster: KafkaCluster, variant: str, wait_s: float, log_dir: Path) -> str:
    topic = cluster.create_placed_topic(unique_name("zoned"), PLACEMENT)
    order, racks = VARIANTS[variant]
    from adapters.kafka_python import CooperativeStickyAssignor

    group = MixedGroup(
        cluster, "cooperative-sticky", CooperativeStickyAssignor, unique_name("rack-loop"),
        {topic: len(PLACEMENT)}, log_dir, racks=dict(racks),
    )  # fmt: skip
    try:
        group.join(order[0])  # alone first, so it leads
        settles(group.reader, group.group_id, 1, wait_s)
        for client_id in order[1:]:
            group.join(client_id)
        joined = settles(group.reader, group.group_id, len(order), wait_s)
        before = len(group.librdkafka_leads) + len(group.python_leads)
        group.leave("ra")
        left = settles(group.reader, group.group_id, len(order) - 1, wait_s)
        rebalances = len(group.librdkafka_leads) + len(group.python_leads) - before
    finally:
        group.close()
    return (
        f"{variant:15} all joined: {'settled' if joined else 'NOT settled':11}"
        f" ra left: {'settled' if left else 'NOT settled':11} rebalances after: {rebalances}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--wait", type=float, default=60.0, help="seconds per phase")
    parser.add_argument("--bootstrap", help="a running cluster like the suite's (else start one)")
    parser.add_argument("--variants", nargs="*", default=list(VARIANTS))
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rack-loop-") as folder:
        work = Path(folder)
        if options.bootstrap:
            cluster = KafkaCluster(options.bootstrap, "", work, None, work, {}, {})
        else:
            cluster = start_cluster(work)
        try:
            for _ in range(options.runs):
                for variant in options.variants:
                    print(run(cluster, variant, options.wait, work), flush=True)
        finally:
            if not options.bootstrap:
                stop_cluster(cluster)
    os._exit(0)  # kafka-python's and librdkafka's threads do not hold the exit up


if __name__ == "__main__":
    main()

"""What the JSON gate costs: ``json.loads`` alone, the gate, and the whole scenario load.

    python -P benchmarks/json_gate.py [--partitions 1000000] [--members 2000] [--repeat 3]

(``-P``: ``benchmarks/assignors.py`` must not hide the ``assignors`` package.)

Builds one scenario with every per-partition array (log-end and committed offsets, produce rates)
and every partition owned, then prints the best of ``--repeat`` timings of each step on its text.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

from assignors import decode_json, parse_scenario
from assignors.io.scenario import MAX_FILE_BYTES


def _scenario(partitions: int, members: int) -> bytes:
    raw = {
        "topics": [
            {
                "name": "t",
                "partitions": partitions,
                "log_end_offsets": list(range(partitions)),
                "committed_offsets": [None if i % 7 == 0 else i for i in range(partitions)],
                "produce_rates": [1.5] * partitions,
            }
        ],
        "members": [
            {
                "member_id": f"m{j}",
                "topics": ["t"],
                "owned_partitions": [["t", i] for i in range(j, partitions, members)],
            }
            for j in range(members)
        ],
    }
    return json.dumps(raw).encode()


def _best(step: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        step()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--partitions", type=int, default=1_000_000)
    parser.add_argument("--members", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    text = _scenario(options.partitions, options.members)
    limit = max(MAX_FILE_BYTES, len(text))
    loads = _best(lambda: json.loads(text), options.repeat)
    gate = _best(lambda: decode_json(text, "bench", max_bytes=limit), options.repeat)
    value = decode_json(text, "bench", max_bytes=limit)
    parse = _best(lambda: parse_scenario(value, path="", json_checked=True), options.repeat)
    size = len(text) / 2**20
    print(f"{options.partitions:,} partitions x {options.members:,} members, {size:.1f} MiB")
    print(f"json.loads        {loads:6.2f} s")
    print(f"gate (decode)     {gate:6.2f} s  (+{gate - loads:.2f} s over json.loads)")
    print(f"loader (parse)    {parse:6.2f} s")
    print(f"gate share of the whole load: {(gate - loads) / (gate + parse):.0%}")


if __name__ == "__main__":
    main()

"""The big groups of issue 21's table, at the documented limits, as scenario files.

Each group is a plain JSON document in the scenario format (docs/scenario-format.md), built
deterministically, so the dashboard benchmark, the CLI timing and the tests all load the same
bytes. ``python benchmarks/big_groups.py OUTDIR`` writes them all.

Groups (name -> what it stresses):

* ``1m-x-2000``: 1,000,000 partitions (10 topics) over 2,000 fresh members: the strategies.
* ``1m-owned``: the same with every partition owned (round robin) by 2,000 members: the
  current assignment, the movement and the stickiness paths.
* ``10k-topics``: 10,000 topics of 4 partitions over 5 members: per-topic controls and charts.
* ``100k-members``: 100,000 members sharing one topic of 1,000 partitions: per-member controls.
* ``5x1m``: 5 topics of 1,000,000 partitions over 100 members (the 5M total limit).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

Document = dict[str, Any]


def _topics(count: int, partitions: int, width: int = 2) -> list[str]:
    return [f"t{index:0{width}d}" for index in range(count)]


def _members(count: int) -> list[str]:
    width = len(str(count - 1))
    return [f"c{index:0{width}d}" for index in range(count)]


def fresh_group(
    topic_count: int, partitions: int, member_count: int, name: str, width: int = 2
) -> Document:
    """``topic_count`` topics of ``partitions`` each, every member subscribed to all."""
    topics = _topics(topic_count, partitions, width)
    return {
        "name": name,
        "topics": [{"name": topic, "partitions": partitions} for topic in topics],
        "members": [{"member_id": member, "topics": topics} for member in _members(member_count)],
    }


def owned_group(topic_count: int, partitions: int, member_count: int, name: str) -> Document:
    """Like :func:`fresh_group`, every partition owned round robin (a running group)."""
    document = fresh_group(topic_count, partitions, member_count, name)
    members = document["members"]
    owned: list[list[list[object]]] = [[] for _ in members]
    slot = 0
    for topic in document["topics"]:
        for partition in range(partitions):
            owned[slot % member_count].append([topic["name"], partition])
            slot += 1
    for member, claims in zip(members, owned, strict=True):
        member["owned_partitions"] = claims
        member["generation"] = 3
    return document


GROUPS: dict[str, Callable[[], Document]] = {
    "1m-x-2000": lambda: fresh_group(10, 100_000, 2_000, "1M partitions x 2,000 members"),
    "1m-owned": lambda: owned_group(10, 100_000, 2_000, "1M owned partitions x 2,000 members"),
    "10k-topics": lambda: fresh_group(10_000, 4, 5, "10,000 topics x 5 members", width=5),
    "100k-members": lambda: fresh_group(1, 1_000, 100_000, "100,000 members x 1,000 partitions"),
    "5x1m": lambda: fresh_group(5, 1_000_000, 100, "5 topics x 1M partitions x 100 members"),
}


def write(name: str, folder: Path) -> Path:
    """Write group ``name`` to ``folder/NAME.json`` (compact JSON) and return the path."""
    path = folder / f"{name}.json"
    if not path.exists():
        path.write_text(json.dumps(GROUPS[name](), separators=(",", ":")))
    return path


def main(argv: list[str]) -> None:
    folder = Path(argv[0]) if argv else Path("big-groups")
    folder.mkdir(parents=True, exist_ok=True)
    for name in GROUPS:
        path = write(name, folder)
        print(f"{path}: {path.stat().st_size / 2**20:.1f} MiB")


if __name__ == "__main__":
    main(sys.argv[1:])

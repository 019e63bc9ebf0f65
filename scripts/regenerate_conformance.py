"""Re-answer the Kafka-produced conformance cases with Kafka itself (the oracle) and rewrite them.

Usage: ``.venv/bin/python scripts/regenerate_conformance.py [--kafka 4.4.0] [--check]``

Every case of the Kafka files of ``tests/conformance/`` (client, server, streams, streams-sticky,
streams-group) goes to the oracle for that Kafka version (a file whose assignor that version
lacks is left alone); its answer becomes the case's ``expected`` and ``versions.json`` names
the version.
Prints, per file, how many cases changed and the ids of the changed ones. ``--check`` changes
nothing (exit code 1 when some answer differs from the recorded one). The design documents'
files are models of rules, not Kafka, and are left alone.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.differential.compare import differ
from tests.differential.core import in_kafka
from tests.oracle import NEWEST, Oracle

CONFORMANCE = Path(__file__).resolve().parent.parent / "tests" / "conformance"
PRODUCERS = {
    "client.jsonl": "Apache Kafka's own client assignors (RangeAssignor, RoundRobinAssignor, "
    "StickyAssignor, CooperativeStickyAssignor)",
    "server.jsonl": "Apache Kafka's group-coordinator assignors (UniformAssignor, RangeAssignor)",
    "streams.jsonl": "Kafka Streams' HighAvailabilityTaskAssignor",
    "streams-sticky.jsonl": "Kafka Streams' StickyTaskAssignor (KIP-924)",
    "streams-group.jsonl": "Apache Kafka's group-coordinator StickyTaskAssignor of Streams groups "
    "(KIP-1071)",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kafka", default=NEWEST)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    versions_path = CONFORMANCE / "versions.json"
    versions = json.loads(versions_path.read_text(encoding="utf-8"))
    changed_any = False
    with Oracle(args.kafka) as oracle:
        for file_name, producer in PRODUCERS.items():
            path = CONFORMANCE / file_name
            cases = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
            if not all(in_kafka(c["strategy"], args.kafka) for c in cases):
                print(f"{file_name}: Kafka {args.kafka} has no such assignor; left alone")
                continue
            answers = oracle.answer_all(
                {"id": c["id"], "strategy": c["strategy"], "scenario": c["scenario"]} for c in cases
            )
            changed = []
            for case, answer in zip(cases, answers, strict=True):
                if "error" in answer:
                    raise SystemExit(
                        f"{file_name} {case['id']}: Kafka refused it: {answer['error']}"
                    )
                if differ(case["strategy"], {"assignment": case["expected"]}, answer):
                    changed.append(case["id"])
                case["expected"] = answer["assignment"]
                case.pop("java_ns", None)
            print(f"{file_name}: {len(cases)} cases, {len(changed)} changed {changed}")
            changed_any = changed_any or bool(changed)
            if not args.check:
                path.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
                versions[file_name] = {"producer": producer, "kafka_version": args.kafka}
    if not args.check:
        versions_path.write_text(
            "{\n"
            + ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in versions.items())
            + "\n}\n",
            encoding="utf-8",
        )
    return 1 if args.check and changed_any else 0


if __name__ == "__main__":
    raise SystemExit(main())

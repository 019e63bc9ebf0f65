"""Loading the conformance cases and comparing an answer with Kafka's.

The cases live in ``tests/conformance/`` (override with the ``AE_CONFORMANCE_DIR`` environment
variable); ``tests/conformance/versions.json`` says which Kafka version produced each file.
:func:`run_case` runs one case through the same path the batch CLI takes: the scenario loader, the
registry, the strategy.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assignors import registry
from assignors.io.scenario import parse_scenario
from assignors.strategy import PartitionStrategy

REPO = Path(__file__).resolve().parent.parent
CONFORMANCE_DIR = Path(os.environ.get("AE_CONFORMANCE_DIR", REPO / "tests" / "conformance"))


@dataclass(frozen=True)
class Case:
    file: str
    id: str
    strategy: str
    scenario: dict[str, Any]
    expected: dict[str, Any]


def load_cases(file_name: str) -> list[Case]:
    """Every case of one ``.jsonl`` file, in file order."""
    path = CONFORMANCE_DIR / file_name
    if not path.exists():
        raise FileNotFoundError(
            f"conformance file {path} not found: it ships in tests/conformance/ "
            "(or set AE_CONFORMANCE_DIR)"
        )
    cases = []
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            raw = json.loads(line)
            cases.append(
                Case(file_name, raw["id"], raw["strategy"], raw["scenario"], raw["expected"])
            )
    return cases


def iter_all_cases() -> Iterator[Case]:
    for path in sorted(CONFORMANCE_DIR.glob("*.jsonl")):
        yield from load_cases(path.name)


def partition_sets(answer: dict[str, list[list[Any]]]) -> dict[str, set[tuple[str, int]]]:
    return {member: {(t, p) for t, p in pairs} for member, pairs in answer.items()}


def run_case(case: Case) -> tuple[bool, str]:
    """Run a case; return (passed, a short description of the first difference)."""
    strategy = registry.get(case.strategy)
    if isinstance(strategy, PartitionStrategy):
        scenario, warnings = parse_scenario(case.scenario)
        got = partition_sets(strategy.assign(scenario, warnings).to_json())
        want = partition_sets(case.expected)
        if got == want:
            return True, ""
        for member in sorted(set(got) | set(want)):
            if got.get(member) != want.get(member):
                extra = sorted(got.get(member, set()) - want.get(member, set()))
                missing = sorted(want.get(member, set()) - got.get(member, set()))
                return False, f"{member}: extra {extra[:8]} missing {missing[:8]}"
        return False, "member sets differ"
    parsed = strategy.parse(case.scenario)
    answer = strategy.to_json(strategy.compute(parsed))
    if "members" in case.expected:
        why = compare_members(answer, case.expected)
        return not why, why
    return _compare_tasks(answer, case.expected)


def compare_members(answer: dict[str, Any], expected: dict[str, Any]) -> str:
    """Empty when every member has the same process and the same active and standby task sets."""
    got, want = answer.get("members", {}), expected.get("members", {})
    if set(got) != set(want):
        return f"member sets differ: {sorted(set(got) ^ set(want))[:6]}"
    for member, tasks in want.items():
        if got[member].get("process_id") != tasks.get("process_id"):
            return f"{member}: process {got[member].get('process_id')} != {tasks.get('process_id')}"
        for key in ("active", "standby"):
            if set(got[member].get(key, [])) != set(tasks.get(key, [])):
                return f"{member}.{key}: got {got[member].get(key)} want {tasks.get(key)}"
    return ""


def _compare_tasks(answer: dict[str, Any], expected: dict[str, Any]) -> tuple[bool, str]:
    if answer.get("probing_rebalance_needed") != expected.get("probing_rebalance_needed"):
        return False, "probing_rebalance_needed differs"
    got_clients = answer.get("clients", {})
    want_clients = expected.get("clients", {})
    if set(got_clients) != set(want_clients):
        return False, "client sets differ"
    for client, want in want_clients.items():
        got = got_clients[client]
        for key in ("active", "standby", "warmup"):
            if set(got.get(key, [])) != set(want.get(key, [])):
                return (
                    False,
                    f"{client}.{key}: got {sorted(got.get(key, []))} want {sorted(want[key])}",
                )
    return True, ""


def main() -> None:
    """Print the parity figure per strategy: ``python -m tests.conformance_cases [FILE ...]``."""
    import sys
    from collections import Counter

    files = sys.argv[1:] or [p.name for p in sorted(CONFORMANCE_DIR.glob("*.jsonl"))]
    known = registry.strategies()
    passed: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for file_name in files:
        for case in load_cases(file_name):
            total[case.strategy] += 1
            if case.strategy not in known:
                continue
            ok, why = run_case(case)
            if ok:
                passed[case.strategy] += 1
            elif os.environ.get("AE_VERBOSE"):
                print(f"FAIL {case.id}: {why}")
    for name in total:
        state = "" if name in known else "  (not registered)"
        print(f"{name:22} {passed[name]:4}/{total[name]}{state}")


if __name__ == "__main__":
    main()

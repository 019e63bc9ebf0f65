"""Parity with Kafka: every shared conformance case, every member, exact partition sets.

The cases were recorded from Kafka's own Java assignors (client, server, streams) or computed from
the rules the conformance README writes out (the design documents' strategies). A case passes
when every member gets exactly the expected set. The per-strategy parity figure is printed at the
end of the test run (see ``tests/conftest.py``).
"""

from __future__ import annotations

import pytest

from tests.conformance_cases import Case, iter_all_cases, run_case

CASES = list(iter_all_cases())
PARITY: dict[str, list[bool]] = {}


def test_every_conformance_file_is_present() -> None:
    files = {case.file for case in CASES}
    assert {"client.jsonl", "server.jsonl", "streams.jsonl"} <= files


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_matches_kafka(case: Case) -> None:
    ok, difference = run_case(case)
    PARITY.setdefault(case.strategy, []).append(ok)
    assert ok, difference

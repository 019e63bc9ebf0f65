"""The ``streams-ha`` generator covers every feature it lists (no oracle needed).

``tests.differential.streams_ha_cases.FEATURES`` names what the differential's Streams groups
for ``streams-ha`` are meant to reach (sizes, capacities, load ties, process-id styles and
orders, previous owners, Kafka's sentinel lags, configs); :func:`features` reads each from a
generated scenario. A feature no case has means the generator stopped making it.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.differential.streams_ha_cases import FEATURES, coverage, coverage_table, features

#: As many cases as one CI run of ``test_same_answers_as_kafka`` sends for a strategy.
CASES = 2_000


@settings(max_examples=1, deadline=None)
@given(first_seed=st.integers(min_value=0, max_value=2**40))
def test_every_listed_feature_is_generated(first_seed: int) -> None:
    counts = coverage(CASES, first_seed)
    print(coverage_table(counts, CASES))
    never = [name for name in FEATURES if counts[name] == 0]
    assert not never, f"never generated in {CASES:,} cases: {never}"


def test_features_are_read_from_the_scenario() -> None:
    """A hand-made group: eight clients listed out of UUID order, capacities 1 and 2, an active
    that ran (-2), unknown offsets (-3) and a whole-log lag shared by two clients."""
    ids = [f"00000000-0000-0000-0000-0000000000{n:02x}" for n in (5, 1, 7, 3, 2, 8, 4, 6)]
    lags = (-2, -3, 500, 500, 0, 10_001, 10_000, 20_000_000)
    clients = [
        {"process_id": pid, "capacity": 1 + n % 2, "task_lags": {"0_0": lag}}
        for n, (pid, lag) in enumerate(zip(ids, lags, strict=True))
    ]
    clients[0]["prev_active"] = ["0_0"]
    scenario = {
        "tasks": [{"id": "0_0", "stateful": True}, {"id": "1_0", "stateful": False}],
        "clients": clients,
        "config": {
            "num_standby_replicas": 2,
            "acceptable_recovery_lag": 10_000,
            "max_warmup_replicas": 1,
        },
    }
    assert features(scenario) == {
        "clients: 8-12",
        "stateful tasks: 1-8",
        "stateless tasks",
        "capacity 1",
        "capacity 2",
        "equal capacities",
        "loads tie across capacities",
        "ids: small sequential",
        "order: shuffled",
        "previous actives",
        "lag -2 (LATEST_OFFSET)",
        "lag -3 (UNKNOWN_OFFSET_SUM)",
        "lag: end offset sum tie",
        "lag 0",
        "lag at acceptable",
        "lag just past acceptable",
        "lag large",
        "standbys 2",
        "warm-ups 1",
    }

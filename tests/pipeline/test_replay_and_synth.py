"""Replay (strategies re-run over a window) and the synthetic history generator."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from pipeline import whatif
from pipeline.scenarios import OBSERVED
from pipeline.synth import SynthConfig, generate
from tests.pipeline.frames import T0, member, members_rows, offsets_rows, partition

pytestmark = pytest.mark.spark

LAGS = {0: 500, 1: 0, 2: 300, 3: 0}  # per partition, constant over time


def _history() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Members a, b own two partitions each; b leaves at T0 + 120 (a new epoch)."""
    offsets, members = [], []
    for step in range(4):
        t = T0 + 60 * step
        present = ["a", "b"] if step < 2 else ["a"]
        for p, lag in LAGS.items():
            owner = ("a" if p < 2 else "b") if step < 2 else "a"
            offsets.append(partition(t, "g", "t", p, 1000, 1000 - lag, owner))
        members += [member(t, "g", m, ["t"], assignor="range") for m in present]
    return offsets, members


def test_replay_redistributes_the_observed_lag(spark: Any) -> None:
    offsets, members = _history()
    carried, worst, summary = whatif.replay(
        offsets_rows(spark, offsets),
        members_rows(spark, members),
        strategies=["range", "roundrobin"],
    )
    rows = carried.toPandas()
    assert rows["error"].isna().all()
    totals = rows.groupby(["strategy", "t"])["lag"].sum()
    assert set(totals) == {800}  # every strategy carries exactly the group's lag at every time
    observed = rows[(rows.strategy == OBSERVED) & (rows.t == T0)].set_index("member_id")["lag"]
    assert observed.to_dict() == {"a": 500, "b": 300}
    # range gives a partitions 0-1 and b 2-3; roundrobin 0,2 and 1,3: worst 800 vs 500.
    first = worst.where(f"t = {T0}").toPandas().set_index("strategy")["worst_member_lag"]
    assert first["range"] == 500 and first["roundrobin"] == 800
    late = worst.where(f"t = {T0 + 180}").toPandas().set_index("strategy")["worst_member"]
    assert set(late) == {"a"}  # after b left, a carries everything under every strategy
    best = summary.toPandas().set_index("strategy")
    assert bool(best.loc["range", "best"]) and not bool(best.loc["roundrobin", "best"])
    assert not bool(best.loc[OBSERVED, "best"])


def _tables(config: SynthConfig) -> tuple[pd.DataFrame, pd.DataFrame]:
    parts = list(generate(config))
    offsets = pd.concat([o.to_pandas() for o, _ in parts], ignore_index=True)
    members = pd.concat([m.to_pandas() for _, m in parts], ignore_index=True)
    return offsets, members


def test_synth_is_reproducible_and_shows_each_incident() -> None:
    config = SynthConfig(
        groups=6,
        hours=2,
        interval_s=60,
        seed=3,
        min_members=2,
        max_members=4,
        max_partitions=12,
        every_incident=True,
    )
    offsets, members = _tables(config)
    again, again_members = _tables(config)
    pd.testing.assert_frame_equal(offsets, again)
    pd.testing.assert_frame_equal(members, again_members)
    assert len(offsets) == offsets.groupby("group_id", observed=True)["partition"].size().sum()
    assert (offsets["committed"] <= offsets["log_end"]).all()
    ids = members.groupby("group_id", observed=True)["member_id"].nunique()
    assert (
        ids["group-00001"] > members[members.group_id == "group-00001"].groupby("time").size().max()
    )  # churn: a new id
    stuck = offsets[offsets.group_id == "group-00002"].copy()
    stuck["moved"] = stuck.groupby(["topic", "partition"], observed=True)["committed"].diff()
    assert (
        stuck.groupby("member_id", observed=True)["moved"].apply(lambda s: (s == 0).sum()) >= 59
    ).any()
    stopped = offsets[offsets.group_id == "group-00004"]
    assert stopped["member_id"].isna().any()  # an hour with nobody consuming

"""The byte-budgeted result cache: it evicts past its budget, expires idle entries, and sizes
big results by sampling."""

from __future__ import annotations

import pytest

from dashboard.runtime import budget


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_evicts_least_recently_used_past_the_byte_budget() -> None:
    cache = budget.ByteBudgetCache(budget_bytes=1_000, ttl_s=60)
    cache.put("a", "A", nbytes=400)
    cache.put("b", "B", nbytes=400)
    assert cache.get("a") == "A"  # "b" is now the least recently used
    cache.put("c", "C", nbytes=400)
    assert "b" not in cache
    assert cache.get("a") == "A" and cache.get("c") == "C"
    assert cache.used_bytes == 800 <= cache.budget_bytes


def test_an_entry_larger_than_the_budget_is_not_kept() -> None:
    cache = budget.ByteBudgetCache(budget_bytes=1_000, ttl_s=60)
    cache.put("small", 1, nbytes=100)
    cache.put("huge", 2, nbytes=5_000)
    assert "huge" not in cache and cache.get("small") == 1
    assert cache.used_bytes == 100


def test_entries_expire_after_their_time_unused() -> None:
    clock = Clock()
    cache = budget.ByteBudgetCache(budget_bytes=1_000, ttl_s=10, clock=clock)
    cache.put("old", 1, nbytes=10)
    cache.put("used", 2, nbytes=10)
    clock.now = 8
    assert cache.get("used") == 2
    clock.now = 12
    cache.sweep()
    assert "old" not in cache and cache.get("used") == 2
    assert cache.used_bytes == 10
    clock.now = 30
    assert cache.get("used") is None and cache.used_bytes == 0


def test_sizes_are_estimated_when_not_given() -> None:
    cache = budget.ByteBudgetCache(budget_bytes=200_000, ttl_s=60)
    cache.put("list", list(range(50_000)))  # ~1.8 MB of ints and pointers: over the budget
    assert "list" not in cache
    cache.put("short", "x" * 100)
    assert "short" in cache and 100 < cache.used_bytes < 1_000


def test_estimate_scales_with_the_content() -> None:
    small = {f"member-{i}": tuple(range(i % 7)) for i in range(1_000)}
    large = {f"member-{i}": tuple(range(i % 7)) for i in range(100_000)}
    ratio = budget.estimate_bytes(large) / budget.estimate_bytes(small)
    assert 50 < ratio < 200


def test_get_or_build_builds_once() -> None:
    cache = budget.ByteBudgetCache(budget_bytes=10_000, ttl_s=60)
    calls: list[int] = []
    for _ in range(3):
        assert cache.get_or_build("k", lambda: calls.append(1) or "v") == "v"
    assert calls == [1]


@pytest.mark.parametrize(
    ("text", "expected"),
    [("1024", 1024), ("512M", 512 << 20), ("2G", 2 << 30), ("1.5GiB", 3 << 29), ("64k", 65536)],
)
def test_budget_from_the_environment(text: str, expected: int) -> None:
    assert budget.parse_bytes(text) == expected


def test_a_bad_budget_is_refused() -> None:
    with pytest.raises(ValueError):
        budget.parse_bytes("-5M")


def test_each_object_is_counted_once_however_often_it_is_referenced() -> None:
    shared = list(range(1_000))
    once = budget.estimate_bytes(shared)
    assert budget.estimate_bytes([shared] * 40) < once + 1_000
    loop: list[object] = []
    loop.append(loop)
    assert budget.estimate_bytes({"a": loop, "b": loop}) < 1_000


def test_a_plotly_figure_weighs_about_what_it_holds() -> None:
    # Traces point back to their figure: counted at every reference, a figure whose JSON is 14 KB
    # was sized at 200 MB, which evicted every other entry and made every rerun recompute.
    import plotly.graph_objects as go

    figure = go.Figure(
        [go.Bar(x=list(range(200)), y=[str(i) for i in range(200)]) for _ in range(4)]
    )
    assert budget.estimate_bytes(figure) < 5_000_000


def test_a_plotly_figure_is_sized_from_its_data_frames_included() -> None:
    import plotly.graph_objects as go

    small = go.Figure(go.Scatter(x=list(range(10)), y=list(range(10))))
    frames = [go.Frame(data=[go.Scatter(x=list(range(2_000)), y=[f"m{i}" for i in range(2_000)])])]
    large = go.Figure(small.data, frames=frames * 4)
    assert budget.estimate_bytes(small) >= len(small.to_json())
    # The frames (4 x 2,000 points) are counted, not only the figure's own trace.
    frames_json = len(large.to_json()) - len(small.to_json())
    assert budget.estimate_bytes(large) >= budget.estimate_bytes(small) + frames_json


def test_an_entry_grows_by_what_it_kept_and_evicts_others_to_fit() -> None:
    cache = budget.ByteBudgetCache(budget_bytes=1_000, ttl_s=60)
    cache.put("plan", "P", nbytes=300)
    cache.put("other", "O", nbytes=400)
    cache.grow("plan", 200)
    assert cache.used_bytes == 900 and cache.get("other") == "O"
    cache.grow("plan", 300)  # 800 for the plan: the other entry goes
    assert "other" not in cache and cache.get("plan") == "P"
    assert cache.used_bytes == 800
    cache.grow("absent", 100)
    assert "absent" not in cache and cache.used_bytes == 800
    cache.grow("plan", 5_000)  # past the whole budget: not kept
    assert "plan" not in cache and cache.used_bytes == 0

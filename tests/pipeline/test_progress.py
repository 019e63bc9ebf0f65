"""Progress lines: stages, groups done and an estimate of what is left."""

from __future__ import annotations

from pipeline.progress import progress_line


def test_groups_done_give_the_estimate() -> None:
    line = progress_line([(7, 5, 16)], groups_done=250, groups_total=1000, elapsed_s=30.0)
    assert line == "stage 7: 5/16 tasks; groups 250/1,000 (25%); 30 s so far, about 90 s left"


def test_tasks_give_the_estimate_until_a_group_is_counted() -> None:
    line = progress_line([(3, 1, 4), (4, 1, 4)], groups_done=0, groups_total=None, elapsed_s=10.0)
    assert line == "stage 3: 1/4 tasks; stage 4: 1/4 tasks; 10 s so far, about 30 s left"


def test_nothing_done_yet_promises_nothing() -> None:
    assert progress_line([(1, 0, 8)], 0, 100, 2.0) == (
        "stage 1: 0/8 tasks; groups 0/100 (0%); 2 s so far"
    )

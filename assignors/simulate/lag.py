"""Consumer lag per partition: the one place the project turns offsets into lag.

The lag of a partition for a group is how many records the group still has to read there. The
lag-aware strategy, the metrics and the dashboard all read it from :func:`partition_lags`, so
every view shows the same numbers.

Rules, per partition ``p`` of a topic:

1. Given ``topic.lags``: ``lags[p]`` as it is (the loader guarantees ``>= 0``).
2. Otherwise the lag is ``end - next``, floored at 0, where ``end`` is ``log_end_offsets[p]`` and
   ``next`` is where the group would read next:

   * ``committed_offsets[p]`` when the group has a commit there;
   * with no commit, ``auto.offset.reset`` decides where a consumer starts: ``latest`` starts at
     the log end (lag 0); ``earliest`` and anything else (``none`` included, as in the KAFKA-5337
     prototype) start at ``log_start_offsets[p]`` (lag ``end - start``; 0 when log-start offsets
     are not known).
3. A committed offset beyond the log end (the log was truncated) gives lag 0, never a negative
   lag; a committed offset below the log start (records deleted) counts from the commit.
4. Without ``lags`` and without ``log_end_offsets`` nothing is known: every lag is 0.

Invariants: the answer has exactly ``topic.partitions`` entries, each an integer ``>= 0``.
"""

from __future__ import annotations

from assignors.model import AutoOffsetReset, Topic


def partition_lag(
    log_end: int,
    committed: int | None,
    log_start: int | None,
    auto_offset_reset: AutoOffsetReset | str,
) -> int:
    """The lag of one partition from its offsets (rules 2 and 3 of the module docstring)."""
    if committed is not None:
        next_offset = committed
    elif auto_offset_reset == "latest":
        next_offset = log_end
    else:
        next_offset = log_end if log_start is None else log_start
    return max(log_end - next_offset, 0)


def partition_lags(topic: Topic, auto_offset_reset: AutoOffsetReset | str = "latest") -> list[int]:
    """Lag of every partition of ``topic``, in partition order (see the module docstring)."""
    if topic.lags is not None:
        return list(topic.lags)
    ends = topic.log_end_offsets
    if ends is None:
        return [0] * topic.partitions
    committed = topic.committed_offsets
    starts = topic.log_start_offsets
    return [
        partition_lag(
            ends[p],
            None if committed is None else committed[p],
            None if starts is None else starts[p],
            auto_offset_reset,
        )
        for p in range(topic.partitions)
    ]

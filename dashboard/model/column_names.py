"""Column names in words: whatever the pipeline named a column (``lag_total``, ``pause_s``), a
table shows "lag total", "pause (s)". The data keep their names (tests and links use them).
"""

from __future__ import annotations

#: Headers said better than by splitting the name.
HEADERS = {
    "group_id": "group",
    "lag_cv": "lag coeff. of variation",
    "lag_max_min_ratio": "lag max/min ratio",
    "extra_members_to_drain": "members to add to drain in an hour",
    "extra_members_note": "note",
    "t": "time",
}
_UNITS = {"_s": " (s)", "_ms": " (ms)", "_pct": " (%)"}


def header(name: str) -> str:
    """``peak_worst_lag`` -> "peak worst lag", ``pause_s`` -> "pause (s)"."""
    if name in HEADERS:
        return HEADERS[name]
    for suffix, unit in _UNITS.items():
        if name.endswith(suffix):
            return name[: -len(suffix)].replace("_", " ") + unit
    return name.replace("_", " ")

"""The server's settings read from its environment, once per use (never per session).

* ``AE_PIPELINE_INPUT``: the offset snapshots the Fleet view rebuilds groups from (default: the
  small history shipped in ``sample_data/history``).
* ``AE_PIPELINE_OUTPUT``: where the History and Fleet views read the pipeline's tables
  (``python -m pipeline lag|whatif|replay --output PIPELINE_OUTPUT/lag|whatif|replay``; see
  docs/pipeline.md; default: ``pipeline-output/`` in the checkout).
"""

from __future__ import annotations

import os
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]


def pipeline_input() -> Path:
    """The directory of offset snapshots the Fleet view reads."""
    return Path(os.environ.get("AE_PIPELINE_INPUT") or CHECKOUT / "sample_data" / "history")


def pipeline_output() -> Path:
    """The directory the pipeline's jobs wrote their tables to."""
    return Path(os.environ.get("AE_PIPELINE_OUTPUT") or CHECKOUT / "pipeline-output")

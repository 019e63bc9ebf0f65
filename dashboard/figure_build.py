"""Building Plotly figures from plain dicts, fast: the figure functions' one shortcut."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go


def trusted_figure(
    data: Sequence[Mapping[str, object]],
    layout: Mapping[str, object],
    frames: Sequence[Mapping[str, object]] = (),
) -> go.Figure:
    """A figure from plain dicts, without Plotly checking each property as it builds it.

    Checking costs ~20 ms per figure at 200 members, every time *Add member* redraws; the
    figures built this way are checked once, in the tests (``go.Figure(figure.to_dict())``
    validates every property), so a typo still fails there. Frames are checked by Plotly
    whatever is asked (cheap with NumPy arrays).
    """
    return go.Figure(data=list(data), layout=dict(layout), frames=list(frames), _validate=False)

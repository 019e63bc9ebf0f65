"""Building Plotly figures from plain dicts, fast: the figure functions' one shortcut."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TypeAlias

import plotly.graph_objects as go

#: What every figure function returns, named here so that panels and views can annotate a
#: figure without importing Plotly (their layers may not).
Figure: TypeAlias = go.Figure

#: Pixels per character of a tick label, a little wider than Streamlit's and Plotly's fonts
#: draw an average one at 12 px (so that a margin sized from it is never too narrow).
CHAR_PX = 7.2


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


def label_px(labels: Iterable[str], font_px: float = 12) -> int:
    """About the width in pixels of the longest of ``labels`` at ``font_px`` (upper estimate).

    Figures size their margins from it: Plotly grows a margin that its labels, slider or
    buttons would overflow (``automargin``), but by drawing the whole figure again, which
    doubled the cost of every chart the page redraws on a what-if edit. A margin already
    wide enough costs nothing; one estimated short still draws right (Plotly grows it).
    """
    return round(max((len(label) for label in labels), default=0) * CHAR_PX * font_px / 12)

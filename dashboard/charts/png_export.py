"""Charts as PNG on the server: Plotly's image export (``kaleido``) driving a Chromium.

``kaleido`` (version 1) renders a figure in a headless Chrome or Chromium that is already
installed; it bundles none. This module decides whether that works here and renders:

1. The browser: ``BROWSER_PATH`` when set (an operator's override, also what kaleido itself
   reads), else Debian's Chromium at :data:`DEBIAN_CHROMIUM`, else a Chromium-based browser
   ``kaleido``'s launcher finds on the ``PATH``.
2. :func:`unavailable_reason` says in one sentence why PNG export cannot work (``kaleido`` not
   installed, or no browser), ``None`` when it can; the dashboard shows that sentence and
   points to the chart's camera icon (the browser-side PNG) instead.
3. :func:`figure_png` renders one figure to PNG bytes (a few seconds: a browser starts per
   call, so the dashboard only calls it when a PNG download is clicked). A failure to render
   raises :class:`PngExportError` with the browser's complaint.

Invariant: nothing here runs at import time or on a page render; only a click renders.
"""

from __future__ import annotations

import importlib.util
import os
import shutil

import plotly.graph_objects as go

from assignors import AssignmentExplorerError

#: Where Debian's ``chromium`` package installs its launcher.
DEBIAN_CHROMIUM = "/usr/bin/chromium"
#: Executable names tried on the ``PATH`` when neither of the above is there.
BROWSER_NAMES = ("chromium", "chromium-browser", "google-chrome", "chrome")
#: Pixel size of an exported chart unless the figure sets its own height.
DEFAULT_WIDTH = 1200
DEFAULT_HEIGHT = 600


class PngExportError(AssignmentExplorerError, RuntimeError):
    """The chart could not be rendered to PNG; the message says why."""


def kaleido_installed() -> bool:
    """Whether the ``kaleido`` package can be imported."""
    return importlib.util.find_spec("kaleido") is not None


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def browser_path() -> str | None:
    """The browser kaleido will drive (step 1 of the module docstring), or ``None``."""
    override = os.environ.get("BROWSER_PATH")
    if override:
        return override if _executable(override) else None
    if _executable(DEBIAN_CHROMIUM):
        return DEBIAN_CHROMIUM
    for name in BROWSER_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def unavailable_reason() -> str | None:
    """Why PNG export cannot work here, for the UI; ``None`` when it can."""
    if not kaleido_installed():
        return "PNG export on the server needs the `kaleido` package, which is not installed"
    if browser_path() is None:
        override = os.environ.get("BROWSER_PATH")
        if override:
            return (
                f"PNG export on the server needs a Chromium; BROWSER_PATH points to {override},"
                " which is not an executable"
            )
        return (
            "PNG export on the server needs Chrome or Chromium (Debian: `apt install chromium`),"
            " and none was found"
        )
    return None


def figure_png(
    figure: go.Figure, *, width: int = DEFAULT_WIDTH, height: int | None = None
) -> bytes:
    """``figure`` as PNG bytes, rendered by kaleido in the browser of :func:`browser_path`."""
    reason = unavailable_reason()
    if reason is not None:
        raise PngExportError(reason)
    import kaleido  # type: ignore[import-untyped,unused-ignore]

    chosen_height = height or figure.layout.height or DEFAULT_HEIGHT
    try:
        image = kaleido.calc_fig_sync(
            figure,
            opts={"format": "png", "width": width, "height": chosen_height},
            # No MathJax: the charts have no formulas, and it would be fetched from a CDN.
            kopts={"path": browser_path(), "mathjax": False},
        )
    except Exception as error:  # kaleido raises its launcher's and the browser's own errors
        raise PngExportError(f"the browser could not render the chart: {error}") from error
    if not isinstance(image, bytes) or not image.startswith(b"\x89PNG"):
        raise PngExportError("the browser returned something that is not a PNG image")
    return image

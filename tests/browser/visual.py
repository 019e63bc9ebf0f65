"""Visual regression: a screenshot of each page, reduced to a small grayscale image and compared
with a committed reference (``tests/browser/visual_references/``).

1. :data:`SHOTS` is the set: every page of ``dashboard.views.pages.PAGES`` opened from a link
   ``/<url_path>?sample=KEY`` for three samples, at 1280 and 1920 px wide. History and Fleet do
   not show the loaded source (``uses_source=False``): one sample covers them.
2. :func:`capture` opens the link in a fixed viewport (:data:`HEIGHT` px high, no scrolling),
   waits for Streamlit's run to end, for the web fonts and for every Plotly chart to have drawn,
   and takes a screenshot with animations paused (nobody presses Play) and the caret hidden.
3. :func:`reduce` shrinks it to 1/:data:`SCALE` of its size in grayscale: a change of layout
   (a line more, a panel moved, a chart resized) survives, the anti-aliasing of one glyph does not.
4. :func:`compare` measures the mean absolute difference of the pixels (0-255) and the share of
   pixels that differ by more than :data:`PIXEL_THRESHOLD`; a shot passes when both are within
   :data:`TOLERANCE`.

Renewing the references is a deliberate act: ``python scripts/renew_visual_references.py``.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image, ImageChops

from dashboard.views import pages

REFERENCES = Path(__file__).resolve().parent / "visual_references"
RENEW = "python scripts/renew_visual_references.py"
WIDTHS = (1280, 1920)
HEIGHT = 1000
SCALE = 4
#: A reduced pixel "differs" when its gray level moves by more than this (of 255).
PIXEL_THRESHOLD = 32

#: Three samples: a small consumer group, a large one, a Kafka Streams application.
SAMPLES = ("range-vs-roundrobin", "large-group", "streams-new-instance")


@dataclass(frozen=True, slots=True)
class Tolerance:
    """How far a shot may drift from its reference and still pass."""

    mean_difference: float
    """Mean absolute gray-level difference per reduced pixel (0-255)."""
    differing_share: float
    """Share (0-1) of reduced pixels differing by more than :data:`PIXEL_THRESHOLD`."""


#: Set from measurements (Debian's Chromium, headless; 3 server starts, 7 screenshots of every
#: shot, 588 pairs compared): the noise is at most 0.000025 mean difference and no reduced
#: pixel ever moved by more than PIXEL_THRESHOLD (a few full-size pixels of anti-aliasing, e.g.
#: at a chart's edge, average away). The smallest real changes measured: one word of the History
#: page's title changed, 0.27 mean and 0.21% of pixels (1920 px); one line of text added under the
#: Deploy page's title, 1.30 and 1.03% where the page is short, 4.8-8.4 and 3.7-8.6% elsewhere.
#: The tolerance sits ~2,000x above the noise and ~4-5x below that one-word change. A new
#: Chromium or font may shift glyphs beyond it: renew then, after looking at the images (the
#: renewal prints every difference).
TOLERANCE = Tolerance(mean_difference=0.05, differing_share=0.0005)


@dataclass(frozen=True, slots=True)
class Shot:
    """One screenshot: a page (its ``url_path``, ``""`` for the default page), a sample, a width."""

    page: str
    sample: str
    width: int

    @property
    def name(self) -> str:
        return f"{self.page or 'explorer'}-{self.sample}-{self.width}"

    @property
    def path(self) -> str:
        """The link that opens it, relative to the served app."""
        return f"/{self.page}?sample={self.sample}"

    @property
    def reference(self) -> Path:
        return REFERENCES / f"{self.name}.png"


def _shots() -> tuple[Shot, ...]:
    shots: list[Shot] = []
    for spec in pages.PAGES:
        address = "" if spec.default else spec.url_path
        samples = SAMPLES if spec.uses_source else SAMPLES[:1]
        shots.extend(Shot(address, sample, width) for sample in samples for width in WIDTHS)
    return tuple(shots)


SHOTS = _shots()

#: Every Plotly chart has drawn: its layout computed, its SVG in place, no frame queued.
PLOTS_DRAWN_JS = """
() => [...document.querySelectorAll('.js-plotly-plot')].every(plot => {
  const queued = plot._transitionData && plot._transitionData._frameQueue;
  return Boolean(plot._fullLayout) && plot.querySelector('.main-svg') !== null
    && !plot._transitioning && !(queued && queued.length);
})
"""

#: The server's environment for the shots: History and Fleet read the pipeline's tables from
#: a directory that is never there, so the shot does not depend on whether someone ran the
#: pipeline in this checkout (those pages then show how to make the tables).
SERVER_ENV = {"AE_PIPELINE_OUTPUT": "/visual-regression/no-pipeline-output"}

#: The checkout's path in the page's text (the commands History and Fleet show) is replaced by
#: a fixed word: the shot must not depend on where the project is checked out.
CHECKOUT_WORD = "CHECKOUT"
HIDE_CHECKOUT_JS = """
([checkout, word]) => {
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.nodeValue;
    if (text.includes(checkout)) node.nodeValue = text.split(checkout).join(word);
  }
}
"""

#: No blinking caret, no CSS transitions mid-way: what a screenshot shows is what settled.
STILL_CSS = "* { caret-color: transparent !important; transition: none !important; }"


def capture(page: Any, base_url: str, shot: Shot) -> bytes:
    """A PNG of ``shot`` at full size: the viewport's top :data:`HEIGHT` px, settled."""
    from tests.browser.served_app import ROOT
    from tests.browser.ui import check_page, settle

    page.set_viewport_size({"width": shot.width, "height": HEIGHT})
    page.goto(base_url + shot.path)
    page.get_by_text("Assignment Explorer").first.wait_for()
    settle(page)
    page.add_style_tag(content=STILL_CSS)
    page.evaluate("() => document.fonts.ready")
    page.wait_for_function(PLOTS_DRAWN_JS, timeout=60_000)
    settle(page)
    # Streamlit fades in elements it has just replaced; Plotly draws its last layers after
    # its promise resolves: half a second covers both.
    page.wait_for_timeout(500)
    check_page(page, f"opening {shot.path} at {shot.width} px")
    page.evaluate(HIDE_CHECKOUT_JS, [str(ROOT), CHECKOUT_WORD])
    page.wait_for_timeout(100)
    data: bytes = page.screenshot(full_page=False, animations="disabled", caret="hide")
    return data


def reduce(png: bytes) -> Image.Image:
    """``png`` in grayscale at 1/:data:`SCALE` of its size (box-averaged)."""
    with Image.open(io.BytesIO(png)) as image:
        gray = image.convert("L")
    size = (gray.width // SCALE, gray.height // SCALE)
    return gray.resize(size, Image.Resampling.BOX)


@dataclass(frozen=True, slots=True)
class Difference:
    mean_difference: float
    differing_share: float

    def within(self, tolerance: Tolerance) -> bool:
        return (
            self.mean_difference <= tolerance.mean_difference
            and self.differing_share <= tolerance.differing_share
        )

    def __str__(self) -> str:
        return (
            f"mean difference {self.mean_difference:.4f} (of 255), "
            f"{self.differing_share:.3%} of pixels differ by more than {PIXEL_THRESHOLD}"
        )


def diff_image(current: Image.Image, reference: Image.Image) -> Image.Image:
    """The absolute difference, brightened so that small changes show."""
    return ImageChops.difference(current, reference).point(lambda level: min(255, level * 4))


def compare(current: Image.Image, reference: Image.Image) -> Difference:
    """How far ``current`` is from ``reference`` (same size; a change of size differs wholly)."""
    if current.size != reference.size:
        return Difference(255.0, 1.0)
    histogram = ImageChops.difference(current, reference).histogram()
    pixels = current.width * current.height
    total = sum(level * count for level, count in enumerate(histogram))
    differing = sum(histogram[PIXEL_THRESHOLD + 1 :])
    return Difference(total / pixels, differing / pixels)


def load_reference(shot: Shot) -> Image.Image:
    with Image.open(shot.reference) as image:
        return image.convert("L")

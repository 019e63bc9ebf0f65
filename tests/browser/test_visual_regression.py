"""Visual regression: every page at 1280 and 1920 px for three samples (History and Fleet, which
do not show the loaded source, for one), compared with the committed references in
``tests/browser/visual_references/`` within ``visual.TOLERANCE`` (see ``visual.py``).

A change of layout fails here until the references are renewed on purpose:
``python scripts/renew_visual_references.py``, then look at the new images and commit them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser import served_app, visual
from tests.browser.served_app import CHROMIUM, serve

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def visual_app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The dashboard served with ``visual.SERVER_ENV`` (no pipeline output, wherever run)."""
    if not CHROMIUM.exists():
        pytest.skip(f"Chromium not found at {CHROMIUM}: apt-get install -y chromium")
    log = tmp_path_factory.mktemp("streamlit") / "streamlit.log"
    try:
        with serve(log, visual.SERVER_ENV) as served:
            yield served.url
    except RuntimeError as error:
        pytest.fail(str(error))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with served_app.chromium() as browser:
        yield browser


def test_the_set_covers_every_page_sample_and_width() -> None:
    """Each page showing the source x 3 samples, each other page (History, Fleet, Classroom) x 1,
    at 2 widths; each has its committed reference (a new page without one fails here, saying
    how to add it)."""
    from dashboard.views import pages

    assert {shot.page or "explorer" for shot in visual.SHOTS} == {
        spec.url_path for spec in pages.PAGES
    }
    sourced = sum(spec.uses_source for spec in pages.PAGES)
    assert len(visual.SHOTS) == (sourced * 3 + len(pages.PAGES) - sourced) * 2
    missing = [shot.name for shot in visual.SHOTS if not shot.reference.exists()]
    assert not missing, f"no reference for {missing}: run {visual.RENEW}"


@pytest.mark.parametrize("shot", visual.SHOTS, ids=lambda shot: shot.name)
def test_the_page_looks_as_its_reference(
    shot: visual.Shot, visual_app_url: str, browser: Any, tmp_path: Path
) -> None:
    context = browser.new_context(color_scheme="light")
    try:
        page = context.new_page()
        page.set_default_timeout(60_000)
        png = visual.capture(page, visual_app_url, shot)
    finally:
        context.close()
    current = visual.reduce(png)
    reference = visual.load_reference(shot)
    difference = visual.compare(current, reference)
    if difference.within(visual.TOLERANCE):
        return
    (tmp_path / "screenshot.png").write_bytes(png)
    current.save(tmp_path / "current.png")
    reference.save(tmp_path / "reference.png")
    if current.size == reference.size:
        visual.diff_image(current, reference).save(tmp_path / "diff.png")
    pytest.fail(
        f"{shot.name} ({shot.path} at {shot.width} px) differs from its reference: "
        f"{difference}; tolerance: mean {visual.TOLERANCE.mean_difference}, "
        f"{visual.TOLERANCE.differing_share:.2%} of pixels. "
        f"Current, reference and diff images in {tmp_path}. If the change is meant, renew the "
        f"references with `{visual.RENEW}`, look at them and commit them."
    )

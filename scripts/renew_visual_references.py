"""Retake the visual-regression references (``tests/browser/visual_references/``).

Renewing is a deliberate act: run this after a change of layout you meant, look at what it
prints (the difference of every shot from its old reference) and at the new images, then commit
them with the change. It serves the app itself (``streamlit run`` on a free loopback port) and
drives Debian's Chromium, as ``tests/browser/test_visual_regression.py`` does.

    python scripts/renew_visual_references.py               # retake and write every reference
    python scripts/renew_visual_references.py --dry-run     # only print the differences
    python scripts/renew_visual_references.py --dry-run --repeat 3 --full /tmp/shots
        # the run-to-run noise: each shot taken 3 times, the largest difference printed,
        # the full-size colour screenshots saved to look at (never committed)
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser import visual  # noqa: E402
from tests.browser.served_app import launch, serve  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="print differences, write nothing")
    parser.add_argument("--repeat", type=int, default=1, help="take each shot this many times")
    parser.add_argument("--full", type=Path, help="save the full-size screenshots here")
    parser.add_argument("--only", default="", help="only the shots whose name contains this")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    shots = [shot for shot in visual.SHOTS if args.only in shot.name]
    visual.REFERENCES.mkdir(exist_ok=True)
    if args.full:
        args.full.mkdir(parents=True, exist_ok=True)
    worst = visual.Difference(0.0, 0.0)
    log = Path(tempfile.mkdtemp(prefix="renew-visual-")) / "streamlit.log"
    with serve(log, visual.SERVER_ENV) as served, sync_playwright() as playwright:
        browser = launch(playwright)
        for shot in shots:
            started = time.monotonic()
            reduced = []
            for take in range(args.repeat):
                context = browser.new_context(color_scheme="light")
                page = context.new_page()
                page.set_default_timeout(60_000)
                png = visual.capture(page, served.url, shot)
                context.close()
                if args.full:
                    (args.full / f"{shot.name}-{take}.png").write_bytes(png)
                reduced.append(visual.reduce(png))
            old = visual.load_reference(shot) if shot.reference.exists() else None
            against = [old] if old is not None else []
            against += reduced[1:]  # the takes among themselves: the noise within one server
            differences = [visual.compare(reduced[0], other) for other in against]
            largest = max(differences, key=lambda d: d.mean_difference, default=None)
            if largest is not None:
                worst = visual.Difference(
                    max(worst.mean_difference, largest.mean_difference),
                    max(worst.differing_share, largest.differing_share),
                )
            said = "new" if old is None else f"vs reference: {visual.compare(reduced[0], old)}"
            spread = [str(d) for d in differences[1 if old is not None else 0 :]]
            print(f"{shot.name}: {said}" + (f"; takes: {spread}" if spread else ""), flush=True)
            print(f"    ({time.monotonic() - started:.1f} s)", flush=True)
            if not args.dry_run:
                reduced[0].save(shot.reference, optimize=True)
        browser.close()
    print(f"largest: {worst}; tolerance {visual.TOLERANCE}")
    if not args.dry_run:
        size = sum(path.stat().st_size for path in visual.REFERENCES.glob("*.png"))
        print(f"wrote {len(shots)} references to {visual.REFERENCES} ({size / 1024:.0f} KB in all)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Write a bundled sample's walkthrough as one lesson file: a self-contained HTML page (Plotly
inside, every step's title, narration and figures, arrow keys to step through) that opens in a
browser with no server and no network. The dashboard's *Share and export* panel offers the same
file; this is the way without it (a whole course at once, or in a build).

    python scripts/export_lesson.py --list                     # samples with a walkthrough
    python scripts/export_lesson.py member-leaves-roundrobin-vs-sticky
    python scripts/export_lesson.py --all --out lessons/       # every one, lesson-<key>.html
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import sample_data  # noqa: E402
from assignors import AssignmentExplorerError  # noqa: E402


def with_walkthrough() -> list[str]:
    """The keys of the bundled samples that have a walkthrough."""
    return [
        info.key
        for info in sample_data.list_samples()
        if sample_data.load_sample(info.key).walkthrough
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("samples", nargs="*", help="sample keys (see --list)")
    parser.add_argument("--list", action="store_true", help="list the samples with a walkthrough")
    parser.add_argument("--all", action="store_true", help="every sample with a walkthrough")
    parser.add_argument("--out", type=Path, default=Path("."), help="folder to write into")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(with_walkthrough()))
        return 0
    keys = with_walkthrough() if args.all else args.samples
    if not keys:
        parser.error("name a sample (see --list) or pass --all")
    import streamlit  # noqa: F401  (its loggers exist once it is imported)

    # Streamlit's caches work without its server; its note that none is running is noise here.
    for name in list(logging.root.manager.loggerDict):
        if name.startswith("streamlit"):
            logging.getLogger(name).setLevel(logging.ERROR)
    from dashboard.panels import lesson_export

    args.out.mkdir(parents=True, exist_ok=True)
    for key in keys:
        try:
            text = lesson_export.sample_lesson_html(key)
        except AssignmentExplorerError as error:
            print(f"{key}: {error}", file=sys.stderr)
            return 1
        path = args.out / lesson_export.file_name(key)
        path.write_text(text, encoding="utf-8")
        print(f"{path} ({len(text.encode('utf-8')) / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

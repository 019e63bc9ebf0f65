"""The newcomer's pages stay readable and connected.

Over README.md, docs/*.md and benchmarks/results/README.md:

1. every relative link (and image) points to a file that exists, and a ``#anchor`` on a Markdown
   file names one of its headings (GitHub's rule: lower case, punctuation dropped, spaces to
   hyphens);
2. no table cell is longer than ``MAX_CELL`` characters: a longer one is prose, and belongs in a
   paragraph or in a results file beside the short table.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAX_CELL = 200

PAGES = sorted(
    [
        ROOT / "README.md",
        ROOT / "benchmarks" / "results" / "README.md",
        *(ROOT / "docs").glob("*.md"),
    ]
)

_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_CODE_SPAN = re.compile(r"`[^`]*`")


def _prose_lines(text: str) -> list[str]:
    """The page's lines outside fenced code blocks, inline code removed."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced and not line.startswith("    "):
            lines.append(_CODE_SPAN.sub("", line))
    return lines


def _anchor(heading: str) -> str:
    text = _CODE_SPAN.sub(lambda m: m.group(0).strip("`"), heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    fenced = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,6} ", line):
            base = _anchor(line.lstrip("#"))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def _cells(line: str) -> list[str]:
    """A table row's cells, split on pipes outside inline code."""
    cells, current, in_code = [], [], False
    for char in line.strip().strip("|"):
        if char == "`":
            in_code = not in_code
        if char == "|" and not in_code:
            cells.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    cells.append("".join(current).strip())
    return cells


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page: Path) -> None:
    broken = []
    for line in _prose_lines(page.read_text(encoding="utf-8")):
        for target in _LINK.findall(line):
            if re.match(r"[a-z]+:", target):
                continue  # http:, https:, mailto:
            path_part, _, anchor = target.partition("#")
            resolved = (page.parent / path_part).resolve() if path_part else page
            if not resolved.exists():
                broken.append(f"{target}: no such file")
            elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
                broken.append(f"{target}: no heading makes the anchor #{anchor}")
    assert not broken, f"{page.relative_to(ROOT)}: fix these links: " + "; ".join(broken)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_table_cells_are_short(page: Path) -> None:
    fenced, long_cells = False, []
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if fenced or not line.lstrip().startswith("|"):
            continue
        for cell in _cells(line):
            if len(cell) > MAX_CELL:
                long_cells.append(f"line {number}: {len(cell)} characters ({cell[:60]}...)")
    assert not long_cells, (
        f"{page.relative_to(ROOT)}: table cells over {MAX_CELL} characters; move the prose to a "
        "paragraph (or a results file) and keep the cell short: " + "; ".join(long_cells)
    )

"""The page head's Plotly tags (``dashboard/page_head.py``): which chunk, which tags, and the
middleware that adds them to Streamlit's HTML page and to nothing else."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from dashboard import page_head

PAGE = b"<html><head><title>Streamlit</title></head><body></body></html>"
TAGS = b'<link rel="modulepreload" href="./static/js/PlotlyChart.x.js">'


def _static(tmp_path: Path, *names: str) -> Path:
    folder = tmp_path / "static" / "js"
    folder.mkdir(parents=True)
    for name in names:
        (folder / name).write_text("export default 1")
    return tmp_path


def test_the_chunk_is_the_one_file_named_like_streamlits_plotly_chunk(tmp_path: Path) -> None:
    static = _static(tmp_path, "PlotlyChart.D9Z0_fxz.js", "PlotlyChart.D9Z0_fxz.js.map", "x.js")
    assert page_head.plotly_chunk(static) == "PlotlyChart.D9Z0_fxz.js"


def test_no_chunk_or_two_chunks_add_nothing(tmp_path: Path) -> None:
    assert page_head.plotly_chunk(_static(tmp_path / "none", "index.abc.js")) is None
    two = _static(tmp_path / "two", "PlotlyChart.a1.js", "PlotlyChart.b2.js")
    assert page_head.plotly_chunk(two) is None
    assert page_head.plotly_early_tags(None) == b""


def test_the_installed_streamlit_has_the_chunk_its_page_imports_for_a_chart() -> None:
    static = page_head.streamlit_static_dir()
    chunk = page_head.plotly_chunk(static)
    assert chunk is not None
    main = next((static / "static" / "js").glob("index.*.js")).read_text()
    assert f"./{chunk}" in main  # the lazy import Streamlit's chart element makes


def test_the_tags_preload_the_chunk_and_import_it_at_load() -> None:
    tags = page_head.plotly_early_tags("PlotlyChart.D9Z0_fxz.js").decode()
    assert tags == (
        '<link rel="modulepreload" crossorigin href="./static/js/PlotlyChart.D9Z0_fxz.js">'
        '<script>addEventListener("load",()=>import("./static/js/PlotlyChart.D9Z0_fxz.js")'
        ".catch(()=>{}))</script>"
    )


def test_the_tags_go_just_before_the_end_of_the_head() -> None:
    assert page_head.with_tags(PAGE, TAGS) == PAGE.replace(b"</head>", TAGS + b"</head>")
    assert page_head.with_tags(b"<p>no head</p>", TAGS) == b"<p>no head</p>"


@given(st.binary(), st.binary(), st.binary(min_size=1))
def test_adding_tags_only_inserts_them(before: bytes, after: bytes, tags: bytes) -> None:
    html = before.replace(b"</head>", b"") + b"</head>" + after
    assert page_head.with_tags(html, tags) == html.replace(b"</head>", tags + b"</head>", 1)
    assert len(page_head.with_tags(html, tags)) == len(html) + len(tags)


def _served(
    start: dict[str, Any], parts: list[bytes], scope: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """What :class:`page_head.HeadTags` sends for an app answering ``start`` then ``parts``."""

    async def app(_scope: Any, _receive: Any, send: Any) -> None:
        await send(start)
        for index, part in enumerate(parts):
            await send(
                {"type": "http.response.body", "body": part, "more_body": index < len(parts) - 1}
            )

    sent: list[dict[str, Any]] = []

    async def send(message: Any) -> None:
        sent.append(message)

    async def receive() -> Any:
        return {"type": "http.request"}

    middleware = page_head.HeadTags(app, tags=TAGS)
    asyncio.run(middleware(scope or {"type": "http", "method": "GET"}, receive, send))
    return sent


def _start(status: int = 200, **headers: str) -> dict[str, Any]:
    return {
        "type": "http.response.start",
        "status": status,
        "headers": [(k.replace("_", "-").encode(), v.encode()) for k, v in headers.items()],
    }


def test_the_html_page_gets_the_tags_and_its_length_follows() -> None:
    start = _start(content_type="text/html; charset=utf-8", content_length=str(len(PAGE)))
    sent = _served(start, [PAGE[:20], PAGE[20:]])
    body = PAGE.replace(b"</head>", TAGS + b"</head>")
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
    assert sent[1]["body"] == body
    assert (b"content-length", str(len(body)).encode()) in sent[0]["headers"]
    assert (b"content-type", b"text/html; charset=utf-8") in sent[0]["headers"]


def test_everything_else_passes_unchanged() -> None:
    cases = [
        (_start(content_type="application/javascript"), None),
        (_start(content_type="text/html", content_encoding="gzip"), None),
        (_start(304, content_type="text/html"), None),
        (_start(content_type="text/html"), {"type": "http", "method": "HEAD"}),
    ]
    for start, scope in cases:
        sent = _served(start, [PAGE[:20], PAGE[20:]], scope)
        assert sent[0] is start
        assert b"".join(m.get("body", b"") for m in sent[1:]) == PAGE

"""The page head's Plotly tags (``dashboard/runtime/page_head.py``): which chunk, which tags, and
the middleware that adds them to Streamlit's HTML page and to nothing else."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from dashboard.runtime import page_head

PAGE = b"<html><head><title>Streamlit</title></head><body></body></html>"
TAGS = b'<link rel="modulepreload" href="./static/js/PlotlyChart.x.js">'


#: A bundle shaped like Vite's output for Streamlit (index.<hash>.js): the table of chunk files
#: and, for each lazily loaded element, its chunk and the indices of what it needs.
BUNDLE = (
    'const __vite__mapDeps=(i,m=__vite__mapDeps,d=(m.f||(m.f=["./Radio.r1.js","./react.a1.js",'
    '"../css/x.css","./useField.f1.js","./PlotlyChart.p1.js","./wrap.w1.js"])))=>i.map(i=>d[i]);'
    "Rg=lazy(()=>H(()=>import(`./Radio.r1.js`),__vite__mapDeps([0,1,2,3]),import.meta.url)),"
    "Pg=lazy(()=>H(()=>import(`./PlotlyChart.p1.js`),__vite__mapDeps([4,1,3,5]),import.meta.url))"
)


def test_an_elements_chunks_are_its_own_then_what_it_needs_each_once() -> None:
    assert page_head.lazy_chunks(BUNDLE, ["PlotlyChart"]) == [
        "PlotlyChart.p1.js",
        "react.a1.js",
        "useField.f1.js",
        "wrap.w1.js",
    ]
    assert page_head.lazy_chunks(BUNDLE, ["Radio", "PlotlyChart"]) == [
        "Radio.r1.js",
        "react.a1.js",
        "useField.f1.js",  # the stylesheet is left out
        "PlotlyChart.p1.js",
        "wrap.w1.js",
    ]


def test_an_element_or_a_table_not_found_adds_nothing() -> None:
    assert page_head.lazy_chunks(BUNDLE, ["Slider"]) == []
    assert page_head.lazy_chunks("import(`./Radio.r1.js`)", ["Radio"]) == []
    assert page_head.early_tags([]) == b""


def test_the_first_page_chunks_leave_out_what_streamlits_page_preloads(tmp_path: Path) -> None:
    (tmp_path / "static" / "js").mkdir(parents=True)
    (tmp_path / "static" / "js" / "index.i1.js").write_text(BUNDLE)
    (tmp_path / "index.html").write_text(
        '<script type="module" crossorigin src="./static/js/index.i1.js"></script>'
        '<link rel="modulepreload" crossorigin href="./static/js/react.a1.js">'
    )
    chunks = page_head.first_page_chunks(tmp_path, ["PlotlyChart"])
    assert chunks == ["PlotlyChart.p1.js", "useField.f1.js", "wrap.w1.js"]
    assert page_head.first_page_chunks(tmp_path / "missing") == []


def test_the_installed_streamlit_gives_the_chunks_of_the_first_page() -> None:
    static = page_head.streamlit_static_dir()
    chunks = page_head.first_page_chunks(static)
    names = {chunk.split(".", 1)[0] for chunk in chunks}
    assert set(page_head.FIRST_PAGE_ELEMENTS) <= names
    assert all((static / "static" / "js" / chunk).is_file() for chunk in chunks)
    assert len(set(chunks)) == len(chunks)


def test_the_tags_preload_every_chunk() -> None:
    assert page_head.early_tags(["Radio.r1.js", "PlotlyChart.p1.js"]).decode() == (
        '<link rel="modulepreload" crossorigin href="./static/js/Radio.r1.js">'
        '<link rel="modulepreload" crossorigin href="./static/js/PlotlyChart.p1.js">'
    )


def test_plotly_is_imported_when_the_first_websocket_opens() -> None:
    script = page_head.plotly_on_connect(["Radio.r1.js", "PlotlyChart.p1.js"]).decode()
    assert script.startswith("<script>") and script.endswith("</script>")
    assert script.count("import(") == 1
    assert "import('./static/js/PlotlyChart.p1.js')" in script  # the URL Streamlit imports
    assert "addEventListener('open'" in script
    assert "Radio.r1.js" not in script


def test_without_plotlys_chunk_no_script_is_added() -> None:
    assert page_head.plotly_on_connect(["Radio.r1.js"]) == b""
    assert page_head.plotly_on_connect([]) == b""


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

"""The first page's element chunks fetched with Streamlit's own modules: ``modulepreload`` links
added to the head of Streamlit's ``index.html`` by an ASGI middleware (:class:`HeadTags`, mounted
by ``dashboard/serve.py``).

Streamlit loads Plotly (its ``PlotlyChart`` chunk, 4.7 MB) only when React first renders a chart
element: after its own bundle, the websocket, the app's run and the render of every element
above the chart, whose own chunks (radio, select box, multiselect, buttons) are fetched then
too, each a round trip to the server before React goes on. Measured on a first load (Chromium,
2026-11-28): Plotly requested at ~1.2 s, received at ~1.5 s, then ~0.4-0.8 s of module
evaluation on the main thread before the first chart is drawn. With the links, the browser
fetches and compiles those chunks in parallel with Streamlit's own modules; Streamlit's imports
then find them ready (the same URLs: each fetched once, evaluated once, drawing unchanged).
Importing Plotly's at the page's ``load`` event as well was tried and dropped: its evaluation
then often held up the websocket's opening, and with it the app's run (first load median 2.46 and
2.64 s against 2.33 and 2.41 s without, 8 alternating loads each, load average 2-3). It is
imported when the websocket opens instead (:func:`plotly_on_connect`): first load median 2.19 s
against 2.50 s without, a returning browser 2.04 s against 2.43 s (80 loads each, ten alternating
runs of ``benchmarks/dashboard_browser.py`` in the quiet windows of 2026-11-28, 11:05-11:19 and
11:50-11:58 UTC; each run's median with it below each run's without).

The chunks' names carry content hashes; they are read from the installed Streamlit's page and
bundle when the server starts (Vite's table of what each lazily loaded element needs), never
written down. What cannot be read there is not added.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from pathlib import Path
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: The elements the default page shows (the Explorer on the default sample: sidebar radios, a
#: select box, a multiselect, buttons, pills, charts), by the name of the chunk Streamlit loads
#: for each. Their chunks are fetched with Streamlit's own modules rather than after the app's
#: first run; an element missing here is only fetched later, as Streamlit does.
FIRST_PAGE_ELEMENTS = ("PlotlyChart", "Radio", "Selectbox", "Multiselect", "Button", "ButtonGroup")
_PRELOADED = re.compile(r'href="\./static/js/([^"]+\.js)"')
_MAIN = re.compile(r'src="\./static/js/(index\.[A-Za-z0-9_-]+\.js)"')
_TABLE = re.compile(r"m\.f=\[([^\]]*)\]")


def streamlit_static_dir() -> Path:
    """The folder Streamlit serves its page from (``index.html``, ``static/js/``)."""
    import streamlit

    return Path(streamlit.__file__).parent / "static"


def lazy_chunks(main_js: str, names: Sequence[str]) -> list[str]:
    """The chunks Streamlit's bundle ``main_js`` (Vite's output) imports for the elements
    ``names``: each element's own chunk (``<name>.<hash>.js``) then the chunks it needs (its
    ``__vite__mapDeps`` list), in order, each once; a name not found adds nothing."""
    table = _TABLE.search(main_js)
    files = (
        [f.removeprefix("./") for f in re.findall(r'"([^"]*)"', table.group(1))] if table else []
    )
    found: list[str] = []
    for name in names:
        lazy = re.search(
            r"import\(`\./(" + re.escape(name) + r"\.[A-Za-z0-9_-]+\.js)`\),"
            r"__vite__mapDeps\(\[([\d,]*)\]\)",
            main_js,
        )
        if lazy is None:
            continue
        needs = [files[int(i)] for i in lazy.group(2).split(",") if i and int(i) < len(files)]
        for chunk in (lazy.group(1), *needs):
            if chunk.endswith(".js") and chunk not in found:
                found.append(chunk)
    return found


def first_page_chunks(static_dir: Path, names: Sequence[str] = FIRST_PAGE_ELEMENTS) -> list[str]:
    """:func:`lazy_chunks` of the installed Streamlit for ``names``, less the modules its
    ``index.html`` preloads already; empty if its page or bundle cannot be read."""
    try:
        index_html = (static_dir / "index.html").read_text()
        main = _MAIN.search(index_html)
        main_js = (static_dir / "static" / "js" / main.group(1)).read_text() if main else ""
    except OSError:
        return []
    preloaded = set(_PRELOADED.findall(index_html))
    return [f for f in lazy_chunks(main_js, names) if f not in preloaded]


def early_tags(chunks: Sequence[str]) -> bytes:
    """A ``modulepreload`` link for each of ``chunks`` (fetched and compiled now, like
    Streamlit's own modules; evaluated when Streamlit imports them). Paths are relative, like
    Streamlit's, so a ``server.baseUrlPath`` prefix still applies."""
    return "".join(
        f'<link rel="modulepreload" crossorigin href="./static/js/{chunk}">' for chunk in chunks
    ).encode()


def plotly_on_connect(chunks: Sequence[str]) -> bytes:
    """A script that imports Plotly's chunk (the one of ``chunks`` named ``PlotlyChart.*``;
    nothing without one) when the page's first websocket to the server opens.

    Plotly's chunk imports Streamlit's own bundle, so it can only be evaluated after it; started
    at the page's ``load`` it held up the websocket, and with it the app's run. Started when the
    socket opens (a task after Streamlit's own handler, which asks for the run), its evaluation
    (~0.3-0.5 s) runs while the server runs the script, and the run's messages wait for it: the
    page can then apply them together and render with Plotly ready, instead of rendering batch
    after batch while they arrive and then waiting for Plotly (one CPU profile of the main
    thread showed the default page's 66 messages handled within ~40 ms instead of over
    ~0.3-0.5 s; other profiled loads, the profiler attached, showed no clear difference). The
    module is the one Streamlit imports (the same URL): evaluated once, drawing unchanged.
    The cost: a page that draws no chart (the History view before the pipeline has run, a link
    to a group that cannot be shown) is drawn after the evaluation all the same.
    """
    plotly = next((c for c in chunks if c.startswith("PlotlyChart.")), None)
    if plotly is None:
        return b""
    return (
        "<script>(()=>{const Socket=window.WebSocket;let armed=true;"
        "window.WebSocket=class extends Socket{constructor(...args){super(...args);"
        "if(armed){armed=false;this.addEventListener('open',()=>setTimeout(()=>"
        f"import('./static/js/{plotly}'),0),{{once:true}});}}}}}};}})();</script>"
    ).encode()


def with_tags(html: bytes, tags: bytes) -> bytes:
    """``html`` with ``tags`` just before its ``</head>`` (``html`` unchanged without one)."""
    return html.replace(b"</head>", tags + b"</head>", 1)


class HeadTags:
    """ASGI middleware: ``tags`` added to every whole (200), uncompressed HTML page the app
    answers with, its ``content-length`` corrected; every other response passes unchanged."""

    def __init__(self, app: ASGIApp, tags: bytes) -> None:
        self.app = app
        self.tags = tags

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET" or not self.tags:
            await self.app(scope, receive, send)
            return
        held: list[Message] = []

        async def send_with_tags(message: Message) -> None:
            if message["type"] == "http.response.start":
                if _is_plain_html(message):
                    held.append(message)
                    return
            elif held:
                held.append(message)
                if message.get("more_body"):
                    return
                start, *parts = held
                body = with_tags(b"".join(part.get("body", b"") for part in parts), self.tags)
                headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
                headers.append((b"content-length", str(len(body)).encode()))
                await send({**start, "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
            await send(message)

        await self.app(scope, receive, send_with_tags)


def _is_plain_html(start: Message) -> bool:
    headers = {k.lower(): v for k, v in start.get("headers", ())}
    return (
        start.get("status") == 200
        and headers.get(b"content-type", b"").startswith(b"text/html")
        and b"content-encoding" not in headers
    )

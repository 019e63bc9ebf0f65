"""Plotly fetched and started while the page is still connecting: two tags added to the head of
Streamlit's ``index.html`` by an ASGI middleware (:class:`HeadTags`, mounted by
``dashboard/serve.py``).

Streamlit loads Plotly (its ``PlotlyChart`` chunk, 4.7 MB) only when React first renders a chart
element: after its own bundle, the websocket, the app's run and the render of every element
above the chart. Measured on a first load (Chromium, 2026-11-28): requested at ~1.2 s, received
at ~1.5 s, then ~0.4-0.8 s of module evaluation on the main thread before the first chart is
drawn. With the tags, the browser fetches and compiles the chunk in parallel with Streamlit's
own modules (``modulepreload``) and evaluates it when the page's ``load`` event fires, while the
websocket opens and the app runs on the server, so the chart element finds it ready. It is the
same module (the same URL) that Streamlit's chart imports: evaluated once, drawing unchanged.

The chunk's name carries a content hash; it is looked up in the installed Streamlit's static
folder when the server starts, never written down. Without such a chunk, nothing is added.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_CHUNK = re.compile(r"PlotlyChart\.[A-Za-z0-9_-]+\.js")


def streamlit_static_dir() -> Path:
    """The folder Streamlit serves its page from (``index.html``, ``static/js/``)."""
    import streamlit

    return Path(streamlit.__file__).parent / "static"


def plotly_chunk(static_dir: Path) -> str | None:
    """The file name of Streamlit's Plotly chunk in ``static_dir/static/js``, or None unless
    exactly one file there is named ``PlotlyChart.<hash>.js``."""
    folder = static_dir / "static" / "js"
    found = sorted(p.name for p in folder.glob("PlotlyChart.*.js") if _CHUNK.fullmatch(p.name))
    return found[0] if len(found) == 1 else None


def plotly_early_tags(chunk: str | None) -> bytes:
    """The tags for ``chunk`` (empty without one): a ``modulepreload`` link (fetch and compile
    now, like Streamlit's own modules) and a script importing the module at ``load``. Paths are
    relative, like Streamlit's, so a ``server.baseUrlPath`` prefix still applies. An import
    that fails is left to Streamlit's own, which reports it on the chart."""
    if chunk is None:
        return b""
    href = f"./static/js/{chunk}"
    return (
        f'<link rel="modulepreload" crossorigin href="{href}">'
        f'<script>addEventListener("load",()=>import("{href}").catch(()=>{{}}))</script>'
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

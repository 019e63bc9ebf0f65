"""The standalone cluster fixture's readiness check, against a stand-in of the master's UI.

At start-up Spark's master binds its web UI before it attaches the JSON status page, and for
that moment ``/json/`` is answered by the HTML page at ``/``: the fixture must keep waiting,
not fail. (A plain HTTP server plays the master's UI here; the cluster tests use the real one.)
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.pipeline.standalone import _alive_workers


@contextmanager
def serving(body: bytes, content_type: str) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/json/"
    finally:
        server.shutdown()
        server.server_close()


def test_the_html_page_answering_json_means_not_ready_yet() -> None:
    with serving(b"<!DOCTYPE html><html><body>Spark Master</body></html>", "text/html") as url:
        assert _alive_workers(url) == 0


def test_alive_workers_are_counted_from_the_json_status() -> None:
    status = {"workers": [{"state": "ALIVE"}, {"state": "DEAD"}, {"state": "ALIVE"}]}
    with serving(json.dumps(status).encode(), "application/json") as url:
        assert _alive_workers(url) == 2


def test_no_ui_yet_means_not_ready_yet() -> None:
    with serving(b"{}", "application/json") as url:
        pass  # the server is gone: nothing listens there now
    assert _alive_workers(url) == 0

"""Links carrying Markdown and HTML draw no link or image and send no request off the server
(issue 41, part 2), in a real browser against the served app.

Found on ``main``: an unknown ``sample=`` (or ``kafka=``, ``group=``) value was echoed into an
error box rendered as Markdown, so ``![x](http://host/...)`` in a link made the viewer's browser
fetch that address (a listener on loopback received the request) and ``[text](http://host/...)``
became a clickable link inside the page's own error message. Here a listener on another loopback
port stands for the attacker's host: each link below points at it; after the page has run, the
listener has received nothing, the browser has asked nothing of any address but the server's,
and the page holds no ``<a>``, ``<img>`` or ``<script>`` of the payload, while the payload's
text is shown, as typed. And the charts (Plotly reads its texts as a little HTML): member ids
typed into the Explorer's form are drawn as typed, making no SVG link and no bold piece.

Skipped, with the reason, when Chromium is not installed.
"""

from __future__ import annotations

import http.server
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlencode, urlsplit

import pytest

from assignors import Member, Scenario, Topic
from dashboard.model import share
from tests.browser import served_app, ui
from tests.ports import free_port

pytestmark = pytest.mark.browser


class _Recorder(http.server.BaseHTTPRequestHandler):
    """Answers anything with 204 and records the path."""

    seen: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        _Recorder.seen.append(self.path)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def listener() -> Iterator[str]:
    """``127.0.0.1:port`` of a loopback HTTP listener that records every request."""
    port = free_port()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.shutdown()
        server.server_close()


def _payloads(host: str) -> list[str]:
    return [
        f"![x](http://{host}/image)",
        f"[click here](http://{host}/link)",
        f"<img src=http://{host}/tag>",
        f'<a href="http://{host}/anchor">t</a><script>fetch("http://{host}/script")</script>',
    ]


def _links(host: str) -> list[tuple[str, dict[str, str], str]]:
    """``(what, query, payload)``: each link and the payload it carries."""
    image, link, tag, anchor = _payloads(host)
    added = share.encode_edits([{"op": "add_member", "member_id": anchor}])
    named = Scenario((Topic(tag, 2),), (Member(image, (tag,)), Member("plain", (tag,))), name=link)
    return [
        ("unknown sample", {"sample": image}, image),
        ("unknown Kafka version", {"kafka": link}, link),
        ("unknown strategy", {"strategies": f"range,{anchor}"}, anchor),
        ("cluster group", {"group": tag, "cluster": image}, tag),
        ("edits' member id", {"edits": added}, anchor),
        ("a scenario's names", {"scenario": share.encode_scenario(named) or ""}, image),
    ]  # fmt: skip


def _open(browser: Any, address: str, listener: str) -> tuple[list[str], list[str], int, str]:
    """Open ``address`` in a fresh tab until its run ends: the requests to any other host than
    the server's, the links, images and frames to ``listener``, the scripts naming it, and the
    page's text (its invisible link breaks left out)."""
    server = urlsplit(address).netloc
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(120_000)
    elsewhere: list[str] = []

    def note(request: Any) -> None:
        if urlsplit(request.url).netloc not in ("", server):
            elsewhere.append(request.url)

    page.on("request", note)
    page.goto(address)
    page.get_by_text("Assignment Explorer").first.wait_for()
    served_app.wait_idle(page)
    page.wait_for_timeout(1_000)
    drawn = page.locator(
        f'a[href*="{listener}"], img[src*="{listener}"], iframe[src*="{listener}"]'
    ).evaluate_all("nodes => nodes.map(n => n.parentElement.outerHTML.slice(0, 600))")
    scripts = page.locator("script").evaluate_all(
        f"nodes => nodes.filter(n => n.textContent.includes('{listener}')).length"
    )
    text = page.locator("body").inner_text().replace("\u2060", "")
    context.close()
    return elsewhere, drawn, scripts, text


def test_no_link_draws_a_link_or_an_image_or_sends_a_request(app_url: str, listener: str) -> None:
    with served_app.chromium() as browser:
        for what, query, payload in _links(listener):
            elsewhere, drawn, scripts, text = _open(
                browser, f"{app_url}/?{urlencode(query)}", listener
            )
            assert not elsewhere, (what, elsewhere)
            assert not _Recorder.seen, (what, _Recorder.seen)
            assert not drawn and scripts == 0, (what, drawn, scripts)
            if what == "unknown sample":  # the refused name is said, as typed
                assert payload in text, (what, payload, text[:2000])


#: Member ids a user may type in the Explorer's form: a link and bold with an entity, each
#: short enough for the charts' shortest labels to show it whole.
MARKUP_IDS = ("<a href=.>q</a>", "<b>z</b>&amp;")
#: Of every chart: the SVG links, the bold pieces reading "z" (only the id's ``<b>z</b>`` could
#: make one), and every text as drawn.
CHART_TEXT_JS = """
() => {
  const svgs = Array.from(document.querySelectorAll('.js-plotly-plot svg'));
  const all = selector => svgs.flatMap(svg => Array.from(svg.querySelectorAll(selector)));
  return {
    links: all('a').map(node => node.outerHTML.slice(0, 200)),
    bold: all('tspan').filter(node => /bold/.test(node.getAttribute('style') || '')
                                      && node.textContent === 'z').length,
    texts: all('text').map(node => node.textContent),
  };
}
"""


@pytest.mark.parametrize("width", [1280, 1920])
def test_a_typed_member_id_is_drawn_as_typed_in_the_charts(
    app_url: str, width: int, tmp_path: Path
) -> None:
    """Add members with markup ids in the Explorer: every chart draws each id as typed (some
    text reads it whole) and none of them makes a link or a bold piece. Screenshots of the page
    (under the test's tmp folder, or ``AE_MARKUP_SCREENSHOTS`` when set) to look at."""
    with served_app.chromium() as browser:
        context = browser.new_context(viewport={"width": width, "height": 3400})
        page = context.new_page()
        page.set_default_timeout(120_000)
        page.goto(app_url)
        page.locator(".js-plotly-plot").first.wait_for()
        for member_id in MARKUP_IDS:
            ui.add_member(page, member_id)
        ui.check_page(page, "adding members with markup ids")
        drawn = page.evaluate(CHART_TEXT_JS)
        folder = Path(os.environ.get("AE_MARKUP_SCREENSHOTS") or tmp_path)
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / f"markup-ids-{width}.png"), full_page=True)
        context.close()
    assert drawn["links"] == [], drawn["links"]
    assert drawn["bold"] == 0
    for member_id in MARKUP_IDS:
        assert any(member_id in text for text in drawn["texts"]), (member_id, drawn["texts"])

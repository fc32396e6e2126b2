"""A page of another origin reads the JSON API from the browser, as a dashboard would."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import Page

pytestmark = pytest.mark.slow  # make check leaves it out; make test and CI run it

DASHBOARD = b"<!doctype html><meta charset=utf-8><title>Dashboard</title>"
READ = """async (api) => {
    const url = api + '/api/search?q=stargate';
    const first = await fetch(url);
    const body = await first.json();
    const etag = first.headers.get('ETag');
    // If-None-Match is no safelisted header: the browser asks first (a preflight), then sends it.
    const again = await fetch(url, {headers: {'If-None-Match': etag}, cache: 'no-store'});
    let refused = null;
    try { await fetch(api + '/guides/training-infrastructure'); } catch (e) { refused = String(e); }
    return {total: body.total, hits: body.hits.length, etag, id: first.headers.get('X-Request-ID'),
            again: again.status, page: refused};
}"""


class _Dashboard(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(DASHBOARD)))
        self.end_headers()
        self.wfile.write(DASHBOARD)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def dashboard() -> Iterator[str]:
    """The address of a page of another origin: a static server on another port of 127.0.0.1 (a
    page the test fulfilled itself would be of no address space, and Chromium keeps it from
    loopback addresses whatever the server answers)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Dashboard)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_a_dashboard_on_another_origin_reads_search_answers(page: Page, base_url: str, dashboard: str):
    # Before, the API sent no Access-Control-Allow-Origin, so the browser kept every answer from a
    # page of another origin ("TypeError: Failed to fetch"), and no dashboard could be built on it.
    page.goto(dashboard)
    seen = page.evaluate(READ, base_url)
    assert seen["total"] > 0 and seen["hits"] > 0
    assert seen["etag"] and seen["id"]  # exposed headers: a client can poll with the ETag, and quote the id
    assert seen["again"] == 304
    assert seen["page"] is not None and "fetch" in seen["page"]  # the HTML pages stay unshared

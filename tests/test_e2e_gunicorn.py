"""End to end: the real service under gunicorn on a free port, queried over HTTP."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from tests.servers import get, gunicorn

pytestmark = pytest.mark.slow  # make check leaves it out; make test and CI run it


@pytest.fixture()
def server(index_dir, tmp_path):
    with gunicorn(index_dir, tmp_path) as base:
        yield base


def test_gunicorn_serves_page_and_api(server):
    status, headers, body = get(server + "/api/search?q=stargate")
    assert status == 200
    data = json.loads(body)
    assert data["total"] == 15
    assert all("Stargate" in h["title"] or "<mark>" in h["snippet_html"] for h in data["hits"])
    assert "gunicorn" not in headers.get("Server", "").lower()
    assert headers["Content-Security-Policy"].startswith("default-src 'self'")

    status, _, body = get(server + "/?q=trainium")
    assert status == 200 and b"<mark>Trainium" in body

    status, _, body = get(server + "/api/search?per_page=99")
    assert status == 400 and json.loads(body)["error"]["param"] == "per_page"


def test_gunicorn_answers_304_and_json_errors(server):
    status, headers, _ = get(server + "/api/search?q=compute")
    assert status == 200 and headers["Cache-Control"] == "public, max-age=30"
    request = urllib.request.Request(server + "/api/search?q=compute", headers={"If-None-Match": headers["ETag"]})
    try:
        urllib.request.urlopen(request, timeout=10).close()
        raise AssertionError("expected 304")
    except urllib.error.HTTPError as exc:
        with exc:
            assert exc.code == 304 and exc.read() == b"" and exc.headers["ETag"] == headers["ETag"]
    for method, path, code in (("GET", "/api/nothing", 404), ("DELETE", "/api/search", 405), ("GET", "/api/documents/nope", 404)):
        try:
            urllib.request.urlopen(urllib.request.Request(server + path, method=method), timeout=10).close()
            raise AssertionError(f"expected {code}")
        except urllib.error.HTTPError as exc:
            with exc:
                assert exc.code == code and exc.headers["Content-Type"] == "application/json"
                assert set(json.loads(exc.read())["error"]) >= {"code", "message"}

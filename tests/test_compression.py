"""Answers travel compressed when the client accepts it: a search page, a JSON answer, a feed or a guide
in a quarter to a half of their size, decoded to exactly what an uncompressed request gets.
Every answer said nothing of compression and was sent whole (a 20 KB page, a 10 KB answer)."""

from __future__ import annotations

import gzip
import json
import re
import zlib

import brotli
import pytest
from backports import zstd

DECODE = {"gzip": gzip.decompress, "zstd": zstd.decompress, "br": brotli.decompress, "deflate": zlib.decompress}
# What each kind of client sends: Chromium and Firefox, curl --compressed, Python's requests, a gzip-only client.
BROWSER = "gzip, deflate, br, zstd"


def _same_answer(path: str, plain: bytes, decoded: bytes) -> bool:
    if path.startswith("/api/search"):  # the JSON differs only in its own time
        one, other = json.loads(plain), json.loads(decoded)
        one.pop("took_ms"), other.pop("took_ms")
        return one == other
    took = re.compile(rb" in (?:\d+|&lt;1) ms")  # a page says how long its search took
    return took.sub(b"", plain) == took.sub(b"", decoded)


@pytest.mark.parametrize("path", ["/api/search?q=stargate", "/?q=stargate", "/feeds/search.atom?q=stargate",
                                  "/api/openapi.json", "/guides/training-infrastructure"])
@pytest.mark.parametrize(("accepted", "coding"), [(BROWSER, "zstd"), ("gzip, deflate", "gzip"), ("br", "br"),
                                                  ("gzip;q=0.5, br;q=1.0", "br"), ("deflate", "deflate")])
def test_an_answer_comes_compressed_as_the_client_accepts_it_and_decodes_to_the_same(client, path, accepted, coding):
    plain = client.get(path)
    packed = client.get(path, headers={"Accept-Encoding": accepted})
    assert plain.status_code == packed.status_code == 200
    assert plain.headers.get("Content-Encoding") is None and packed.headers["Content-Encoding"] == coding
    assert int(packed.headers["Content-Length"]) == len(packed.data) < len(plain.data) / 2
    assert _same_answer(path, plain.data, DECODE[coding](packed.data))
    assert packed.headers["Content-Type"] == plain.headers["Content-Type"]


@pytest.mark.parametrize("accepted", [None, "identity", "gzip;q=0, identity", "compress"])
def test_a_client_that_accepts_no_known_coding_gets_the_answer_whole(client, accepted):
    response = client.get("/api/search?q=stargate", headers={"Accept-Encoding": accepted} if accepted else {})
    assert response.headers.get("Content-Encoding") is None and response.get_json()["total"] > 0


def test_every_answer_tells_caches_that_it_varies_with_accept_encoding(client):
    # A shared cache that kept the compressed answer must not give it to a client that cannot read it.
    for path in ("/api/search?q=stargate", "/?q=stargate", "/healthz", "/api/search?q=%22"):
        for headers in ({}, {"Accept-Encoding": BROWSER}):
            assert "Accept-Encoding" in client.get(path, headers=headers).headers["Vary"]


def test_a_small_answer_is_sent_as_it_is(client):
    # Under 500 bytes a coding's own framing outweighs what it saves.
    health = client.get("/healthz", headers={"Accept-Encoding": BROWSER})
    assert len(client.get("/healthz").data) < 500 and health.headers.get("Content-Encoding") is None
    assert health.get_json()["status"] == "ok"


def test_a_compressed_answer_is_revalidated_by_its_etag(client):
    headers = {"Accept-Encoding": "gzip"}
    first = client.get("/api/search?q=stargate", headers=headers)
    again = client.get("/api/search?q=stargate", headers={**headers, "If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""
    with client.get("/static/style.css", headers={"Accept-Encoding": BROWSER}) as style, client.get("/static/style.css") as whole:
        assert style.headers.get("Content-Encoding") is None and style.data == whole.data  # streamed: sent as it is
    with client.get("/static/style.css", headers={"Accept-Encoding": BROWSER, "If-None-Match": style.headers["ETag"]}) as cached:
        assert cached.status_code == 304


def test_an_error_answer_compressed_still_says_what_was_wrong(client):
    response = client.get("/api/search?q=stargate&per_page=5000&page=x", headers={"Accept-Encoding": "gzip"})
    assert response.status_code == 400
    body = gzip.decompress(response.data) if response.headers.get("Content-Encoding") == "gzip" else response.data
    assert "page" in json.loads(body)["error"]["message"]


@pytest.mark.parametrize(("accepted", "allowed"), [
    ("gzip;q=0", {None}),                       # gzip refused: it was sent gzip
    ("zstd;q=0, gzip;q=0", {None}),             # both refused: it was sent gzip
    ("gzip;q=0, *", {"zstd"}),                  # anything but gzip: it was sent gzip
    ("*", {"gzip"}),                            # no coding named: it was sent zstd, which few clients read
    ("br, *", {"br"}),                          # the coding named, not one "*" stands for: it was sent zstd
    ("identity;q=0, *;q=0", {None}),            # nothing acceptable: sent as it is, never a 406
    ("gzip; q=0.5", {"gzip"}),                  # a weight after a space (RFC 9110's OWS): it was ignored
    ("x-gzip", {"gzip"}),                       # x-gzip is gzip (RFC 9110, 8.4.1.3)
])
def test_a_coding_the_client_refuses_is_never_sent_and_one_it_accepts_is(client, accepted, allowed):
    plain = client.get("/api/search?q=stargate").get_json()
    response = client.get("/api/search?q=stargate", headers={"Accept-Encoding": accepted})
    coding = response.headers.get("Content-Encoding")
    assert response.status_code == 200 and coding in allowed
    decoded = json.loads(DECODE[coding](response.data) if coding else response.data)
    assert decoded["hits"] == plain["hits"]


def test_a_client_that_refuses_the_uncompressed_answer_gets_a_small_one_compressed(client):
    # "gzip, identity;q=0": the answer whole is not acceptable, gzip is; /healthz went as it was.
    response = client.get("/healthz", headers={"Accept-Encoding": "gzip, identity;q=0"})
    assert response.headers["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(response.data))["status"] == "ok"


@pytest.mark.parametrize("precondition", ['"*"', '*', '"nope"', 'W/"nope"'])
def test_a_precondition_gets_the_same_answer_compressed_or_not(client, precondition):
    # If-Match on a search: once 200 sent whole but 412 with the whole answer gzipped when compressed; now
    # judged before compression (web/preconditions.py), so both are the same status.
    path = "/api/search?q=stargate"
    plain = client.get(path, headers={"If-Match": precondition})
    packed = client.get(path, headers={"If-Match": precondition, "Accept-Encoding": "gzip"})
    assert packed.status_code == plain.status_code


def test_a_feed_is_revalidated_by_the_etag_of_either_coding_and_its_304_says_the_etag_of_its_200(client):
    # The feed's compressed answer had its own strong ETag ("…:gzip"): sent back by a reader that takes
    # no gzip it was a 200, and a 304 to a gzip reader (If-Modified-Since) named the uncompressed one.
    path = "/feeds/search.atom?q=stargate"
    plain, packed = client.get(path), client.get(path, headers={"Accept-Encoding": "gzip"})
    assert packed.headers["Content-Encoding"] == "gzip"
    for etag in (plain.headers["ETag"], packed.headers["ETag"]):
        for accepted in ({}, {"Accept-Encoding": "gzip"}):
            again = client.get(path, headers={**accepted, "If-None-Match": etag})
            assert again.status_code == 304 and again.data == b""
    for first in (plain, packed):
        accepted = {"Accept-Encoding": "gzip"} if first is packed else {}
        again = client.get(path, headers={**accepted, "If-Modified-Since": first.headers["Last-Modified"]})
        assert again.status_code == 304 and again.headers["ETag"] == first.headers["ETag"]
        # (and by Accept: a browser gets it as XML it lays out, a feed reader as Atom)
        assert {name.strip() for name in again.headers["Vary"].split(",")} == {"Accept-Encoding", "Accept"}

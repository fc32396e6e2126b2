"""The JSON API and the page: shapes, errors and headers a client relies on."""

from __future__ import annotations

import pytest

HIT_KEYS = {"id", "kind", "title", "title_html", "snippet_html", "url", "topics", "score"}


def test_search_shape(client):
    response = client.get("/api/search?q=stargate&per_page=3")
    assert response.status_code == 200 and response.is_json
    body = response.get_json()
    assert {"query", "total", "page", "per_page", "took_ms", "hits", "facets"} <= body.keys()
    assert body["query"] == "stargate" and body["total"] == 15 and body["page"] == 1 and body["per_page"] == 3
    assert len(body["hits"]) == 3
    for hit in body["hits"]:
        assert HIT_KEYS <= hit.keys()
        assert hit["url"].startswith("/events/")
    assert any("<mark>" in hit["snippet_html"] or "<mark>" in hit["title_html"] for hit in body["hits"])
    facet = body["facets"]["topic"][0]
    assert facet == {"value": "training-infrastructure", "label": "Training Infrastructure", "count": 15, "selected": False}


def test_topic_filter_is_repeatable(client):
    body = client.get("/api/search?q=compute&topic=training-infrastructure&topic=other").get_json()
    selected = {f["value"] for f in body["facets"]["topic"] if f["selected"]}
    assert selected == {"training-infrastructure", "other"}
    assert body["total"] > 0


@pytest.mark.parametrize(
    ("query", "param"),
    [
        ("page=0", "page"),
        ("page=abc", "page"),
        ("page=%2B1", "page"),
        ("page=%201%20", "page"),
        ("page=1_0", "page"),
        ("page=%D9%A1", "page"),
        ("per_page=0", "per_page"),
        ("per_page=51", "per_page"),
        ("per_page=50&page=21", "page"),
        ("sort=random", "sort"),
        ("q=" + "x" * 257, "q"),
        ("q=" + "+".join(["w"] * 33), "q"),
        ("topic=" + "t" * 65, "topic"),
        ("&".join(["topic=t"] * 11), "topic"),
        ("explain=maybe", "explain"),
    ],
)
def test_invalid_parameters_get_400_naming_them(client, query, param):
    response = client.get(f"/api/search?{query}")
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error["code"] == "invalid_parameter" and error["param"] == param and error["message"]
    page = client.get(f"/?{query}")
    assert page.status_code == 400 and b"Traceback" not in page.data
    assert page.mimetype == "text/html"


def test_unknown_paths_and_methods_answer_json_under_api(client):
    missing = client.get("/api/nothing")
    assert missing.status_code == 404 and missing.get_json()["error"]["code"] == "not_found"
    wrong = client.post("/api/search")
    assert wrong.status_code == 405 and wrong.get_json()["error"]["code"] == "method_not_allowed"


def test_healthz(client):
    body = client.get("/healthz").get_json()
    assert body["status"] == "ok" and body["doc_count"] == 57 and body["built_at"]


def test_security_headers_on_every_response(client):
    for url in ("/", "/api/search?q=x", "/api/nothing", "/?page=0", "/static/style.css"):
        response = client.get(url)
        response.close()
        headers = response.headers
        assert headers["Content-Security-Policy"].startswith("default-src 'self'")
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert "Referrer-Policy" in headers


def test_page_searches_without_javascript_and_keeps_state_in_url(client):
    page = client.get("/?q=trainium").get_data(as_text=True)
    assert '<label for="q"' in page
    assert 'value="trainium"' in page
    assert "<mark>Trainium" in page
    assert "Anthropic and Amazon Expand Collaboration" in page
    assert 'name="topic" value="training-infrastructure"' in page


def test_query_text_is_escaped_in_the_page(client):
    page = client.get('/?q="><script>alert(1)</script>').get_data(as_text=True)
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;" in page


def test_document_pages(client):
    assert client.get("/events/expanding-stargate-to-michigan").status_code == 200
    guide = client.get("/guides/training-infrastructure").get_data(as_text=True)
    assert 'id="efficiency-research-as-a-countervailing-force"' in guide
    assert client.get("/events/nope").status_code == 404

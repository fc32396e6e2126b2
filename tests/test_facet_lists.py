"""A facet lists at most FACET_VALUES_LISTED values in an answer, and those selected past them, and
says how many it has in all: 50,000 topics made the home page 22 MB and /api/search?q= 6 MB (a QA pass)."""

from __future__ import annotations

import re

import pytest

from index.build import build
from search.results import FACET_VALUES_LISTED
from tests.conftest import write_jsonl
from web import create_app

N = FACET_VALUES_LISTED
LAST = "zzz-last"  # on one record, with many others: its label puts it last of those counted once


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    """An index whose topic and organisation facets have 2N values each: "common" on every record, the
    others on one record each."""
    tmp = tmp_path_factory.mktemp("facet-lists")
    docs = [
        {"id": f"d{n}", "title": f"Widget {n}", "summary": "A widget.",
         "topics": ["common", *(f"t{n}-{i}" for i in range(N - 1))] if n < 2 else ["common", LAST],
         "entities": ["Common Org", *(f"Org {n}-{i}" for i in range(N - 1))] if n < 2 else ["Common Org", LAST]}
        for n in range(3)
    ]
    build([write_jsonl(tmp / "docs.jsonl", docs)], root=tmp / "index", semantic=False)
    return create_app({"INDEX_DIR": str(tmp / "index"), "TESTING": True}).test_client()


@pytest.mark.parametrize(("facet", "first"), [("topic", "common"), ("entity", "Common Org")])
def test_the_api_lists_the_most_frequent_values_and_says_how_many_there_are(client, facet, first):
    body = client.get("/api/search?q=").get_json()
    values = body["facets"][facet]
    assert len(values) == N and values[0]["value"] == first and values[0]["count"] == 3
    assert body["facets_total"] == {facet: 2 * N, "entity" if facet == "topic" else "topic": 2 * N, "kind": 1, "month": 1}
    assert LAST not in [v["value"] for v in values]


@pytest.mark.parametrize("facet", ["topic", "entity"])
def test_a_selected_value_past_the_listed_ones_is_listed_with_its_count(client, facet):
    body = client.get(f"/api/search?q=&{facet}={LAST}").get_json()
    values = body["facets"][facet]
    assert len(values) == N + 1 and values[-1] == {"value": LAST, "label": LAST, "count": 1, "selected": True}
    assert body["facets_total"][facet] == 2 * N  # counted without its own selection, as its counts are


def test_the_page_lists_as_many_and_says_how_many_more_there_are(client):
    page = client.get("/").get_data(as_text=True)
    assert len(re.findall(r'<input type="checkbox" name="topic"', page)) == N
    assert f"Show {N} of {2 * N}<" in page and f"And {N} more topics, none more frequent" in page
    assert "Show all 1<" not in page and "more types" not in page  # a facet listed whole says nothing more
    selected = client.get(f"/?topic={LAST}").get_data(as_text=True)
    assert f'name="topic" value="{LAST}" checked>' in selected and f"Show {N + 1} of {2 * N}<" in selected
    assert f"And {N - 1} more topics" in selected


def test_the_taxonomy_lists_every_topic(client):
    # /api/topics is the list of topics, not a search's facet: it is whole.
    assert len(client.get("/api/topics").get_json()["topics"]) == 2 * N

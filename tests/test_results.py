"""A search result's JSON: every hit field, in the class's order, as the API documents it."""

from __future__ import annotations

from dataclasses import fields

import pytest

from search.results import Hit, SearchResult


def _hit(explanation):
    return Hit(
        id="d1", kind="event", title="A <title>", title_html="A &lt;title&gt;", snippet_html="<mark>x</mark>",
        url="https://example.org/1", topics=("gpus", "power"), entities=("openai",), score=1.2345, position=7,
        explanation=explanation, published="2025-01-02", first_seen="2025-01-03T00:00:00Z", matched_by="meaning",
        missing=("michigan",),
    )


@pytest.mark.parametrize("explanation", [None, {"score": 1.2345, "concepts": []}])
def test_a_hit_is_written_with_every_field_in_order_and_lists_for_tuples(explanation):
    hit = _hit(explanation)
    result = SearchResult(query="x", total=1, page=1, per_page=10, sort="relevance", took_ms=0.1, hits=(hit,),
                          facets={}, filters={}, match="all")
    written = result.to_json()["hits"][0]
    expected = {f.name: getattr(hit, f.name) for f in fields(Hit)}
    expected["topics"], expected["entities"], expected["missing"] = list(hit.topics), list(hit.entities), list(hit.missing)
    if explanation is None:
        del expected["explanation"]
    assert list(written) == list(expected)  # the key order is the response's byte order
    assert written == expected
    assert all(isinstance(written[name], list) for name in ("topics", "entities", "missing"))

"""Query building: syntax readers use works, syntax Whoosh chokes on is searched as words."""

from __future__ import annotations

import pytest
from whoosh import query as wq

from index.schema import make_schema
from search.query import build_query

SCHEMA = make_schema()


def test_all_words_and_any_words():
    parsed = build_query("trainium deal", SCHEMA)
    assert isinstance(parsed.all_words, wq.And) and isinstance(parsed.any_words, wq.Or)
    assert parsed.terms == {"trainium", "deal"}


def test_phrase_exclusion_and_or():
    parsed = build_query('"data center" -texas', SCHEMA)
    assert isinstance(parsed.all_words, wq.AndNot)
    assert parsed.terms == {"data", "center"}  # the excluded word is not highlighted
    assert "OR" in str(build_query("stargate OR michigan", SCHEMA).all_words)


def test_hyphens_inside_words_do_not_exclude():
    assert "ANDNOT" not in str(build_query("V3.2-Exp", SCHEMA).all_words)
    assert "ANDNOT" not in str(build_query("fine-tuning", SCHEMA).all_words)


@pytest.mark.parametrize("text", ["title:foo", "foo*", "[a TO z]", "foo^3"])
def test_field_wildcard_range_and_boost_syntax_are_plain_words(text):
    parsed = build_query(text, SCHEMA)
    assert not parsed.is_empty
    for node in parsed.any_words.leaves():
        assert isinstance(node, (wq.Term, wq.Phrase)), (text, node)
        assert node.fieldname in ("title", "body")


@pytest.mark.parametrize(
    "text", ["NOT NOT a", "a ANDNOT ANDNOT b", "(" * 300 + "gpu" + ")" * 300, "a~2/3", '"', "((", "AND OR NOT"]
)
def test_parser_crash_inputs_still_search(text):
    parsed = build_query(text, SCHEMA)
    assert isinstance(parsed.any_words, wq.Query)


def test_parser_crash_falls_back_to_plain_words():
    parsed = build_query("gpu ANDNOT ANDNOT cluster", SCHEMA)
    assert parsed.plain
    assert {"gpu", "cluster"} <= parsed.terms


def test_a_query_of_function_words_still_searches_them():
    assert build_query("it", SCHEMA).terms == {"it"}
    assert build_query("who is", SCHEMA).terms == {"who", "is"}


def test_match_everything_syntax_matches_nothing():
    assert build_query("*:*", SCHEMA).is_empty

"""Highlighting: only <mark> survives, matched words are marked, and cached tokens change nothing."""

from __future__ import annotations

import pytest

from search.highlight import highlight_snippet, highlight_title, sanitize


@pytest.mark.parametrize(
    ("markup", "expected"),
    [
        ("<mark>a</mark>", "<mark>a</mark>"),
        ('<mark onclick="x()">a</mark>', "<mark>a</mark>"),
        ("<script>alert(1)</script>b", "alert(1)b"),
        ('<img src=x onerror="alert(1)">c', "c"),
        ("<a href='javascript:x'>d</a>", "d"),
        ("&lt;b&gt;e&lt;/b&gt;", "&lt;b&gt;e&lt;/b&gt;"),
    ],
)
def test_sanitize_keeps_mark_only(markup, expected):
    assert sanitize(markup) == expected


def test_title_marks_whole_letter_digit_words(service):
    snap = service.snapshot()
    html = highlight_title("Trainium2 <b>chips</b> & Trainium", {"trainium"}, snap.analyzer)
    assert html == "<mark>Trainium2</mark> &lt;b&gt;chips&lt;/b&gt; &amp; <mark>Trainium</mark>"


def test_snippet_is_cropped_around_the_match(service):
    snap = service.snapshot()
    text = "filler words " * 60 + "the Stargate site in Michigan " + "more filler " * 60
    html = highlight_snippet(text, {"stargat", "michigan"}, snap.analyzer)
    assert "<mark>Stargate</mark>" in html and "<mark>Michigan</mark>" in html
    assert html.startswith("…") and html.endswith("…") and len(html) < 400


def test_replayed_tokens_highlight_exactly_like_the_analyzer(service, seed_corpus):
    snap = service.snapshot()
    searcher = snap.searcher()
    term_sets = [{"stargat"}, {"trainium", "deal"}, {"comput", "gpu"}, {"jalapeno"}, {"data", "center", "texa"}]
    checked = 0
    for docnum in sorted(snap.all_docs):
        fields = searcher.stored_fields(docnum)
        for terms in term_sets:
            for field, fn in (("title", highlight_title), ("body", highlight_snippet)):
                direct = fn(fields[field], terms, snap.analyzer)
                assert fn(fields[field], terms, snap.tokens(docnum, field, fields[field])) == direct
                assert fn(fields[field], terms, snap.tokens(docnum, field, fields[field])) == direct  # cached
                checked += 1
    assert checked == len(seed_corpus.records) * len(term_sets) * 2


def test_equal_passages_are_chosen_the_same_way_every_time(service):
    snap = service.snapshot()
    text = " ".join(f"Passage {i} says Stargate once and then goes on with unrelated words for a while." for i in range(12))
    first = highlight_snippet(text, {"stargat"}, snap.analyzer)
    assert all(highlight_snippet(text, {"stargat"}, snap.analyzer) == first for _ in range(30))
    assert "Passage 0" in first  # of equal passages, the earliest wins

"""The one evaluator: match sets equal Whoosh's own, and an explanation's pieces add up to the score."""

from __future__ import annotations

import pytest
from whoosh import query as wq

from search.evaluator import matches, pieces, scores
from search.query import build_query


@pytest.mark.parametrize(
    "text", ["training", "power grid", "gpu OR tpu", "cluster -nvidia", "NOT power", '"training run"', "xyzzy"]
)
def test_match_sets_equal_whooshs_own(service, text):
    snap = service.snapshot()
    parsed = build_query(text, snap.schema)
    for node in (parsed.all_words, parsed.any_words, wq.Every(), wq.NullQuery):
        expected = set(node.docs(snap.searcher())) & snap.all_docs
        assert matches(node, snap) == expected


@pytest.mark.parametrize("text", ["stargate michigan", "gpu OR tpu", "cluster -nvidia", '"data center" texas', "trainium deal"])
def test_explain_mode_scores_like_score_mode_and_its_pieces_add_up(service, text):
    snap = service.snapshot()
    query = build_query(text, snap.schema).any_words
    scored = scores(query, snap, matches(query, snap))
    assert scored
    for docnum, score in list(scored.items())[:10]:
        total, found = pieces(query, snap, docnum)
        assert total == pytest.approx(score)
        assert sum(s for _f, _w, s in found) == pytest.approx(score)
        assert all(field in ("title", "body") for field, _w, _s in found)


def test_a_document_the_query_does_not_match_has_no_pieces(service):
    snap = service.snapshot()
    query = build_query("stargate", snap.schema).any_words
    outside = next(iter(snap.all_docs - matches(query, snap)))
    assert pieces(query, snap, outside) == (None, [])


@pytest.mark.parametrize(
    "phrase",
    [
        wq.Phrase("body", ["data", "center"]),
        wq.Phrase("title", ["data", "center"], slop=2, boost=0.8),
        wq.Phrase("body", ["train", "run"], slop=2),
        wq.Phrase("body", ["power", "grid"], boost=2.5),
        wq.Phrase("body", ["xyzzy", "center"]),
        wq.Phrase("body", ["michigan", "tpu"], slop=2),  # both words in the field, never in one document
        wq.Phrase("body", ["stargat", "trainium"], slop=40),  # both in one document, far apart
        wq.Phrase("nosuchfield", ["data", "center"]),
    ],
)
def test_phrases_read_from_the_snapshot_match_and_score_as_whooshs_matcher(service, phrase):
    from search.evaluator import whoosh_scores

    snap = service.snapshot()
    expected = set(phrase.docs(snap.searcher())) & snap.all_docs
    some = set(sorted(snap.all_docs)[::2])  # candidates that leave some matches out
    for _ in range(2):  # computed, then read from the snapshot's cache
        assert matches(phrase, snap) == expected
        for cands in (snap.all_docs, some):
            assert scores(wq.Or([phrase, wq.Term("body", "zzzz")]), snap, cands) == whoosh_scores(phrase, snap.searcher(), cands)


@pytest.mark.parametrize(
    "text", ["training", "power grid", "data center texas", "gpu* cluster", "kuberentes", "gpu OR tpu OR nvidia", "cluster -nvidia"]
)
def test_scores_kept_per_snapshot_are_the_floats_the_walk_gives_any_candidates(service, text):
    from search.evaluator import Mode, _scored, _Walk
    from search.query import expand

    snap = service.snapshot()
    vocabulary = service._speller.vocabulary(snap.id, snap.searcher(), snap.analyzer)
    parsed = expand(build_query(text, snap.schema, snap.synonyms), vocabulary)
    queries = [parsed.any_words, parsed.all_words, *(c.any_query for c in parsed.concepts)]
    everything = set(snap.all_docs)
    for cands in (everything, set(sorted(everything)[::3]), set(sorted(everything)[1::2])):
        for query in queries:
            walked = _scored(_Walk(snap, Mode.SCORE), query, cands & snap.all_docs)
            for _ in range(2):  # reckoned over every document and kept, then read from the snapshot
                assert scores(query, snap, cands) == walked  # the same floats, not approximately
                assert matches(query, snap) == set(query.docs(snap.searcher())) & snap.all_docs

"""bench/dense.py's own correctness: the fusion, the query cut and the CISI reader."""

from __future__ import annotations

import gzip

from bench.dense import cut, load_cisi, mlt_pairs, rrf
from bench.relevance import Judged
from search.params import MAX_QUERY_CHARS, MAX_QUERY_WORDS


def test_rrf_puts_documents_both_rankings_agree_on_first():
    assert rrf([["a", "b", "c"], ["b", "c", "d"]]) == ["b", "c", "a", "d"]
    assert rrf([["y"], ["x"]]) == ["x", "y"]  # a tie goes to the lower id


def test_cut_keeps_the_start_of_a_query_within_the_apis_limits():
    long = " ".join(f"word{i:03d}" for i in range(300))
    short = cut(long)
    assert long.startswith(short) and len(short) <= MAX_QUERY_CHARS and len(short.split()) <= MAX_QUERY_WORDS
    assert cut("  two   words ") == "two words"


def test_cisi_reader_pairs_queries_with_their_judgments(tmp_path):
    def write(name: str, text: str) -> None:
        with gzip.open(tmp_path / name, "wt", encoding="latin-1") as handle:
            handle.write(text)

    write("CISI.ALL.gz", ".I 1\n.T\nIndexing\nby hand\n.A\nSomeone\n.W\nManual indexing\nof libraries.\n.X\n1 5 1\n"
                         ".I 2\n.T\nCitations\n.W\nWho cites whom.\n")
    write("CISI.QRY.gz", ".I 1\n.W\nHow are libraries\nindexed?\n.I 2\n.T\nA title\n.W\nCitation analysis.\n")
    write("CISI.REL.gz", "     1     1\t0\t0.000000\n     2     2\t0\t0.000000\n     2     1\t0\t0.000000\n")
    docs, judged = load_cisi(tmp_path)
    assert docs[0] == {"id": "cisi-1", "title": "Indexing by hand", "summary": "Manual indexing of libraries.", "topics": ["cisi"]}
    assert [(j.query, j.grades) for j in judged] == [
        ("How are libraries indexed?", {"cisi-1": 1}),
        ("Citation analysis.", {"cisi-2": 1, "cisi-1": 1}),
    ]


def test_mlt_pairs_take_the_best_judged_document_as_the_source():
    judged = [Judged("names", "q", {"a": 3, "b": 2, "c": 1, "d": 0}), Judged("names", "r", {"a": 3, "b": 1})]
    assert mlt_pairs(judged) == [("a", {"b": 2, "c": 1})]

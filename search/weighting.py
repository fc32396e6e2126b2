"""The service's BM25F: Whoosh's, with the probabilistic idf of BM25 instead of Whoosh's log(N/df)+1.

Whoosh's idf, ``log(N / (df + 1)) + 1``, never falls below 1: a word half the corpus holds still
weighs a third as much as the rarest one, so in a wordy query ("what problems and concerns are there
in making up descriptive titles") the common words outvote the telling ones.  BM25's own idf,
``log(1 + (N - df + 0.5) / (df + 0.5))`` (Lucene's form, always positive), weighs such words near
nothing.  Measured on CISI and the hub's judged set (docs/relevance.md).
"""

from __future__ import annotations

from math import log

from whoosh.scoring import BM25F

# Chosen across collections (docs/relevance.md): for the body, Whoosh's defaults (b 0.75, k1 1.2) were among
# the best; for titles, full length normalisation (b 1).
K1 = 1.2
B = 0.75
TITLE_B = 1.0  # a long title is discounted fully: a word in a short headline says more


def bm25_idf(doc_count: int, doc_frequency: int) -> float:
    """Return BM25's idf of a word in *doc_frequency* of *doc_count* documents."""
    return log(1 + (doc_count - doc_frequency + 0.5) / (doc_frequency + 0.5))


class Weighting(BM25F):
    """BM25F with BM25's idf."""

    def __init__(self, **kwargs: float) -> None:
        # The module's settings are read when a snapshot opens its searcher (bench/tune.py varies them).
        kwargs.setdefault("B", B)
        kwargs.setdefault("K1", K1)
        kwargs.setdefault("title_B", TITLE_B)
        super().__init__(**kwargs)

    def idf(self, searcher, fieldname, text):
        parent = searcher.get_parent()
        return bm25_idf(parent.doc_count_all(), parent.doc_frequency(fieldname, text))

"""Each (field, term)'s BM25F score per document of a snapshot, read once and kept in a bounded cache.

In a snapshot a term's score in a document never changes: it is BM25F of the posting's weight, the
document's (byte-encoded) field length, the term's idf and the field's average length.  So each
(field, term) is read once, a block at a time, into a map from document number to score, kept in
a bounded per-snapshot cache (the snapshot holds it); search/evaluator.py scores queries from it
with set and dict operations done in C.  The per-posting arithmetic is Whoosh's ``bm25()``, done over
a term's postings at once with numpy, operation by operation, so each score is the same float
(``bm25_posting_scores`` in index/whoosh_compat.py; another scorer's ``_score`` is called per pair).
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterator
from typing import Any, Union

import numpy as np
from whoosh.scoring import BM25F, WeightLengthScorer, WeightScorer
from whoosh.searching import Searcher
from whoosh.util.numeric import byte_to_length

from index.whoosh_compat import Unsupported
from index.whoosh_compat import bm25_posting_score, bm25_posting_scores, field_bs, length_bytes, read_postings
from search.cache import Bounded, memory_lock


# Bytes of per-term scores kept per snapshot (an estimate: dict entries, int keys, dense arrays).
SCORE_CACHE_BYTES = 48 * 1024 * 1024
# What one document of a term kept as a dict costs (entry, index slot, int key; floats are shared).
DICT_BYTES_PER_DOC = 72
# A term in more documents than this share of the index is kept as a dense array (8 bytes a document).
DENSE_SHARE = 8 / DICT_BYTES_PER_DOC
# Whoosh's byte_to_length of each length byte, as floats (the field length bm25() is given).
LENGTH_OF_BYTE = np.array([byte_to_length(b) for b in range(256)], dtype=np.float64)

Entry = Union[dict[int, float], array]  # document -> score, or a dense array with 0.0 for "absent"


class TermScores:
    """Each (field, term)'s BM25F score per document of one snapshot, in a bounded LRU cache."""

    def __init__(self, limit_bytes: int = SCORE_CACHE_BYTES) -> None:
        self.limit_bytes = limit_bytes
        self._terms: Bounded[tuple[str, bytes], Entry] = Bounded(limit_bytes, cost=_entry_bytes)
        self._lengths: dict[tuple[int, str], bytes | None] = {}
        self._lock = memory_lock()
        self._weighting: tuple[object, ...] | None = None

    @property
    def size_bytes(self) -> int:
        """Return the estimated memory the cached scores take."""
        return self._terms.total

    def __len__(self) -> int:
        return len(self._terms)

    def accepts(self, searcher: Searcher) -> bool:
        """Return whether *searcher*'s weighting is the one the cached scores were computed with."""
        weighting = searcher.weighting
        if not isinstance(weighting, BM25F) or type(weighting).scorer is not BM25F.scorer:
            return False
        signature = (type(weighting), weighting.B, weighting.K1, field_bs(weighting))
        with self._lock:
            if self._weighting is None:
                self._weighting = signature
        return self._weighting == signature

    def get(self, searcher: Searcher, fieldname: str, text: bytes) -> Entry:
        """Return the scores of *text* in *fieldname* (an empty dict when no document has it)."""
        return self._terms.get_or_make((fieldname, text), lambda: self._read(searcher, fieldname, text))

    def _read(self, searcher: Searcher, fieldname: str, text: bytes) -> Entry:
        docs: list[np.ndarray] = []
        scores: list[np.ndarray] = []
        for index, offset, reader, scorer, leaf_ids, leaf_weights in self.leaf_postings(searcher, fieldname, text):
            if type(scorer) is WeightScorer:
                leaf_scores = leaf_weights
            elif isinstance(scorer, WeightLengthScorer) and type(scorer).score is WeightLengthScorer.score:
                leaf_lengths = self.posting_lengths(index, reader, fieldname, text, leaf_ids)
                leaf_scores = bm25_posting_scores(scorer, leaf_weights, leaf_lengths)
                if leaf_scores is None:  # another WeightLengthScorer: its own arithmetic, once a pair
                    leaf_scores = _pair_scores(scorer, leaf_weights, leaf_lengths)
            else:
                raise Unsupported(f"scorer {type(scorer).__name__}")
            if not (leaf_scores > 0).all():
                # Whoosh's array union drops documents scoring 0 in small segments: leave it to Whoosh.
                raise Unsupported(f"{fieldname}:{text!r} scores 0 or less")
            docs.append(leaf_ids + offset if offset else leaf_ids)
            scores.append(leaf_scores)
        if not docs:
            return {}
        all_ids, all_scores = (np.concatenate(docs), np.concatenate(scores)) if len(docs) > 1 else (docs[0], scores[0])
        doc_count = searcher.doc_count_all()
        if len(all_ids) > DENSE_SHARE * doc_count:
            dense = np.zeros(doc_count)
            dense[all_ids] = all_scores
            return array("d", dense.tobytes())
        # Equal scores share one float object (a term has few distinct (weight, length) pairs): the
        # kept dict costs DICT_BYTES_PER_DOC a document, not a float more.
        values = all_scores.tolist()
        shared: dict[float, float] = {}
        return dict(zip(all_ids.tolist(), map(shared.setdefault, values, values)))

    @staticmethod
    def leaf_postings(searcher: Searcher, fieldname: str, text: bytes) -> Iterator[tuple[int, int, Any, Any, np.ndarray, np.ndarray]]:
        """Yield, for each segment holding *text* in *fieldname*: its index, its offset, its reader, the
        weighting's scorer there, and the term's documents and weights as arrays."""
        for index, (leaf, offset) in enumerate(searcher.leaf_searchers()):
            reader = leaf.reader()
            if (fieldname, text) not in reader:
                continue
            ids, weights = read_postings(reader, fieldname, text, weights=True)
            if ids:
                scorer = searcher.weighting.scorer(leaf, fieldname, text)
                yield index, offset, reader, scorer, np.array(ids, dtype=np.intp), np.array(weights, dtype=np.float64)

    def posting_lengths(self, index: int, reader, fieldname: str, text: bytes, ids: np.ndarray) -> np.ndarray:
        """Return the field length bm25() is given for each of segment *index*'s documents *ids* holding *text*."""
        lengths = self._field_lengths(index, reader, fieldname)
        if lengths is None:  # Whoosh's dfl(): 1 when the segment stores no lengths
            return np.ones(len(ids))
        length_bytes = np.frombuffer(lengths, dtype=np.uint8)[ids]
        if not length_bytes.all():
            raise Unsupported(f"{fieldname}:{text!r} has a posting in an empty field")
        return LENGTH_OF_BYTE[length_bytes]

    def _field_lengths(self, index: int, reader, fieldname: str) -> bytes | None:
        """Return segment *index*'s length byte of *fieldname* for every document (None: not stored)."""
        key = (index, fieldname)
        with self._lock:
            if key in self._lengths:
                return self._lengths[key]
        lengths = length_bytes(reader, fieldname)
        with self._lock:
            self._lengths[key] = lengths
        return lengths


def _pair_scores(scorer: WeightLengthScorer, weights: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Return *scorer*'s score of each (weight, length) posting, reckoned once per distinct pair."""
    pairs = list(zip(weights.tolist(), map(int, lengths.tolist())))
    memo = {pair: bm25_posting_score(scorer, *pair) for pair in set(pairs)}  # a term has few distinct pairs
    return np.array(list(map(memo.__getitem__, pairs)), dtype=np.float64)


def _entry_bytes(entry: Entry) -> int:
    if isinstance(entry, array):
        return sys.getsizeof(entry)
    return sys.getsizeof(entry) + len(entry) * (DICT_BYTES_PER_DOC - 40)

"""Exact BM25F scores for a set of candidates, from per-term scores cached per snapshot.

A Whoosh matcher tree scores a document by walking every node's postings; building that tree for a
query that synonyms and typo corrections expanded into dozens of terms takes longer than scoring
the few documents it is asked about.  Yet in a snapshot a term's score in a document never
changes: it is BM25F of the posting's weight, the document's (byte-encoded) field length, the
term's idf and the field's average length.  So each (field, term) is read once, a block at a time,
into a map from document number to score, kept in a bounded per-snapshot cache; a query is then
scored by set and dict operations done in C: each term is intersected with the candidates first,
``Or`` adds, ``DisjunctionMax`` takes the larger, ``And`` adds what every part matched, boosts
multiply.  The work grows with the matches among the candidates, not with the postings.

The result is what Whoosh's own matchers give (see ``whoosh_scores``), to the last bits of a sum
taken in another order: the per-posting arithmetic is Whoosh's (its scorer's ``_score``), and the
matcher quirks are kept (a compound query with one subquery ignores its own boost, ``Not`` scores
1.0, ``DisjunctionMax`` ignores its tiebreak).  Nodes that need positions (phrases) or that this
module does not know are scored by Whoosh's matcher restricted to the candidates that reach them;
a query with a boost that is not positive is scored by Whoosh entirely.

Three Whoosh 2.7 matcher bugs are not reproduced, on purpose: ``DisjunctionMaxMatcher.score`` takes
the max of its children's current scores even when one sits on a later document (a page matching
only a synonym gets the score a neighbouring page has for the typed word); ``AndMaybeMatcher.skip_to``
leaves its optional side short of the required side's document, so skipping can lose the optional
score; a new ``AndNotMatcher`` does not exclude its first document.  Here a concept scores its best
alternative in that document, ``AndMaybe`` always adds a matching optional side, and ``AndNot``
always excludes (tests/test_scoring.py compares with Whoosh's matchers with these three fixed).
"""

from __future__ import annotations

import sys
import threading
from array import array
from bisect import bisect_left
from collections.abc import Iterable, KeysView
from itertools import compress, repeat
from operator import add
from typing import Union

from whoosh import query as wq
from whoosh.codec.whoosh3 import LENGTHS_COLUMN, _lenfield
from whoosh.matching.mcore import ReadTooFar
from whoosh.scoring import BM25F, WeightLengthScorer, WeightScorer
from whoosh.searching import Searcher
from whoosh.util.numeric import byte_to_length

from search.cache import Bounded
from search.snapshot import Snapshot, read_postings


# Bytes of per-term scores kept per snapshot (an estimate: dict entries, int keys, dense arrays).
SCORE_CACHE_BYTES = 48 * 1024 * 1024
# What one document of a term kept as a dict costs (entry, index slot, int key; floats are shared).
DICT_BYTES_PER_DOC = 72
# A term in more documents than this share of the index is kept as a dense array (8 bytes a document).
DENSE_SHARE = 8 / DICT_BYTES_PER_DOC

Entry = Union[dict[int, float], array]  # document -> score, or a dense array with 0.0 for "absent"
Candidates = Union[set[int], frozenset[int], KeysView[int]]


class _Unsupported(Exception):
    """The query (or the index) needs Whoosh's own matchers to be scored exactly."""


class TermScores:
    """Each (field, term)'s BM25F score per document of one snapshot, in a bounded LRU cache."""

    def __init__(self, limit_bytes: int = SCORE_CACHE_BYTES) -> None:
        self.limit_bytes = limit_bytes
        self._terms: Bounded[tuple[str, bytes], Entry] = Bounded(limit_bytes, cost=_entry_bytes)
        self._lengths: dict[tuple[int, str], bytes | None] = {}
        self._lock = threading.Lock()
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
        signature = (type(weighting), weighting.B, weighting.K1, tuple(sorted(weighting._field_B.items())))
        with self._lock:
            if self._weighting is None:
                self._weighting = signature
        return self._weighting == signature

    def get(self, searcher: Searcher, fieldname: str, text: bytes) -> Entry:
        """Return the scores of *text* in *fieldname* (an empty dict when no document has it)."""
        return self._terms.get_or_make((fieldname, text), lambda: self._read(searcher, fieldname, text))

    def _read(self, searcher: Searcher, fieldname: str, text: bytes) -> Entry:
        docs: list[int] = []
        scores: list[float] = []
        for index, (leaf, offset) in enumerate(searcher.leaf_searchers()):
            reader = leaf.reader()
            if (fieldname, text) not in reader:
                continue
            ids, weights = read_postings(reader, fieldname, text, weights=True)
            if not ids:
                continue
            scorer = searcher.weighting.scorer(leaf, fieldname, text)
            if type(scorer) is WeightScorer:
                leaf_scores = weights
            elif isinstance(scorer, WeightLengthScorer) and type(scorer).score is WeightLengthScorer.score:
                lengths = self._field_lengths(index, reader, fieldname)
                # Whoosh's dfl(): the byte-encoded length, or 1 when the segment stores no lengths.
                pairs = list(zip(weights, map(lengths.__getitem__, ids) if lengths is not None else repeat(-1)))
                memo = {}
                for pair in set(pairs):  # a term has few distinct (weight, length) pairs
                    weight, lbyte = pair
                    if lbyte == 0:
                        raise _Unsupported(f"{fieldname}:{text!r} has a posting in an empty field")
                    memo[pair] = scorer._score(weight, 1 if lbyte < 0 else byte_to_length(lbyte))
                leaf_scores = list(map(memo.__getitem__, pairs))
            else:
                raise _Unsupported(f"scorer {type(scorer).__name__}")
            if not min(leaf_scores) > 0:
                # Whoosh's array union drops documents scoring 0 in small segments: leave it to Whoosh.
                raise _Unsupported(f"{fieldname}:{text!r} scores 0 or less")
            docs.extend(ids if not offset else [i + offset for i in ids])
            scores.extend(leaf_scores)
        doc_count = searcher.doc_count_all()
        if len(docs) > DENSE_SHARE * doc_count:
            dense = array("d", bytes(8 * doc_count))
            for docnum, score in zip(docs, scores):
                dense[docnum] = score
            return dense
        return dict(zip(docs, scores))

    def _field_lengths(self, index: int, reader, fieldname: str) -> bytes | None:
        """Return segment *index*'s length byte of *fieldname* for every document (None: not stored)."""
        key = (index, fieldname)
        with self._lock:
            if key in self._lengths:
                return self._lengths[key]
        lengths = _length_bytes(reader, fieldname)
        with self._lock:
            self._lengths[key] = lengths
        return lengths


def _entry_bytes(entry: Entry) -> int:
    if isinstance(entry, array):
        return sys.getsizeof(entry)
    return sys.getsizeof(entry) + len(entry) * (DICT_BYTES_PER_DOC - 40)


def term_scores(snap: Snapshot) -> TermScores:
    """Return *snap*'s per-term score cache, creating it on first use."""
    cache = snap.__dict__.get("term_scores")
    if cache is None:
        # dict.setdefault is atomic: two threads racing here end up sharing one cache.
        cache = snap.__dict__.setdefault("term_scores", TermScores())
    return cache


def score_docs(query: wq.Query, snap: Snapshot, docs: Iterable[int]) -> dict[int, float]:
    """Return the BM25F score of each of *docs* that *query* matches (Whoosh's, from cached terms)."""
    candidates = (docs if isinstance(docs, (set, frozenset)) else set(docs)) & snap.all_docs
    if not candidates:
        return {}
    searcher = snap.searcher()
    cache = term_scores(snap)
    if cache.accepts(searcher):
        try:
            return _Scorer(cache, searcher).node(query, candidates, 1.0)
        except _Unsupported:
            pass
    return whoosh_scores(query, searcher, candidates)


def whoosh_scores(query: wq.Query, searcher: Searcher, docs: Iterable[int], context=None) -> dict[int, float]:
    """Return Whoosh's matcher score of each of *docs* that *query* matches (skipping to each)."""
    context = context or searcher.context()
    ordered = sorted(docs)
    scored: dict[int, float] = {}
    for leaf, offset in searcher.leaf_searchers():
        lo = bisect_left(ordered, offset)
        hi = bisect_left(ordered, offset + leaf.doc_count_all())
        if lo == hi:
            continue
        matcher = query.matcher(leaf, context)
        for docnum in ordered[lo:hi]:
            if not matcher.is_active():
                break
            local = docnum - offset
            if matcher.id() < local:
                try:
                    matcher.skip_to(local)
                except (IndexError, ReadTooFar):
                    # Whoosh's AndNotMatcher.skip_to reads its positive side's id after skipping it
                    # past its last document: nothing at or after *local* matches.
                    break
            if matcher.is_active() and matcher.id() == local:
                scored[docnum] = float(matcher.score())
    return scored


class _Scorer:
    """One query's evaluation: each node returns {docnum: score} for the candidates it matches."""

    def __init__(self, cache: TermScores, searcher: Searcher) -> None:
        self.cache = cache
        self.searcher = searcher
        self.schema = searcher.schema
        self.context = searcher.context()

    def node(self, node: wq.Query, cands: Candidates, mult: float) -> dict[int, float]:
        """Return the scores *node* gives *cands*, times *mult* (the boosts of the nodes above it)."""
        kind = type(node)
        if kind is wq.Term:
            return self.term(node, cands, mult)
        if kind is wq.Or or kind is wq.And or kind is wq.DisjunctionMax:
            subs = node.subqueries
            if not subs:
                return {}
            if len(subs) == 1:
                return self.node(subs[0], cands, mult)  # Whoosh's matcher is the child's: no boost
            if kind is wq.Or and node.scale:
                return self.whoosh(node, cands, mult)  # a coordination bonus (CoordMatcher)
            if node.boost != 1.0:
                mult *= _positive(node.boost)
            if kind is wq.And:
                return self.intersection(subs, cands, mult)
            return _merge([self.node(sub, cands, mult) for sub in subs], add if kind is wq.Or else max)
        if kind is wq.AndNot:
            found = self.node(node.a, cands, mult)
            if not found:
                return found
            excluded = self.node(node.b, found.keys(), 1.0)
            if not excluded:
                return found
            kept = found.keys() - excluded.keys()
            return dict(zip(kept, map(found.__getitem__, kept)))
        if kind is wq.AndMaybe:
            found = self.node(node.a, cands, mult)
            if not found:
                return found
            maybe = self.node(node.b, found.keys(), mult)
            if maybe:
                found.update(dict(zip(maybe, map(add, map(found.__getitem__, maybe), maybe.values()))))
            return found
        if kind is wq.Not:
            # Whoosh's InverseMatcher: every live document the child does not match, scoring 1.0.
            inner = self.node(node.query, cands, 1.0)
            return dict.fromkeys(cands - inner.keys() if inner else cands, 1.0 * mult)
        if kind is wq.Every and node.fieldname in (None, "", "*"):
            return dict.fromkeys(cands, _positive(node.boost or 1.0) * mult)
        if node is wq.NullQuery or kind is type(wq.NullQuery):
            return {}
        return self.whoosh(node, cands, mult)

    def term(self, node: wq.Term, cands: Candidates, mult: float) -> dict[int, float]:
        if node.fieldname not in self.schema:
            return {}
        if node.minquality:
            return self.whoosh(node, cands, mult)
        try:
            text = self.schema[node.fieldname].to_bytes(node.text)
        except ValueError:
            return {}
        entry = self.cache.get(self.searcher, node.fieldname, text)
        if not entry:
            return {}
        if isinstance(entry, array):
            common = list(compress(cands, map(entry.__getitem__, cands)))
        elif isinstance(cands, (set, frozenset)):
            # Whichever is smaller is iterated, in C.
            common = cands.intersection(entry) if len(entry) <= len(cands) else entry.keys() & cands
        else:
            common = entry.keys() & cands
        if node.boost != 1.0:
            mult *= _positive(node.boost)
        values = map(entry.__getitem__, common)
        return dict(zip(common, values if mult == 1.0 else map(mult.__mul__, values)))

    def intersection(self, subs, cands: Candidates, mult: float) -> dict[int, float]:
        found: list[dict[int, float]] = []
        for sub in subs:
            part = self.node(sub, cands, mult)
            if not part:
                return {}
            found.append(part)
            cands = part.keys()  # each part is looked up only among the documents all before it had
        last = found[-1]
        total = map(found[0].__getitem__, last)
        for part in found[1:-1]:
            total = map(add, total, map(part.__getitem__, last))
        return dict(zip(last, map(add, total, last.values())))

    def whoosh(self, node: wq.Query, cands: Candidates, mult: float) -> dict[int, float]:
        scored = whoosh_scores(node, self.searcher, cands, self.context)
        if scored and not min(scored.values()) > 0:
            raise _Unsupported("a subquery scores 0 or less")
        if mult != 1.0:
            return dict(zip(scored, map(mult.__mul__, scored.values())))
        return scored


def _positive(boost: float) -> float:
    # Sums, maxima and Whoosh's "score > 0 means matched" arrays only commute with positive boosts.
    if not boost > 0:
        raise _Unsupported(f"boost {boost}")
    return boost


def _merge(parts: list[dict[int, float]], combine) -> dict[int, float]:
    """Return the union of *parts*, combining the scores of a document found in several."""
    parts = sorted((p for p in parts if p), key=len, reverse=True)
    if not parts:
        return {}
    out = parts[0]
    for part in parts[1:]:
        both = out.keys() & part.keys()
        if both:
            combined = dict(zip(both, map(combine, map(out.__getitem__, both), map(part.__getitem__, both))))
            out.update(part)
            out.update(combined)
        else:
            out.update(part)
    return out


def _length_bytes(reader, fieldname: str) -> bytes | None:
    """Return a segment's stored length byte of *fieldname* per document, or None if it has none."""
    cached_reader = getattr(getattr(reader, "_perdoc", None), "_cached_reader", None)
    if cached_reader is None:
        raise _Unsupported(f"reader {type(reader).__name__}")
    column = cached_reader(_lenfield(fieldname), LENGTHS_COLUMN)
    if column is None:
        return None
    count = reader.doc_count_all()
    if getattr(column, "_fixedlen", None) == 1 and getattr(column, "_typecode", None) == "B":
        # One byte per document from the start of the column; documents past its end have the default 0.
        raw = bytes(column._dbfile.get(column._basepos, column._count))
        return raw[:count] + bytes(max(0, count - len(raw)))
    return bytes(column[i] for i in range(count))

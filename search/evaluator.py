"""The one evaluator of a query tree: which documents match, how much each scores, and why.

Whoosh answers these with matcher trees that step one document and several method calls at a time.
Here one walk over Whoosh's query classes answers all three, in a mode:

- ``MATCH`` returns the set of live documents a query matches (totals, facets, concepts): terms come
  from the snapshot's cached postings and ``Or``, ``And``, ``AndNot``, ``Not`` are set operations
  done in C.  The answer is ``set(query.docs(searcher))``.  In a snapshot without deleted documents
  every document is live, so neither the answer nor SCORE's candidates are narrowed to the live ones
  (only ``Every`` and ``Not``, which list candidates, drop numbers that are no document).
- ``SCORE`` returns ``{docnum: score}`` for given candidates: each (field, term)'s BM25F scores come
  from the snapshot's per-term cache (search/scoring.py); each term is intersected with the
  candidates first, ``Or`` adds, ``DisjunctionMax`` takes the larger, ``And`` adds what every part
  matched, boosts multiply.  The work grows with the matches among the candidates, not the postings:
  a term kept dense (in many documents) is read for the candidates at once with numpy.
- ``EXPLAIN`` scores one document and records each matching leaf's (field, words, score), with the
  boosts above it applied, so the pieces add up to the score (a ``DisjunctionMax`` keeps only its
  best child's pieces).

Phrases are matched and scored once per snapshot, over every document, and kept
(``Snapshot.phrases``): each mode then reads them as it reads a term.  The documents holding all the
words are checked from the words' positions by Whoosh's own rule and scored from the cached term
scores, the same floats as Whoosh's span matcher (left the phrases this cannot do).  Nodes that
need expansion (prefixes, fuzzy terms) or that this module does not know are left to Whoosh's own
matcher, restricted to the candidates that reach them; a query with a boost that is not positive is
scored by Whoosh entirely.

The scores are what Whoosh's own matchers give (``whoosh_scores``; tests/test_scoring.py), to the last
bits of a sum taken in another order, with Whoosh's quirks kept (a compound query with one subquery
ignores its own boost, ``Not`` scores 1.0, ``DisjunctionMax`` ignores its tiebreak) and three Whoosh
2.7 matcher bugs not reproduced, on purpose: ``DisjunctionMaxMatcher.score`` takes the max of its
children's current scores even when one sits on a later document; ``AndMaybeMatcher.skip_to`` leaves
its optional side short of the required side's document; a new ``AndNotMatcher`` does not exclude its
first document.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterable, KeysView
from enum import Enum
from operator import add
from typing import Union

import numpy as np
from whoosh import query as wq
from whoosh.matching.mcore import ReadTooFar
from whoosh.searching import Searcher

from index.whoosh_compat import Unsupported, read_positions
from search.cache import remember
from search.scoring import TermScores
from search.snapshot import Snapshot

# Queries matching at most this many documents have their match set and scores kept per snapshot.
KEPT_MATCHES = 2000
_UNKNOWN: dict[int, float] = {}  # ``scores``: not looked for yet (an empty dict kept means no match)
# Words in at most this many documents have their positions in every one kept per snapshot (``_Walk._positions``).
POSITIONS_KEPT_DOCS = 256
# Query objects whose cache key is kept (``_key``).
KEYS_KEPT = 8192
_KEYS: dict[int, tuple[wq.Query, tuple[object, ...] | None]] = {}

Candidates = Union[set[int], frozenset[int], KeysView[int]]
Piece = tuple[str, str, float]  # field, words, score


class Mode(Enum):
    MATCH = "match"
    SCORE = "score"
    EXPLAIN = "explain"


def matches(query: wq.Query, snap: Snapshot) -> set[int] | frozenset[int]:
    """Return the live documents *query* matches in *snap* (the same set as ``query.docs()``).

    A query made of terms, phrases and the compounds ``_key`` names, matching at most
    ``KEPT_MATCHES`` documents, is answered once per snapshot (``Snapshot.query_docs``): unseen
    queries are made of words seen before.  Treat the set as read-only.
    """
    key = _key(query)
    if key is not None:
        kept = snap.query_docs.get(key)
        if kept is not None:
            return kept
    walk = _Walk(snap, Mode.MATCH)
    docs = walk.docs(query)
    if walk.deletions:  # without them every document of the index is live
        docs &= snap.all_docs
    if key is not None and len(docs) <= KEPT_MATCHES:
        return snap.query_docs.put(key, frozenset(docs))
    return docs


def scores(query: wq.Query, snap: Snapshot, docs: Iterable[int]) -> dict[int, float]:
    """Return the BM25F score of each of *docs* that *query* matches (Whoosh's, from cached terms).

    A query whose match set is kept (``matches``) has its score in every document it matches
    reckoned once per snapshot (``Snapshot.query_scores``), and the candidates' are read from it: the
    same floats, since such a query's score in a document does not depend on the other candidates.
    (A larger one is scored among the candidates only: over every document it would cost more, a
    term in many documents being read from a dense array.)  Treat the dict as read-only.
    """
    candidates = docs if isinstance(docs, (set, frozenset)) else set(docs)
    if not candidates:
        return {}
    key = _key(query)
    every = None if key is None else snap.query_scores.get(key, _UNKNOWN)
    if every is _UNKNOWN:
        every = snap.query_scores.put(key, _every_score(snap, query)) if key in snap.query_docs else None
    if every is None:
        walk = _Walk(snap, Mode.SCORE)
        if walk.deletions:
            candidates = candidates & snap.all_docs
        else:
            walk.unchecked = True  # the few nodes that list candidates keep the documents (``live``)
        return _scored(walk, query, candidates)
    if len(every) <= len(candidates) and every.keys() <= candidates:
        return every  # the usual case: the candidates are what the concepts match
    common = every.keys() & candidates
    return dict(zip(common, map(every.__getitem__, common)))


def _every_score(snap: Snapshot, query: wq.Query) -> dict[int, float] | None:
    """Return *query*'s score in every live document it matches, or None when Whoosh must score it."""
    walk = _Walk(snap, Mode.SCORE)
    if not walk.cache.accepts(walk.searcher):
        return None
    try:
        return walk.node(query, snap.all_docs, 1.0)
    except Unsupported:
        return None  # scored per request, by Whoosh where the walk cannot


def _key(node: wq.Query) -> tuple[object, ...] | None:
    """Return ``_node_key(node)``, kept per query object: a word's queries are made once and kept
    (search/query.py), and a concept's query is named for its match set and again for its scores."""
    known = _KEYS.get(id(node))
    if known is not None and known[0] is node:
        return known[1]
    key = _node_key(node)
    remember(_KEYS, id(node), (node, key), KEYS_KEPT)  # the query is kept with its key, so its id stays its own
    return key


def _node_key(node: wq.Query) -> tuple[object, ...] | None:
    """Return a value naming *node* for the per-snapshot caches, or None when it is not cached.

    Named: terms, phrases, ``And``, ``DisjunctionMax`` and ``Or`` of at most two parts, without a
    coordination bonus.  Their score in a document is the same float whichever the candidates: sums
    of two and maxima do not depend on the order ``_merge`` takes their parts in (by size, which the
    candidates change), and ``And`` adds in its own order.  (Whoosh's own ``__hash__`` is no key: a
    word's terms in two fields cancel out in its XOR, so every word's query hashes alike.)
    """
    kind = type(node)
    if kind is wq.Term:
        return None if node.minquality else (node.fieldname, node.text, node.boost)
    if kind is wq.Phrase:
        return ("phrase", node.fieldname, tuple(node.words), node.slop, node.boost)
    if kind is wq.Or:
        if len(node.subqueries) > 2 or node.scale or getattr(node, "minmatch", 0) > 1:
            return None
    elif kind is not wq.And and kind is not wq.DisjunctionMax:
        return None
    keys = tuple(map(_key, node.subqueries))
    return None if None in keys else (kind.__name__, node.boost, keys)


def pieces(query: wq.Query, snap: Snapshot, docnum: int) -> tuple[float | None, list[Piece]]:
    """Return *docnum*'s score for *query* (None: no match) and the (field, words, score) of each leaf that earned it."""
    if docnum not in snap.all_docs:
        return None, []
    walk = _Walk(snap, Mode.EXPLAIN)
    found = _scored(walk, query, {docnum}).get(docnum)
    return found, walk.pieces if found is not None else []


def _scored(walk: _Walk, query: wq.Query, candidates: set[int] | frozenset[int]) -> dict[int, float]:
    if walk.cache.accepts(walk.searcher):
        try:
            return walk.node(query, candidates, 1.0)
        except Unsupported:
            walk.pieces.clear()
    scored = whoosh_scores(query, walk.searcher, candidates)
    if walk.mode is Mode.EXPLAIN:
        walk.pieces[:] = [(getattr(query, "fieldname", "") or "", _words(query), s) for s in scored.values()]
    return scored


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


def all_scores(query: wq.Query, searcher: Searcher, context=None) -> dict[int, float]:
    """Return Whoosh's matcher score of every document *query* matches, deleted ones included, ascending."""
    context = context or searcher.context()
    scored: dict[int, float] = {}
    for leaf, offset in searcher.leaf_searchers():
        matcher = query.matcher(leaf, context)
        while matcher.is_active():
            scored[matcher.id() + offset] = float(matcher.score())
            matcher.next()
    return scored


def _words(node: wq.Query) -> str:
    return " ".join(t.decode() if isinstance(t, bytes) else str(t) for _f, t in node.iter_all_terms(phrases=True))


class _Walk:
    """One query's evaluation in one mode: ``docs`` for MATCH, ``node`` for SCORE and EXPLAIN."""

    def __init__(self, snap: Snapshot, mode: Mode) -> None:
        self.snap = snap
        self.mode = mode
        self.searcher = snap.searcher()
        self.schema = self.searcher.schema
        self.cache: TermScores = snap.term_scores
        self.pieces: list[Piece] = []
        self._context = None
        # Whether the snapshot has deleted documents (then candidates are narrowed to the live ones first).
        self.deletions = len(snap.all_docs) != self.searcher.doc_count_all()
        # Whether the candidates may hold numbers that are no document (``live``).
        self.unchecked = False

    @property
    def context(self):
        if self._context is None:
            self._context = self.searcher.context()
        return self._context

    # -- MATCH ------------------------------------------------------------------------------------

    def docs(self, node: wq.Query) -> set[int]:
        """Return the documents *node* matches (deleted ones included; the caller keeps the live)."""
        snap = self.snap
        if node is wq.NullQuery or isinstance(node, wq.NullQuery.__class__):
            return set()
        kind = type(node)
        if kind is wq.Term:
            return set(snap.term_docs(node.fieldname, node.text))
        if kind is wq.Every and not node.fieldname:
            return set(snap.all_docs)
        if (kind is wq.Or and getattr(node, "minmatch", 0) <= 1) or kind is wq.DisjunctionMax:
            out: set[int] = set()
            for child in node.subqueries:
                if type(child) is wq.Term:  # its cached documents added straight, not made a set first
                    out.update(snap.term_docs(child.fieldname, child.text))
                else:
                    out |= self.docs(child)
            return out
        if kind is wq.And:
            parts = sorted((self.docs(child) for child in node.subqueries), key=len)
            if not parts:
                return set()
            out = parts[0]
            for part in parts[1:]:
                if not out:
                    break
                out &= part
            return out
        if kind is wq.AndNot:
            return self.docs(node.a) - self.docs(node.b)
        if kind is wq.Not:
            return set(snap.all_docs) - self.docs(node.query)
        if kind is wq.AndMaybe:
            return self.docs(node.a)
        if kind is wq.ConstantScoreQuery or kind is wq.WeightingQuery:
            return self.docs(node.child)
        if kind is wq.Phrase:
            return set(self.phrase(node))
        # Phrases, prefixes, fuzzy terms, boosts of other kinds: Whoosh's own matcher, exactly.
        return set(node.docs(self.searcher))

    # -- SCORE and EXPLAIN -------------------------------------------------------------------------

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
            if kind is wq.DisjunctionMax and self.mode is Mode.EXPLAIN:
                return self.best_child(subs, cands, mult)
            return _merge([self.node(sub, cands, mult) for sub in subs], add if kind is wq.Or else max)
        if kind is wq.AndNot:
            found = self.node(node.a, cands, mult)
            if not found:
                return found
            excluded = self.quiet(node.b, found.keys())
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
            inner = self.quiet(node.query, cands)
            cands = self.live(cands)
            return self.leaf(node, dict.fromkeys(cands - inner.keys() if inner else cands, 1.0 * mult))
        if kind is wq.Every and node.fieldname in (None, "", "*"):
            return self.leaf(node, dict.fromkeys(self.live(cands), _positive(node.boost or 1.0) * mult))
        if node is wq.NullQuery or kind is type(wq.NullQuery):
            return {}
        return self.whoosh(node, cands, mult)

    def live(self, cands: Candidates) -> Candidates:
        """Return the candidates that are documents: only the nodes that list them need to know."""
        return cands & self.snap.all_docs if self.unchecked else cands

    def quiet(self, node: wq.Query, cands: Candidates) -> dict[int, float]:
        """Return *node*'s scores without recording pieces (an excluded side earns nothing)."""
        kept = len(self.pieces)
        found = self.node(node, cands, 1.0)
        del self.pieces[kept:]
        return found

    def best_child(self, subs, cands: Candidates, mult: float) -> dict[int, float]:
        """EXPLAIN's DisjunctionMax: the best child's score, and only its pieces."""
        best: dict[int, float] = {}
        best_pieces: list[Piece] = []
        kept = len(self.pieces)
        for sub in subs:
            found = self.node(sub, cands, mult)
            mine = self.pieces[kept:]
            del self.pieces[kept:]
            if found and (not best or max(found.values()) > max(best.values())):
                best, best_pieces = found, mine
        self.pieces.extend(best_pieces)
        return best

    def leaf(self, node: wq.Query, found: dict[int, float]) -> dict[int, float]:
        if self.mode is Mode.EXPLAIN and found:
            self.pieces.append((getattr(node, "fieldname", "") or "", _words(node), next(iter(found.values()))))
        return found

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
        if node.boost != 1.0:
            mult *= _positive(node.boost)
        if not isinstance(entry, dict):
            return self.leaf(node, _dense_scores(entry, cands, mult))
        # Usually every document of the term is a candidate (a term of the concept whose matches are
        # the candidates; every live document, the term's cached ones being live): the dict is copied.
        if cands is self.snap.all_docs or (len(entry) <= len(cands) and entry.keys() <= cands):
            found = dict(entry) if mult == 1.0 else dict(zip(entry, map(mult.__mul__, entry.values())))
        else:
            if isinstance(cands, (set, frozenset)):
                # Whichever is smaller is iterated, in C.
                common = cands.intersection(entry) if len(entry) <= len(cands) else entry.keys() & cands
            else:
                common = entry.keys() & cands
            values = map(entry.__getitem__, common)
            found = dict(zip(common, values if mult == 1.0 else map(mult.__mul__, values)))
        return self.leaf(node, found)

    def intersection(self, subs, cands: Candidates, mult: float) -> dict[int, float]:
        found: list[dict[int, float]] = []
        kept = len(self.pieces)
        for sub in subs:
            part = self.node(sub, cands, mult)
            if not part:
                del self.pieces[kept:]  # the parts that matched earn nothing when one does not
                return {}
            found.append(part)
            cands = part.keys()  # each part is looked up only among the documents all before it had
        last = found[-1]
        total = map(found[0].__getitem__, last)
        for part in found[1:-1]:
            total = map(add, total, map(part.__getitem__, last))
        return dict(zip(last, map(add, total, last.values())))

    def phrase(self, node: wq.Phrase) -> dict[int, float]:
        """Return every document *node* matches with its score (Whoosh's span matcher, once per snapshot)."""
        key = (node.fieldname, tuple(node.words), node.slop, node.boost)
        return self.snap.phrases.get_or_make(key, lambda: self._phrase_scores(node))

    def _phrase_scores(self, node: wq.Phrase) -> dict[int, float]:
        if node.fieldname in self.schema and node.words:
            # Only a document holding every word can hold the phrase.  Often none does (a title
            # variant of a body phrase, a quoted text): then Whoosh's span matcher is not built.
            held = sorted((self.snap.term_docs(node.fieldname, word) for word in dict.fromkeys(node.words)), key=len)
            common = set(held[0])
            for docs in held[1:]:
                if not common:
                    break
                common.intersection_update(docs)
            if not common:
                return {}
            found = self._phrase_by_positions(node, common)
            if found is not None:
                return found
        return all_scores(node, self.searcher, self.context)

    def _phrase_by_positions(self, node: wq.Phrase, common: set[int]) -> dict[int, float] | None:
        """Return Whoosh's matches and scores of *node* among *common* (the documents holding all its
        words) from the words' positions and cached scores, or None when Whoosh's matcher must find them.

        Whoosh's ``SpanNear2`` (ordered, mindist 1) matches a document where the words appear in order,
        each 1 to ``slop`` positions after the one before; its score is its words' term scores added
        as its binary tree of ``IntersectionMatcher`` adds them, times the phrase's boost.
        """
        field = self.schema[node.fieldname]
        if not field.format or not field.format.supports("positions") or not self.cache.accepts(self.searcher):
            return None
        try:
            texts = [field.to_bytes(word) for word in node.words]
        except ValueError:
            return None
        # Word by word, the documents where the phrase so far stands, with where it ends in each: a
        # word's positions are read only in those, and once however often the phrase repeats it
        # ('"the the … the"' read the positions of "the" in 40,000 documents once a word: 61 s).
        ordered = sorted(common)
        first, *rest = zip(node.words, texts)
        read = {first[1]: self._positions(node.fieldname, *first, ordered)}
        ends = {docnum: found for docnum in ordered if (found := read[first[1]].get(docnum))}
        for word, text in rest:
            if not ends:
                return {}
            held = read.get(text)
            if held is None:  # read for the documents still in the running: a later repeat wants fewer
                held = read[text] = self._positions(node.fieldname, word, text, sorted(ends))
            ends = {docnum: chain for docnum, before in ends.items()
                    if (following := held.get(docnum)) and (chain := _continued(before, following, node.slop))}
        if not ends:
            return {}
        matched = list(ends)
        try:  # read only now: often no document holds the words in order
            entries = [self.cache.get(self.searcher, node.fieldname, text) for text in texts]
        except Unsupported:
            return None
        scores = {docnum: _tree_sum([entry[docnum] for entry in entries]) for docnum in matched}
        if node.boost != 1.0:  # Whoosh wraps the phrase's matcher only then
            scores = {docnum: score * node.boost for docnum, score in scores.items()}
        return scores

    def _positions(self, fieldname: str, word: str, text: bytes, wanted: list[int]) -> dict[int, list[int]]:
        """Return *word*'s positions in each of the documents *wanted* (ascending) that holds it.

        A word in at most ``POSITIONS_KEPT_DOCS`` documents has its positions in all of them read
        once per snapshot (``Snapshot.positions``; no more posting blocks than a few wanted documents
        take): a phrase never asked before is made of words asked before, and finding a term's
        postings in Whoosh's files costs more than reading them.
        """
        docs = self.snap.term_docs(fieldname, word)
        if len(docs) <= POSITIONS_KEPT_DOCS:
            return self.snap.positions.get_or_make((fieldname, word), lambda: self._read_positions(fieldname, text, list(docs)))
        return self._read_positions(fieldname, text, wanted)

    def _read_positions(self, fieldname: str, text: bytes, wanted: list[int]) -> dict[int, list[int]]:
        found: dict[int, list[int]] = {}
        for leaf, offset in self.searcher.leaf_searchers():
            lo = bisect_left(wanted, offset)
            hi = bisect_left(wanted, offset + leaf.doc_count_all())
            if lo == hi:
                continue
            local = [docnum - offset for docnum in wanted[lo:hi]]
            held = read_positions(leaf.reader(), fieldname, text, local)
            found.update(zip([docnum + offset for docnum in held], held.values()) if offset else held)
        return found

    def whoosh(self, node: wq.Query, cands: Candidates, mult: float) -> dict[int, float]:
        if type(node) is wq.Phrase:
            found = self.phrase(node)
            scored = {docnum: found[docnum] for docnum in sorted(found.keys() & cands)}
        else:
            scored = whoosh_scores(node, self.searcher, cands, self.context)
        if scored and not min(scored.values()) > 0:
            raise Unsupported("a subquery scores 0 or less")
        if mult != 1.0:
            scored = dict(zip(scored, map(mult.__mul__, scored.values())))
        return self.leaf(node, scored)


def _dense_scores(entry: array, cands: Candidates, mult: float) -> dict[int, float]:
    """Return the scores times *mult* of the candidates a dense term entry holds (0.0: it does not)."""
    ids = np.fromiter(cands, dtype=np.intp, count=len(cands))
    if len(ids) and (ids.min() < 0 or ids.max() >= len(entry)):  # numbers that are no document
        ids = ids[(ids >= 0) & (ids < len(entry))]
    values = np.frombuffer(entry, dtype=np.float64)[ids]
    held = values > 0  # scores are positive (search/scoring.py)
    values = values[held]
    if mult != 1.0:
        values = values * mult  # the products mult * score, each the same float
    return dict(zip(ids[held].tolist(), values.tolist()))


def _continued(ends: list[int], following: list[int], slop: int) -> list[int]:
    """Return the positions of *following* (ascending) that continue a chain ending at one of *ends*
    (ascending): a word at r continues a chain that ended in [r - slop, r - 1]."""
    return [r for r in following if (i := bisect_left(ends, r - slop)) < len(ends) and ends[i] < r]


def _tree_sum(scores: list[float]) -> float:
    """Return *scores* added as Whoosh's ``make_binary_tree`` of ``IntersectionMatcher`` adds them."""
    if len(scores) == 1:
        return scores[0]
    half = len(scores) // 2
    return _tree_sum(scores[:half]) + _tree_sum(scores[half:])


def _positive(boost: float) -> float:
    # Sums, maxima and Whoosh's "score > 0 means matched" arrays only commute with positive boosts.
    if not boost > 0:
        raise Unsupported(f"boost {boost}")
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

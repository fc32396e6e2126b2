"""Ranking a large candidate set with numpy: the same floats as search/ranking.py's dicts, in arrays.

A query with a common word has tens of thousands of candidates at 64k documents, and building a
dict entry per candidate per concept, then per coverage group, is most of its time (a 47,000-candidate
query took some 40 ms).  Here each concept's score is an array over every document (0 where it does
not match), made from the same per-term BM25F scores (search/scoring.py) with the same operations
in the same order as search/evaluator.py's SCORE walk: a term's scores times the boosts above it,
``Or`` adds its parts largest first, ``DisjunctionMax`` takes the larger, ``And`` adds its parts
where all match.  IEEE arithmetic done element by element gives the bits Python's floats give, and
adding or taking the maximum with 0.0 changes no positive score, so the ranks are the dict path's
exactly (tests/test_dense.py compares them query by query).  A node this module does not know
raises ``Unsupported`` and the caller ranks with dicts.
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import NamedTuple

import numpy as np
from whoosh import query as wq

from index.whoosh_compat import Unsupported
from search.evaluator import Candidates, Mode, _Walk, _positive
from search.snapshot import Snapshot

# Candidate sets at least this large are ranked here (smaller ones cost less as dicts: a numpy
# operation over every document costs some 30 microseconds at 64k whatever the matches).
DENSE_FROM = 2048
# Up to this many concepts, the combinations a query's documents hold are counted in an array of
# 2 ** concepts (8 MB at 20); a longer query finds them by sorting.
COMBINATIONS_BITS = 20
# A part matching fewer than one document in this many is kept as its documents and scores, not as an
# array over every document: a region's fifty places ("europe fonts" at 64k) made a 64k array each,
# 26 ms a search where 2 ms without them.
SPARSE_SHARE = 16


class Sparse(NamedTuple):
    """A part's scores where it matches: its documents (each once) and their scores."""

    at: np.ndarray
    values: np.ndarray


Part = np.ndarray | Sparse  # a node's scores: an array over every document, or the few it matches


def candidate_mask(candidates: Candidates, size: int) -> np.ndarray:
    """Return a boolean array over *size* documents, True for each of *candidates*."""
    mask = np.zeros(size, dtype=bool)
    mask[np.fromiter(candidates, dtype=np.int64, count=len(candidates))] = True
    return mask


class DenseWalk:
    """One query's SCORE walk over arrays: each node gives an array of scores, 0.0 where it does not match."""

    def __init__(self, snap: Snapshot, mask: np.ndarray) -> None:
        self.walk = _Walk(snap, Mode.SCORE)  # its searcher, schema, term cache and phrase cache
        if not self.walk.cache.accepts(self.walk.searcher):
            raise Unsupported("another weighting")
        self.mask = mask
        self.size = len(mask)

    def node(self, node: wq.Query, mult: float) -> Part | None:
        """Return *node*'s scores of the candidates times *mult*, or None where nothing matches."""
        kind = type(node)
        if kind is wq.Term:
            return self.term(node, mult)
        if kind is wq.Or or kind is wq.And or kind is wq.DisjunctionMax:
            subs = node.subqueries
            if not subs:
                return None
            if len(subs) == 1:
                return self.node(subs[0], mult)  # Whoosh's matcher is the child's: no boost
            if kind is wq.Or and (node.scale or getattr(node, "minmatch", 0) > 1):
                raise Unsupported("a coordination bonus or a minimum match")
            if node.boost != 1.0:
                mult *= _positive(node.boost)
            if kind is wq.And:
                return self.intersection(subs, mult)
            parts = [part for part in (self.node(sub, mult) for sub in subs) if part is not None]
            return _merge(parts, np.add if kind is wq.Or else np.maximum, self.size)
        if kind is wq.Phrase:
            found = self.walk.phrase(node)
            return self.scattered(found.keys(), found.values(), mult)
        if node is wq.NullQuery or kind is type(wq.NullQuery):
            return None
        raise Unsupported(f"{kind.__name__} in a dense walk")

    def term(self, node: wq.Term, mult: float) -> Part | None:
        walk = self.walk
        if node.fieldname not in walk.schema:
            return None
        if node.minquality:
            raise Unsupported("a term with a minimum quality")
        try:
            text = walk.schema[node.fieldname].to_bytes(node.text)
        except ValueError:
            return None
        entry = walk.cache.get(walk.searcher, node.fieldname, text)
        if not len(entry):
            return None
        if node.boost != 1.0:
            mult *= _positive(node.boost)
        if isinstance(entry, dict):
            return self.scattered(entry.keys(), entry.values(), mult)
        if not isinstance(entry, (array, np.ndarray)) or len(entry) != self.size:
            raise Unsupported(f"a term entry of type {type(entry).__name__}")
        scores = np.frombuffer(entry, dtype=np.float64) if isinstance(entry, array) else entry
        found = np.where(self.mask, scores, 0.0)
        if mult != 1.0:
            found *= mult
        return found if found.any() else None

    def scattered(self, docs, scores, mult: float) -> Part | None:
        """Return *scores* at *docs* among the candidates (times *mult*): as a Sparse part when they are
        few, else an array holding them, 0.0 elsewhere."""
        if not len(docs):
            return None
        at = np.fromiter(docs, dtype=np.int64, count=len(docs))
        values = np.fromiter(scores, dtype=np.float64, count=len(docs))
        if mult != 1.0:
            values *= mult
        if len(at) * SPARSE_SHARE < self.size:
            kept = self.mask[at]
            at, held = at[kept], values[kept]
            if not (held > 0).any():
                return None
            if not (values > 0).all():
                raise Unsupported("a subquery scores 0 or less")
            return Sparse(at, held)
        found = np.zeros(self.size, dtype=np.float64)
        found[at] = values
        found[~self.mask] = 0.0
        if not (found > 0).any():
            return None
        if not (values > 0).all():
            raise Unsupported("a subquery scores 0 or less")
        return found

    def intersection(self, subs: Sequence[wq.Query], mult: float) -> np.ndarray | None:
        parts = []
        for sub in subs:
            part = self.node(sub, mult)
            if part is None:
                return None
            parts.append(dense(part, self.size))
        total = parts[0]
        every = parts[0] > 0
        for part in parts[1:]:
            total = total + part  # left to right, as search/evaluator.py adds an And's parts
            every &= part > 0
        return np.where(every, total, 0.0) if every.any() else None


def dense(part: Part, size: int) -> np.ndarray:
    """Return *part* as an array over *size* documents, 0.0 where it does not match."""
    if isinstance(part, Sparse):
        out = np.zeros(size, dtype=np.float64)
        out[part.at] = part.values
        return out
    return part


def _matches(part: Part) -> int:
    return len(part.at) if isinstance(part, Sparse) else int(np.count_nonzero(part))


def _merge(parts: list[Part], combine, size: int) -> Part | None:
    """search/evaluator.py's ``_merge`` over arrays: the parts with the most matches first (a stable
    sort), folded in that order, so a document's sum is taken in the order the dicts take it.  A
    Sparse part is combined where it matches only (adding 0.0 or taking the larger with it changes no
    score); parts all Sparse and few in all stay Sparse."""
    if not parts:
        return None
    ordered = sorted(parts, key=_matches, reverse=True)
    if len(ordered) == 1:
        return ordered[0]
    if all(isinstance(part, Sparse) for part in ordered) and sum(len(p.at) for p in ordered) * SPARSE_SHARE < size:
        docs, where = np.unique(np.concatenate([p.at for p in ordered]), return_inverse=True)
        values = np.zeros(len(docs), dtype=np.float64)
        start = 0
        for part in ordered:  # each part's documents, in the union's places
            here = where[start : start + len(part.at)]
            values[here] = combine(values[here], part.values)
            start += len(part.at)
        return Sparse(docs, values)
    out = dense(ordered[0], size)
    out = out.copy() if out is ordered[0] else out  # never the part itself: it may be another's
    for part in ordered[1:]:
        if isinstance(part, Sparse):
            out[part.at] = combine(out[part.at], part.values)
        else:
            out = combine(out, part)
    return out


def rank_dense(
    snap: Snapshot,
    concepts: Sequence[object],
    weights: Sequence[float],
    candidates: Candidates,
    coverage,
    deadline: float,
    named: Mapping[int, AbstractSet[int]] | None = None,
) -> tuple[np.ndarray, np.ndarray, bool, np.ndarray | None]:
    """Return every document's score as search/ranking.py's ``rank`` reckons it before meaning
    (0.0 for a document that is not a candidate or matches nothing), which documents scored (a
    document holding only a phrase's loose words is still a hit, as with dicts),
    whether time ran out, and each document's coverage factor (None when the query has one concept).

    *concepts* are the parsed query's, each with ``any_query`` and ``loose``, and *weights* their
    weights; *coverage* is ranking's ``Coverage`` of their documents; *named*, per concept index, the
    documents holding it by their name and not their text (``ranking.name_points``), which cover it as
    its words would (they had the factor of pages without it, and the score fell below what explain
    added up: a regression pass).  Raises ``Unsupported`` for a query the dense walk does not know.
    """
    size = snap.searcher().doc_count_all()
    mask = candidate_mask(candidates, size)
    walk = DenseWalk(snap, mask)
    totals = np.zeros(size, dtype=np.float64)
    scored = np.zeros(size, dtype=bool)
    timed_out = False
    factor: np.ndarray | None = None
    found_of: list[np.ndarray | None] = []
    for concept, weight in zip(concepts, weights):
        part = walk.node(concept.any_query, 1.0)
        found = None if part is None else dense(part, size)
        found_of.append(found)
        if found is not None:
            totals = totals + (found * weight if weight != 1.0 else found)
            scored |= found > 0
        if time.perf_counter() > deadline:
            timed_out = True
            break
    if coverage.partial:
        held = np.zeros(size, dtype=np.int64)  # a bit per set of documents a document is in (``Coverage``)
        for bit, docs in enumerate(coverage.sets):  # every concept counts toward coverage, scored or not
            found = found_of[bit] if bit < len(found_of) else None
            if found is not None and not concepts[bit].loose:  # (found: a concept's bit, never a loose set's)
                has = found > 0  # a word concept's scores are positive exactly where it matches
                if named and bit in named:  # and its documents held by their name
                    has |= candidate_mask(named[bit], size) & mask
            elif len(docs):
                has = candidate_mask(docs, size) & mask  # (a phrase's loose words score, but cover less)
            else:
                continue
            held[has] |= 1 << bit
        # Each combination of concepts held is a small number: its factor is reckoned once, and the
        # documents are multiplied by their combination's factor in one step.
        if len(coverage.sets) <= COMBINATIONS_BITS:  # a table indexed by the combination itself
            present = np.flatnonzero(np.bincount(held))
            table = np.zeros(int(present[-1]) + 1, dtype=np.float64)
            table[present] = [coverage.factor_of(int(m)) for m in present]
            factor = table[held]
        else:  # up to 2^32 combinations: a table of those present (one sized by the largest took 32 GB)
            present, which = np.unique(held, return_inverse=True)
            factors = np.array([coverage.factor_of(int(m)) for m in present], dtype=np.float64)
            factor = factors[which]
        totals = totals * factor
    return totals, scored, timed_out, factor

"""Exact match sets without scoring: which documents a Whoosh query matches, as a Python set.

Totals, facet counts and the all-words/any-words split need the set of matching documents, not
their scores.  Whoosh's ``Query.docs()`` walks a matcher tree one document and several method
calls at a time; here terms come from the snapshot's cached postings (see
``Snapshot.term_docs``) and ``Or``, ``And``, ``AndNot`` and ``Not`` become set operations done in
C.  Queries that need positions (phrases) or expansion (prefixes, fuzzy terms) are left to
Whoosh, so the answer is always the same as ``set(query.docs(searcher))``.
"""

from __future__ import annotations

from whoosh import query as wq

from search.snapshot import Snapshot


def query_docs(query: wq.Query, snap: Snapshot) -> set[int]:
    """Return the live documents *query* matches in *snap* (the same set as ``query.docs()``)."""
    return _docs(query, snap) & snap.all_docs


def _docs(node: wq.Query, snap: Snapshot) -> set[int]:
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
            out |= _docs(child, snap)
        return out
    if kind is wq.And:
        parts = sorted((_docs(child, snap) for child in node.subqueries), key=len)
        if not parts:
            return set()
        out = parts[0]
        for part in parts[1:]:
            if not out:
                break
            out &= part
        return out
    if kind is wq.AndNot:
        return _docs(node.a, snap) - _docs(node.b, snap)
    if kind is wq.Not:
        return set(snap.all_docs) - _docs(node.query, snap)
    if kind is wq.AndMaybe:
        return _docs(node.a, snap)
    if kind is wq.ConstantScoreQuery or kind is wq.WeightingQuery:
        return _docs(node.child, snap)
    # Phrases, prefixes, fuzzy terms, boosts of other kinds: Whoosh's own matcher, exactly.
    return set(node.docs(snap.searcher()))

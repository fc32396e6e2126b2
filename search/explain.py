"""Why this result: a hit's score taken apart into the words and fields that earned it.

A hit's score is the sum of its concepts' scores (``all_words`` is an And, ``any_words`` an Or); a
concept scores as its best alternative (a DisjunctionMax); an alternative scores the sum of its
words in each field.  Each piece is scored here the way ranking scores it (``search.scoring``, BM25F
from the snapshot's cached term scores), so the contributions add up to the hit's score.
"""

from __future__ import annotations

from whoosh import query as wq

from search.query import Concept, ParsedQuery
from search.scoring import score_docs
from search.snapshot import Snapshot


def _score(node: wq.Query, snap: Snapshot, docnum: int) -> float | None:
    """Return *node*'s score for *docnum*, or None when the document does not match it."""
    return score_docs(node, snap, {docnum}).get(docnum)


def _pieces(node: wq.Query, snap: Snapshot, docnum: int) -> list[tuple[str, str, float]]:
    """Return (field, words, score) for each leaf of *node* that matches *docnum*."""
    if node.is_leaf():
        score = _score(node, snap, docnum)
        if score is None:
            return []
        words = " ".join(t.decode() if isinstance(t, bytes) else t for _f, t in node.iter_all_terms(phrases=True))
        return [(getattr(node, "fieldname", ""), words, score)]
    if isinstance(node, wq.DisjunctionMax):
        scored = [(s, child) for child in node.children() if (s := _score(child, snap, docnum)) is not None]
        return _pieces(max(scored, key=lambda p: p[0])[1], snap, docnum) if scored else []
    return [piece for child in node.children() for piece in _pieces(child, snap, docnum)]


def _concept(concept: Concept, strict: bool, snap: Snapshot, docnum: int) -> dict[str, object] | None:
    node = concept.query if strict else concept.any_query
    score = _score(node, snap, docnum)
    if score is None:
        return None
    via = "exact"
    if len(concept.alternatives) > 1:
        scored = [(s, a.via) for a in concept.alternatives if (s := _score(a.query, snap, docnum)) is not None]
        via = max(scored)[1] if scored else "loose"
    return {
        "concept": concept.text,
        "via": via,
        "score": round(score, 4),
        "fields": [
            {"field": f, "term": words, "score": round(s, 4)} for f, words, s in _pieces(node, snap, docnum)
        ],
    }


def explain(parsed: ParsedQuery, snap: Snapshot, docnum: int, all_words: bool) -> dict[str, object]:
    """Return how *docnum* earned its score for *parsed* (ranked among all-words hits or not)."""
    matched = []
    missing = []
    for concept in parsed.concepts:
        part = _concept(concept, all_words, snap, docnum)
        if part is None:
            missing.append(concept.text)
        else:
            matched.append(part)
    return {
        "score": round(sum(float(p["score"]) for p in matched), 4),  # type: ignore[arg-type]
        "matched": matched,
        "missing": missing,
    }

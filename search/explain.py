"""Why this result: a hit's score taken apart into the words and fields that earned it.

A hit's score (search/ranking.py) is the sum of its concepts' BM25F scores, each times how often it
was typed, times the coverage factor; a concept scores as its best alternative (a DisjunctionMax);
an alternative scores the sum of its words in each field.  Each piece is scored here the way ranking
scores it (``search.scoring``, from the snapshot's cached term scores) and carries its share of the
weights, so the contributions add up to the hit's score.
"""

from __future__ import annotations

from whoosh import query as wq

from search.query import Concept, ParsedQuery
from search.ranking import QTF_POWER, Coverage
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


def _concept(concept: Concept, weight: float, snap: Snapshot, docnum: int) -> dict[str, object] | None:
    node = concept.any_query
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
        "typed": concept.count,
        "score": score * weight,
        "fields": [
            {"field": f, "term": words, "score": round(s * weight, 4)} for f, words, s in _pieces(node, snap, docnum)
        ],
    }


def explain(parsed: ParsedQuery, snap: Snapshot, docnum: int, concept_docs: list[set[int]]) -> dict[str, object]:
    """Return how *docnum* earned its score for *parsed*: each concept's part, weights applied."""
    coverage = Coverage.of(concept_docs, snap.doc_count)
    share = coverage.share(docnum, concept_docs)
    factor = coverage.factor(docnum, concept_docs) if len(coverage.idfs) > 1 else 1.0
    matched = []
    missing = []
    for concept in parsed.concepts:
        part = _concept(concept, concept.count**QTF_POWER * factor, snap, docnum)
        if part is None:
            missing.append(concept.text)
        else:
            matched.append(part)
    total = sum(float(p["score"]) for p in matched)  # type: ignore[arg-type]
    for part in matched:
        part["score"] = round(float(part["score"]), 4)  # type: ignore[arg-type]
    return {
        "score": round(total, 4),
        "coverage": round(share, 4),
        "coverage_factor": round(factor, 4),
        "matched": matched,
        "missing": missing,
    }

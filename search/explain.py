"""Why this result: a hit's score taken apart into the words and fields that earned it.

A hit's score (search/ranking.py) is the sum of its concepts' BM25F scores, each times how often it
was typed, times the coverage factor; a concept scores as its best alternative (a DisjunctionMax);
an alternative scores the sum of its words in each field.  Each piece is scored here the way ranking
scores it (``search.scoring``, from the snapshot's cached term scores) and carries its share of the
weights, so the contributions add up to the hit's score.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from search.query import Concept, ParsedQuery
from search.ranking import SEMANTIC_FLOOR, Coverage, _weight, meaning, name_points
from search.evaluator import pieces
from search.snapshot import Snapshot


def _concept(concept: Concept, weight: float, snap: Snapshot, docnum: int) -> dict[str, object] | None:
    score, found = pieces(concept.any_query, snap, docnum)
    if score is None:
        return None
    via = "exact"
    if len(concept.alternatives) > 1 or concept.loose:  # ("multi-gpu" on a page of "multi-year … GPUs": "loose", not "exact")
        scored = [(s, a.via) for a in concept.alternatives if (s := pieces(a.query, snap, docnum)[0]) is not None]
        # The best way; of equal ones the first (typed as it is), not the last by name: "python3" said
        # via "plural", its alternative with "python3s" scoring the same (a QA pass).
        via = max(scored, key=lambda found: found[0])[1] if scored else "loose"
    return {
        "concept": concept.text,
        "via": via,
        "typed": concept.count,
        "score": score * weight,
        "fields": [
            {"field": f, "term": words, "score": round(s * weight, 4)} for f, words, s in found
        ],
    }


def explain(
    parsed: ParsedQuery,
    snap: Snapshot,
    docnum: int,
    concept_docs: list[set[int]],
    cosine: float | None = None,
    best_words: float = 0.0,
    named: str | None = None,
    deadline: float | None = None,
    loose_docs: list[set[int]] | tuple[()] = (),
) -> dict[str, object] | None:
    """Return how *docnum* earned its score for *parsed*: each concept's part, weights applied, and
    the meaning term when the document's vector has *cosine* with the query's.  A document *named* by
    the query ("typed", or "corrected": by its correction) comes first whatever its score (``named``
    true; ``named_by_correction`` true for the second): the words its text lacks are still listed as
    missing, since its text lacks them.  None when the clock passes *deadline* first: a query of
    hundreds of prefixes takes seconds per hit, and an explanation in part would not add up.
    *concept_docs* and *loose_docs* are as ``rank`` is given them."""
    coverage = Coverage.of(concept_docs, snap.doc_count, parsed.concepts, loose_docs)
    share = coverage.share(docnum)
    factor = coverage.factor(docnum) if coverage.partial else 1.0
    matched = []
    missing = []
    for concept, docs in zip(parsed.concepts, concept_docs):
        if deadline is not None and time.perf_counter() > deadline:
            return None
        part = _concept(concept, _weight(concept) * factor, snap, docnum)
        if part is None and docnum in docs:
            # Held by its name, not its text ("dhex editor": the package dhex), as the hit says: the
            # points of a title word (``ranking.name_points``), its share of the coverage (the
            # explanation said "missing: dhex").
            points = _weight(concept) * factor * float(name_points(snap, (docnum,), len(docs))[0])
            # The page's whole name, or a part of it ("dev" of libcurl4-openssl-dev: service._name_parts).
            via = "name" if snap.named(concept.text) == docnum else "name part"
            matched.append({"concept": concept.text, "via": via, "typed": concept.count, "score": points, "fields": []})
        elif part is None:
            missing.append(concept.text)
        else:
            matched.append(part)
            if concept.loose and docnum not in docs:
                # Its words apart ("via": "loose"), not it: missing as the hit says ("fine-tuning" on
                # the page of "re-tuning" and "tune": the hit said missing, its explanation not; a review).
                missing.append(concept.text)
    total = sum(float(p["score"]) for p in matched)  # type: ignore[arg-type]
    for part in matched:
        part["score"] = round(float(part["score"]), 4)  # type: ignore[arg-type]
    out: dict[str, object] = {
        "score": 0.0,
        "coverage": round(share, 4),
        "coverage_factor": round(factor, 4),
        "matched": matched,
        "missing": missing,
    }
    if cosine is not None:
        term = meaning(cosine, best_words)
        total += term
        out["meaning"] = {"cosine": round(cosine, 4), "score": round(term, 4)}
    out["score"] = round(total, 4)
    if named:
        out["named"] = True
        if named == "corrected":
            out["named_by_correction"] = True
    return out


def unqueried() -> dict[str, object]:
    """Return the explanation of a hit of a search without words (browsing, newest first): it scores 0,
    by nothing matched and nothing missing.  With explain=1 a hit has one unless the time budget ran
    out, as the spec says: these had none (a QA pass)."""
    return {"score": 0.0, "coverage": 1.0, "coverage_factor": 1.0, "matched": [], "missing": []}


def _named(explanation: dict[str, object]) -> str:
    """Return why a hit first by its name is first, in words."""
    what = "your query's correction" if explanation.get("named_by_correction") else "what you typed"
    return f"its name is {what}, so it comes first"


def _credited(explanation: dict[str, object]) -> Iterator[tuple[dict[str, Any], str]]:
    """Yield each part of *explanation* a word earned, with its fields' points written out
    ("title 2.00, body 1.60"); a query that only excludes asks for every other page: no word earned it."""
    for part in explanation.get("matched", []):  # type: ignore[union-attr]
        if part["concept"]:
            yield part, ", ".join(f"{field['field']} {field['score']:.2f}" for field in part["fields"])


def summary(explanation: dict[str, object]) -> str:
    """Return an explanation on one line, as a reader reads it: each concept's part with its fields
    (and how it was found, when not as typed), the meaning term, then what is missing."""
    parts = []
    for part, fields in _credited(explanation):
        via = "" if part["via"] == "exact" else f" [{part['via']}]"
        parts.append(f"{part['concept']} {part['score']:.2f}{via}" + (f" ({fields})" if fields else ""))
    meaning = explanation.get("meaning")
    if isinstance(meaning, dict) and meaning.get("score"):
        parts.append(f"meaning {meaning['score']:.2f}")
    line = f"score {explanation['score']:.2f}" + (" = " + " + ".join(parts) if parts else "")
    if explanation.get("coverage_factor", 1.0) != 1.0:
        line += f" (the parts include × {explanation['coverage_factor']:.2f} for the query's words it lacks)"
    missing = explanation.get("missing")
    line += f"; missing: {', '.join(missing)}" if missing else ""  # type: ignore[arg-type]
    if explanation.get("organisation"):
        return f"{_organisation(explanation)}; by its text: {line}"
    return f"{_named(explanation)}; by its text: {line}" if explanation.get("named") else line


def _organisation(explanation: dict[str, object]) -> str:
    """Return why a hit found by the organisation the query names is a hit, in words."""
    return f"tagged {explanation['organisation']}, the organisation you searched for, which its text names another way"


# How a concept's part was found, in words (``_concept``'s "via").
_FOUND = {"exact": "as typed", "synonym": "by a synonym", "place": "by a place in it", "typo": "by a close spelling",
          "spelling": "in its other spelling",
          "singular": "as its singular", "plural": "as its plural",
          "prefix": "by a word the prefix starts", "completion": "as the word it starts", "version": "as a release of the version", "joined": "as one word", "loose": "word by word",
          "apart": "with its unit written apart", "split": "as two words", "name": "as the page's name",
          "name part": "as a part of the page's name"}


def readable(explanation: dict[str, object]) -> dict[str, object]:
    """Return an explanation's figures as a page shows them: names a reader knows, words as typed
    (no stems), each figure to two places; the API's JSON keeps every figure as it is."""
    parts = []
    for part, fields in _credited(explanation):
        row: dict[str, object] = {"words": part["concept"], "points": f"{part['score']:.2f}",
                                  "found": _FOUND.get(part["via"], part["via"]), "in": fields or "its id"}
        if part.get("typed", 1) != 1:
            row["typed"] = f"{part['typed']} times"
        parts.append(row)
    out: dict[str, object] = {"score": f"{explanation['score']:.2f}"}
    if explanation.get("named"):
        out["name"] = _named(explanation)
    if explanation.get("organisation"):
        out["organisation"] = _organisation(explanation)
    if parts:
        out["matched"] = parts
    factor = explanation.get("coverage_factor", 1.0)
    if factor != 1.0:
        out["coverage"] = f"the parts include × {factor:.2f}, for the words it lacks"
    meaning = explanation.get("meaning")
    if isinstance(meaning, dict):
        # In words a reader knows, the figure with its scale: "cosine 0.485: no points" was jargon (a QA pass).
        if meaning.get("score"):
            out["meaning"] = (f"close in meaning to your query (similarity {meaning['cosine']:.2f}, where 1 is the same "
                              f"meaning): {meaning['score']:.2f} points")
        else:
            out["meaning"] = (f"not close enough in meaning to earn points (similarity {meaning['cosine']:.2f}, where 1 "
                              f"is the same meaning; {SEMANTIC_FLOOR} or less earns none)")
    out["missing"] = ", ".join(explanation.get("missing") or ()) or "nothing"  # type: ignore[arg-type]
    return out

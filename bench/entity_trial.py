"""A ranking term tried and not kept (issue 12): the organisations a document is tagged with, as a BM25 field.

``python -m bench.entity_trial WEIGHT [B] [-- relevance args]`` runs ``make bench-relevance`` with
the service's ranking given one more term: for each concept typed as an organisation's slug
("Fluidstack", "mistral ai"), each hit tagged with that organisation gains

    WEIGHT * idf(organisation) * (K1 + 1) / (1 + K1 * (1 - B + B * tags / average tags))

so an event about two organisations gains more than a guide section naming nine.  WEIGHT 0 is the
service as it is.  docs/relevance.md has what it did; the service does not carry it.
"""

from __future__ import annotations

import sys
from collections import Counter

from bench import relevance
from search import service, weighting

_rank = service.rank


def _entity_rank(weight: float, b: float):
    """Return the service's ``rank`` with the organisation term added to its hits' scores."""
    lengths: dict[int, tuple[Counter, float]] = {}

    def rank(snap, parsed, candidates, concept_docs, limit, deadline, cosines=None):
        tagged = snap.facet_docs.get("entities", {})
        slugs = [slug for c in parsed.concepts if (slug := "-".join(c.text.lower().split())) in tagged]
        if not weight or not slugs:
            return _rank(snap, parsed, candidates, concept_docs, limit, deadline, cosines)
        ranked, timed_out, top = _rank(snap, parsed, candidates, concept_docs, len(candidates), deadline, cosines)
        if id(snap) not in lengths:
            tags = Counter(d for docs in tagged.values() for d in docs)
            lengths[id(snap)] = (tags, sum(tags.values()) / max(len(tags), 1))
        tags, average = lengths[id(snap)]
        totals = dict(ranked)
        for slug in slugs:
            idf = weighting.bm25_idf(snap.doc_count, len(tagged[slug]))
            for docnum in tagged[slug] & totals.keys():
                norm = 1 - b + b * tags[docnum] / average
                totals[docnum] += weight * idf * (weighting.K1 + 1) / (1 + weighting.K1 * norm)
        return sorted(totals.items(), key=lambda pair: (-pair[1], pair[0]))[:limit], timed_out, top

    return rank


def main(argv: list[str]) -> int:
    weight = float(argv[0]) if argv else 1.0
    b = float(argv[1]) if len(argv) > 1 and argv[1] != "--" else weighting.B
    rest = argv[argv.index("--") + 1 :] if "--" in argv else []
    service.rank = _entity_rank(weight, b)
    return relevance.main(rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

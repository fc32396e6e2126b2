"""Three ranking changes tried and not kept (issue 12): a guide section ranked by its best paragraph,
BM25F with the fields' term frequencies added before saturation, and a proximity bonus.

``python -m bench.ranking_trials passages`` builds the hub's seed corpus twice, once as it is and once
with every guide section of several paragraphs split into one document per paragraph (its id
``section#k``), asks the service both, keeps each section's best-ranked paragraph ("MaxP", Dai and
Callan 2019), and prints the hub table of each with the queries that moved.

``python -m bench.ranking_trials bm25f TITLE_WEIGHT`` runs ``make bench-relevance`` with each word's
score in a document reckoned as in Robertson, Zaragoza and Taylor's "Simple BM25 extension to
multiple weighted fields" (2004): the title's and the body's length-normalised frequencies, the
title's times TITLE_WEIGHT, added, then saturated once, with the idf of the documents holding the
word in either field.  The service sums a BM25 score per field instead.  Trial only: the title's
entry is the same documents at 0 (phrases still look a field's entries up), and explain shows the
whole score under the body.

``python -m bench.ranking_trials proximity GRID [--debian]`` runs ``bench.tune``'s grid with the
service's ranking re-ranked by a proximity bonus (``PROX_*`` below, set as ``trial.PROX_WEIGHT`` and
so on in GRID).

docs/relevance.md has what each did; the service carries none of them.
"""

from __future__ import annotations

import dataclasses
import sys
import tempfile
from pathlib import Path


from bench import relevance
from corpus.sources import DEFAULT_DIR, load_corpus
from index.build import build_corpus
from search.scoring import TermScores
from search.weighting import bm25_idf

FIELDS = ("title", "body")


def passages() -> int:
    """Print the hub's table for the corpus as it is and with sections ranked by their best paragraph."""
    corpus = load_corpus([DEFAULT_DIR])
    split = []
    for record in corpus.records:
        if record.kind == "guide" and len(record.blocks) > 1:
            split.extend(dataclasses.replace(record, id=f"{record.id}#{k}", blocks=(block,))
                         for k, block in enumerate(record.blocks))
        else:
            split.append(record)
    hub = relevance.hub_collection()
    with tempfile.TemporaryDirectory(prefix="bench-passages-") as tmp:
        whole = relevance.evaluate(hub, Path(tmp))["service"]
        build_corpus(dataclasses.replace(corpus, records=tuple(split)), Path(tmp) / "passages")
        ask = relevance.service_system(Path(tmp) / "passages")

        def best_paragraph(query: str) -> relevance.Answer:
            answer = ask(query)
            sections = list(dict.fromkeys(doc_id.split("#")[0] for doc_id in answer.ids))
            return relevance.Answer(tuple(sections[: relevance.DEPTH]), answer.no_answer)

        by_paragraph = {judged.query: best_paragraph(judged.query) for judged in hub.judged}
        summaries = {"sections": relevance.summarise(hub.judged, whole),
                     "paragraphs": relevance.summarise(hub.judged, by_paragraph)}
        print(relevance.table(hub.judged, summaries))
        for line in relevance.moved(hub.judged, {"sections": whole, "paragraphs": by_paragraph}, 20,
                                    before="sections", after="paragraphs"):
            print(line)
    return 0


def _combined_read(title_weight: float):
    """Return a ``TermScores._read`` that gives each word one BM25F score over both fields (in the body's entry)."""
    kept_read = TermScores._read
    weights = {"title": title_weight, "body": 1.0}

    def read(self, searcher, fieldname, text):
        if fieldname not in FIELDS:
            return kept_read(self, searcher, fieldname, text)
        if fieldname == "title":
            return {docnum: 0.0 for docnum in kept_read(self, searcher, fieldname, text)}
        frequency: dict[int, float] = {}
        for field in FIELDS:
            for index, offset, reader, scorer, ids, tfs in self.leaf_postings(searcher, field, text):
                lengths = self.posting_lengths(index, reader, field, text, ids)
                normalised = tfs / ((1 - scorer.B) + scorer.B * lengths / scorer.avgfl)
                for docnum, value in zip(ids.tolist(), normalised.tolist()):
                    frequency[docnum + offset] = frequency.get(docnum + offset, 0.0) + weights[field] * value
        if not frequency:
            return {}
        k1 = searcher.weighting.K1
        idf = bm25_idf(searcher.doc_count_all(), len(frequency))
        return {docnum: idf * tf * (k1 + 1) / (tf + k1) for docnum, tf in frequency.items()}

    return read


# Proximity trial settings (``proximity``): a bonus of PROX_WEIGHT * (2 / n) ** PROX_DECAY times the
# BM25 score of each pair of one-word concepts typed side by side, found within PROX_SLOP words
# (either order unless PROX_ORDERED), over the PROX_POOL best documents of the service's ranking.
PROX_WEIGHT = 0.0
PROX_SLOP = 3
PROX_DECAY = 0.0
PROX_ORDERED = False
PROX_POOL = 100


def _with_proximity(kept):
    """Return ``rank`` that re-ranks *kept*'s best PROX_POOL documents with a proximity bonus."""
    from whoosh import query as wq

    from search.evaluator import scores

    def rank(snap, parsed, candidates, concept_docs, limit, deadline, cosines=None):
        best, timed_out, top = kept(snap, parsed, candidates, concept_docs, max(limit, PROX_POOL), deadline, cosines)
        words = [c.word for c in parsed.concepts]
        if not PROX_WEIGHT or len(words) < 2 or not best:
            return best[:limit], timed_out, top
        weight = PROX_WEIGHT * (2 / len(words)) ** PROX_DECAY
        pool = {docnum for docnum, _ in best}
        bonus: dict[int, float] = {}
        for a, b in zip(words, words[1:]):
            if not (a and b) or a == b:
                continue
            orders = [(a, b)] if PROX_ORDERED else [(a, b), (b, a)]
            query = wq.Or([wq.Phrase(f, list(o), slop=PROX_SLOP) for f in FIELDS for o in orders])
            for docnum, value in scores(query, snap, pool).items():
                bonus[docnum] = bonus.get(docnum, 0.0) + weight * value
        rescored = sorted(((d, s + bonus.get(d, 0.0)) for d, s in best), key=lambda p: (-p[1], p[0]))
        return rescored[:limit], timed_out, top

    return rank


def main(argv: list[str]) -> int:
    if argv[:1] == ["proximity"] and len(argv) >= 2:
        from bench import tune
        from search import service

        service.rank = _with_proximity(service.rank)
        tune.MODULES["trial"] = sys.modules[__name__]
        return tune.main(argv[1:])
    if argv[:1] == ["passages"]:
        return passages()
    if argv[:1] == ["bm25f"] and len(argv) == 2:
        TermScores._read = _combined_read(float(argv[1]))  # type: ignore[method-assign]
        return relevance.main(["--moved", "3"])
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""Relevance benchmark: the service against plain BM25 baselines on judged queries, on every collection.

``python -m bench.relevance`` runs each collection (bench/collections.py: the hub's judged set over
the seed corpus, its organisation names graded blind (``orgs``, bench/organisation_judgments.json), and CISI read in place from ``../shared/corpora/cisi/`` when it is there) through
three systems and prints nDCG@10, MRR and recall@10 per category:

The Debian package corpus (64k documents, read in place from ``../shared/corpora/`` when it is there)
runs with the known-item queries of ``bench/debian_judgments.json``: names, needs, -dev packages.

- ``service``: the service as readers get it: the collection goes through the real import (the seed
  loader, or a JSONL file and ``build``) and every query through ``/api/search``, whole;
- ``whoosh-or``: the same Whoosh index searched with Whoosh's own parser, OR of the words, BM25F;
- ``fts5``: SQLite FTS5 over the same records (porter tokenizer, OR of the words, ``bm25()`` with the
  title weighing as much as in the index), with the same query-time function words dropped.

Gains are the graded judgments (0-3, linear, as trec_eval's ndcg_cut); MRR and recall count a
document judged 1 or more as relevant.  A *no-answer* query has no relevant document: a system
scores 1 on all three measures when it says so, 0 when it presents results as an answer.  The
service says so with ``match`` "partial" or "none"; a baseline can only say so by returning nothing.
"""

from __future__ import annotations

import argparse
import os
import json
import logging
import math
import re
import sqlite3
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from whoosh.qparser import MultifieldParser, OrGroup
from whoosh.scoring import BM25F

from bench.collections import CISI_DIR, DEBIAN, Collection, Judged, load_cisi, load_debian, write_jsonl
from corpus.sources import DEFAULT_DIR, load_corpus
from index.analysis import STOP_WORDS
from index.build import build
from index.schema import TITLE_BOOST
from index.vectors import SWITCH
from search.service import SearchService
from web import WORKER_TIMEOUT_S, create_app

JUDGMENTS = Path(__file__).resolve().parent / "judgments.json"
# Organisation names over the same seed corpus, graded blind (its "about" says how): a second names set.
ORGANISATION_JUDGMENTS = Path(__file__).resolve().parent / "organisation_judgments.json"
DEPTH = 10
NO_ANSWER = "no-answer"
NO_ANSWER_MATCHES = frozenset({"partial", "none"})
TARGET_OVERALL = 0.90
TARGET_CATEGORY = 0.80
TARGET_CISI = 0.38  # issue 12; FTS5 scores 0.378 with whole queries
MEASURES = ("nDCG@10", "MRR", "R@10")

Qrels = Mapping[str, Mapping[str, int]]  # query -> document id -> grade


@dataclass(frozen=True, slots=True)
class Answer:
    """What a system returned for one query: ranked ids, and whether it said nothing matches well."""

    ids: tuple[str, ...]
    no_answer: bool


def load_judgments(path: Path = JUDGMENTS) -> list[Judged]:
    """Return the judged queries in *path*."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return [Judged(q["category"], q["query"], dict(q["judgments"])) for q in data["queries"]]


def hub_collection(path: Path = JUDGMENTS, name: str = "hub") -> Collection:
    """Return the hub's judged set over the seed corpus (or another set over it, *name* at *path*)."""
    return Collection(name, None, tuple(load_judgments(path)))


# -- measures -------------------------------------------------------------------------------------


def ndcg(ranked: Sequence[str], grades: Mapping[str, int], depth: int = DEPTH) -> float:
    """Return nDCG@*depth* of *ranked* with linear gains (trec_eval's ndcg_cut)."""
    dcg = sum(grades.get(doc, 0) / math.log2(i + 2) for i, doc in enumerate(ranked[:depth]))
    ideal = sorted((g for g in grades.values() if g > 0), reverse=True)[:depth]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def reciprocal_rank(ranked: Sequence[str], grades: Mapping[str, int]) -> float:
    """Return 1 / the rank of the first relevant document of *ranked* (0 when there is none)."""
    return next((1.0 / (i + 1) for i, doc in enumerate(ranked) if grades.get(doc, 0) > 0), 0.0)


def recall(ranked: Sequence[str], grades: Mapping[str, int], depth: int = DEPTH) -> float:
    """Return the share of relevant documents found in the first *depth* of *ranked*."""
    relevant = {doc for doc, g in grades.items() if g > 0}
    return len(relevant & set(ranked[:depth])) / len(relevant) if relevant else 0.0


def score(judged: Judged, answer: Answer) -> dict[str, float]:
    """Return the three measures of *answer* to *judged*."""
    if judged.category == NO_ANSWER:
        value = 1.0 if answer.no_answer else 0.0
        return dict.fromkeys(MEASURES, value)
    ranked = answer.ids
    return {
        "nDCG@10": ndcg(ranked, judged.grades),
        "MRR": reciprocal_rank(ranked, judged.grades),
        "R@10": recall(ranked, judged.grades),
    }


# -- systems --------------------------------------------------------------------------------------


RANKING_BUDGET_S = WORKER_TIMEOUT_S - 1


def service_system(index_root: Path, semantic: bool = True) -> Callable[[str], Answer]:
    """Return the service, asked through its JSON API, as a system (words only when *semantic* is off)."""
    # Ranking, not speed, is measured: a budget as long as a worker's, so that a loaded machine does not
    # cut searches short (at 64k, with the test suite running beside it, Debian read 0.750 for 0.755).
    client = create_app({"INDEX_DIR": str(index_root), "TESTING": True, "QUERY_BUDGET_S": RANKING_BUDGET_S}).test_client()

    def run(query: str) -> Answer:
        with _semantic_switch(semantic):
            response = client.get("/api/search", query_string={"q": query, "per_page": DEPTH})
        if response.status_code != 200:
            raise RuntimeError(f"/api/search answered {response.status_code} to {query[:80]!r}: {response.get_data(as_text=True)[:200]}")
        result = response.get_json()
        if result["timed_out"]:  # its figures would be the machine's, not the ranking's
            raise RuntimeError(f"/api/search ran out of its {RANKING_BUDGET_S} s for {query[:80]!r}: the machine is too busy to measure")
        # The guide answer card is shown above the hits and not repeated among them: it ranks first.
        card = [result["answer"]["id"]] if result.get("answer") else []
        return Answer(tuple([*card, *(h["id"] for h in result["hits"])][:DEPTH]), result["match"] in NO_ANSWER_MATCHES)

    return run


@contextmanager
def _semantic_switch(on: bool) -> Iterator[None]:
    """Set TOPICHUB_SEMANTIC for the duration (the service reads it on every search)."""
    before = os.environ.get(SWITCH)
    os.environ[SWITCH] = "1" if on else "0"
    try:
        yield
    finally:
        if before is None:
            del os.environ[SWITCH]
        else:
            os.environ[SWITCH] = before


def whoosh_or_system(index_root: Path) -> Callable[[str], Answer]:
    """Return plain Whoosh (its own parser, OR of the words, BM25F) on the service's index as a system."""
    snap = SearchService(index_root).snapshot()
    parser = MultifieldParser(["title", "body"], snap.schema, group=OrGroup)

    def run(query: str) -> Answer:
        with snap.index.searcher(weighting=BM25F()) as searcher:  # Whoosh's own, not the service's weighting
            ids = tuple(hit["id"] for hit in searcher.search(parser.parse(query), limit=DEPTH))
        return Answer(ids, not ids)

    return run


def _fts_terms(query: str) -> list[str]:
    """Return the query's words less the function words, repeats kept: FTS5 then weighs a repeated word more."""
    words = re.findall(r"\w+", query)
    return [w.lower() for w in words if not (w.lower() in STOP_WORDS and not (w.isupper() and len(w) > 1))]


def fts5_system(records: Iterable[object]) -> Callable[[str], Answer]:
    """Return SQLite FTS5 (porter tokenizer, OR of the words, bm25) over *records* as a system."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, title, body, tokenize='porter unicode61 remove_diacritics 2')")
    db.executemany(
        "INSERT INTO docs (id, title, body) VALUES (?, ?, ?)",
        [(r.id, r.title, r.body) for r in records],  # type: ignore[attr-defined]
    )

    def run(query: str) -> Answer:
        terms = _fts_terms(query)
        if not terms:
            return Answer((), True)
        match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        rows = db.execute(
            "SELECT id FROM docs WHERE docs MATCH ? ORDER BY bm25(docs, 0.0, ?, 1.0) LIMIT ?",
            (match, TITLE_BOOST, DEPTH),
        ).fetchall()
        ids = tuple(row[0] for row in rows)
        return Answer(ids, not ids)

    return run


# -- the run --------------------------------------------------------------------------------------


def run_all(judged: Sequence[Judged], systems: Mapping[str, Callable[[str], Answer]]) -> dict[str, dict[str, Answer]]:
    """Return each system's answer to each judged query."""
    return {name: {j.query: system(j.query) for j in judged} for name, system in systems.items()}


def summarise(judged: Sequence[Judged], answers: Mapping[str, Answer]) -> dict[str, dict[str, float]]:
    """Return the mean measures per category, and over all queries under "overall"."""
    groups: dict[str, list[dict[str, float]]] = {}
    for j in judged:
        measures = score(j, answers[j.query])
        groups.setdefault(j.category, []).append(measures)
        groups.setdefault("overall", []).append(measures)
    return {cat: {m: sum(q[m] for q in qs) / len(qs) for m in MEASURES} for cat, qs in groups.items()}


def table(judged: Sequence[Judged], summaries: Mapping[str, Mapping[str, Mapping[str, float]]]) -> str:
    """Return the per-category table of every system's measures."""
    counts: dict[str, int] = {}
    for j in judged:
        counts[j.category] = counts.get(j.category, 0) + 1
    counts["overall"] = len(judged)
    systems = list(summaries)
    header = f"{'category':<11}{'n':>3}  " + "  ".join(f"{s + ' ' + m:>18}" for s in systems for m in MEASURES)
    lines = [header, "-" * len(header)]
    for cat in [*dict.fromkeys(j.category for j in judged), "overall"]:
        cells = "  ".join(f"{summaries[s][cat][m]:>18.3f}" for s in systems for m in MEASURES)
        lines.append(f"{cat:<11}{counts[cat]:>3}  {cells}")
    return "\n".join(lines)


def failures(judged: Sequence[Judged], answers: Mapping[str, Answer], below: float = TARGET_CATEGORY) -> list[str]:
    """Return a line for each query whose nDCG@10 is under *below* (or no-answer query answered)."""
    lines = []
    for j in judged:
        value = score(j, answers[j.query])["nDCG@10"]
        if value < below:
            top = ", ".join(answers[j.query].ids[:3]) or "(nothing)"
            lines.append(f"  [{j.category}] {j.query!r}: nDCG@10 {value:.3f}; top: {top}")
    return lines


def moved(judged: Sequence[Judged], answers: Mapping[str, Mapping[str, Answer]], count: int,
          before: str = "words-only", after: str = "service") -> list[str]:
    """Return how many queries *after* ranks better, worse and the same as *before* (nDCG@10), then
    the *count* that gained most and the *count* that lost most, a line each."""
    change = []
    for j in judged:
        was, now = score(j, answers[before][j.query])["nDCG@10"], score(j, answers[after][j.query])["nDCG@10"]
        change.append((now - was, was, now, j))
    better = sorted((c for c in change if c[0] > 1e-9), key=lambda c: -c[0])
    worse = sorted((c for c in change if c[0] < -1e-9), key=lambda c: c[0])
    lines = [f"{after} against {before}: {len(better)} better, {len(worse)} worse, {len(change) - len(better) - len(worse)} the same"]
    for label, rows in (("better", better[:count]), ("worse", worse[:count])):
        lines += [f"  {label}: [{j.category}] {j.query[:90]!r}: {was:.3f} -> {now:.3f}" for _, was, now, j in rows]
    return lines


def verdict(name: str, summaries: Mapping[str, Mapping[str, Mapping[str, float]]]) -> list[str]:
    """Return the targets the service misses on collection *name* (empty when it meets them all)."""
    service = summaries["service"]
    misses = []
    if name == "hub":
        if service["overall"]["nDCG@10"] < TARGET_OVERALL:
            misses.append(f"overall nDCG@10 {service['overall']['nDCG@10']:.3f} < {TARGET_OVERALL}")
        for cat, measures in service.items():
            if measures["nDCG@10"] < TARGET_CATEGORY:
                misses.append(f"{cat} nDCG@10 {measures['nDCG@10']:.3f} < {TARGET_CATEGORY}")
    elif name == "cisi" and service["overall"]["nDCG@10"] < TARGET_CISI:
        misses.append(f"nDCG@10 {service['overall']['nDCG@10']:.3f} < {TARGET_CISI}")
    for other_name, other in summaries.items():
        if other_name == "service":
            continue
        if other_name == "words-only":  # the semantic signal must help everywhere or nowhere (issue 17)
            if other["overall"]["nDCG@10"] > service["overall"]["nDCG@10"]:
                misses.append("the service is better without meaning overall")
            misses.extend(f"the service is better without meaning on {cat}" for cat, m in other.items()
                          if m["nDCG@10"] > service[cat]["nDCG@10"] + 1e-9)
            continue
        if other["overall"]["nDCG@10"] >= service["overall"]["nDCG@10"]:
            misses.append(f"{other_name} is not behind the service overall")
        for cat, measures in other.items():
            if measures["nDCG@10"] > service[cat]["nDCG@10"]:
                misses.append(f"{other_name} beats the service on {cat}")
    return misses


@contextmanager
def _quiet(name: str) -> Iterator[None]:
    """Hold back the warnings of the logger *name* inside the block."""
    logger = logging.getLogger(name)
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def evaluate(collection: Collection, workdir: Path) -> dict[str, dict[str, Answer]]:
    """Import *collection* as a reader would, and return each system's answer to each judged query."""
    root = workdir / collection.name / "index"
    if collection.documents is None:
        sources: list[Path] = [DEFAULT_DIR]
    else:
        sources = [write_jsonl(collection.documents, workdir / f"{collection.name}.jsonl")]
    build(sources, root=root)
    systems = {
        "service": service_system(root),
        "words-only": service_system(root, semantic=False),
        "whoosh-or": whoosh_or_system(root),
    }
    with _quiet("corpus.jsonl"):  # the build warned of the file's repeated ids already
        systems["fts5"] = fts5_system(load_corpus(sources).records)
    return run_all(collection.judged, systems)


def collections(names: Sequence[str]) -> list[Collection]:
    """Return the named collections that can be read here (CISI only where ../shared has it)."""
    found = []
    for name in names:
        if name == "hub":
            found.append(hub_collection())
        elif name == "orgs":
            found.append(hub_collection(ORGANISATION_JUDGMENTS, "orgs"))
        elif name == "cisi":
            if (CISI_DIR / "CISI.ALL.gz").exists() or (CISI_DIR / "CISI.ALL").exists():
                found.append(load_cisi())
            else:
                print(f"cisi: not found in {CISI_DIR}; skipped", file=sys.stderr)
        elif name == "debian":
            if DEBIAN.exists():
                found.append(load_debian())
            else:
                print(f"debian: not found at {DEBIAN}; skipped", file=sys.stderr)
    return found


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark on every collection and print its tables; return 1 when the service misses a target."""
    parser = argparse.ArgumentParser(prog="python -m bench.relevance", description=__doc__.split("\n\n")[0])
    parser.add_argument("--collection", action="append", choices=("hub", "orgs", "cisi", "debian"), help="default: all")
    parser.add_argument("--failures", action="store_true", help="list the service's queries under the category target")
    parser.add_argument("--moved", type=int, default=0, metavar="N",
                        help="list the N queries meaning (on against words-only) helped most and hurt most")
    args = parser.parse_args(argv)
    missed = []
    with tempfile.TemporaryDirectory(prefix="bench-relevance-") as tmp:
        for collection in collections(args.collection or ["hub", "orgs", "cisi", "debian"]):
            answers = evaluate(collection, Path(tmp))
            judged = collection.judged
            summaries = {name: summarise(judged, a) for name, a in answers.items()}
            if collection.documents is None:
                docs = "the seed corpus"
            else:  # a later line of an id replaces the one before, as the import reads them (Debian: 51)
                unique = len({str(d.get("id")) for d in collection.documents})
                docs = f"{unique} documents" + (f" ({len(collection.documents)} lines)" if unique != len(collection.documents) else "")
            print(f"## {collection.name}: {len(judged)} judged queries over {docs}; depth {DEPTH}\n")
            print(table(judged, summaries))
            if collection.listed is not None:  # the same answers, graded as listed before pooling
                listed = {name: summarise(collection.listed, a) for name, a in answers.items()}
                print(f"\n{collection.name}, graded as listed before pooling (the targets use the pooled grades):\n")
                print(table(collection.listed, listed))
            if args.failures:
                failing = failures(judged, answers["service"])
                print(f"\nservice queries under nDCG@10 {TARGET_CATEGORY}: {len(failing)}")
                print("\n".join(failing))
            if args.moved:
                print("\n" + "\n".join(moved(judged, answers, args.moved)))
            misses = verdict(collection.name, summaries)
            print(f"\n{collection.name} targets: " + ("met" if not misses else "MISSED: " + "; ".join(misses)) + "\n")
            missed.extend(misses)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())

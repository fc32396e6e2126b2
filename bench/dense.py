"""Dense retrieval on its own and fused with the service, on the hub's judged set and on CISI.

``python -m bench.dense`` builds each collection into a temporary index (vectors included) and
prints nDCG@10 (with MRR and recall@10) of three systems, using bench/relevance.py's measures:

- ``service``: the service's ranking as the API answers;
- ``dense``: the documents nearest to the query's vector (search/semantic.py), nothing else;
- ``rrf``: reciprocal-rank fusion, k=60, of the service's first FUSE_DEPTH hits and dense's.

On the hub set a no-answer query scores 1 when the system says nothing matches well: the service
says so with its ``match``, and ``rrf`` keeps the service's word; ``dense`` has no such floor yet.
CISI (``../shared/corpora/cisi/``) has wordy queries, up to 342 words: the service gets each cut to
its first 32 words and 256 characters, the most its API takes, and dense gets that same text
(``dense-whole`` shows dense on the whole query).  More-like-this is compared on judged pairs
(``--mlt``): for each hub query, its best-judged document stands for the query, and the others
judged relevant to it are what its neighbours should be.  For a similarity floor, it prints the best
dense cosine of the no-answer queries against the answered ones.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from bench.relevance import DEPTH, MEASURES, NO_ANSWER, NO_ANSWER_MATCHES, Answer, Judged, load_judgments, summarise, table
from index.build import build
from search import semantic
from search.params import MAX_QUERY_CHARS, MAX_QUERY_WORDS, SearchParams
from search.service import SearchService

CISI = Path(__file__).resolve().parent.parent.parent / "shared" / "corpora" / "cisi"
RRF_K = 60
FUSE_DEPTH = 100

System = Callable[[str], Answer]


def rrf(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> list[str]:
    """Return the ids of *rankings* fused by reciprocal rank (sum of 1 / (k + rank)), best first."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, doc_id in enumerate(ranking, start=1):
            scores[doc_id] = scores.get(doc_id, 0.0) + 1.0 / (k + rank)
    return sorted(scores, key=lambda doc_id: (-scores[doc_id], doc_id))


def cut(query: str) -> str:
    """Return *query* cut to what the API accepts: its first words, within the character limit."""
    text = " ".join(query.split()[:MAX_QUERY_WORDS])
    while len(text) > MAX_QUERY_CHARS:
        text = text.rsplit(" ", 1)[0]
    return text


def systems(root: Path, shorten: Callable[[str], str] = lambda q: q) -> dict[str, System]:
    """Return the service, dense and their fusion over the index in *root* as systems."""
    service = SearchService(root)
    snap = service.snapshot()
    docs = semantic.vectors(snap)
    if docs is None:
        raise SystemExit("the index has no vectors (TOPICHUB_SEMANTIC=0?): nothing to compare")

    def lexical(query: str) -> tuple[list[str], bool]:
        ids: list[str] = []
        page = 1
        while len(ids) < FUSE_DEPTH:
            result = service.search(SearchParams(q=shorten(query), per_page=50, page=page))
            ids.extend(hit.id for hit in result.hits)
            if page * 50 >= result.total:
                break
            page += 1
        return ids[:FUSE_DEPTH], result.match in NO_ANSWER_MATCHES

    def nearest(text: str) -> list[str]:
        vector = semantic.query_vector(text)
        found = semantic.nearest(docs, vector, FUSE_DEPTH) if vector is not None else []
        return [str(snap.stored(docnum)["id"]) for docnum, _ in found]

    def run_service(query: str) -> Answer:
        ids, no_answer = lexical(query)
        return Answer(tuple(ids[:DEPTH]), no_answer)

    def run_dense(query: str) -> Answer:
        return Answer(tuple(nearest(shorten(query))[:DEPTH]), False)

    def run_dense_whole(query: str) -> Answer:
        return Answer(tuple(nearest(query)[:DEPTH]), False)

    def run_rrf(query: str) -> Answer:
        ids, no_answer = lexical(query)
        return Answer(tuple(rrf([ids, nearest(shorten(query))])[:DEPTH]), no_answer)

    found = {"service": run_service, "dense": run_dense, "rrf": run_rrf}
    if shorten(" ".join(["w"] * (MAX_QUERY_WORDS + 1))) != " ".join(["w"] * (MAX_QUERY_WORDS + 1)):
        found["dense-whole"] = run_dense_whole
    return found


def evaluate(judged: Sequence[Judged], runs: Mapping[str, System]) -> dict[str, dict[str, dict[str, float]]]:
    """Return each system's summary over *judged*."""
    return {name: summarise(judged, {j.query: run(j.query) for j in judged}) for name, run in runs.items()}


# -- CISI -----------------------------------------------------------------------------------------


def _cisi_records(path: Path) -> dict[str, dict[str, str]]:
    """Return CISI's ``.I``-opened records as {id: {field letter: text}}."""
    records: dict[str, dict[str, str]] = {}
    current: dict[str, list[str]] | None = None
    field = None
    with gzip.open(path, "rt", encoding="latin-1") as handle:
        for line in handle:
            if line.startswith(".I"):
                current = {}
                records[line.split()[1]] = current  # type: ignore[assignment]
                field = None
            elif line[:1] == "." and len(line.rstrip()) == 2 and current is not None:
                field = line[1]
                current.setdefault(field, [])
            elif field is not None and current is not None:
                current[field].append(line.rstrip("\n"))
    return {doc: {f: " ".join(" ".join(lines).split()) for f, lines in fields.items()} for doc, fields in records.items()}  # type: ignore[union-attr]


def load_cisi(folder: Path = CISI) -> tuple[list[dict[str, object]], list[Judged]]:
    """Return CISI's documents as JSONL objects and its judged queries (binary grades)."""
    docs = [
        {"id": f"cisi-{doc}", "title": fields.get("T", ""), "summary": fields.get("W", ""), "topics": ["cisi"]}
        for doc, fields in _cisi_records(folder / "CISI.ALL.gz").items()
    ]
    # Queries are numbered by their place in the file, as the judgments number them.
    queries = [fields.get("W", "") for fields in _cisi_records(folder / "CISI.QRY.gz").values()]
    grades: dict[int, dict[str, int]] = {}
    with gzip.open(folder / "CISI.REL.gz", "rt", encoding="latin-1") as handle:
        for line in handle:
            parts = line.split()
            if len(parts) >= 2:
                grades.setdefault(int(parts[0]), {})[f"cisi-{parts[1]}"] = 1
    judged = [Judged("cisi", queries[n - 1], dict(g)) for n, g in sorted(grades.items())]
    return docs, judged


# -- a similarity floor ---------------------------------------------------------------------------


def floor_report(root: Path, judged: Sequence[Judged]) -> None:
    """Print the best cosine of no-answer queries against answered ones, and what a floor above them keeps."""
    snap = SearchService(root).snapshot()
    docs = semantic.vectors(snap)
    best: dict[bool, list[float]] = {True: [], False: []}
    for j in judged:
        vector = semantic.query_vector(j.query)
        found = semantic.nearest(docs, vector, 1) if vector is not None and docs is not None else []
        best[j.category == NO_ANSWER].append(found[0][1] if found else 0.0)
    # The lowest floor that no no-answer query's best hit reaches, and what it leaves of the others.
    floor = max(best[True]) + 0.001
    print(f"\nbest cosine of the top dense hit: no-answer {_spread(best[True])}; answered {_spread(best[False])}")
    print(f"  a floor of {floor:.3f} (above every no-answer query's best) is passed by the best hit of "
          f"{sum(v >= floor for v in best[False])} of {len(best[False])} answered queries")


def _spread(values: Sequence[float]) -> str:
    ordered = sorted(values)
    return f"min {ordered[0]:.3f} median {ordered[len(ordered) // 2]:.3f} max {ordered[-1]:.3f}"


# -- more like this -------------------------------------------------------------------------------


def mlt_pairs(judged: Sequence[Judged]) -> list[tuple[str, dict[str, int]]]:
    """Return (source document, grades of the documents like it) from the hub's judgments."""
    pairs = []
    for j in judged:
        relevant = sorted((g, doc) for doc, g in j.grades.items() if g > 0)
        if len(relevant) < 3:
            continue
        source = relevant[-1][1]
        pairs.append((source, {doc: g for doc, g in j.grades.items() if doc != source and g > 0}))
    return pairs


def compare_mlt(root: Path, judged: Sequence[Judged], count: int = 5) -> None:
    """Print nDCG@count of the service's more-like-this and of vector neighbours on judged pairs."""
    from bench.relevance import ndcg

    service = SearchService(root)
    snap = service.snapshot()
    docs = semantic.vectors(snap)
    pairs = mlt_pairs(judged)
    totals = {"service more_like_this": 0.0, "vector neighbours": 0.0}
    seconds = dict.fromkeys(totals, 0.0)
    for source, grades in pairs:
        started = time.perf_counter()
        words = [str(d["id"]) for d in service.more_like_this(source, count)]
        seconds["service more_like_this"] += time.perf_counter() - started
        started = time.perf_counter()
        docnum = snap.searcher().document_number(id=source)
        vector = docs.matrix[docnum].astype("float32")
        found = semantic.nearest(docs, vector, count + 1)
        near = [str(snap.stored(d)["id"]) for d, _ in found if d != docnum][:count]
        seconds["vector neighbours"] += time.perf_counter() - started
        totals["service more_like_this"] += ndcg(words, grades, count)
        totals["vector neighbours"] += ndcg(near, grades, count)
    print(f"\nmore like this: {len(pairs)} judged pairs (a query's best document and the others judged relevant)")
    for name, total in totals.items():
        print(f"  {name:<24} nDCG@{count} {total / len(pairs):.3f}   {seconds[name] / len(pairs) * 1000:.2f} ms a document")


# -- the run --------------------------------------------------------------------------------------


def _report(title: str, judged: Sequence[Judged], summaries: Mapping[str, Mapping[str, Mapping[str, float]]]) -> None:
    print(f"\n{title}: {len(judged)} judged queries, nDCG@{DEPTH} / MRR / recall@{DEPTH}\n")
    print(table(judged, summaries))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the comparison and print its tables."""
    parser = argparse.ArgumentParser(prog="python -m bench.dense", description=__doc__.split("\n\n")[0])
    parser.add_argument("--cisi", type=Path, default=CISI, help="folder of CISI.ALL.gz, CISI.QRY.gz, CISI.REL.gz")
    parser.add_argument("--skip-cisi", action="store_true")
    parser.add_argument("--mlt", action="store_true", help="also compare more-like-this on judged pairs")
    args = parser.parse_args(argv)
    hub = load_judgments()
    with tempfile.TemporaryDirectory(prefix="bench-dense-") as tmp:
        root = Path(tmp) / "hub"
        build(root=root)
        _report("hub (seed corpus)", hub, evaluate(hub, systems(root)))
        floor_report(root, hub)
        if args.mlt:
            compare_mlt(root, hub)
        if not args.skip_cisi:
            docs, judged = load_cisi(args.cisi)
            corpus = Path(tmp) / "cisi.jsonl"
            corpus.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
            build([corpus], root=Path(tmp) / "cisi")
            _report(f"CISI ({len(docs)} documents)", judged, evaluate(judged, systems(Path(tmp) / "cisi", cut)))
    print(f"\nmeasures: {', '.join(MEASURES)}; rrf k={RRF_K} over the first {FUSE_DEPTH} of each")
    return 0


if __name__ == "__main__":
    sys.exit(main())

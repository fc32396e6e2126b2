"""Time 300 queries in-process on an index, and compare two runs' top 10s.

``.venv/bin/python -m bench.search_probe INDEX_DIR OUT.json`` prints p50/p95/mean and saves each
query's total and top 10 (ids and scores); the queries are drawn from the Debian corpus, or with
``--corpus seed`` from the bundled seed corpus (for an index built from it); ``--mix distinct``
draws them as the never-repeated HTTP mix of ``make bench`` does (words of one text, not
necessarily neighbours).  ``--compare A.json
B.json`` counts the queries whose top 10 differ, and in how many of those B's top 10 scores higher
in sum (B found hits A missed).  The result cache is off; everything else (term, score, token and
highlight caches) warms up as in a server, after 30 queries that are not timed.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import time

from bench.queries import corpus_records, distinct_queries, make_queries
from search.params import SearchParams
from search.service import SearchService


def run(index_dir: str, out: str, corpus: str = "debian", mix: str = "natural") -> None:
    records = corpus_records(corpus)
    queries = (distinct_queries if mix == "distinct" else make_queries)(records, 330, 7)
    del records
    gc.collect()
    service = SearchService(index_dir)
    service._results.size = 0  # every query computed, none answered from the result cache
    for q in queries[300:]:
        service.search(SearchParams(q=q))
    times, rows = [], []
    for q in queries[:300]:
        started = time.perf_counter()
        result = service.search(SearchParams(q=q))
        times.append((time.perf_counter() - started) * 1000)
        rows.append([q, result.total, [[hit.id, hit.score] for hit in result.hits]])
    times.sort()
    print(f"p50 {statistics.median(times):.2f} ms, p95 {times[int(len(times) * 0.95)]:.2f} ms, "
          f"mean {statistics.mean(times):.2f} ms")
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(rows, handle)


def compare(a: str, b: str) -> None:
    with open(a, encoding="utf-8") as fa, open(b, encoding="utf-8") as fb:
        first, second = json.load(fa), json.load(fb)
    differ = [(x, y) for x, y in zip(first, second) if [h[0] for h in x[2]] != [h[0] for h in y[2]]]
    better = sum(1 for x, y in differ if sum(h[1] for h in y[2]) > sum(h[1] for h in x[2]) + 1e-6)
    print(f"{len(differ)} of {len(first)} queries differ in their top 10; in {better} the second scores higher")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("paths", nargs=2)
    parser.add_argument("--compare", action="store_true")
    parser.add_argument("--corpus", choices=("debian", "seed"), default="debian")
    parser.add_argument("--mix", choices=("natural", "distinct"), default="natural")
    args = parser.parse_args()
    if args.compare:
        compare(*args.paths)
    else:
        run(*args.paths, corpus=args.corpus, mix=args.mix)

"""What the semantic signal costs at 64k documents: embedding, per-query work, worker memory.

Usage: ``.venv/bin/python -m bench.semantic_cost INDEX_DIR`` on an index built (with vectors) from
the Debian corpus.  Prints wall and CPU seconds (CPU time says more on a shared machine):

- embedding the corpus's documents (title and summary), documents/s;
- per query, over 300 Debian queries: query_vector, nearest (k=10 and k=100) and the cosines of
  the first 1,000 lexical candidates; and how many of the exact top 10 the coarse pass keeps;
- one process's resident memory before and after opening the snapshot's vectors and the model.
"""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path

import numpy as np

from bench.queries import make_queries
from bench.rss_probe import DEBIAN
from corpus.jsonl import load_jsonl
from index import vectors
from search import semantic
from search.params import SearchParams
from search.service import SearchService


def memory() -> str:
    """Return this process's resident memory: total, anonymous (its own) and file-backed (shareable)."""
    status = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
    mb = {key: int(status[key].split()[0]) // 1024 for key in ("VmRSS", "RssAnon", "RssFile")}
    return f"{mb['VmRSS']} MB ({mb['RssAnon']} anonymous, {mb['RssFile']} file-backed)"


def _timed(func, *args):
    wall, cpu = time.perf_counter(), time.process_time()
    result = func(*args)
    return result, time.perf_counter() - wall, time.process_time() - cpu


def main(index_dir: str) -> None:
    records = list(load_jsonl(DEBIAN))
    queries = make_queries(records, 300, 7)
    texts = [vectors.document_text(r) for r in records]
    del records
    gc.collect()
    base = memory()
    service = SearchService(index_dir)
    snap = service.snapshot()
    service.search(SearchParams(q="python library"))
    lexical = memory()
    docs = semantic.vectors(snap)
    if docs is None:
        raise SystemExit(f"{index_dir} has no vectors of the installed model")
    semantic.nearest(docs, semantic.query_vector("python library"), 10)
    loaded = memory()

    costs = {"query_vector": [0.0, 0.0], "nearest k=10": [0.0, 0.0], "nearest k=100": [0.0, 0.0],
             "cosines of 1,000 candidates": [0.0, 0.0]}
    vectors_of_queries = []
    candidates = np.sort(np.random.default_rng(7).choice(len(docs.live), 1000, replace=False))
    for q in queries:
        vector, wall, cpu = _timed(semantic.query_vector, q)
        costs["query_vector"][0] += wall
        costs["query_vector"][1] += cpu
        if vector is None:
            continue
        for k in (10, 100):
            found, wall, cpu = _timed(semantic.nearest, docs, vector, k)
            costs[f"nearest k={k}"][0] += wall
            costs[f"nearest k={k}"][1] += cpu
            if k == 10:
                vectors_of_queries.append((vector, {d for d, _ in found}))
        _, wall, cpu = _timed(semantic.cosines, docs, vector, candidates)
        costs["cosines of 1,000 candidates"][0] += wall
        costs["cosines of 1,000 candidates"][1] += cpu
    after = memory()
    matrix = docs.matrix.astype(np.float32)
    kept = [len(set(np.argsort(-(matrix @ v), kind="stable")[:10].tolist()) & found) for v, found in vectors_of_queries]
    print(f"{len(docs.live):,} rows, {int(docs.live.sum()):,} with a vector; {len(queries)} queries")
    for name, (wall, cpu) in costs.items():
        print(f"  {name:<28} {wall / len(queries) * 1000:7.2f} ms wall, {cpu / len(queries) * 1000:7.2f} ms CPU a query")
    print(f"  coarse pass keeps {np.mean(kept):.2f} of the exact top 10 on average (min {min(kept)})")
    print(f"RSS: {base} before; {lexical} after a lexical search;\n     {loaded} with vectors and model; "
          f"{after} after the queries")

    encoder = vectors.Encoder.load()
    _, wall, cpu = _timed(encoder.embed, texts)
    print(f"embedding {len(texts):,} documents: {wall:.2f} s wall ({len(texts) / wall:,.0f} documents/s), "
          f"{cpu:.2f} s CPU ({len(texts) / cpu:,.0f} documents per CPU second)")


if __name__ == "__main__":
    main(sys.argv[1])

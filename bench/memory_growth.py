"""How one process's memory grows as it answers unseen 64k queries, and what the allocator gives back.

    .venv/bin/python -m bench.memory_growth INDEX_DIR [--count 6000]

asks ``SearchService.search`` (result cache on, as in a worker) *count* queries of the natural mix,
then *count* of the never-repeated one (``bench.queries``, drawn from the Debian corpus), and prints
the process's memory (``bench.rss_probe.memory_mb``: RSS, PSS, USS, anonymous, file-backed) and the
bounded caches' fill after every 3,000, then after glibc's ``malloc_trim(0)`` (the pages the
caches' evictions freed, given back; ``web/gunicorn_conf.py`` does it every ``TRIM_EVERY`` answers).
A gunicorn worker adds some 10-15 MB of its own (gunicorn, gevent, Flask, the metrics).
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import os
import time
from collections.abc import Sequence

from bench.queries import distinct_queries, make_queries
from bench.rss_probe import DEBIAN, memory_mb
from corpus.jsonl import load_jsonl
from search.params import SearchParams
from search.service import SearchService

REPORT_EVERY = 3000


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index_dir")
    parser.add_argument("--count", type=int, default=6000, help="queries of each mix (default 6000)")
    args = parser.parse_args(argv)
    records = list(load_jsonl(DEBIAN))
    queries = make_queries(records, args.count, 8) + distinct_queries(records, args.count, 9)
    del records
    gc.collect()
    service = SearchService(args.index_dir)
    started = time.perf_counter()
    for number, q in enumerate(queries, 1):
        service.search(SearchParams(q=q)).to_json()
        if number % REPORT_EVERY == 0:
            snap = service.snapshot()
            print(f"{number:,} queries: {memory_mb(os.getpid())}; term scores {snap.term_scores.size_bytes / 2**20:.1f} MB,"
                  f" phrases {snap.phrases.total:,}, match sets {snap.query_docs.total:,}, scores {snap.query_scores.total:,}"
                  f" documents kept", flush=True)
    print(f"{len(queries):,} queries in {time.perf_counter() - started:.1f} s")
    trimmed = time.perf_counter()
    ctypes.CDLL(None).malloc_trim(0)
    print(f"after malloc_trim(0) ({(time.perf_counter() - trimmed) * 1e3:.1f} ms): {memory_mb(os.getpid())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

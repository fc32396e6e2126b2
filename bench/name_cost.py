"""What looking up a query as a document's name costs (``Snapshot.named``, docs/relevance.md).

    .venv/bin/python -m bench.name_cost INDEX_DIR [--corpus seed|debian] [--rounds 3]

prints, over the queries of ``make bench``'s unique mix (``bench.queries.make_queries``):

- the look-up alone, µs a query (``time.process_time`` over the whole mix), with the snapshot's set of
  ids (``IDS_KEPT_DOCS``: snapshots of at most 10,000 documents keep one) and through Whoosh's term
  table only;
- a whole search, CPU µs a search with the result cache off, with the look-up and with it switched
  off, each side in a fresh process (4,000 queries after 1,000 untimed ones), the sides alternating
  for *rounds* rounds: the look-up's place in a search, caches and all.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

_SWITCH = "BENCH_NAME_COST_OFF"


def _queries(corpus: str, count: int) -> list[str]:
    from bench.queries import corpus_records, make_queries

    return make_queries(corpus_records(corpus), count, 11)


def look_ups(index_dir: str, corpus: str) -> dict[str, float]:
    """Return the look-up's µs a query, with the set of ids and through the term table only."""
    import search.snapshot as snapshot_module
    from search.service import SearchService

    queries = _queries(corpus, 9000)
    out = {}
    for label, kept in (("with the set of ids", snapshot_module.IDS_KEPT_DOCS), ("term table only", 0)):
        snapshot_module.IDS_KEPT_DOCS = kept
        snap = SearchService(index_dir).snapshot()
        snap.named("warm up")  # the namespace and the set, once a snapshot
        started = time.process_time()
        for query in queries:
            snap.named(query)
        out[label] = (time.process_time() - started) / len(queries) * 1e6
    return out


def one_side(index_dir: str, corpus: str) -> float:
    """Return CPU µs a search over 4,000 unseen queries after 1,000 (in this process)."""
    from search import semantic
    from search.params import SearchParams
    from search.service import SearchService
    from search.snapshot import Snapshot

    if os.environ.get(_SWITCH):
        Snapshot.named = lambda self, text: None  # type: ignore[method-assign]
    semantic.query_vector("warm up")
    service = SearchService(index_dir)
    service._results.size = 0  # every search computed
    queries = _queries(corpus, 5000)
    for query in queries[:1000]:
        service.search(SearchParams(q=query)).to_json()
    started = time.process_time()
    for query in queries[1000:]:
        service.search(SearchParams(q=query)).to_json()
    return (time.process_time() - started) / len(queries[1000:]) * 1e6


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index_dir")
    parser.add_argument("--corpus", choices=("seed", "debian"), default="seed")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--side", action="store_true", help=argparse.SUPPRESS)  # one run, in a child process
    args = parser.parse_args(argv)
    if args.side:
        print(f"{one_side(args.index_dir, args.corpus):.1f}")
        return 0
    for label, micros in look_ups(args.index_dir, args.corpus).items():
        print(f"look-up alone, {label}: {micros:.1f} µs a query")
    command = [sys.executable, "-m", "bench.name_cost", args.index_dir, "--corpus", args.corpus, "--side"]
    cwd = Path(__file__).resolve().parent.parent
    sides: dict[str, list[float]] = {"with names": [], "without": []}
    for n in range(args.rounds):
        order = ("with names", "without") if n % 2 == 0 else ("without", "with names")
        for label in order:
            env = dict(os.environ, **({_SWITCH: "1"} if label == "without" else {}))
            run = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=True)
            sides[label].append(float(run.stdout.strip()))
    for label, runs in sides.items():
        print(f"whole search, {label}: median {statistics.median(runs):.1f} µs CPU a search (runs {', '.join(f'{r:.1f}' for r in runs)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

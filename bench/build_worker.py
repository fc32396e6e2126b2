"""Build one index in a process of its own and print its figures as JSON (run by bench.run).

Run in a fresh process so that its peak memory (``ru_maxrss``, plus that of any indexing
subprocesses it started) is the build's own.  The service's build embeds the documents too (as
``topichub build`` does) unless ``TOPICHUB_SEMANTIC=0``; ``vectors`` says whether it did.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

from bench import fts5
from corpus.sources import load_corpus
from index import store
from index.build import build_corpus


def _dedupe(records):
    by_id = {}
    for record in records:
        by_id.pop(record.id, None)  # a repeated id replaces the earlier one, as the indexer does
        by_id[record.id] = record
    return list(by_id.values())


def _cpu_seconds() -> float:
    """Return the user + system CPU seconds of this process and of its finished children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main(argv: list[str] | None = None) -> int:
    """Build the index named by the arguments and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("engine", choices=("service", "fts5"))
    parser.add_argument("target", type=Path, help="index folder (service) or database file (fts5)")
    parser.add_argument("sources", nargs="+", type=Path)
    parser.add_argument("--procs", type=int, default=1)
    args = parser.parse_args(argv)

    load_started = time.perf_counter()
    corpus = load_corpus(args.sources)
    load_seconds = time.perf_counter() - load_started
    # CPU time, not wall time, is what compares two builds on a machine shared with other work.
    cpu_started = _cpu_seconds()
    if args.engine == "service":
        report = build_corpus(corpus, args.target, procs=args.procs)
        docs, seconds, size = report.doc_count, report.seconds, report.size_bytes
        vectors = store.read_meta(Path(report.path)).get("semantic") is not None
    else:
        started = time.perf_counter()
        docs = fts5.create(args.target, _dedupe(corpus.records))
        seconds = time.perf_counter() - started
        size = args.target.stat().st_size
        vectors = False
    cpu_seconds = _cpu_seconds() - cpu_started
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    json.dump(
        {
            "engine": args.engine,
            "docs": docs,
            "load_seconds": round(load_seconds, 3),
            "seconds": round(seconds, 3),
            "docs_per_second": round(docs / seconds, 1) if seconds else 0.0,
            "cpu_seconds": round(cpu_seconds, 3),
            "vectors": vectors,
            "size_bytes": size,
            "peak_rss_mb": round(own / 1024, 1),
            "peak_rss_children_mb": round(children / 1024, 1),
        },
        sys.stdout,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

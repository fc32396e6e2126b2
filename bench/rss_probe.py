"""Print one process's memory (VmRSS) and mean search time over 300 Debian queries on an index.

Usage: ``.venv/bin/python -m bench.rss_probe INDEX_DIR`` (an index built from the Debian corpus).
"""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path

from bench.queries import make_queries
from bench.servers import REPO
from corpus.jsonl import load_jsonl
from search.params import SearchParams
from search.service import SearchService

DEBIAN = REPO.parent / "shared" / "corpora" / "debian-packages.jsonl.gz"


def rss_mb() -> int:
    """Return this process's resident memory in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def main(index_dir: str) -> None:
    records = list(load_jsonl(DEBIAN))
    queries = make_queries(records, 300, 7)
    del records
    gc.collect()
    base = rss_mb()
    service = SearchService(index_dir)
    service.search(SearchParams(q="python library"))
    first = rss_mb()
    started = time.perf_counter()
    for q in queries:
        service.search(SearchParams(q=q))
    mean_ms = (time.perf_counter() - started) / len(queries) * 1000
    print(f"{index_dir}: RSS {base} MB before, {first} MB after the first search, "
          f"{rss_mb()} MB after 300 more; {mean_ms:.1f} ms a search")


if __name__ == "__main__":
    main(sys.argv[1])

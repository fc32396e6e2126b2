"""Print one process's memory (RSS, PSS, USS) and mean search time over 300 Debian queries on an index.

Usage: ``.venv/bin/python -m bench.rss_probe INDEX_DIR`` (an index built from the Debian corpus).
"""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path

from bench import positional
from bench.queries import make_queries
from bench.servers import REPO
from corpus.jsonl import load_jsonl
from search.params import SearchParams
from search.service import SearchService

DEBIAN = REPO.parent / "shared" / "corpora" / "debian-packages.jsonl.gz"


def memory_mb(pid: int | str = "self") -> dict[str, float]:
    """Return a process's memory in MB: resident (rss), its share of what it shares (pss), its own (uss).

    Also the resident anonymous part (anon) and the rest (file: mapped files, such as the snapshot's
    vectors, which every worker and the page cache share).  RSS counts a shared page in full in each
    process; PSS divides it among them; USS leaves it out.
    """
    fields: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":", 1)
        fields[name] = int(value.split()[0]) / 1024
    figures = {
        "rss": fields["Rss"],
        "pss": fields["Pss"],
        "uss": fields["Private_Clean"] + fields["Private_Dirty"],
        "anon": fields["Anonymous"],
        "file": fields["Rss"] - fields["Anonymous"],
    }
    return {name: round(value, 1) for name, value in figures.items()}


def _shown(memory: dict[str, float]) -> str:
    return f"RSS {memory['rss']:.0f} MB (PSS {memory['pss']:.0f}, USS {memory['uss']:.0f}, anonymous {memory['anon']:.0f})"


def main(index_dir: str) -> None:
    records = list(load_jsonl(DEBIAN))
    queries = make_queries(records, 300, 7)
    del records
    gc.collect()
    base = memory_mb()
    service = SearchService(index_dir)
    service.search(SearchParams(q="python library"))
    first = memory_mb()
    started = time.perf_counter()
    for q in queries:
        service.search(SearchParams(q=q))
    mean_ms = (time.perf_counter() - started) / len(queries) * 1000
    print(f"{index_dir}: {_shown(base)} before,\n  {_shown(first)} after the first search,\n  "
          f"{_shown(memory_mb())} after 300 more; {mean_ms:.1f} ms a search")


if __name__ == "__main__":
    main(positional(sys.argv[1:], "bench.rss_probe INDEX_DIR")[0])

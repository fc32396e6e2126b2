"""How far one host goes: documents, memory per worker and requests/s per core, at 64k and 256k.

Builds the Debian corpus (64k documents) and four copies of it (256k) with the service, serves each
under gunicorn with 1 and then 2 sync workers, loads it with wrk (the unique and the repeated query
mix of ``make bench``) and reads the workers' memory after the load.  With one worker, one core
answers: its requests/s are the figure per core.  Prints a Markdown table and the JSON.

Usage: ``.venv/bin/python -m bench.host_capacity [--duration 10] [--workers 1 2] [--copies 1 4]``
(reads ../shared/corpora/debian-packages.jsonl.gz; about 4 minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
from pathlib import Path

from bench.queries import api_paths, make_queries, repeated_mix
from bench.run import DEBIAN, UNIQUE_POOL, WARMUP_QUERIES, _large_copy, build, wrk
from bench.servers import SERVICE_APP, gunicorn, rss_mb
from corpus.sources import load_corpus


def measure(sources: tuple[Path, ...], work: Path, label: str, workers: list[int], duration: int,
            seed: int = 7) -> dict[str, object]:
    """Build *sources*, then serve and load them with each worker count; return the figures."""
    index_root = work / f"{label}-index"
    built = build("service", index_root, sources, os.cpu_count() or 1)
    records = load_corpus(sources).records
    queries = make_queries(records, UNIQUE_POOL, seed + 1)
    mixes = {"unique": api_paths(queries), "repeated": api_paths(repeated_mix(queries, 5000, seed + 2))}
    out: dict[str, object] = {"docs": built["docs"], "index_mb": round(built["size_bytes"] / 1e6, 1), "runs": {}}
    for count in workers:
        log = work / f"gunicorn-{label}-{count}.log"
        with gunicorn(SERVICE_APP, {"TOPICHUB_INDEX_DIR": str(index_root)}, count, log) as server:
            wrk(server.base, api_paths(queries[-WARMUP_QUERIES:]), work, f"{label}-warm", 2, 1, 4)
            run = {mix: wrk(server.base, paths, work, f"{label}-{count}-{mix}", duration, 1, 4)
                   for mix, paths in mixes.items()}
            run["worker_rss_mb"] = max(rss_mb(pid) for pid in server.worker_pids())
        out["runs"][count] = run
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--copies", type=int, nargs="+", default=[1, 4], help="copies of the 64k corpus")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="topichub-capacity-"))
    results: dict[str, object] = {"load_average_at_start": os.getloadavg(), "cores": os.cpu_count()}
    try:
        for copies in args.copies:
            sources = (DEBIAN,) if copies == 1 else (_large_copy(work, copies),)
            results[f"{64 * copies}k"] = measure(sources, work, f"{64 * copies}k", args.workers, args.duration)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    results["load_average_at_end"] = os.getloadavg()
    print("| corpus | documents | workers | unique requests/s | repeated requests/s | RSS per worker, MB |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, figures in results.items():
        if not isinstance(figures, dict):
            continue
        for count, run in figures["runs"].items():
            print(f"| {label} | {figures['docs']:,} | {count} | {run['unique']['rps']:,.0f} | "
                  f"{run['repeated']['rps']:,.0f} | {run['worker_rss_mb']:.0f} |")
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

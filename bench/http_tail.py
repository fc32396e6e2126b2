"""Where a slow HTTP request waits: wrk's latency beside the app's own time on the access lines.

    .venv/bin/python -m bench.http_tail SEED_INDEX_DIR [--mix unique|distinct] [-- GUNICORN_ARGS...]

serves the service on the seed index under gunicorn as ``make bench`` does (2 workers, the
service's config, plus GUNICORN_ARGS such as ``--worker-class sync``), warms it for 2 s, runs one
10-second wrk mix (1 thread, 4 connections) and prints wrk's requests/s and p50 / p90 / p99 beside
the p50 / p99 / p99.9 / max of the requests' ``duration_ms`` (time inside the app) on the access
lines.  A p99 far above the app's own is time spent outside it: in gunicorn, the event loop, the
socket or the scheduler.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Sequence
from pathlib import Path

from bench.queries import api_paths, distinct_queries, make_queries
from bench.run import DISTINCT_POOL, UNIQUE_POOL, WARMUP_QUERIES, wrk
from bench.servers import SERVICE_APP, gunicorn
from corpus.sources import load_corpus


def durations(log: Path, last: int) -> list[float]:
    """Return the ``duration_ms`` of the last *last* access lines in *log*, ascending."""
    found = []
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("{") and '"duration_ms"' in line:
            try:
                found.append(float(json.loads(line)["duration_ms"]))
            except (ValueError, KeyError):
                continue
    return sorted(found[-last:])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index_dir")
    parser.add_argument("--mix", choices=("unique", "distinct"), default="unique")
    parser.add_argument("gunicorn_args", nargs="*", help="after --: more gunicorn arguments")
    args = parser.parse_args(argv)
    records = list(load_corpus().records)
    queries = make_queries(records, UNIQUE_POOL, 8)
    paths = api_paths(queries if args.mix == "unique" else distinct_queries(records, DISTINCT_POOL, 10, exclude=queries))
    with tempfile.TemporaryDirectory(prefix="http-tail-") as tmp:
        work = Path(tmp)
        log = work / "gunicorn.log"
        env = {"TOPICHUB_INDEX_DIR": str(Path(args.index_dir).resolve())}
        with gunicorn(SERVICE_APP, env, 2, log, extra_args=tuple(args.gunicorn_args)) as server:
            wrk(server.base, api_paths(queries[-WARMUP_QUERIES:]), work, "warm", 2, 1, 4)
            run = wrk(server.base, paths, work, args.mix, 10, 1, 4)
        inside = durations(log, int(run["requests"]))
    print(f"wrk ({args.mix}): {run['rps']:,.0f} requests/s, p50 / p90 / p99 {run['p50_ms']} / {run['p90_ms']} / {run['p99_ms']} ms")
    if inside:
        at = lambda share: inside[min(len(inside) - 1, int(len(inside) * share))]  # noqa: E731
        print(f"inside the app ({len(inside):,} access lines): p50 {at(0.5)} / p99 {at(0.99)} / p99.9 {at(0.999)} / max {inside[-1]} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
